// The engine against MODEL.md's reference numbers, and invariants on every result.
#include <catch2/catch.hpp>
#include <cmath>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/chain/gates.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/share_table.hpp"
#include "kspeed/error.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_engine {

using namespace kspeed::engine;
using Catch::Matchers::WithinRel;

namespace {

const std::vector<SharePoint> kDeepSeekTable = {{4096, 0.18}, {131072, 0.85}};

Workload deepseek_workload() {
  Workload workload;
  workload.name = "deepseek-r1-fp8";
  workload.request = {1024, 128, 500.0, 50.0, {}, {}};
  workload.prefill_shares = kDeepSeekTable;
  return workload;
}

// bloaty's CheckConsistency, for the dilution chain.
void check_invariants(const EstimateResult& r, double kernel_speedup) {
  for (const PhaseEstimate* phase : {&r.prefill, &r.decode}) {
    CHECK(phase->phase.saved_ms == Approx(phase->attention.saved_ms).margin(1e-9));
    CHECK(phase->phase.time_after_ms ==
          Approx(phase->phase.time_before_ms - phase->phase.saved_ms).margin(1e-9));
    if (kernel_speedup >= 1) {
      CHECK(phase->phase.time_after_ms <= phase->phase.time_before_ms + 1e-9);
      if (phase->phase.ceiling) {
        CHECK(phase->phase.speedup <= *phase->phase.ceiling + 1e-12);
      }
    }
  }
  CHECK(r.request.saved_ms ==
        Approx(r.prefill.phase.saved_ms + r.decode.phase.saved_ms).margin(1e-9));
  CHECK(r.request.time_before_ms ==
        Approx(r.prefill.phase.time_before_ms + r.decode.phase.time_before_ms));
  CHECK(r.prefill.phase.share_of_parent + r.decode.phase.share_of_parent == Approx(1.0));
  if (kernel_speedup >= 1 && r.request.ceiling) {
    CHECK(r.request.speedup <= *r.request.ceiling + 1e-12);
  }
}

}  // namespace

TEST_CASE("Amdahl reproduces MODEL.md's reference speedups", "[engine]") {
  // p = 0.18 (4K context), s = 2: 1 / (0.82 + 0.09) = 1.0989
  CHECK_THAT(amdahl_speedup(0.18, 2.0), WithinRel(1.0 / 0.91, 1e-12));
  CHECK(std::round(amdahl_speedup(0.18, 2.0) * 1e4) / 1e4 == 1.0989);
  // p = 0.85 (128K context), s = 2: 1 / (0.15 + 0.425) = 1.7391, ceiling 6.67
  CHECK(std::round(amdahl_speedup(0.85, 2.0) * 1e4) / 1e4 == 1.7391);
  REQUIRE(amdahl_ceiling(0.85).has_value());
  CHECK(std::round(*amdahl_ceiling(0.85) * 100) / 100 == 6.67);
}

TEST_CASE("Amdahl edge cases are decided", "[engine]") {
  CHECK_FALSE(amdahl_ceiling(1.0).has_value());  // all time can vanish: unbounded
  CHECK(amdahl_speedup(0.0, 5.0) == 1.0);
  CHECK(amdahl_speedup(1.0, 4.0) == Approx(4.0));
  CHECK(amdahl_speedup(0.5, 0.5) == Approx(1.0 / 1.5));  // a slowdown is allowed
  CHECK(amdahl_time_after(100.0, 0.25, 2.0) == Approx(87.5));
}

TEST_CASE("share table interpolates logit against log context", "[engine]") {
  // MODEL.md: 29.6% at 8K, 44.6% at 16K, 60.7% at 32K, 74.7% at 64K
  const auto at = [](double tokens) {
    return std::round(share_at(kDeepSeekTable, tokens, Extrapolation::clamp).share * 1000) / 10;
  };
  CHECK(at(8192) == 29.6);
  CHECK(at(16384) == 44.6);
  CHECK(at(32768) == 60.7);
  CHECK(at(65536) == 74.7);
  CHECK(share_at(kDeepSeekTable, 8192, Extrapolation::clamp).source == Provenance::interpolated);
  // The fitted slope of logit(p) against ln(L) is 0.94, close to the cost model's 1.
  const double slope = (logit(0.85) - logit(0.18)) / (std::log(131072.0) - std::log(4096.0));
  CHECK(std::round(slope * 100) / 100 == 0.94);
}

