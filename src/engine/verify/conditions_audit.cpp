// Comparing the ten conditions across benchmark results (conditions_audit.hpp).
#include "kspeed/engine/verify/conditions_audit.hpp"

#include <algorithm>

namespace kspeed::engine {

std::string_view to_string(ConditionStatus status) {
  switch (status) {
    case ConditionStatus::stated:
      return "stated";
    case ConditionStatus::partial:
      return "partial";
    case ConditionStatus::omitted:
      return "omitted";
  }
  return "?";
}

ConditionEntry omitted_condition(std::string key) {
  ConditionEntry entry;
  entry.key = std::move(key);
  return entry;
}

Audit audit_conditions(std::vector<FileConditions> files) {
  Audit audit;
  audit.files = std::move(files);
  if (audit.files.size() < 2) return audit;
  const std::size_t keys = audit.files.front().conditions.size();
  for (std::size_t k = 0; k < keys; ++k) {
    ConditionComparison comparison;
    comparison.key = audit.files.front().conditions.at(k).key;
    const std::string* first_value = nullptr;
    for (const FileConditions& file : audit.files) {
      const ConditionEntry& entry = file.conditions.at(k);
      if (entry.status == ConditionStatus::omitted) {
        comparison.omitted_by.push_back(file.source);
        continue;
      }
      // A difference needs two files that both state the condition.
      if (first_value == nullptr) {
        first_value = &entry.compared;
      } else if (entry.compared != *first_value) {
        comparison.differs = true;
      }
    }
    if (comparison.differs) audit.differing.push_back(comparison.key);
    if (!comparison.omitted_by.empty()) audit.unchecked.push_back(comparison.key);
    audit.comparisons.push_back(std::move(comparison));
  }
  audit.comparable = audit.differing.empty();
  return audit;
}

}  // namespace kspeed::engine
