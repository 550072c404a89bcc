#pragma once
// Repeated runs compared with the run as the unit: each run's mean, p50 or p99 of a latency is
// one value, and the change is judged from how those values vary between runs, not from the
// requests inside one run. Pure: no I/O.
//
// Welch's t interval of the difference of the two sides' average run figures (Welch, "The
// generalization of 'Student's' problem when several different population variances are
// involved", Biometrika 34, 1947): with m_a, m_b the averages, v_a, v_b the sample variances of
// n_a, n_b runs,
//   se^2 = v_a / n_a + v_b / n_b,
//   df   = se^4 / ((v_a / n_a)^2 / (n_a - 1) + (v_b / n_b)^2 / (n_b - 1))   (Satterthwaite),
//   interval = (m_b - m_a) -+ t_{(1+c)/2; df} se,
// "within noise" when it contains 0. Two runs a side at least (kMinRunsPerSide): one run has no
// variance. A request-level bootstrap of two single runs carries no run-to-run variation; this
// does, with the few degrees of freedom the runs give.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/verify/bench_diff.hpp"

namespace kspeed::engine {

/// Runs a side a run-level comparison needs.
inline constexpr std::size_t kMinRunsPerSide = 2;

/// One statistic of one metric across runs.
struct RunLevelChange {
  LatencyMetric metric = LatencyMetric::ttft;
  LatencyStatistic statistic = LatencyStatistic::mean;
  std::vector<double> before_runs_ms;  ///< each before run's figure
  std::vector<double> after_runs_ms;   ///< each after run's figure
  double before_ms = 0;                ///< the before runs' average
  double after_ms = 0;                 ///< the after runs' average
  double change_ms = 0;                ///< after - before
  double ratio = 0;                    ///< after / before (0 when before is 0)
  double se_ms = 0;                    ///< Welch's standard error of the change
  double df = 0;                       ///< Welch-Satterthwaite degrees of freedom
  double ci_low_ms = 0;                ///< of after - before
  double ci_high_ms = 0;
  bool within_noise = true;  ///< the interval contains 0
};

struct RunLevelDiff {
  std::vector<BenchSide> before;  ///< the runs, summarised
  std::vector<BenchSide> after;
  double confidence = 0.95;
  /// Metric-major, then statistic; only those every run on both sides states.
  std::vector<RunLevelChange> changes;
  std::vector<LatencyMetric> missing;             ///< metrics some run does not state
  std::vector<std::string> differing_conditions;  ///< set by the caller
};

/// Compares repeated runs. Throws std::invalid_argument with fewer than kMinRunsPerSide runs a
/// side or a confidence outside (0, 1); the CLI checks them first.
RunLevelDiff compare_runs(std::vector<BenchSide> before, std::vector<BenchSide> after,
                          double confidence);

}  // namespace kspeed::engine
