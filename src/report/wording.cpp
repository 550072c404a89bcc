#include "kspeed/report/wording.hpp"

#include "kspeed/report/human.hpp"

namespace kspeed::report {

std::string warning_sentence(const engine::Warning& warning) {
  return warning.message;
}

ordered_json warnings_json(const std::vector<engine::Warning>& warnings) {
  ordered_json out = ordered_json::array();
  for (const auto& warning : warnings) {
    out.push_back({{"code", warning.code}, {"message", warning_sentence(warning)}});
  }
  return out;
}

const char* bound_name(engine::Bound bound) {
  return bound == engine::Bound::memory ? "memory" : "compute";
}

const char* lever_kind_name(engine::LeverKind kind) {
  switch (kind) {
    case engine::LeverKind::compute:
      return "compute";
    case engine::LeverKind::bytes:
      return "bytes";
    case engine::LeverKind::bandwidth:
      return "bandwidth";
    case engine::LeverKind::combined:
      return "combined";
  }
  return "unknown";
}

std::string bandwidth_efficiency_text(const engine::Levers& levers) {
  return "bandwidth efficiency " + human_plain(levers.bandwidth_efficiency_before) + " → " +
         human_plain(levers.bandwidth_efficiency_after);
}

ordered_json levers_json(const engine::Levers& levers) {
  ordered_json out;
  out["compute_speedup"] = levers.compute_speedup;
  out["bytes_reduction"] = levers.bytes_reduction;
  out["bandwidth_efficiency_before"] = levers.bandwidth_efficiency_before;
  out["bandwidth_efficiency_after"] = levers.bandwidth_efficiency_after;
  out["compute_efficiency"] = levers.compute_efficiency;
  return out;
}

}  // namespace kspeed::report
