// TTFT with a fixed term in the chain (issue 11): the prefill row stays Amdahl on the phase's GPU
// time, so MODEL.md section 2's reference numbers hold; T0 adds a TTFT level between prefill and
// the request. Expected values were computed independently (python3, MODEL.md section 4).
#include <catch2/catch.hpp>
#include <cmath>

#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"
#include "worded_throw.hpp"

namespace unit_ttft_level {

using namespace kspeed::engine;
using Catch::Matchers::WithinRel;

namespace {

Workload builtin() {
  return kspeed::io::load_workload("deepseek-r1-fp8");
}

bool has_code(const std::vector<Warning>& list, WarningCode code) {
  for (const Warning& w : list) {
    if (w.code == code) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("chain: a fixed term adds a TTFT level and leaves prefill's Amdahl alone", "[ttft]") {
  PhaseInput prefill;
  prefill.time_before_ms = 100;  // GPU time
  prefill.fixed_ms = 300;        // T0
  prefill.attention_share = 0.18;
  prefill.attention_speedup = 2;
  prefill.targeted = true;
  PhaseInput decode;
  decode.time_before_ms = 600;
  const EstimateResult r = estimate_chain(prefill, decode);
  CHECK_THAT(r.prefill.phase.speedup, WithinRel(1 / 0.91, 1e-12));
  CHECK(r.prefill.phase.share_of_parent == Approx(0.25));  // (TTFT - T0) / TTFT = 100 / 400
  REQUIRE(r.ttft);
  CHECK(r.ttft->time_before_ms == 400);
  CHECK(r.ttft->time_after_ms == Approx(391));  // 300 + 100 · 0.91
  CHECK(r.ttft->share_of_parent == Approx(0.4));
  CHECK(*r.ttft->ceiling == Approx(400.0 / 382.0));  // TTFT / (T0 + GPU · (1 - p))
  CHECK(r.request.time_before_ms == 1000);
  CHECK(r.request.time_after_ms == Approx(991));
  CHECK(*r.request.ceiling == Approx(1000.0 / 982.0));
  CHECK(r.prefill_fraction == Approx(0.4));
  prefill.fixed_ms = 0;
  CHECK_FALSE(estimate_chain(prefill, decode).ttft);
}

TEST_CASE("bare estimate: the source's illustrative request, a note and no warning", "[ttft]") {
  const Estimate e = run_estimate(builtin(), EstimateOptions{});
  CHECK(e.scenario.ttft_ms.value == 500);
  CHECK(e.scenario.ttft_ms.provenance == Provenance::illustrative);
  CHECK_FALSE(e.scenario.ttft_fixed_ms);
  CHECK_FALSE(e.result.ttft);
  CHECK(e.result.request.time_before_ms == 6850);
  CHECK(e.result.request.time_after_ms == Approx(6805));
  CHECK(std::round(e.result.request.speedup * 1e4) / 1e4 == 1.0066);
  CHECK(e.scenario.warnings.empty());
  CHECK(has_code(e.scenario.notes, WarningCode::default_prompt_below_table));
}

TEST_CASE("--ctx 4k: TTFT fitted to InferenceX's points, prefill stays 1.0989", "[ttft]") {
  EstimateOptions options;
  options.prompt_tokens = 4096;
  const Estimate e = run_estimate(builtin(), options);
  // a = 207 / (x(8K) - x(1K)), x = L / (1 - p): 0.019926 ms/token; T0 = 242.117 ms
  CHECK(e.scenario.ttft_ms.provenance == Provenance::fitted);
  CHECK_THAT(e.scenario.ttft_ms.value, WithinRel(341.6492734, 1e-8));
  REQUIRE(e.scenario.ttft_fixed_ms);
  CHECK_THAT(e.scenario.ttft_fixed_ms->value, WithinRel(242.1169089, 1e-8));
  CHECK(e.scenario.ttft_fixed_ms->provenance == Provenance::fitted);
  CHECK(std::round(e.result.prefill.phase.speedup * 1e4) / 1e4 == 1.0989);
  REQUIRE(e.result.ttft);
  CHECK_THAT(e.result.ttft->speedup, WithinRel(1.0269255949, 1e-8));
  CHECK_THAT(e.result.prefill.phase.share_of_parent, WithinRel(0.2913290685, 1e-8));
  CHECK(has_code(e.scenario.notes, WarningCode::ttft_fitted));
  CHECK_FALSE(has_code(e.scenario.warnings, WarningCode::ttft_scaled));
  // The note names the points and says the illustrative 500 ms is not one of them.
  for (const Warning& note : e.scenario.notes) {
    if (note.code != WarningCode::ttft_fitted) continue;
    const std::string text = kspeed::report::warning_sentence(note);
    CHECK_THAT(text, Catch::Contains("267 ms at 1,024 tokens and 474 ms at 8,192 tokens"));
    CHECK_THAT(text, Catch::Contains("InferenceX"));
    CHECK_THAT(text, Catch::Contains("500 ms at 1,024 tokens is the source analysis's "
                                     "illustrative figure, not one of the points"));
  }
}

TEST_CASE("--ctx 128k: prefill 1.7391, ceiling 6.67; TTFT 17.65 s within LMSYS's range", "[ttft]") {
  EstimateOptions options;
  options.prompt_tokens = 131072;
  const Estimate e = run_estimate(builtin(), options);
  CHECK(std::round(e.result.prefill.phase.speedup * 1e4) / 1e4 == 1.7391);
  CHECK(std::round(*e.result.prefill.phase.ceiling * 100) / 100 == 6.67);
  CHECK_THAT(e.scenario.ttft_ms.value, WithinRel(17653.64522, 1e-8));
  CHECK(e.scenario.ttft_ms.value > 8600);   // LMSYS, 32K dynamic chunking, GB300
  CHECK(e.scenario.ttft_ms.value < 18600);  // LMSYS, no chunking, GB200
  REQUIRE(e.result.ttft);
  CHECK_THAT(e.result.ttft->speedup, WithinRel(1.7216776930, 1e-8));
  CHECK_THAT(*e.result.ttft->ceiling, WithinRel(6.1859134158, 1e-8));
  // TPOT is held (no decode table, no deployment), and a note says so.
  CHECK(e.scenario.tpot_ms.value == 50);
  CHECK(has_code(e.scenario.warnings, WarningCode::tpot_held));
}

TEST_CASE("--ctx 8k reads InferenceX's measured point, with the fitted fixed term", "[ttft]") {
  EstimateOptions options;
  options.prompt_tokens = 8192;
  const Scenario s = resolve_scenario(builtin(), options);
  CHECK(s.ttft_ms.value == 474);
  CHECK(s.ttft_ms.provenance == Provenance::workload);
  REQUIRE(s.ttft_fixed_ms);
  CHECK_THAT(s.ttft_fixed_ms->value, WithinRel(242.1169089, 1e-8));
}

TEST_CASE("a given TTFT has no fixed term unless one is given or fitted", "[ttft]") {
  EstimateOptions options;
  options.prompt_tokens = 131072;
  options.ttft_ms = 18600;
  CHECK_FALSE(resolve_scenario(builtin(), options).ttft_fixed_ms);
  // The LMSYS case: 1.35x FMHA, 18.6 s; 3.38 s no kernel touches gives the measured 1.22x.
  options.ttft_overhead_ms = 3380;
  options.prefill_share = 0.85;
  options.kernel_speedup = 1.35;
  const Estimate e = run_estimate(builtin(), options);
  REQUIRE(e.result.ttft);
  CHECK(std::round(e.result.prefill.phase.speedup * 1000) / 1000 == 1.283);
  CHECK(std::round(e.result.ttft->speedup * 100) / 100 == 1.22);
  // --ttft-point values fit T0 for a given TTFT too.
  EstimateOptions points;
  points.prompt_tokens = 4096;
  points.ttft_ms = 400;
  points.ttft_points = {{1024, 267}, {8192, 474}};
  const Scenario s = resolve_scenario(builtin(), points);
  CHECK(s.ttft_ms.value == 400);
  REQUIRE(s.ttft_fixed_ms);
  CHECK_THAT(s.ttft_fixed_ms->value, WithinRel(242.1169089, 1e-8));
  // A fixed term at or above TTFT is an input error.
  points.ttft_overhead_ms = 400;
  CHECK_THAT(kspeed::test::worded_throw([&] { (void)resolve_scenario(builtin(), points); }),
             Catch::Contains("--ttft-overhead"));
}

TEST_CASE("one TTFT point scales with T0 = 0 and says how uncertain that is", "[ttft]") {
  EstimateOptions options;
  options.prompt_tokens = 131072;
  options.ttft_points = {{1024, 500}};
  const Scenario s = resolve_scenario(builtin(), options);
  CHECK(s.ttft_ms.provenance == Provenance::scaled);
  CHECK_THAT(s.ttft_ms.value, WithinRel(0.82 * 500.0 * 128.0 / 0.15, 1e-12));  // 349.9 s
  CHECK_FALSE(s.ttft_fixed_ms);
  REQUIRE(has_code(s.warnings, WarningCode::ttft_scaled));
  for (const Warning& w : s.warnings) {
    if (w.code != WarningCode::ttft_scaled) continue;
    CHECK(w.number("range_low_ms") == 500);
    CHECK_THAT(w.number("range_high_ms"), WithinRel(349866.667, 1e-6));
    CHECK_THAT(kspeed::report::warning_sentence(w), Catch::Contains("between 500 ms and 350 s"));
  }
}

TEST_CASE("mix fits TTFT to the workload's points away from its prompt", "[ttft]") {
  const Workload workload = builtin();
  const Scenario scenario = resolve_scenario(workload, EstimateOptions{});
  const MixModel model = make_mix_model(workload, scenario, Extrapolation::clamp);
  REQUIRE(model.ttft_fit);
  MixRun run(model);
  Request at_4k;
  at_4k.prompt_tokens = 4096;
  at_4k.response_tokens = 128;
  const RequestOutcome fitted = run.add(at_4k);
  CHECK(fitted.ttft_source == LatencySource::fitted);
  CHECK_THAT(fitted.ttft_before_ms, WithinRel(341.6492734, 1e-8));
  // T0 + GPU · 0.91: the fixed term does not shrink
  CHECK_THAT(fitted.ttft_after_ms, WithinRel(242.1169089 + 99.5323646 * 0.91, 1e-8));
  Request at_reference;
  at_reference.prompt_tokens = 1024;
  at_reference.response_tokens = 128;
  // A log's 1,024-token request is priced by the fit like its neighbours (the two-point fit
  // passes through the measured 267 ms), not by the illustrative 500 ms: no step at 1K.
  const RequestOutcome reference = run.add(at_reference);
  CHECK(reference.ttft_source == LatencySource::fitted);
  CHECK_THAT(reference.ttft_before_ms, WithinRel(267.0, 1e-9));
  for (const std::int64_t tokens : {1023, 1025}) {
    Request neighbour;
    neighbour.prompt_tokens = tokens;
    neighbour.response_tokens = 128;
    CHECK_THAT(run.add(neighbour).ttft_before_ms, WithinRel(267.0, 0.005));
  }
}

TEST_CASE("estimate at 1,023 / 1,024 / 1,025 given tokens: one curve, no step at the reference",
          "[ttft]") {
  std::vector<double> request_ms;
  for (const std::int64_t tokens : {1023, 1024, 1025}) {
    EstimateOptions options;
    options.prompt_tokens = tokens;
    const Estimate e = run_estimate(builtin(), options);
    CHECK(e.scenario.ttft_ms.provenance != Provenance::illustrative);  // fitted, or the point
    request_ms.push_back(e.result.request.time_before_ms);
  }
  CHECK_THAT(request_ms[1], WithinRel(request_ms[0], 0.005));
  CHECK_THAT(request_ms[2], WithinRel(request_ms[1], 0.005));
  // The bare estimate (no --ctx) is still the illustrative request itself: 500 ms.
  CHECK(run_estimate(builtin(), EstimateOptions{}).scenario.ttft_ms.value == 500);
}

}  // namespace unit_ttft_level
