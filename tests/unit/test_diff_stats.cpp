// The error rates `kspeed diff` states for benchmark results (engine/verify/bench_diff.hpp):
// simulated A/A comparisons (both sides drawn from one distribution, so every flag is a false
// alarm) at the minimum n a verdict needs, and across several judged rows.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/verify/bench_diff.hpp"

namespace unit_diff_stats {

using namespace kspeed;
using engine::LatencyMetric;

namespace {

// A side of `n` requests whose `metrics` each hold independent normal values (mean 1000, sd 100).
engine::BenchSide simulated_side(std::mt19937_64& generator, int n,
                                 const std::vector<LatencyMetric>& metrics) {
  std::normal_distribution<double> request(1000.0, 100.0);
  engine::BenchSide side;
  side.source = "simulated";
  side.per_request = true;
  side.requests = n;
  for (LatencyMetric metric : metrics) {
    auto& values = side.samples.at(static_cast<std::size_t>(metric));
    for (int i = 0; i < n; ++i) values.push_back(request(generator));
  }
  return side;
}

struct AaRates {
  double row = 0;     ///< the share of judged rows that flag
  double family = 0;  ///< the share of A/As where at least one row flags
  std::int64_t judged = 0;
};

AaRates simulate_aa(int n, const std::vector<LatencyMetric>& metrics, double confidence,
                    int trials) {
  std::mt19937_64 generator(20260430);
  engine::BootstrapOptions options;
  options.resamples = 1000;
  options.confidence = confidence;
  std::int64_t flagged_rows = 0;
  std::int64_t rows = 0;
  int flagged_families = 0;
  AaRates rates;
  for (int trial = 0; trial < trials; ++trial) {
    options.seed = generator();
    const engine::BenchDiff diff = engine::compare_bench(
        simulated_side(generator, n, metrics), simulated_side(generator, n, metrics), options);
    bool any = false;
    for (const engine::LatencyChange& change : diff.changes) {
      if (!change.within_noise) continue;
      ++rows;
      if (!*change.within_noise) {
        ++flagged_rows;
        any = true;
      }
    }
    rates.judged = diff.judged;
    if (any) ++flagged_families;
  }
  rates.row = rows > 0 ? static_cast<double>(flagged_rows) / static_cast<double>(rows) : 0;
  rates.family = static_cast<double>(flagged_families) / trials;
  return rates;
}

}  // namespace

TEST_CASE("diff: no mean verdict below the stated minimum n", "[verify][diff][stats]") {
  std::mt19937_64 generator(1);
  const engine::BenchDiff diff =
      engine::compare_bench(simulated_side(generator, 10, {LatencyMetric::e2e}),
                            simulated_side(generator, 10, {LatencyMetric::e2e}), {});
  REQUIRE(diff.changes.size() == 3);
  for (const engine::LatencyChange& change : diff.changes) {
    CHECK_FALSE(change.within_noise);
    CHECK_FALSE(change.ci_low_ms);
    CHECK(*change.requests_needed >= engine::kMinRequestsForVerdict);
  }
  CHECK(diff.changes[0].no_interval == engine::NoInterval::too_few_for_mean);
  CHECK(diff.changes[1].no_interval == engine::NoInterval::too_few_for_percentile);
  CHECK(diff.judged == 0);
}

TEST_CASE("diff: an A/A at the minimum n flags a mean near the nominal 5%",
          "[verify][diff][stats]") {
  // 1,000 A/As of 30 normal requests a side: the mean's false-alarm rate (binomial sd 0.7 points
  // at 5%). The percentile bootstrap's interval is a little narrow at small n (the 23%
  // at n = 3 and 12% at n = 10); at 30 it is within 2 points of 5%.
  const AaRates rates = simulate_aa(static_cast<int>(engine::kMinRequestsForVerdict),
                                    {LatencyMetric::e2e}, 0.95, 1000);
  CHECK(rates.judged == 2);  // mean and p50; p99 needs 299
  CHECK(rates.row == Approx(0.05).margin(0.02));
}

TEST_CASE("diff: several judged rows, the family-wise rate and the Bonferroni correction",
          "[verify][diff][stats]") {
  // Three independent metrics of 60 requests: 6 judged rows (mean and p50 each). The note states
  // 1 - 0.95^6 = 26.5% for independent rows; the simulated share of A/As with a flag is below
  // it (a metric's mean and p50 move together) and well above 5%. With --confidence 1 - 0.05/6
  // (Bonferroni, as the note suggests) it is at most 5%.
  const std::vector<LatencyMetric> metrics = {LatencyMetric::ttft, LatencyMetric::tpot,
                                              LatencyMetric::e2e};
  const AaRates plain = simulate_aa(60, metrics, 0.95, 400);
  CHECK(plain.judged == 6);
  CHECK(plain.family <= 1 - std::pow(0.95, 6) + 0.03);
  CHECK(plain.family > 0.12);
  const AaRates corrected = simulate_aa(60, metrics, 1 - 0.05 / 6, 400);
  CHECK(corrected.family <= 0.05 + 0.025);
}

}  // namespace unit_diff_stats
