#include "kspeed/profile/trace.hpp"

namespace kspeed::profile {

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kineto_json:
      return "kineto-json";
    case TraceFormat::nsys_sqlite:
      return "nsys-sqlite";
    case TraceFormat::nsys_stats_csv:
      return "nsys-stats-csv";
  }
  return "unknown";
}

std::uint32_t KernelNameTable::intern(std::string_view name) {
  // One lookup per kernel event: the map owns a copy of each distinct name only.
  auto [it, inserted] = ids_.try_emplace(std::string(name), 0U);
  if (inserted) {
    it->second = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
  }
  return it->second;
}

bool looks_like_step_annotation(std::string_view name) {
  return name.starts_with("execute_") || name.starts_with("step[") ||
         name.starts_with("[Executor] _forward_step") || name.starts_with("ProfilerStep#");
}

}  // namespace kspeed::profile
