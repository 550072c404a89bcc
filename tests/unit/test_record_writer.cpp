// The streamed record writer: byte for byte what the json, jsonl and csv writers print for the
// same records built as ordered_json, in pieces of about a megabyte.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/record_writer.hpp"
#include "kspeed/report/reports.hpp"

namespace unit_record_writer {

using namespace kspeed;

namespace {

// Every kind of value, and text that needs escaping in JSON and quoting in CSV.
template <class Fields>
void sample_record(Fields& out, std::int64_t index) {
  out.integer("index", index);
  out.number("whole", 2.0);
  out.number("tiny", 1.5e-7);
  out.number("huge", 6.02e23);
  out.number("third", 1.0 / 3);
  out.number("not_finite", std::numeric_limits<double>::infinity());
  out.null("nothing");
  out.text("plain", "prefill");
  out.text("odd", "a \"quoted\", comma\n\x01 \xC2\xB5s \xFF");
}

std::string streamed(report::RecordFormat format, std::int64_t records, int* pieces = nullptr) {
  std::string text;
  report::RecordWriter writer(format, [&](std::string_view piece) {
    text += piece;
    if (pieces != nullptr) ++*pieces;
  });
  for (std::int64_t i = 0; i < records; ++i) {
    writer.begin();
    sample_record(writer, i);
    writer.end();
  }
  writer.finish();
  return text;
}

report::Report built(std::int64_t records) {
  report::Report report;
  for (std::int64_t i = 0; i < records; ++i) {
    report::JsonRecord record;
    sample_record(record, i);
    report.document.records.push_back(std::move(record.json()));
  }
  return report;
}

std::string rendered(const report::Report& report, const char* format) {
  return report::render(report, *report::parse_format(format), {});
}

}  // namespace

TEST_CASE("record writer: jsonl and csv equal the writers' output for the same records") {
  const report::Report report = built(3);
  CHECK(streamed(report::RecordFormat::jsonl, 3) == rendered(report, "jsonl"));
  CHECK(streamed(report::RecordFormat::csv, 3) == rendered(report, "csv"));
  // The numbers as nlohmann::json prints them: ".0" on whole numbers, exponents, null for inf.
  const std::string line = streamed(report::RecordFormat::jsonl, 1);
  CHECK(line.starts_with(R"({"index":0,"whole":2.0,"tiny":1.5e-07,"huge":6.02e+23,)"
                         R"("third":0.3333333333333333,"not_finite":null,"nothing":null,)"));
}

TEST_CASE("record writer: json rows are the rows array of a tree dumped with indent 2") {
  const report::Report report = built(2);
  report::ordered_json tree;
  tree["rows"] = report.document.records;
  const std::string expected =
      tree.dump(2, ' ', false, report::ordered_json::error_handler_t::replace);
  // "{\n  \"rows\": [\n" + rows + "\n  ]\n}"
  const std::string head = "{\n  \"rows\": [\n";
  const std::string tail = "\n  ]\n}";
  CHECK(head + streamed(report::RecordFormat::json_rows, 2) + tail == expected);
}

TEST_CASE("record writer: a large output arrives in pieces, the csv header first") {
  int pieces = 0;
  const std::string text = streamed(report::RecordFormat::csv, 20000, &pieces);
  CHECK(pieces > 1);
  CHECK(text == rendered(built(20000), "csv"));
  CHECK(text.starts_with("index,whole,tiny,huge,third,not_finite,nothing,plain,odd\n0,2.0,"));
}

TEST_CASE("write_sweep: byte for byte the json, jsonl and csv of sweep_document") {
  engine::EstimateOptions options;
  options.phase = engine::Phase::both;
  options.decode_share = 0.2;
  engine::SweepAxes axes;
  axes.prompt_tokens = {1024, 32768, 2097152};  // below, inside and above the share table
  axes.kernel_speedup = {1.5, 2};
  const engine::Sweep sweep =
      engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes);
  const report::Report report{{}, report::sweep_document(sweep)};
  const auto write = [&](report::RecordFormat format) {
    std::string text;
    report::write_sweep(sweep, format, [&](std::string_view piece) { text += piece; });
    return text;
  };
  CHECK(write(report::RecordFormat::json_rows) == rendered(report, "json"));
  CHECK(write(report::RecordFormat::jsonl) == rendered(report, "jsonl"));
  CHECK(write(report::RecordFormat::csv) == rendered(report, "csv"));
  CHECK(report.document.records.size() == 6);
}

}  // namespace unit_record_writer
