// CSV output of `kspeed roofline`: a header and one row per lever effect (each lever alone, then
// all together). Columns: the JSON's gpu fields as gpu_<key>, its kernel and position fields
// unprefixed, then the lever effect's fields as lever_<key>, then the warning codes.
#include "kspeed/report/csv.hpp"
#include "kspeed/report/roofline_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

using nlohmann::ordered_json;

class RooflineCsvReporter final : public Reporter<engine::RooflineResult> {
 public:
  void write(const engine::RooflineResult& result, std::ostream& out) const override {
    const ordered_json json = roofline_to_json(result);
    bool header_written = false;
    for (const auto& effect : json["lever_effects"]) {
      CsvRow row = common_columns(json);
      for (const auto& [key, value] : effect.items()) {
        row.add(key == "lever" ? std::string("lever") : "lever_" + key, value);
      }
      row.add("warnings", warning_codes(json["warnings"]));
      if (!header_written) {
        out << row.header_line();
        header_written = true;
      }
      out << row.value_line();
    }
  }

 private:
  static CsvRow common_columns(const ordered_json& json) {
    CsvRow row;
    row.add("schema_version", json["schema_version"]);
    for (const auto& [key, value] : json["gpu"].items()) {
      row.add("gpu_" + key, value);
    }
    for (const char* object : {"kernel", "position"}) {
      for (const auto& [key, value] : json[object].items()) {
        row.add(key, value);
      }
    }
    return row;
  }
  static std::string warning_codes(const ordered_json& warnings) {
    std::string codes;
    for (const auto& warning : warnings) {
      codes += (codes.empty() ? "" : ";") + warning["code"].get<std::string>();
    }
    return codes;
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_csv_reporter() {
  return std::make_unique<RooflineCsvReporter>();
}

}  // namespace kspeed::report
