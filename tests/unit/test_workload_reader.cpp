#include <catch2/catch.hpp>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_workload_reader {

using namespace kspeed::io;
using kspeed::InputError;

namespace {
kspeed::engine::Workload parse(const std::string& text) {
  return parse_workload(text, "w.json");
}
}  // namespace

TEST_CASE("the built-in default workload is NVIDIA's DeepSeek-R1 table", "[workload]") {
  const auto workload = load_workload("deepseek-r1-fp8");
  CHECK(workload.name == "deepseek-r1-fp8");
  REQUIRE(workload.prefill_shares.size() == 2);
  CHECK(workload.prefill_shares[0].context_tokens == 4096);
  CHECK(workload.prefill_shares[0].share == 0.18);
  CHECK(workload.prefill_shares[1].context_tokens == 131072);
  CHECK(workload.prefill_shares[1].share == 0.85);
  CHECK(workload.request.prompt_tokens == 1024);
  CHECK(workload.request.response_tokens == 128);
  CHECK(workload.request.ttft_ms == 500.0);
  CHECK(workload.request.tpot_ms == 50.0);
  CHECK(workload.source.find("NVIDIA") != std::string::npos);
  // InferenceX's measured TTFT points (DeepSeek-R1 FP8, 8xH200, SGLang, concurrency 4)
  REQUIRE(workload.request.ttft_points.size() == 2);
  CHECK(workload.request.ttft_points[0].context_tokens == 1024);
  CHECK(workload.request.ttft_points[0].latency_ms == 267);
  CHECK(workload.request.ttft_points[1].context_tokens == 8192);
  CHECK(workload.request.ttft_points[1].latency_ms == 474);
  CHECK(workload.request.ttft_points_conditions.find("8xH200") != std::string::npos);
  CHECK(builtin_workload_names() == std::vector<std::string>{"deepseek-r1-fp8"});
}

TEST_CASE("a workload accepts suffixed strings and sorts its table", "[workload]") {
  const auto w = parse(R"({"name": "x",
    "request": {"prompt_tokens": "8k", "response_tokens": 4, "ttft_ms": "1.5s", "tpot_ms": 20},
    "attention_share": {"prefill": [{"context": "32k", "share": "60%"}, {"context": 2048, "share": 0.1}]},
    "conditions": {"engine": "vLLM", "model": "m"}})");
  CHECK(w.request.prompt_tokens == 8192);
  CHECK(w.request.ttft_ms == 1500.0);
  REQUIRE(w.prefill_shares.size() == 2);
  CHECK(w.prefill_shares[0].context_tokens == 2048);
  CHECK(w.prefill_shares[1].share == Approx(0.6));
  // Conditions in checklist order, whatever the file's order.
  REQUIRE(w.conditions.size() == 2);
  CHECK(w.conditions[0].first == "model");
  CHECK(w.conditions[1].first == "engine");
}

TEST_CASE("every field is optional, so a shares-only workload parses", "[workload]") {
  const auto w = parse(R"({"attention_share": {"prefill": [{"context": 4096, "share": 0.2}]}})");
  CHECK_FALSE(w.request.ttft_ms.has_value());
  CHECK(w.prefill_shares.size() == 1);
}

