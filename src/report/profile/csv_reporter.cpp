// CSV output of `kspeed profile`: one row per file and phase (phase "all" is the whole trace),
// then, with several files, one row per phase across them (source "aggregate"). Columns are
// JSON fields; shares are fractions, times ns.
#include "kspeed/report/csv.hpp"
#include "kspeed/report/profile_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

using nlohmann::ordered_json;

void add_shares(CsvRow& row, const ordered_json& shares) {
  row.add("share_core", shares["core"]);
  row.add("share_core_kv", shares["core_kv"]);
  row.add("share_core_kv_rope", shares["core_kv_rope"]);
}

CsvRow phase_row(const ordered_json& document, const ordered_json& file,
                 const ordered_json& phase) {
  CsvRow row;
  row.add("schema_version", document["schema_version"]);
  row.add("source", file["source"]);
  row.add("format", file["format"]);
  row.add("gpu", file["gpu"]);
  row.add("engine", file["engine"]);
  row.add("rank", file["rank"]);
  row.add("phase", phase["phase"]);
  row.add("share_source", phase["share_source"]);
  row.add("denominator", document["denominator"]);
  row.add("steps", phase["steps"]);
  row.add("context_tokens", phase["context_tokens"]);
  row.add("generation_tokens", phase["generation_tokens"]);
  row.add("kernel_count", phase["kernel_count"]);
  row.add("denominator_ns", phase["denominator_ns"]);
  add_shares(row, phase["shares"]);
  for (const auto& [name, ns] : phase["class_time_ns"].items()) row.add(name + "_ns", ns);
  return row;
}

CsvRow aggregate_row(const ordered_json& document, const ordered_json& spread) {
  CsvRow row;
  row.add("schema_version", document["schema_version"]);
  row.add("source", std::string("aggregate"));
  row.add("format", ordered_json(nullptr));
  row.add("gpu", ordered_json(nullptr));
  row.add("engine", ordered_json(nullptr));
  row.add("rank", ordered_json(nullptr));
  row.add("phase", spread["phase"]);
  row.add("share_source", std::string("measured"));
  row.add("denominator", document["denominator"]);
  row.add("steps", spread["steps"]);
  row.add("context_tokens", ordered_json(nullptr));
  row.add("generation_tokens", ordered_json(nullptr));
  row.add("kernel_count", ordered_json(nullptr));
  row.add("denominator_ns", spread["denominator_ns"]);
  add_shares(row, spread["shares"]);
  for (const char* name : {"attention_core", "kv_write", "rope", "attention_metadata", "other"}) {
    row.add(std::string(name) + "_ns", ordered_json(nullptr));
  }
  return row;
}

class ProfileCsvReporter final : public ProfileReporter {
 public:
  void write(const profile::ProfileResult& result, std::ostream& out) const override {
    const ordered_json document = profile_to_json(result);
    bool header = true;
    auto emit = [&](const CsvRow& row) {
      if (header) out << row.header_line();
      header = false;
      out << row.value_line();
    };
    for (const auto& file : document["files"]) {
      for (const auto& phase : file["phases"]) emit(phase_row(document, file, phase));
      emit(phase_row(document, file, file["whole_trace"]));
    }
    for (const auto& spread : document["aggregate"]) emit(aggregate_row(document, spread));
  }
};

}  // namespace

std::unique_ptr<ProfileReporter> make_profile_csv_reporter() {
  return std::make_unique<ProfileCsvReporter>();
}

}  // namespace kspeed::report
