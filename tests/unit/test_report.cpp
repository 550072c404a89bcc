// Renderers against exact strings.
#include <catch2/catch.hpp>
#include <sstream>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/table.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_report {

using namespace kspeed::report;

TEST_CASE("numbers for people", "[report]") {
  CHECK(human_speedup(1.7391) == "1.74×");
  CHECK(human_speedup(1.0989) == "1.10×");
  CHECK(human_speedup(6850.0 / 6805.0) == "1.0066×");
  CHECK(human_speedup(1.0) == "1.0000×");  // as near 1: beside 1.0001× it reads unchanged
  CHECK(human_speedup(1.0001) == "1.0001×");
  CHECK(human_speedup(0.8) == "0.80×");
  CHECK(human_ceiling(std::nullopt) == "∞");
  CHECK(human_ceiling(1.0 / 0.15) == "6.67×");
  CHECK(human_ms(45.0) == "45.0 ms");
  CHECK(human_ms(500.0) == "500 ms");
  CHECK(human_ms(6850.0) == "6.85 s");
  CHECK(human_ms(0.25) == "250 µs");
  CHECK(human_ms(0.134) == "134 µs");  // issue 20: "saved 0.134 ms" in the headline
  CHECK(human_ms(0.0004) == "0.400 µs");
  CHECK(human_ms(0.99996) == "1.00 ms");  // rounds up to the next unit, not "1000 µs"
  CHECK(human_ms(-0.5) == "-500 µs");
  CHECK(human_ms(0.0) == "0 ms");
  CHECK(human_ms(-607.0) == "-607 ms");
  CHECK(human_percent(0.18) == "18.0%");
  CHECK(human_percent(500.0 / 6850.0) == "7.30%");
  CHECK(human_percent(0.0066) == "0.66%");
  // Rounded to zero, a value prints without a sign (a pool's busy time saved of -1e-7).
  CHECK(human_percent(-1e-7) == "0.00%");
  CHECK(human_percent(-0.0) == "0.00%");
  CHECK(human_percent(-0.0001) == "-0.01%");
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
  Report report;
  report.view.table(table);
  CHECK(render(report, *parse_format("markdown"), Style{}) ==
        "| level | speedup |\n"
        "| --- | ---: |\n"
        "| prefill | 1.74× |\n"
        "| request\\|all | 1.0066× |\n");
  CHECK(display_width("1.74×") == 5);
}

TEST_CASE("CSV cells are quoted only when needed; jsonl keeps the types", "[report]") {
  Report report;
  report.document.records.push_back(
      {{"ceiling", nullptr}, {"speedup", 1.5}, {"name", "say \"hi\", a,b"}});
  CHECK(render(report, *parse_format("csv"), Style{}) ==
        "ceiling,speedup,name\n,1.5,\"say \"\"hi\"\", a,b\"\n");
  CHECK(render(report, *parse_format("jsonl"), Style{}) ==
        "{\"ceiling\":null,\"speedup\":1.5,\"name\":\"say \\\"hi\\\", a,b\"}\n");
}

TEST_CASE("JSON replaces bytes that are not UTF-8 instead of failing", "[report]") {
  Report report;
  report.document.tree = {{"kernel", std::string("attn\xff\xfe_kernel")}};
  report.document.records.push_back(report.document.tree);
  CHECK(render(report, *parse_format("json"), Style{}) ==
        "{\n  \"kernel\": \"attn\xef\xbf\xbd\xef\xbf\xbd_kernel\"\n}\n");
  CHECK(render(report, *parse_format("jsonl"), Style{}) ==
        "{\"kernel\":\"attn\xef\xbf\xbd\xef\xbf\xbd_kernel\"}\n");
}

TEST_CASE("estimate JSON carries full precision, sources and null ceilings", "[report]") {
  const auto workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const auto estimate = kspeed::engine::run_estimate(workload, {});
  const nlohmann::ordered_json json = estimate_document(estimate).tree;
  CHECK(json["schema_version"] == 4);
  CHECK(json.begin().key() == "schema_version");  // stable key order
  CHECK(json["inputs"]["ttft_ms_provenance"] == "illustrative");
  CHECK(json["workload"]["illustrative"] == true);
  CHECK(json["deployment"].is_null());
  CHECK(json["prefill"]["attention_share_provenance"] == "clamped");
  CHECK(json["prefill"]["speedup"].get<double>() == Approx(1.0 / 0.91));
  CHECK(json["decode"]["attention_share"].is_null());
  CHECK(json["request"]["time_before_ms"] == 6850.0);
  CHECK(json["chain"][0]["level"] == "prefill_attention");
  CHECK(json["chain"][0]["ceiling"].is_null());
  CHECK(json["chain"].back()["level"] == "request");
  CHECK(json["conditions_missing"].size() == 8);
  // The workload's own 1K prompt below the table: a note, not a warning (issue 11).
  CHECK(json["warnings"].empty());
  REQUIRE(json["notes"].size() == 1);
  CHECK(json["notes"][0]["code"] == "default_prompt_below_table");
}

TEST_CASE("every format renders the default estimate", "[report]") {
  const auto estimate =
      kspeed::engine::run_estimate(kspeed::io::load_workload("deepseek-r1-fp8"), {});
  const Report report = make_report(estimate, estimate_view, estimate_document);
  for (const std::string& name : format_names()) {
    const Format format = *parse_format(name);
    const std::string out = render(report, format, Style{});
    INFO(name << ": " << out);
    CHECK(out.find(format.for_people() ? "1.0066×" : "1.0066") != std::string::npos);
  }
  const std::string csv = render(report, *parse_format("csv"), Style{});
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 2);  // a header and one row
  CHECK(csv.rfind("schema_version,workload_name,prompt_tokens,", 0) == 0);
  const std::string jsonl = render(report, *parse_format("ndjson"), Style{});
  CHECK(std::count(jsonl.begin(), jsonl.end(), '\n') == 1);  // one object, one line
  CHECK(nlohmann::json::parse(jsonl)["request_speedup"].get<double>() ==
        Approx(1.0066).epsilon(1e-4));
  CHECK(report.view.warnings().empty());  // the 1K prompt below the table is a note
}

TEST_CASE("prose wraps at word boundaries with an indent", "[report]") {
  CHECK(wrap_text("a bb ccc dddd", 6, "  ") == "a bb\n  ccc\n  dddd\n");
  CHECK(wrap_text("short", 80) == "short\n");
  CHECK(wrap_text("1.74× 1.74× 1.74×", 11) == "1.74× 1.74×\n1.74×\n");
}

TEST_CASE("errors from the engine get their flags and numbers worded", "[report]") {
  const std::string message = kspeed::flag_mark("tp") + " " + kspeed::count_mark(16) + ": " +
                              kspeed::count_mark(131072) + " tokens in {weird}.json";
  CHECK(worded_error(message) == "--tp 16: 131,072 tokens in {weird}.json");
  CHECK(worded_error("no marks {") == "no marks {");
  CHECK(worded_error("share " + kspeed::number_mark(0.18) + ", " + kspeed::number_mark(-1)) ==
        "share 0.18, -1");
}

}  // namespace unit_report