TEST_CASE("bad workloads fail with the place and the fix", "[workload]") {
  CHECK_THROWS_WITH(parse(""), Catch::Contains("empty"));
  CHECK_THROWS_WITH(parse(std::string("{\0}", 3)), Catch::Contains("binary"));
  CHECK_THROWS_WITH(parse("{\"name\": \"x\","),
                    Catch::Contains("w.json:1:") && Catch::Contains("ends early"));
  CHECK_THROWS_WITH(parse("[1, 2"), Catch::Contains("ends early"));
  CHECK_THROWS_WITH(parse("{\"name\": nope}"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse(std::string(40, '[') + std::string(40, ']')), Catch::Contains("nesting"));
  CHECK_THROWS_WITH(parse("[]"), Catch::Contains("expected an object, found an array"));
  CHECK_THROWS_WITH(parse(R"({"nmae": "x"})"), Catch::Contains("did you mean 'name'"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft": 5}})"),
                    Catch::Contains("request.ttft") && Catch::Contains("did you mean 'ttft_ms'"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft_ms": "fast"}})"),
                    Catch::Contains("request.ttft_ms"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft_ms": -3}})"), Catch::Contains("greater than 0"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft_points": 5}})"),
                    Catch::Contains("request.ttft_points") && Catch::Contains("array"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft_points": [{"prompt": "8k"}]}})"),
                    Catch::Contains("request.ttft_points[0]") && Catch::Contains("ttft_ms"));
  CHECK_THROWS_WITH(parse(R"({"request": {"ttft_points": [{"prompt": 8, "ttft": 4}]}})"),
                    Catch::Contains("did you mean 'ttft_ms'"));
  CHECK_THROWS_WITH(parse(R"({"request": {"prompt_tokens": 1.5}})"),
                    Catch::Contains("whole number"));
  CHECK_THROWS_WITH(parse(R"({"request": {"prompt_tokens": 0}})"), Catch::Contains("at least 1"));
  CHECK_THROWS_WITH(parse(R"({"attention_share": {"prefill": {"context": 1}}})"),
                    Catch::Contains("expected an array"));
  CHECK_THROWS_WITH(parse(R"({"attention_share": {"prefill": [{"context": 4096, "share": 0}]}})"),
                    Catch::Contains("strictly between 0 and 1"));
  CHECK_THROWS_WITH(parse(R"({"attention_share": {"prefill": [{"context": 4096, "share": 1.0}]}})"),
                    Catch::Contains("strictly between 0 and 1"));
  CHECK_THROWS_WITH(parse(R"({"attention_share": {"decode": [{"context": 4096, "share": 0.1},
                                                {"context": "4k", "share": 0.2}]}})"),
                    Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(parse(R"({"attention_share": {"prefill": [{"share": 0.1}]}})"),
                    Catch::Contains("missing required key 'context'"));
  CHECK_THROWS_WITH(parse(R"({"conditions": {"gpu": "H100"}})"),
                    Catch::Contains("unknown key 'gpu'"));
}

TEST_CASE("load_workload tells files from built-in names", "[workload]") {
  CHECK_THROWS_WITH(load_workload("deepseek-r1-fp9"), Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(load_workload("no/such.json"), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(load_workload("/"), Catch::Contains("folder"));
}

TEST_CASE("share_origin marks tables measured from a trace", "[workload]") {
  const auto measured = parse(R"({"share_origin": "measured",
    "attention_share": {"prefill": [{"context": 4096, "share": 0.2}]}})");
  CHECK(measured.share_origin == kspeed::engine::Source::measured);
  CHECK(parse("{}").share_origin == kspeed::engine::Source::workload);
  CHECK_THROWS_WITH(parse(R"({"share_origin": "measurd"})"), Catch::Contains("did you mean"));
  kspeed::engine::EstimateOptions options;
  options.prompt_tokens = 4096;
  options.response_tokens = 2;
  options.ttft_ms = 100.0;
  options.tpot_ms = 10.0;
  const auto scenario = kspeed::engine::resolve_scenario(measured, options);
  CHECK(scenario.prefill_share.provenance == kspeed::engine::Source::measured);
}

TEST_CASE("an emitted workload's denominator and measured steps read back", "[workload]") {
  const auto workload = parse(R"({"share_denominator": "kernel-time", "batch": 32,
    "measured_steps": [{"phase": "decode", "context": 1025, "steps": 1, "kernel_ms": 9.77,
                        "busy_ms": 9.76, "wall_ms": 473.7, "batch": 32},
                       {"phase": "prefill", "steps": 2, "kernel_ms": 1, "busy_ms": 1,
                        "wall_ms": 2}]})");
  CHECK(workload.share_denominator == "kernel-time");
  REQUIRE(workload.measured_steps.size() == 2);
  CHECK(workload.measured_steps[0].phase == kspeed::engine::Phase::decode);
  CHECK(workload.measured_steps[0].context_tokens == 1025);
  CHECK(workload.measured_steps[0].wall_ms == Approx(473.7));
  CHECK(workload.measured_steps[0].batch == 32);
  CHECK(workload.measured_steps[1].context_tokens == 0);  // unstated
  CHECK_FALSE(workload.measured_steps[1].batch.has_value());
  CHECK_THROWS_WITH(parse(R"({"share_denominator": "kernel"})"),
                    Catch::Contains("share_denominator") && Catch::Contains("kernel-time"));
  CHECK_THROWS_WITH(parse(R"({"measured_steps": [{"phase": "mixed", "steps": 1, "kernel_ms": 1,
                             "busy_ms": 1, "wall_ms": 1}]})"),
                    Catch::Contains("measured_steps[0].phase"));
  CHECK_THROWS_WITH(parse(R"({"measured_steps": [{"phase": "decode", "steps": 1, "kernel_ms": -1,
                             "busy_ms": 1, "wall_ms": 1}]})"),
                    Catch::Contains("measured_steps[0].kernel_ms"));
  CHECK(parse("{}").share_denominator.empty());  // old workloads: both keys optional
}

