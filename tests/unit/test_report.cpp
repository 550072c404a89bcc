// Renderers against exact strings.
#include <catch2/catch.hpp>
#include <sstream>

#include "kspeed/engine/scenario.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/csv.hpp"
#include "kspeed/report/estimate_report.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/table.hpp"

using namespace kspeed::report;

TEST_CASE("numbers for people", "[report]") {
  CHECK(human_speedup(1.7391) == "1.74×");
  CHECK(human_speedup(1.0989) == "1.10×");
  CHECK(human_speedup(6850.0 / 6805.0) == "1.0066×");
  CHECK(human_speedup(1.0) == "1.00×");
  CHECK(human_speedup(0.8) == "0.80×");
  CHECK(human_ceiling(std::nullopt) == "∞");
  CHECK(human_ceiling(1.0 / 0.15) == "6.67×");
  CHECK(human_ms(45.0) == "45.0 ms");
  CHECK(human_ms(500.0) == "500 ms");
  CHECK(human_ms(6850.0) == "6.85 s");
  CHECK(human_ms(0.25) == "0.250 ms");
  CHECK(human_ms(0.0) == "0 ms");
  CHECK(human_ms(-607.0) == "-607 ms");
  CHECK(human_percent(0.18) == "18.0%");
  CHECK(human_percent(500.0 / 6850.0) == "7.30%");
  CHECK(human_percent(0.0066) == "0.66%");
  CHECK(human_count(131072) == "131,072");
  CHECK(human_count(999) == "999");
  CHECK(human_count(1000000) == "1,000,000");
}

TEST_CASE("text and markdown tables share rows, differ in syntax", "[report]") {
  Table table;
  table.header = {"level", "speedup"};
  table.align = {Align::left, Align::right};
  table.rows = {{"prefill", "1.74×"}, {"request|all", "1.0066×"}};
  CHECK(render_text_table(table) ==
        "level        speedup\n"
        "prefill        1.74×\n"
        "request|all  1.0066×\n");
  CHECK(render_markdown_table(table) ==
        "| level | speedup |\n"
        "| --- | ---: |\n"
        "| prefill | 1.74× |\n"
        "| request\\|all | 1.0066× |\n");
  CHECK(display_width("1.74×") == 5);
}

TEST_CASE("CSV cells are quoted only when needed", "[report]") {
  CHECK(csv_escape("plain") == "plain");
  CHECK(csv_escape("a,b") == "\"a,b\"");
  CHECK(csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell(nlohmann::ordered_json(nullptr)).empty());
  CsvRow row;
  row.add("ceiling", nlohmann::ordered_json(nullptr));
  row.add("speedup", nlohmann::ordered_json(1.5));
  CHECK(row.header_line() == "ceiling,speedup\n");
  CHECK(row.value_line() == ",1.5\n");
}

TEST_CASE("estimate JSON carries full precision, sources and null ceilings", "[report]") {
  const auto workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const auto estimate = kspeed::engine::run_estimate(workload, {});
  const nlohmann::ordered_json json = estimate_to_json(estimate);
  CHECK(json["schema_version"] == 1);
  CHECK(json.begin().key() == "schema_version");  // stable key order
  CHECK(json["inputs"]["ttft_source"] == "workload");
  CHECK(json["prefill"]["share_source"] == "clamped");
  CHECK(json["prefill"]["speedup"].get<double>() == Approx(1.0 / 0.91));
  CHECK(json["decode"]["attention_share"].is_null());
  CHECK(json["request"]["time_before_ms"] == 6850.0);
  CHECK(json["chain"][0]["level"] == "prefill_attention");
  CHECK(json["chain"][0]["ceiling"].is_null());
  CHECK(json["chain"].back()["level"] == "request");
  CHECK(json["conditions_missing"].size() == 8);
  CHECK(json["warnings"][0]["code"] == "prefill_share_clamped");
}

TEST_CASE("every format renders the default estimate", "[report]") {
  const auto estimate =
      kspeed::engine::run_estimate(kspeed::io::load_workload("deepseek-r1-fp8"), {});
  for (Format format : {Format::text, Format::json, Format::csv, Format::markdown}) {
    std::ostringstream out;
    make_estimate_reporter(format, Style{})->write(estimate, out);
    INFO(out.str());
    CHECK(out.str().find(format == Format::text || format == Format::markdown
                             ? "1.0066×"
                             : "1.0066") != std::string::npos);
  }
  std::ostringstream csv;
  make_estimate_reporter(Format::csv, Style{})->write(estimate, csv);
  const std::string text = csv.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);  // a header and one row
  CHECK(text.rfind("schema_version,workload_name,prompt_tokens,", 0) == 0);
}

TEST_CASE("prose wraps at word boundaries with an indent", "[report]") {
  CHECK(wrap_text("a bb ccc dddd", 6, "  ") == "a bb\n  ccc\n  dddd\n");
  CHECK(wrap_text("short", 80) == "short\n");
  CHECK(wrap_text("1.74× 1.74× 1.74×", 11) == "1.74× 1.74×\n1.74×\n");
}
