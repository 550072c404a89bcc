// The latency model: TTFT(L) = T0 + a·L·(1 + odds(L)) fitted to measured points (MODEL.md
// section 4's InferenceX example), TPOT that follows the context, and non-kernel time in a phase
// (the LMSYS GB200 → GB300 case).
#include <catch2/catch.hpp>

#include "worded_throw.hpp"

#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_latency_model {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// NVIDIA's DeepSeek-R1 FP8 breakdown: 18% at 4,096 tokens, 85% at 131,072 (the built-in table).
const std::vector<SharePoint> kShares = {{4096, 0.18}, {131072, 0.85}};

// InferenceX, DeepSeek-R1 FP8, 8×H200, SGLang, concurrency 4: 267 ms at 1K, 474 ms at 8K.
const std::vector<LatencyPoint> kInferenceX = {{1024, 267}, {8192, 474}};

}  // namespace

TEST_CASE("TTFT model: MODEL.md's InferenceX example, T0 ≈ 242 ms, ≈ 17.7 s at 128K", "[latency]") {
  const TtftModel model = fit_ttft(kInferenceX, kShares, Extrapolation::clamp);
  CHECK(model.fit == TtftFit::least_squares);
  CHECK(model.points == 2);
  // x = L·(1 + odds): 1024 · (1 + 0.18/0.82) = 1248.78; 8192 at the interpolated 29.6%: 11637.26
  CHECK(prefill_work_units(kShares, 1024, Extrapolation::clamp) == Approx(1248.780488));
  CHECK(prefill_work_units(kShares, 8192, Extrapolation::clamp) == Approx(11637.263151));
  // a = (474 - 267) / (11637.26 - 1248.78) = 0.019926 ms/token; T0 = 267 - a·1248.78 = 242.12 ms
  CHECK(model.ms_per_token == Approx(0.0199259128));
  CHECK(model.fixed_ms == Approx(242.116909));
  CHECK(model.rms_residual_ms == Approx(0.0).margin(1e-9));  // two points, two unknowns
  CHECK(ttft_at(model, 1024).ttft_ms == Approx(267.0));
  CHECK(ttft_at(model, 8192).ttft_ms == Approx(474.0));
  const TtftAt at_128k = ttft_at(model, 131072);
  CHECK(at_128k.ttft_ms == Approx(17653.645));  // LMSYS: 18.6 s GB200, 15.2 s GB300
  CHECK(at_128k.share.source == Source::workload);
  // The fixed term's dilution: p_eff = p · (TTFT - T0) / TTFT
  CHECK(at_128k.effective_share == Approx(0.838342).epsilon(1e-5));
  const TtftAt at_1k = ttft_at(model, 1024);
  CHECK(at_1k.share.source == Source::clamped);
  CHECK(at_1k.effective_share == Approx(0.0167751).epsilon(1e-5));  // 18% · 24.9 / 267
  CHECK(at_1k.fixed_term_fraction == Approx(242.116909 / 267.0));
}

TEST_CASE("TTFT model: one point fixes a with T0 = 0 (MODEL.md's 350 s warning)", "[latency]") {
  const TtftModel model = fit_ttft({{1024, 500}}, kShares, Extrapolation::clamp);
  CHECK(model.fit == TtftFit::one_point);
  CHECK(model.fixed_ms == 0.0);
  CHECK(model.ms_per_token == Approx(500.0 / 1248.780488));
  // x(128K) = 131072 · (1 + 0.85/0.15) = 873,813.3;  500 / 1248.78 · 873,813 = 349.9 s
  CHECK(ttft_at(model, 131072).ttft_ms == Approx(349866.7).epsilon(1e-5));
}

TEST_CASE("TTFT model: a negative intercept is refitted through the origin", "[latency]") {
  // Points on 0.02·x - 90 ms: the unconstrained line crosses below zero.
  const TtftModel model =
      fit_ttft({{4096, 10}, {32768, 1577}, {131072, 17386}}, kShares, Extrapolation::clamp);
  CHECK(model.fit == TtftFit::least_squares_no_t0);
  CHECK(model.fixed_ms == 0.0);
  // a = Σxy / Σx², x from the table: 4995.12, 83,354.0 (60.7% interpolated), 873,813.3
  const double x1 = prefill_work_units(kShares, 4096, Extrapolation::clamp);
  const double x2 = prefill_work_units(kShares, 32768, Extrapolation::clamp);
  const double x3 = prefill_work_units(kShares, 131072, Extrapolation::clamp);
  CHECK(x1 == Approx(4995.121951));
  CHECK(x2 == Approx(83353.96));
  CHECK(model.ms_per_token ==
        Approx((x1 * 10 + x2 * 1577 + x3 * 17386) / (x1 * x1 + x2 * x2 + x3 * x3)));
  CHECK(model.rms_residual_ms > 0);
}