TEST_CASE("workload format 2: every profiled step reads back; format 1 files still read",
          "[workload]") {
  const auto workload = parse(R"({"format_version": 2, "share_denominator": "wall-time",
    "profiled_from": "a.trace.json.gz",
    "measured_steps": [{"phase": "decode", "context": 1025, "steps": 1, "kernel_ms": 9.77,
                        "busy_ms": 9.76, "wall_ms": 473.7, "batch": 32, "profiler_gap_ms": 463.3}],
    "steps": [{"label": "step[MIXED]", "phase": "mixed", "prefill_requests": 2,
               "prefill_tokens": 1024, "decode_requests": 30, "decode_kv_tokens": 33000,
               "kernel_ms": 1.16, "busy_ms": 1.16, "wall_ms": 1.2, "profiler_gap_ms": 0,
               "time_ms": 1.2, "attention_ms": 0.26, "attention_kernel_ms": 0.26,
               "measures": ["ttft", "tpot"]}]})");
  CHECK(workload.profiled_from == "a.trace.json.gz");
  CHECK(workload.measured_steps[0].profiler_gap_ms == Approx(463.3));
  REQUIRE(workload.profiled_steps.size() == 1);
  const kspeed::engine::ProfiledStep& step = workload.profiled_steps[0];
  CHECK(step.label == "step[MIXED]");
  CHECK(step.phase == kspeed::engine::Phase::mixed);
  CHECK(step.prefill_requests == 2);
  CHECK(step.prefill_tokens == 1024);
  CHECK(step.decode_requests == 30);
  CHECK(step.decode_kv_tokens == 33000);
  CHECK(step.time_ms == Approx(1.2));
  CHECK(step.attention_ms == Approx(0.26));
  CHECK(step.measures_ttft);
  CHECK(step.measures_tpot);
  // a format-1 file (no format_version) reads as before: no steps, no gap
  const auto old = parse(R"({"measured_steps": [{"phase": "decode", "steps": 1, "kernel_ms": 1,
                             "busy_ms": 1, "wall_ms": 2}]})");
  CHECK(old.profiled_steps.empty());
  CHECK(old.measured_steps[0].profiler_gap_ms == 0);
  CHECK_NOTHROW(parse(R"({"format_version": 1})"));
}

TEST_CASE("workload format 2: bad steps and unknown versions are refused by name", "[workload]") {
  CHECK_THROWS_WITH(parse(R"({"format_version": 3})"),
                    Catch::Contains("format_version") && Catch::Contains("upgrade kspeed"));
  const std::string step =
      R"("label": "s", "prefill_requests": 1, "prefill_tokens": 8, "decode_requests": 0,
         "decode_kv_tokens": 0, "kernel_ms": 1, "busy_ms": 1, "wall_ms": 1,
         "profiler_gap_ms": 0, "time_ms": 1, "attention_kernel_ms": 0.5)";
  CHECK_THROWS_WITH(
      parse(R"({"steps": [{"phase": "prefil", )" + step + R"(, "attention_ms": 0.5}]})"),
      Catch::Contains("steps[0].phase") && Catch::Contains("prefill, decode or mixed"));
  CHECK_THROWS_WITH(
      parse(R"({"steps": [{"phase": "prefill", )" + step + R"(, "attention_ms": 1.5}]})"),
      Catch::Contains("steps[0].attention_ms"));
  CHECK_THROWS_WITH(parse(R"({"steps": [{"phase": "prefill", )" + step +
                          R"(, "attention_ms": 0.5, "measures": ["e2e"]}]})"),
                    Catch::Contains("steps[0].measures") && Catch::Contains("ttft or tpot"));
  CHECK_THROWS_WITH(parse(R"({"steps": [{"phase": "prefill", "label": "s", "prefill_requests": -1,
                             "prefill_tokens": 8, "decode_requests": 0, "decode_kv_tokens": 0,
                             "kernel_ms": 1, "busy_ms": 1, "wall_ms": 1, "profiler_gap_ms": 0,
                             "time_ms": 1, "attention_ms": 0.5, "attention_kernel_ms": 0.5}]})"),
                    Catch::Contains("steps[0].prefill_requests"));
}

}  // namespace unit_workload_reader
