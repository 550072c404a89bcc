// Repeated runs compared with the run as the unit (engine/verify/run_diff.hpp): Welch's interval
// checked by hand, its false-alarm rate simulated, and an A/A made from the shared AIPerf sample.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "kspeed/engine/verify/run_diff.hpp"
#include "kspeed/engine/verify/t_test.hpp"
#include "kspeed/io/bench_result.hpp"

namespace unit_run_diff {

using namespace kspeed;
using engine::LatencyMetric;
using engine::LatencyStatistic;

namespace {

// The shared data beside the repository (../shared/data), or beside the worktrees' folder.
std::string shared_file(const std::string& name) {
  for (const char* up : {"/../shared/data/", "/../../shared/data/"}) {
    const std::string path = std::string(KSPEED_SOURCE_DIR) + up + name;
    if (std::filesystem::exists(path)) return path;
  }
  return {};
}

// A portable standard normal: Box-Muller over the generator's top 53 bits (std's distributions
// are implementation-defined).
double unit(std::mt19937_64& generator) {
  return (static_cast<double>(generator() >> 11U) + 0.5) / 9007199254740992.0;
}
double normal(std::mt19937_64& generator) {
  const double u = unit(generator);
  const double v = unit(generator);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * v);
}

// A run that states only its mean E2E (an aggregate), `mean_ms`.
engine::BenchSide aggregate_run(double mean_ms) {
  engine::BenchSide run;
  run.source = "run";
  run.stated.at(static_cast<std::size_t>(LatencyMetric::e2e))
      .at(static_cast<std::size_t>(LatencyStatistic::mean)) = mean_ms;
  return run;
}

}  // namespace

TEST_CASE("runs as the unit: Welch's interval by hand", "[verify][diff][runs]") {
  // before 100, 104, 96 (mean 100, variance 16); after 90, 92, 94, 88 (mean 91, variance 6.6667).
  // se^2 = 16/3 + 6.6667/4 = 7.0; df = 49 / ((16/3)^2/2 + (5/3)^2/3) = 3.2347 (by hand);
  // t_{0.975; 3.2347} = 3.0557 (mpmath), interval -9 -+ 3.0557 sqrt(7) = [-17.085, -0.915].
  std::vector<engine::BenchSide> before;
  for (double v : {100.0, 104.0, 96.0}) before.push_back(aggregate_run(v));
  std::vector<engine::BenchSide> after;
  for (double v : {90.0, 92.0, 94.0, 88.0}) after.push_back(aggregate_run(v));
  const engine::RunLevelDiff diff = engine::compare_runs(before, after, 0.95);
  REQUIRE(diff.changes.size() == 1);
  const engine::RunLevelChange& change = diff.changes.front();
  CHECK(change.change_ms == Approx(-9.0));
  CHECK(change.se_ms == Approx(std::sqrt(7.0)));
  CHECK(change.df == Approx(49.0 / (256.0 / 18 + 25.0 / 27)).epsilon(1e-9));
  const double t = engine::student_t_quantile(0.975, change.df);
  CHECK(change.ci_low_ms == Approx(-9 - t * std::sqrt(7.0)));
  CHECK(change.ci_low_ms == Approx(-17.084655909846).epsilon(1e-8));
  CHECK(change.ci_high_ms == Approx(-0.915344090153949).epsilon(1e-7));
  CHECK_FALSE(change.within_noise);
  CHECK_THROWS(engine::compare_runs({aggregate_run(1)}, after, 0.95));
}

TEST_CASE("runs as the unit: an A/A flags at the nominal rate", "[verify][diff][runs]") {
  // 4,000 A/As of 3 runs a side whose means are normal (1000 ms, sd 30 ms): Welch's interval at
  // 95% flags at most the nominal 5% of them. With equal variances and 3 runs a side it is
  // conservative (its estimated df is below the pooled test's 4): 3.2% here (binomial sd 0.3
  // points), so the check is the bound, with the rate kept above 2% so an interval too wide to
  // ever flag would fail.
  std::mt19937_64 generator(20260430);
  int flagged = 0;
  constexpr int kTrials = 4000;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<engine::BenchSide> before;
    std::vector<engine::BenchSide> after;
    for (int i = 0; i < 3; ++i) before.push_back(aggregate_run(1000 + 30 * normal(generator)));
    for (int i = 0; i < 3; ++i) after.push_back(aggregate_run(1000 + 30 * normal(generator)));
    if (!engine::compare_runs(before, after, 0.95).changes.front().within_noise) ++flagged;
  }
  const double rate = static_cast<double>(flagged) / kTrials;
  CHECK(rate <= 0.05 + 0.01);
  CHECK(rate >= 0.02);
}

TEST_CASE("runs as the unit: an A/A from the shared AIPerf sample is within noise",
          "[verify][diff][runs][real]") {
  const std::string path = shared_file("bench/aiperf-gptoss20b-profile_export.jsonl");
  if (path.empty()) {
    WARN("skipped: the shared AIPerf sample is not present (../shared/data)");
    return;
  }
  const std::vector<double> e2e = io::read_bench_results(path).at(0).latencies.samples.at(
      static_cast<std::size_t>(LatencyMetric::e2e));
  REQUIRE(e2e.size() == 89);
  // Six runs of one configuration: each draws the 89 requests with replacement and is scaled by
  // its own run factor 1 + 0.03 z (z standard normal): a whole run shifted by a few percent, as
  // GPU clocks and placement shift real runs. Three runs a side; nothing differs between sides.
  std::mt19937_64 generator(7);
  const auto run = [&]() {
    const double factor = 1 + 0.03 * normal(generator);
    engine::BenchSide side;
    side.source = "resampled";
    side.per_request = true;
    auto& values = side.samples.at(static_cast<std::size_t>(LatencyMetric::e2e));
    for (std::size_t i = 0; i < e2e.size(); ++i) {
      const auto pick = static_cast<std::size_t>(unit(generator) * static_cast<double>(e2e.size()));
      values.push_back(e2e[std::min(e2e.size() - 1, pick)] * factor);
    }
    side.requests = static_cast<std::int64_t>(values.size());
    return side;
  };
  std::vector<engine::BenchSide> before;
  std::vector<engine::BenchSide> after;
  for (int i = 0; i < 3; ++i) before.push_back(run());
  for (int i = 0; i < 3; ++i) after.push_back(run());
  // Request level, the first run of each side: the bootstrap sees the run factors' difference as
  // a change (its interval carries no run-to-run variance).
  const engine::BenchDiff requests = engine::compare_bench(before[0], after[0], {});
  const engine::LatencyChange& mean = requests.changes.front();
  REQUIRE(mean.statistic == LatencyStatistic::mean);
  CHECK(mean.within_noise.has_value());
  // Run level: every statistic within noise.
  const engine::RunLevelDiff runs = engine::compare_runs(before, after, 0.95);
  REQUIRE(runs.changes.size() == 3);
  for (const engine::RunLevelChange& change : runs.changes) CHECK(change.within_noise);
  INFO("request-level mean change " << mean.change_ms << " ms, interval [" << *mean.ci_low_ms
                                    << ", " << *mean.ci_high_ms << "]");
  CHECK_FALSE(*mean.within_noise);
}

}  // namespace unit_run_diff
