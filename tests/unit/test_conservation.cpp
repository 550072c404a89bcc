// Issue 27: attention time is conserved, and no input passes as the user's. A kernel speedup acts
// on attention's time: whatever latency the user gives, saved = attention ms × (1 − 1/s), and
// the attention ms is the one measured or modelled. Derived values keep the weakest provenance
// of what went into them.
#include <algorithm>
#include <catch2/catch.hpp>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/provenance_order.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_conservation {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// The SGLang MI300X Qwen3-8B decode step (bs 32) as kspeed profile emits it (format 2): 21.79%
// of 9.765437 ms kernel time, a 473.74 ms step of which 463.295 ms is the profiler's idle gap.
// python3 over the trace: attention kernels 2.1279 ms of the step.
const char* const kDecodeWorkload = R"({
  "name": "sglang-decode", "share_origin": "measured", "share_denominator": "kernel-time",
  "batch": 32,
  "request": {"prompt_tokens": 1024, "response_tokens": 2, "tpot_ms": 9.765437},
  "attention_share": {"decode": [{"context": 1025, "share": 0.2179}]},
  "measured_steps": [{"phase": "decode", "context": 1025, "steps": 1, "kernel_ms": 9.765437,
                      "busy_ms": 9.759752, "wall_ms": 473.74, "batch": 32,
                      "profiler_gap_ms": 463.295405}]
})";

Workload decode_workload() {
  return io::parse_workload(kDecodeWorkload, "decode.json");
}

const Warning* find_warning(const Scenario& s, WarningCode code) {
  const auto it = std::find_if(s.warnings.begin(), s.warnings.end(),
                               [code](const Warning& w) { return w.code == code; });
  return it == s.warnings.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("weakest keeps the lower provenance: nothing launders", "[conservation]") {
  CHECK(weakest(Provenance::scaled, Provenance::illustrative) == Provenance::illustrative);
  CHECK(weakest(Provenance::fitted, Provenance::modelled) == Provenance::modelled);
  CHECK(weakest(Provenance::scaled, Provenance::workload) == Provenance::scaled);
  CHECK(weakest(Provenance::converted, Provenance::measured) == Provenance::converted);
  CHECK(weakest(Provenance::fitted, Provenance::fitted) == Provenance::fitted);
  CHECK(strength(Provenance::illustrative) < strength(Provenance::default_value));
  CHECK(strength(Provenance::clamped) < strength(Provenance::modelled));
  CHECK(strength(Provenance::measured) < strength(Provenance::given));
}

TEST_CASE("a measured share applied to another latency acts on the measured attention time",
          "[conservation]") {
  // Before issue 27: converted to the trace's own step (10.45 ms wall), 20.37%, then applied to
  // 474 ms: 96.6 ms of attention and 48.3 ms saved a token. The trace's attention is 2.128 ms.
  const double attention_ms = 0.2179 * 9.765437;  // 2.1279 ms a step
  for (const bool point : {false, true}) {
    EstimateOptions options;
    options.phase = Phase::decode;
    options.phase_given = true;
    if (point) {
      options.tpot_points = {{1025, 473.74}};
    } else {
      options.tpot_ms = 474;
    }
    const Estimate e = run_estimate(decode_workload(), options, {});
    // one --tpot-point at 1,025 tokens is carried to the 1,024-token prompt (scaled)
    const double tpot = e.scenario.tpot_ms.value;
    CHECK(tpot == Approx(point ? 473.74 : 474).margin(0.2));
    REQUIRE(e.scenario.decode_attention.has_value());
    CHECK(e.scenario.decode_attention->ms == Approx(attention_ms));
    CHECK(e.scenario.decode_attention->provenance == Provenance::measured);
    CHECK(e.scenario.decode_share->value == Approx(attention_ms / tpot));
    // one decode step (response 2): saved = attention × (1 − 1/2) ≤ 1.064 ms
    CHECK(e.result.decode.phase.saved_ms == Approx(attention_ms / 2));
    CHECK(e.result.decode.phase.saved_ms <= 1.064);
    CHECK(tpot - e.tpot_after_ms->value == Approx(attention_ms / 2));
    CHECK(attention_provenance(e.scenario, Phase::decode) == Provenance::measured);
  }
}

TEST_CASE(
    "a measured attention longer than the given latency is warned about and refused by "
    "--strict, naming both",
    "[conservation]") {
  EstimateOptions options;
  options.phase = Phase::decode;
  options.phase_given = true;
  options.tpot_ms = 1.5;  // shorter than the 2.128 ms of attention the trace measured
  const Scenario s = resolve_scenario(decode_workload(), options);
  const Warning* w = find_warning(s, WarningCode::attention_exceeds_latency);
  REQUIRE(w != nullptr);
  CHECK(w->number("attention_ms") == Approx(2.1279).margin(0.0001));
  CHECK(w->number("latency_ms") == 1.5);
  CHECK(s.decode_share->value == 1.0);  // capped: a share of wall time cannot exceed it
  CHECK_THROWS_WITH(
      refuse_inputs(s, strict_filter(), "--strict"),
      Catch::Contains("{number:2.1} ms a step") && Catch::Contains("TPOT {number:1.5} ms given"));
  // --fail-on names provenances only: the warning stays a warning there
  CHECK_NOTHROW(refuse_inputs(s, parse_input_filter("clamped", "--fail-on"), "--fail-on"));
  // a latency at least as long as the attention: no warning
  options.tpot_ms = 2.2;
  CHECK(find_warning(resolve_scenario(decode_workload(), options),
                     WarningCode::attention_exceeds_latency) == nullptr);
}

TEST_CASE("a TPOT scaled from the illustrative one stays illustrative", "[conservation]") {
  // The built-in example's TPOT (50 ms at 1,024 tokens, illustrative) followed to 32K by its
  // decode share table: scaled, but from an example, so illustrative; --strict refuses it.
  Workload w = io::load_workload("deepseek-r1-fp8");
  w.decode_shares = {{1024, 0.3}, {32768, 0.6}};
  EstimateOptions options;
  options.prompt_tokens = 32768;
  options.prefill_share = 0.5;
  options.ttft_ms = 900;
  const Scenario s = resolve_scenario(w, options);
  CHECK(s.tpot_ms.value > 50);
  CHECK(s.tpot_ms.provenance == Provenance::illustrative);
  CHECK_THROWS_WITH(refuse_inputs(s, strict_filter(), "--strict"),
                    Catch::Contains("TPOT (illustrative)"));
}

}  // namespace unit_conservation
