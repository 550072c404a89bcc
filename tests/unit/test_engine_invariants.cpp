// Invariants of the engine over random inputs (issue 12): whatever the numbers, a speedup never
// exceeds its ceiling, every lever >= 1 never slows anything down, more share or a faster kernel
// is never worth less, times stay >= 0 and shares stay in [0, 1]. The generator is seeded, so a
// failure reproduces; Catch2's INFO prints the inputs of the failing draw.

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace unit_engine_invariants {

using namespace kspeed::engine;

namespace {

constexpr int kDraws = 20000;
constexpr double kTolerance = 1e-9;  // relative slack for floating-point rounding

// Log-uniform in [low, high]: speedups and times span decades, and a uniform draw would almost
// never test the small end.
double log_uniform(std::mt19937_64& rng, double low, double high) {
  std::uniform_real_distribution<double> exponent(std::log(low), std::log(high));
  return std::exp(exponent(rng));
}

double uniform(std::mt19937_64& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}

PhaseInput random_phase(std::mt19937_64& rng, bool targeted) {
  PhaseInput phase;
  phase.time_before_ms = log_uniform(rng, 1e-3, 1e6);
  phase.attention_share = uniform(rng, 0.0, 1.0);
  phase.attention_speedup = log_uniform(rng, 0.1, 100.0);
  phase.targeted = targeted;
  return phase;
}

void check_level(const Level& level) {
  INFO("before " << level.time_before_ms << " after " << level.time_after_ms << " speedup "
                 << level.speedup);
  CHECK(level.time_before_ms >= 0);
  CHECK(level.time_after_ms >= 0);
  CHECK(level.share_of_parent >= 0);
  CHECK(level.share_of_parent <= 1 + kTolerance);
  if (level.ceiling) CHECK(level.speedup <= *level.ceiling * (1 + kTolerance));
}

}  // namespace

TEST_CASE("random chains: times >= 0, shares in [0, 1], speedup <= ceiling", "[invariants]") {
  std::mt19937_64 rng(20261130);
  for (int draw = 0; draw < kDraws; ++draw) {
    const bool prefill_targeted = draw % 3 != 1;
    const PhaseInput prefill = random_phase(rng, prefill_targeted);
    const PhaseInput decode = random_phase(rng, !prefill_targeted || draw % 3 == 2);
    INFO("draw " << draw << ": prefill p=" << prefill.attention_share
                 << " s=" << prefill.attention_speedup << "; decode p=" << decode.attention_share
                 << " s=" << decode.attention_speedup);
    const EstimateResult result = estimate_chain(prefill, decode);
    for (const Level* level : {&result.prefill.attention, &result.prefill.phase,
                               &result.decode.attention, &result.decode.phase, &result.request}) {
      check_level(*level);
    }
    // Saved time adds up: the request saves what its phases save.
    CHECK(result.request.saved_ms ==
          Approx(result.prefill.phase.saved_ms + result.decode.phase.saved_ms)
              .epsilon(1e-9)
              .margin(1e-9 * result.request.time_before_ms));
    CHECK(result.prefill_fraction >= 0);
    CHECK(result.prefill_fraction <= 1 + kTolerance);
  }
}

TEST_CASE("random chains: every speedup >= 1 never slows a level down", "[invariants]") {
  std::mt19937_64 rng(7);
  for (int draw = 0; draw < kDraws; ++draw) {
    PhaseInput prefill = random_phase(rng, true);
    PhaseInput decode = random_phase(rng, true);
    prefill.attention_speedup = log_uniform(rng, 1.0, 100.0);
    decode.attention_speedup = log_uniform(rng, 1.0, 100.0);
    INFO("draw " << draw);
    const EstimateResult result = estimate_chain(prefill, decode);
    CHECK(result.prefill.phase.speedup >= 1 - kTolerance);
    CHECK(result.decode.phase.speedup >= 1 - kTolerance);
    CHECK(result.request.speedup >= 1 - kTolerance);
    CHECK(result.request.time_after_ms <= result.request.time_before_ms * (1 + kTolerance));
  }
}

TEST_CASE("random Amdahl: monotone in the share and in the kernel speedup", "[invariants]") {
  std::mt19937_64 rng(42);
  for (int draw = 0; draw < kDraws; ++draw) {
    const double share_low = uniform(rng, 0.0, 1.0);
    const double share_high = uniform(rng, share_low, 1.0);
    const double speedup_low = log_uniform(rng, 1.0, 100.0);
    const double speedup_high = speedup_low * log_uniform(rng, 1.0, 10.0);
    INFO("p " << share_low << ".." << share_high << ", s " << speedup_low << ".." << speedup_high);
    // For s >= 1 a larger share is worth more, and a faster kernel is worth more at any share.
    CHECK(amdahl_speedup(share_high, speedup_low) >=
          amdahl_speedup(share_low, speedup_low) * (1 - kTolerance));
    CHECK(amdahl_speedup(share_low, speedup_high) >=
          amdahl_speedup(share_low, speedup_low) * (1 - kTolerance));
    const std::optional<double> ceiling = amdahl_ceiling(share_high);
    if (ceiling) CHECK(amdahl_speedup(share_high, speedup_high) <= *ceiling * (1 + kTolerance));
  }
}

TEST_CASE("random levers: every lever >= 1 gives a kernel speedup >= 1", "[invariants]") {
  std::mt19937_64 rng(99);
  for (int draw = 0; draw < kDraws; ++draw) {
    const KernelCost cost{log_uniform(rng, 1e3, 1e15), log_uniform(rng, 1e3, 1e13)};
    const Roof roof{log_uniform(rng, 10, 10000), log_uniform(rng, 0.5, 20)};
    Levers levers;
    levers.compute_speedup = log_uniform(rng, 1.0, 10.0);
    levers.bytes_reduction = log_uniform(rng, 1.0, 10.0);
    levers.bandwidth_efficiency_before = uniform(rng, 0.05, 1.0);
    levers.bandwidth_efficiency_after = uniform(rng, levers.bandwidth_efficiency_before, 1.0);
    levers.compute_efficiency = uniform(rng, 0.05, 1.0);
    INFO("draw " << draw << ": flops " << cost.flops << " bytes " << cost.bytes);
    const LeverOutcome outcome = apply_levers(cost, roof, levers);
    CHECK(outcome.time_before_ms > 0);
    CHECK(outcome.time_after_ms > 0);
    CHECK(outcome.speedup >= 1 - kTolerance);
    // No lever is worth more than the largest factor it applies.
    const double largest = std::max(
        {levers.compute_speedup, levers.bytes_reduction * levers.bandwidth_efficiency_after /
                                     levers.bandwidth_efficiency_before});
    CHECK(outcome.speedup <= largest * (1 + kTolerance));
  }
}

}  // namespace unit_engine_invariants