TEST_CASE("share table points, clamping and extrapolation", "[engine]") {
  const ShareLookup exact = share_at(kDeepSeekTable, 4096, Extrapolation::clamp);
  CHECK(exact.share == 0.18);
  CHECK(exact.source == Provenance::workload);
  const ShareLookup below = share_at(kDeepSeekTable, 1024, Extrapolation::clamp);
  CHECK(below.share == 0.18);
  CHECK(below.source == Provenance::clamped);
  const ShareLookup above = share_at(kDeepSeekTable, 1 << 20, Extrapolation::clamp);
  CHECK(above.share == 0.85);
  CHECK(above.source == Provenance::clamped);
  // Continuing the segment: logit rises by the same slope per ln(L).
  const ShareLookup model = share_at(kDeepSeekTable, 1 << 20, Extrapolation::model);
  CHECK(model.source == Provenance::extrapolated);
  const double expected_logit = logit(0.85) + (logit(0.85) - logit(0.18)) *
                                                  (std::log(1 << 20) - std::log(131072.0)) /
                                                  (std::log(131072.0) - std::log(4096.0));
  CHECK_THAT(model.share, WithinRel(inverse_logit(expected_logit), 1e-12));
  const ShareLookup model_below = share_at(kDeepSeekTable, 1024, Extrapolation::model);
  CHECK(model_below.share < 0.18);
  // A one-point table has no segment to continue: it clamps.
  CHECK(share_at({{4096, 0.3}}, 100, Extrapolation::model).source == Provenance::clamped);
}

TEST_CASE("the request example reproduces MODEL.md", "[engine]") {
  // prompt 1,024, response 128, TTFT 500 ms, TPOT 50 ms, p = 0.18, s = 2
  const Estimate estimate = run_estimate(deepseek_workload(), EstimateOptions{});
  const EstimateResult& r = estimate.result;
  CHECK(r.request.time_before_ms == Approx(6850.0));
  CHECK(std::round(r.prefill_fraction * 1000) / 10 == 7.3);
  CHECK(r.prefill.phase.saved_ms == Approx(45.0));
  CHECK(r.request.time_after_ms == Approx(6805.0));
  CHECK(std::round(r.request.speedup * 1e4) / 1e4 == 1.0066);
  CHECK(std::round(r.improvement_pct * 100) / 100 == 0.66);
  CHECK(r.prefill.phase.speedup == Approx(1.0 / 0.91));
  CHECK(r.decode.phase.speedup == 1.0);
  check_invariants(r, 2.0);
  // The workload's own 1K prompt lies below the table: clamped to the 4K share, as the source
  // analysis does; the user chose nothing, so it is a note, not a warning.
  CHECK(estimate.scenario.prefill_share.provenance == Provenance::clamped);
  CHECK(estimate.scenario.warnings.empty());
  REQUIRE(estimate.scenario.notes.size() == 1);
  CHECK(kspeed::report::warning_code(estimate.scenario.notes[0]) == "default_prompt_below_table");
  // Asked for with --ctx, the same clamping is a warning.
  EstimateOptions asked;
  asked.prompt_tokens = 1024;
  const Estimate given = run_estimate(deepseek_workload(), asked);
  REQUIRE(given.scenario.warnings.size() == 1);
  CHECK(kspeed::report::warning_code(given.scenario.warnings[0]) == "prefill_share_clamped");
  CHECK(estimate.scenario.kernel_speedup.provenance == Provenance::default_value);
}

TEST_CASE("TTFT is scaled with the cost model when only the prompt changes", "[engine]") {
  EstimateOptions options;
  options.prompt_tokens = 131072;
  const Scenario s = resolve_scenario(deepseek_workload(), options);
  // TTFT(L) = (1 - p(L_ref)) * TTFT_ref * (L / L_ref) / (1 - p(L))
  CHECK(s.ttft_ms.provenance == Provenance::scaled);
  CHECK_THAT(s.ttft_ms.value, WithinRel(0.82 * 500.0 * 128.0 / 0.15, 1e-12));
  CHECK(s.prefill_share.value == 0.85);
  // A measured TTFT wins over scaling.
  options.ttft_ms = 9000.0;
  const Scenario measured = resolve_scenario(deepseek_workload(), options);
  CHECK(measured.ttft_ms.provenance == Provenance::given);
  CHECK(measured.ttft_ms.value == 9000.0);
}

TEST_CASE("the 128K prefill speedup is 1.74x", "[engine]") {
  EstimateOptions options;
  options.prompt_tokens = 131072;
  options.ttft_ms = 20000.0;
  options.kernel_speedup = 2.0;
  const Estimate e = run_estimate(deepseek_workload(), options);
  CHECK(std::round(e.result.prefill.phase.speedup * 100) / 100 == 1.74);
  CHECK(std::round(*e.result.prefill.phase.ceiling * 100) / 100 == 6.67);
  check_invariants(e.result, 2.0);
}