TEST_CASE("TTFT model: bad points are errors that say what to fix", "[latency]") {
  CHECK_THAT(kspeed::test::worded_throw([&] { (void)fit_ttft({}, kShares, Extrapolation::clamp); }),
             Catch::Contains("TTFT points: none given"));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)fit_ttft({{1024, 267}, {1024, 270}}, kShares, Extrapolation::clamp);
             }),
             Catch::Contains("TTFT points 1 and 2: both at 1,024 tokens"));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)fit_ttft({{1024, -1}}, kShares, Extrapolation::clamp);
             }),
             Catch::Contains("TTFT point 1 (1,024 tokens, -1 ms): expected a positive"));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)fit_ttft({{1024, 900}, {8192, 400}}, kShares, Extrapolation::clamp);
             }),
             Catch::Contains("does not grow with the prompt length"));
}

TEST_CASE("TPOT follows the context: by decode share, by decode model, or held", "[latency]") {
  // 50 ms at 1,152 tokens with 30% decode attention → at 131,200 tokens:
  // 50 · (0.7 + 0.3 · 131200 / 1152) = 1743.3 ms
  const TpotAt scaled = tpot_scaled_by_share(50, 1152, 0.3, 131200);
  CHECK(scaled.rule == TpotRule::share_scaled);
  CHECK(scaled.tpot_ms == Approx(1743.3333));
  CHECK(tpot_scaled_by_share(50, 1152, 0.3, 1152).tpot_ms == Approx(50));
  const TpotAt held = tpot_held(50);
  CHECK(held.rule == TpotRule::held);
  CHECK(held.tpot_ms == 50);

  PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-8b"), Source::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Source::given};
  const Platform platform = make_platform(choice);
  // Step at 4K: 0.16026 ms KV + 4.48039 ms weights (7.505 B params counted from the shapes);
  // at 64K the KV term is 16×: 2.56416 ms.
  const TpotAt modelled = tpot_scaled_by_decode_model(platform, 20, 4096, 65536);
  CHECK(modelled.rule == TpotRule::decode_model);
  CHECK(modelled.scale == Approx((16 * 0.160260 + 4.480393) / (0.160260 + 4.480393)).epsilon(1e-5));
  CHECK(modelled.tpot_ms == Approx(20 * modelled.scale));
}

TEST_CASE("non-kernel time in a phase: the LMSYS GB200 → GB300 case", "[latency]") {
  // LMSYS (2026-02-19), DeepSeek R1-NVFP4 at 128K without chunking: a 1.35× FMHA kernel
  // (277 → 205 ms) gave TTFT 18.6 s → 15.2 s, 1.22×.
  CHECK(277.0 / 205.0 == Approx(1.35).epsilon(0.001));
  CHECK(18.6 / 15.2 == Approx(1.2237).epsilon(1e-4));
  // Amdahl at the table's 85% and no overhead predicts 1.283×.
  CHECK(phase_speedup({18600, 0, 0.85}, 1.35) == Approx(1.282660).epsilon(1e-6));
  // With the fitted fixed term (242 ms) as the only overhead: 1.278×.
  CHECK(phase_speedup({18600, 242.116909, 0.85}, 1.35) == Approx(1.277958).epsilon(1e-6));
  // The exact 18.6 / 15.2 = 1.2237× needs an effective share of 70.5%:
  // (1 - 1/1.2237) / (1 - 1/1.35)
  const double measured = 18.6 / 15.2;
  CHECK(share_implied_by(measured, 1.35) == Approx(0.705069).epsilon(1e-6));
  // ... which the 85% share explains with 17.1% of TTFT outside the kernel: 3.17 s of 18.6 s,
  // an overhead back-fitted to the answer (the rounded 1.22× would give 3.38 s; issue 20).
  const std::optional<double> overhead = overhead_implied_by(18600, 0.85, measured, 1.35);
  REQUIRE(overhead);
  CHECK(*overhead == Approx(3171.43).epsilon(1e-5));
  CHECK(phase_speedup({18600, *overhead, 0.85}, 1.35) == Approx(measured));
  CHECK(*overhead_implied_by(18600, 0.85, 1.22, 1.35) == Approx(3379.72).epsilon(1e-5));
  // The measured range across chunk sizes, 1.07–1.23×, means effective shares of 25–72%.
  CHECK(share_implied_by(1.07, 1.35) == Approx(0.252336).epsilon(1e-5));
  CHECK(share_implied_by(1.23, 1.35) == Approx(0.721254).epsilon(1e-5));
  // No overhead can make the phase gain more than the 85% share allows.
  CHECK_FALSE(overhead_implied_by(18600, 0.85, 1.30, 1.35));
}

TEST_CASE("TTFT model: a share of 1 is the share's error, not the points' (issue 20)",
          "[latency]") {
  const std::string message = test::worded_throw([] {
    (void)fit_ttft(kInferenceX, {{4096, 1.0}}, Extrapolation::clamp);
  });
  CHECK(message.find("prefill attention share is 1 at 1,024 tokens") != std::string::npos);
  CHECK(message.find("--share below 1") != std::string::npos);
  CHECK(message.find("nan") == std::string::npos);
  CHECK(message.find("TTFT points") == std::string::npos);
}

}  // namespace unit_latency_model
