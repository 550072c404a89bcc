// `kspeed audit` for programs (docs/json-format.md, "kspeed audit"): per file its ten
// conditions; csv and jsonl get one record per file and condition.
#include "kspeed/report/reports.hpp"

namespace kspeed::report {

namespace {

ordered_json entry_json(const engine::ConditionEntry& entry) {
  ordered_json out;
  out["condition"] = entry.key;
  out["status"] = to_string(entry.status);
  out["value"] = entry.value.empty() ? ordered_json(nullptr) : ordered_json(entry.value);
  out["missing"] = entry.missing.empty() ? ordered_json(nullptr) : ordered_json(entry.missing);
  return out;
}

ordered_json string_array(const std::vector<std::string>& items) {
  ordered_json out = ordered_json::array();
  for (const std::string& item : items) out.push_back(item);
  return out;
}

}  // namespace

Document audit_document(const engine::Audit& audit) {
  Document document;
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["command"] = "audit";
  ordered_json files = ordered_json::array();
  for (const engine::FileConditions& file : audit.files) {
    ordered_json entry;
    entry["source"] = file.source;
    entry["format"] = file.format;
    ordered_json conditions = ordered_json::array();
    for (const engine::ConditionEntry& condition : file.conditions) {
      conditions.push_back(entry_json(condition));
      ordered_json record;
      record["schema_version"] = kSchemaVersion;
      record["source"] = file.source;
      record["format"] = file.format;
      flatten_into(record, "", conditions.back());
      document.records.push_back(record);
    }
    entry["conditions"] = conditions;
    files.push_back(entry);
  }
  tree["files"] = files;
  if (audit.files.size() >= 2) {
    tree["comparable"] = audit.comparable;
    tree["differing"] = string_array(audit.differing);
    tree["unchecked"] = string_array(audit.unchecked);
  } else {
    tree["comparable"] = nullptr;
    tree["differing"] = ordered_json::array();
    tree["unchecked"] = ordered_json::array();
  }
  return document;
}

}  // namespace kspeed::report
