#include "kspeed/engine/chain/conditions.hpp"

#include <cctype>

namespace kspeed::engine {

std::optional<std::string> workload_model_label(const Workload& workload) {
  if (workload.model) {
    return workload.model;
  }
  for (const auto& [key, value] : workload.conditions) {
    if (key == "model") {
      return value;
    }
  }
  return std::nullopt;
}

bool same_model(const std::string& a, const std::string& b) {
  // "Llama-3.1-70B-Instruct" -> "llama3170binstruct"
  const auto key = [](const std::string& name) {
    std::string out;
    for (const char c : name) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    return out;
  };
  const std::string ka = key(a);
  const std::string kb = key(b);
  return !ka.empty() && !kb.empty() &&
         (ka.find(kb) != std::string::npos || kb.find(ka) != std::string::npos);
}

}  // namespace kspeed::engine
