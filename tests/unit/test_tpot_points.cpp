// TPOT from measured points (issue 11, --tpot-point): a decode step reads the weights (c) and a
// KV cache that grows with the context (b·L), so TPOT(L) = c + b·L by least squares. Expected
// values were computed independently (python3 least squares over the same points).
#include <catch2/catch.hpp>

#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"
#include "worded_throw.hpp"

namespace unit_tpot_points {

using namespace kspeed::engine;
using Catch::Matchers::WithinRel;

namespace {

Workload builtin() {
  return kspeed::io::load_workload("deepseek-r1-fp8");
}

const Warning* find_code(const std::vector<Warning>& list, WarningCode code) {
  for (const Warning& w : list) {
    if (w.code == code) return &w;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("TPOT model: two points give the line through them", "[tpot]") {
  // b = (95 - 50) / (131072 - 1024) = 45 / 130048; c = 50 - 1024·b
  const TpotModel model = fit_tpot({{1024, 50}, {131072, 95}});
  CHECK(model.fit == TpotFit::least_squares);
  CHECK(model.points == 2);
  CHECK_THAT(model.ms_per_token, WithinRel(45.0 / 130048.0, 1e-12));
  CHECK_THAT(model.fixed_ms, WithinRel(49.645669291338585, 1e-12));
  CHECK(model.rms_residual_ms == 0);
  CHECK_THAT(tpot_fitted_at(model, 32768), WithinRel(60.98425196850394, 1e-12));
}

TEST_CASE("TPOT model: three points by least squares, with their misfit", "[tpot]") {
  const TpotModel model = fit_tpot({{1024, 50}, {32768, 62}, {131072, 95}});
  CHECK(model.fit == TpotFit::least_squares);
  CHECK_THAT(model.fixed_ms, WithinRel(50.118946248004264, 1e-10));
  CHECK_THAT(model.ms_per_token, WithinRel(0.0003435750755531057, 1e-10));
  CHECK_THAT(model.rms_residual_ms, WithinRel(0.4591997839418753, 1e-9));
  CHECK_THAT(tpot_fitted_at(model, 8192), WithinRel(52.93351326693531, 1e-10));
}

TEST_CASE("TPOT model: a negative c is refitted through the origin", "[tpot]") {
  // Unconstrained: b = 9/3072, c = 1 - 3 = -2 < 0. Through the origin: b = Σ L·y / Σ L².
  const TpotModel model = fit_tpot({{1024, 1}, {4096, 10}});
  CHECK(model.fit == TpotFit::least_squares_no_c);
  CHECK(model.fixed_ms == 0);
  CHECK_THAT(model.ms_per_token, WithinRel(41984.0 / 17825792.0, 1e-12));
  CHECK_THAT(model.rms_residual_ms, WithinRel(1.0289915108550531, 1e-9));
}

TEST_CASE("TPOT model: one point, flat points, and bad points", "[tpot]") {
  const TpotModel one = fit_tpot({{1024, 50}});
  CHECK(one.fit == TpotFit::one_point);
  CHECK(one.fixed_ms == 50);
  CHECK(one.ms_per_token == 0);
  // TPOT that does not change with the context: b = 0 is allowed.
  const TpotModel flat = fit_tpot({{1024, 50}, {8192, 50}});
  CHECK(flat.ms_per_token == 0);
  CHECK(flat.fixed_ms == 50);
  CHECK_THAT(kspeed::test::worded_throw([] { (void)fit_tpot({}); }),
             Catch::Contains("TPOT points: none given") && Catch::Contains("context length"));
  CHECK_THAT(kspeed::test::worded_throw([] {
               (void)fit_tpot({{1024, 50}, {1024, 52}});
             }),
             Catch::Contains("TPOT points 1 and 2: both at 1,024 tokens"));
  CHECK_THAT(kspeed::test::worded_throw([] {
               (void)fit_tpot({{1024, 0}});
             }),
             Catch::Contains("TPOT point 1 (1,024 tokens, 0 ms): expected a positive"));
  CHECK_THAT(kspeed::test::worded_throw([] {
               (void)fit_tpot({{1024, 60}, {8192, 50}});
             }),
             Catch::Contains("TPOT points (60 ms at 1,024 tokens, 50 ms at 8,192 tokens)") &&
                 Catch::Contains("falls as the context grows"));
}

TEST_CASE("--tpot-point x2: TPOT fitted at --ctx, with a note", "[tpot]") {
  EstimateOptions options;
  options.prompt_tokens = 32768;
  options.tpot_points = {{1024, 50}, {131072, 95}};
  const Scenario s = resolve_scenario(builtin(), options);
  CHECK(s.tpot_ms.provenance == Provenance::fitted);
  CHECK_THAT(s.tpot_ms.value, WithinRel(60.98425196850394, 1e-12));
  CHECK(find_code(s.warnings, WarningCode::tpot_held) == nullptr);
  const Warning* note = find_code(s.notes, WarningCode::tpot_fitted);
  REQUIRE(note != nullptr);
  CHECK_THAT(note->number("c_ms"), WithinRel(49.645669291338585, 1e-12));
  CHECK(note->number("points") == 2);
  CHECK(note->number("point_2_tokens") == 131072);
  CHECK(note->number("c_held_at_zero") == 0);
  CHECK_THAT(kspeed::report::warning_sentence(*note),
             Catch::Contains("50.0 ms at 1,024 tokens and 95.0 ms at 131,072 tokens") &&
                 Catch::Contains("c = 49.6 ms") && Catch::Contains("b = 0.3460 µs"));
  // At a measured length the measurement itself is used.
  options.prompt_tokens = 1024;
  const Scenario at_point = resolve_scenario(builtin(), options);
  CHECK(at_point.tpot_ms.value == 50);
  CHECK(at_point.tpot_ms.provenance == Provenance::given);
}

TEST_CASE("--tpot wins over --tpot-point", "[tpot]") {
  EstimateOptions options;
  options.prompt_tokens = 32768;
  options.tpot_ms = 70;
  options.tpot_points = {{1024, 50}, {131072, 95}};
  const Scenario s = resolve_scenario(builtin(), options);
  CHECK(s.tpot_ms.value == 70);
  CHECK(s.tpot_ms.provenance == Provenance::given);
  CHECK(find_code(s.notes, WarningCode::tpot_fitted) == nullptr);
}

TEST_CASE("one --tpot-point is the reference the scaling rules carry to --ctx", "[tpot]") {
  EstimateOptions options;
  options.prompt_tokens = 8192;
  options.tpot_points = {{1024, 40}};
  // No decode table, no deployment: held at 40 ms, with the warning.
  const Scenario held = resolve_scenario(builtin(), options);
  CHECK(held.tpot_ms.value == 40);
  CHECK(held.tpot_ms.provenance == Provenance::given);
  const Warning* warning = find_code(held.warnings, WarningCode::tpot_held);
  REQUIRE(warning != nullptr);
  CHECK(warning->number("reference_prompt_tokens") == 1024);
  // With a decode share of 20% at 1,024 tokens: 40 · (0.8 + 0.2 · 8192 / 1024) = 96 ms.
  Workload workload = builtin();
  workload.decode_shares = {{1024, 0.2}, {131072, 0.6}};
  const Scenario scaled = resolve_scenario(workload, options);
  CHECK(scaled.tpot_ms.provenance == Provenance::scaled);
  CHECK_THAT(scaled.tpot_ms.value, WithinRel(96.0, 1e-12));
  // The workload's TPOT is no longer needed.
  workload.request.tpot_ms.reset();
  CHECK_THAT(resolve_scenario(workload, options).tpot_ms.value, WithinRel(96.0, 1e-12));
}

}  // namespace unit_tpot_points
