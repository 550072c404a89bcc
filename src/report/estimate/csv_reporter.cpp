// CSV output of `kspeed estimate`: a header and one row; each column is a JSON field, its path
// joined with '_' (prefill.speedup -> prefill_speedup). Null is an empty cell.
#include "kspeed/report/csv.hpp"
#include "kspeed/report/estimate_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

using nlohmann::ordered_json;

// The scalar fields of these JSON objects become columns, in the JSON's order; nested objects
// (prefill.roofline) are flattened the same way. platform and levers appear only when known.
constexpr const char* kFlattenedObjects[] = {"inputs",   "prefill", "decode",
                                             "platform", "levers",  "request"};

void add_flattened(CsvRow& row, const std::string& column, const ordered_json& value) {
  if (!value.is_object()) {
    row.add(column, value);
    return;
  }
  for (const auto& [key, inner] : value.items()) {
    add_flattened(row, column + "_" + key, inner);
  }
}

class EstimateCsvReporter final : public Reporter<engine::Estimate> {
 public:
  void write(const engine::Estimate& estimate, std::ostream& out) const override {
    const ordered_json json = estimate_to_json(estimate);
    CsvRow row;
    row.add("schema_version", json["schema_version"]);
    row.add("workload_name", json["workload"]["name"]);
    for (const char* object : kFlattenedObjects) {
      if (!json.contains(object) || json[object].is_null()) {
        continue;
      }
      for (const auto& [key, value] : json[object].items()) {
        // inputs are unprefixed (prompt_tokens, ttft_ms), as in the JSON's inputs object
        add_flattened(row, std::string(object) == "inputs" ? key : std::string(object) + "_" + key,
                      value);
      }
    }
    row.add("conditions_missing", join(json["conditions_missing"], ";"));
    row.add("warnings", join_codes(json["warnings"]));
    out << row.header_line() << row.value_line();
  }

 private:
  static std::string join(const ordered_json& array, const char* separator) {
    std::string out;
    for (const auto& item : array) {
      out += (out.empty() ? "" : separator) + item.get<std::string>();
    }
    return out;
  }
  static std::string join_codes(const ordered_json& warnings) {
    std::string out;
    for (const auto& warning : warnings) {
      out += (out.empty() ? "" : ";") + warning["code"].get<std::string>();
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_csv_reporter() {
  return std::make_unique<EstimateCsvReporter>();
}

}  // namespace kspeed::report
