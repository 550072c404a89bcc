// kspeed plan's request-level spread range (Bonett 2006, kurtosis-adjusted; docs/plan.md), checked
// by simulation on heavy-tailed latencies, where a baseline's SD most often falls short of the
// spread the A/B meets (issue 30: a planned A/B reached power 0.60, not 0.80): how often the range
// covers the true SD, and the power an A/B planned at the range's upper end reaches.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/verify/power.hpp"

namespace unit_plan_spread {

using namespace kspeed;

namespace {

// Lognormal request latencies, ms: median 1 s, sigma 0.8 (a heavy right tail)
constexpr double kLogSigma = 0.8;
constexpr double kMedianMs = 1000;

std::vector<double> lognormal_sample(std::mt19937_64& rng, std::size_t n) {
  std::lognormal_distribution<double> latency(std::log(kMedianMs), kLogSigma);
  std::vector<double> values(n);
  for (double& value : values) value = latency(rng);
  return values;
}

// Welch's t statistic beyond the two-sided 5% normal quantile (n is in the hundreds a side).
bool ab_detects(std::mt19937_64& rng, std::int64_t n, double shift_ms) {
  const std::vector<double> a = lognormal_sample(rng, static_cast<std::size_t>(n));
  std::vector<double> b = lognormal_sample(rng, static_cast<std::size_t>(n));
  for (double& value : b) value += shift_ms;
  const auto moments = [](const std::vector<double>& v) {
    double mean = 0;
    for (const double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double ss = 0;
    for (const double x : v) ss += (x - mean) * (x - mean);
    return std::pair{mean, ss / static_cast<double>(v.size() - 1)};
  };
  const auto [mean_a, var_a] = moments(a);
  const auto [mean_b, var_b] = moments(b);
  const double t = (mean_b - mean_a) / std::sqrt((var_a + var_b) / static_cast<double>(n));
  return std::fabs(t) > 1.959964;
}

}  // namespace

TEST_CASE(
    "plan: the requests' spread range covers a heavy-tailed SD, and planning at its upper "
    "end keeps the stated power",
    "[plan][stats]") {
  std::mt19937_64 rng(20261203);
  const double true_mean = kMedianMs * std::exp(kLogSigma * kLogSigma / 2);
  const double true_sd = true_mean * std::sqrt(std::exp(kLogSigma * kLogSigma) - 1);
  const double effect = 0.2;  // a 20% shift of the mean: a few hundred requests a side
  constexpr int kBaselines = 400;
  constexpr int kTrials = 100;
  int covered = 0;
  int below = 0;
  double power_point = 0;
  double power_high = 0;
  for (int b = 0; b < kBaselines; ++b) {
    engine::PlanInput input;
    input.runs.push_back({"baseline", lognormal_sample(rng, 200), {}});
    input.effect = effect;
    const engine::Plan plan = engine::plan_ab(input);
    REQUIRE(plan.unpaired.sd_low_ms);
    REQUIRE(plan.unpaired.sd_high_ms);
    REQUIRE(plan.unpaired.needed_high);
    covered += *plan.unpaired.sd_low_ms <= true_sd && true_sd <= *plan.unpaired.sd_high_ms;
    below += plan.unpaired.sd_ms < true_sd;
    CHECK(*plan.unpaired.needed_high >= plan.unpaired.needed);
    // The shift is the prediction against the baseline's own mean, as plan states it.
    const double shift = effect * plan.mean_ms;
    int hits_point = 0;
    int hits_high = 0;
    for (int t = 0; t < kTrials; ++t) {
      hits_point += ab_detects(rng, plan.unpaired.needed, shift);
      hits_high += ab_detects(rng, *plan.unpaired.needed_high, shift);
    }
    power_point += static_cast<double>(hits_point) / kTrials / kBaselines;
    power_high += static_cast<double>(hits_high) / kTrials / kBaselines;
  }
  const double coverage = static_cast<double>(covered) / kBaselines;
  WARN("coverage " << coverage << ", SD below the true one in " << below << " of " << kBaselines
                   << ", power at the SD's needed " << power_point << ", at the upper end's "
                   << power_high);
  // The heavy tail: the sample SD falls short more often than not, and the point plan loses power
  CHECK(below > kBaselines / 2);
  CHECK(power_point < 0.8);
  // The range is approximate: on this skewed a tail it covers the true SD 85.5% of the time for a
  // nominal 95% (docs/plan.md states it), far more often than the SD alone is above it (36%); its
  // upper end keeps the stated power (0.91 here against 0.76 at the SD's plan)
  CHECK(coverage >= 0.80);
  CHECK(coverage <= 0.99);
  CHECK(power_high >= 0.8);
}

}  // namespace unit_plan_spread
