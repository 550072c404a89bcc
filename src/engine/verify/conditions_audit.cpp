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

void AuditTally::add(const FileConditions& file) {
  if (keys_.empty()) {
    for (const ConditionEntry& entry : file.conditions) {
      KeyTally tally;
      tally.key = entry.key;
      keys_.push_back(std::move(tally));
    }
  }
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    KeyTally& tally = keys_[k];
    const ConditionEntry& entry = file.conditions.at(k);
    if (entry.status == ConditionStatus::omitted) {
      ++tally.omitted;
      continue;
    }
    // A difference needs two files that both state the condition.
    if (!tally.stated_once) {
      tally.stated_once = true;
      tally.first_compared = entry.compared;
    } else if (entry.compared != tally.first_compared) {
      tally.differs = true;
    }
  }
  ++files_;
}

Audit AuditTally::summary() const {
  Audit audit;
  audit.file_count = files_;
  if (files_ < 2) return audit;
  for (const KeyTally& tally : keys_) {
    ConditionComparison comparison;
    comparison.key = tally.key;
    comparison.differs = tally.differs;
    comparison.omitted = tally.omitted;
    if (comparison.differs) audit.differing.push_back(comparison.key);
    if (comparison.omitted > 0) audit.unchecked.push_back(comparison.key);
    audit.comparisons.push_back(std::move(comparison));
  }
  audit.comparable = audit.differing.empty();
  return audit;
}

Audit audit_conditions(std::vector<FileConditions> files) {
  AuditTally tally;
  for (const FileConditions& file : files) tally.add(file);
  Audit audit = tally.summary();
  audit.files = std::move(files);
  return audit;
}

}  // namespace kspeed::engine