TEST_CASE("invariants hold across shares, speedups and phases", "[engine]") {
  for (double share : {0.0, 0.01, 0.18, 0.5, 0.85, 0.999, 1.0}) {
    for (double speedup : {0.5, 1.0, 1.1, 2.0, 10.0, 1e6}) {
      for (Phase phase : {Phase::prefill, Phase::decode, Phase::both}) {
        EstimateOptions options;
        options.prefill_share = share;
        options.decode_share = 1.0 - share;
        options.kernel_speedup = speedup;
        options.phase = phase;
        const Estimate e = run_estimate(deepseek_workload(), options);
        INFO("share " << share << " speedup " << speedup << " phase " << to_string(phase));
        check_invariants(e.result, speedup);
      }
    }
  }
}

TEST_CASE("the request ceiling is unbounded only when all time can vanish", "[engine]") {
  PhaseInput prefill{500.0, 1.0, 2.0, true, 0.0};
  PhaseInput decode{0.0, 0.0, 1.0, false, 0.0};  // one-token response: no decode steps
  const EstimateResult r = estimate_chain(prefill, decode);
  CHECK_FALSE(r.request.ceiling.has_value());
  CHECK(r.request.speedup == Approx(2.0));
  CHECK(r.decode.phase.speedup == 1.0);
  CHECK(decode_time_ms(50.0, 1.0) == 0.0);
  CHECK(decode_time_ms(50.0, 128.0) == 6350.0);
}

TEST_CASE("decode needs a share, from the user or the workload", "[engine]") {
  EstimateOptions options;
  options.phase = Phase::decode;
  CHECK_THROWS_AS(resolve_scenario(deepseek_workload(), options), kspeed::InputError);
  options.decode_share = 0.2;
  const Estimate e = run_estimate(deepseek_workload(), options);
  // 0.2 of 6,350 ms at 2x: saves 635 ms
  CHECK(e.result.decode.phase.saved_ms == Approx(635.0));
  CHECK(e.result.prefill.phase.saved_ms == 0.0);
  CHECK(e.result.prefill.phase.speedup == 1.0);
}

TEST_CASE("a workload decode table is averaged over the response's steps", "[engine]") {
  Workload workload = deepseek_workload();
  workload.decode_shares = {{1024, 0.1}, {1152, 0.3}};
  EstimateOptions options;
  options.phase = Phase::both;
  const Scenario s = resolve_scenario(workload, options);
  REQUIRE(s.decode_share.has_value());
  CHECK(s.decode_share->provenance == Provenance::interpolated);
  // Steps see contexts 1025..1151: the mean share lies strictly between the endpoints.
  CHECK(s.decode_share->value > 0.1);
  CHECK(s.decode_share->value < 0.3);
  double sum = 0;
  for (int step = 1; step <= 127; ++step) {
    sum += share_at(workload.decode_shares, 1024.0 + step, Extrapolation::clamp).share;
  }
  CHECK_THAT(s.decode_share->value, WithinRel(sum / 127, 1e-12));
}

TEST_CASE("missing request fields name the flag that supplies them", "[engine]") {
  Workload workload;
  workload.name = "shares-only";
  workload.prefill_shares = kDeepSeekTable;
  try {
    resolve_scenario(workload, EstimateOptions{});
    FAIL("expected an InputError");
  } catch (const kspeed::InputError& error) {
    CHECK(std::string(error.what()).find("{flag:ctx} N") != std::string::npos);
  }
  EstimateOptions options;
  options.prompt_tokens = 4096;
  options.response_tokens = 64;
  options.ttft_ms = 300.0;
  options.tpot_ms = 20.0;
  const Estimate e = run_estimate(workload, options);
  CHECK(e.result.request.time_before_ms == Approx(300.0 + 63 * 20.0));
}

TEST_CASE("gates compare the estimate with the threshold", "[engine]") {
  const Estimate e = run_estimate(deepseek_workload(), EstimateOptions{}, {1.01, 1.05});
  REQUIRE(e.gates.size() == 2);
  CHECK(e.gates[0].name == "min-request-speedup");
  CHECK_FALSE(e.gates[0].passed);  // 1.0066 < 1.01
  CHECK(e.gates[1].name == "min-prefill-speedup");
  CHECK(e.gates[1].passed);  // 1.0989 >= 1.05
  CHECK_FALSE(all_passed(e.gates));
  CHECK(all_passed({}));
}

TEST_CASE("conditions not stated are listed in checklist order", "[engine]") {
  Workload workload = deepseek_workload();
  workload.conditions = {{"model", "DeepSeek-R1"}, {"precision", "FP8"}};
  const std::vector<std::string> missing = missing_conditions(workload);
  REQUIRE(missing.size() == 8);
  CHECK(missing.front() == "hardware");
  CHECK(missing.back() == "metric_definitions");
}

