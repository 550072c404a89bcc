#include "kspeed/engine/workload.hpp"

#include <algorithm>

namespace kspeed::engine {

std::vector<std::string> missing_conditions(const Workload& workload) {
  std::vector<std::string> missing;
  for (const char* key : kConditionKeys) {
    const bool stated = std::any_of(workload.conditions.begin(), workload.conditions.end(),
                                    [key](const auto& entry) { return entry.first == key; });
    if (!stated) {
      missing.emplace_back(key);
    }
  }
  return missing;
}

}  // namespace kspeed::engine