TEST_CASE("a decode table over a very long response is sampled, not looped", "[engine]") {
  Workload workload = deepseek_workload();
  workload.decode_shares = {{1024, 0.1}, {1 << 27, 0.6}};
  EstimateOptions options;
  options.phase = Phase::decode;
  options.response_tokens = 1 << 26;  // 67M steps: sampled at 65,536 midpoints
  const Scenario sampled = resolve_scenario(workload, options);
  // The exact mean, by the same interpolation at a fine grid, agrees to well under 1e-6.
  double sum = 0;
  const int grid = 1 << 20;
  for (int i = 0; i < grid; ++i) {
    const double step = (i + 0.5) * ((1 << 26) - 1.0) / grid + 0.5;
    sum += share_at(workload.decode_shares, 1024.0 + step, Extrapolation::clamp).share;
  }
  REQUIRE(sampled.decode_share.has_value());
  CHECK(sampled.decode_share->value == Approx(sum / grid).epsilon(1e-6));
}

TEST_CASE("everything missing is named in one error", "[engine]") {
  Workload workload;
  workload.name = "bare";
  workload.prefill_shares = kDeepSeekTable;
  try {
    resolve_scenario(workload, EstimateOptions{});
    FAIL("expected an InputError");
  } catch (const kspeed::InputError& error) {
    const std::string message = error.what();
    for (const char* item :
         {"request.prompt_tokens ({flag:ctx} N)",
          "request.response_tokens ({flag:response-tokens} N)", "request.tpot_ms ({flag:tpot} D)",
          "request.ttft_ms ({flag:ttft} D)"}) {
      CHECK(message.find(item) != std::string::npos);
    }
    CHECK(message.find("attention_share.prefill") == std::string::npos);  // it has one
  }
}

TEST_CASE("a measured prefill-only workload runs with no flags", "[engine]") {
  // What kspeed profile emits for a trace of prefill steps: 888 tokens, 2 ms, one-token response.
  Workload workload;
  workload.name = "prefill-trace";
  workload.share_origin = Provenance::measured;
  workload.request.prompt_tokens = 888;
  workload.request.response_tokens = 1;
  workload.request.ttft_ms = 2.0;
  workload.prefill_shares = {{888, 0.3}};
  const Estimate e = run_estimate(workload, EstimateOptions{});
  const Scenario& s = e.scenario;
  CHECK(s.prompt_tokens.provenance == Provenance::measured);
  CHECK(s.response_tokens.provenance == Provenance::measured);
  CHECK(s.ttft_ms.provenance == Provenance::measured);
  CHECK(s.prefill_share.provenance == Provenance::measured);  // the one point, at its length
  CHECK(s.tpot_ms.provenance == Provenance::default_value);   // no decode step to apply it to
  CHECK(s.kernel_speedup.provenance == Provenance::default_value);
  // 0.3 of 2 ms at 2x: 2 * (0.7 + 0.15) = 1.7 ms
  CHECK(e.result.prefill.phase.time_after_ms == Approx(1.7));
  CHECK(e.result.request.time_before_ms == Approx(2.0));
}

TEST_CASE("a decode-only workload estimates decode and needs no prefill share", "[engine]") {
  // What kspeed profile emits for one decode step at KV length 1,025: prompt 1,024, response 2.
  Workload workload;
  workload.name = "decode-trace";
  workload.share_origin = Provenance::measured;
  workload.request.prompt_tokens = 1024;
  workload.request.response_tokens = 2;
  workload.request.tpot_ms = 10.0;
  workload.decode_shares = {{1025, 0.25}};
  const Estimate e = run_estimate(workload, EstimateOptions{});
  const Scenario& s = e.scenario;
  CHECK(s.phase == Phase::decode);
  REQUIRE(s.decode_share.has_value());
  CHECK(s.decode_share->provenance == Provenance::measured);  // not clamped: at the point
  CHECK(s.decode_share->value == Approx(0.25));
  CHECK(s.ttft_ms.value == 0.0);
  CHECK(s.ttft_ms.provenance == Provenance::default_value);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].code == WarningCode::prefill_not_measured);
  // One decode step of 10 ms, 25% attention at 2x: 10 * (0.75 + 0.125) = 8.75 ms
  CHECK(e.result.request.time_after_ms == Approx(8.75));
  // The user's --phase is kept: prefill then needs what the workload lacks, named at once.
  EstimateOptions prefill;
  prefill.phase = Phase::prefill;
  prefill.phase_given = true;
  try {
    resolve_scenario(workload, prefill);
    FAIL("expected an InputError");
  } catch (const kspeed::InputError& error) {
    const std::string message = error.what();
    CHECK(message.find("attention_share.prefill") != std::string::npos);
    CHECK(message.find("request.ttft_ms") != std::string::npos);
  }
}

}  // namespace unit_engine
