// Repeated runs compared run by run: Welch's t interval over the runs' figures (run_diff.hpp).
#include "kspeed/engine/verify/run_diff.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "kspeed/engine/verify/t_test.hpp"

namespace kspeed::engine {

namespace {

double average(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Sample variance (n - 1).
double variance(const std::vector<double>& values) {
  const double mean = average(values);
  double squares = 0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  return squares / static_cast<double>(values.size() - 1);
}

}  // namespace

RunLevelDiff compare_runs(std::vector<BenchSide> before, std::vector<BenchSide> after,
                          double confidence) {
  if (before.size() < kMinRunsPerSide || after.size() < kMinRunsPerSide ||
      !(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("compare_runs: 2+ runs a side, confidence in (0, 1)");
  }
  for (auto* side : {&before, &after}) {
    for (BenchSide& run : *side) {
      if (run.per_request) summarise_samples(run);
    }
  }
  RunLevelDiff diff;
  diff.confidence = confidence;
  for (LatencyMetric metric : kLatencyMetrics) {
    const auto m = static_cast<std::size_t>(metric);
    bool any = false;
    for (LatencyStatistic statistic : kLatencyStatistics) {
      const auto s = static_cast<std::size_t>(statistic);
      RunLevelChange change;
      change.metric = metric;
      change.statistic = statistic;
      bool complete = true;
      for (const BenchSide& run : before) {
        const std::optional<double>& figure = run.stated.at(m).at(s);
        complete = complete && figure.has_value();
        if (figure) change.before_runs_ms.push_back(*figure);
      }
      for (const BenchSide& run : after) {
        const std::optional<double>& figure = run.stated.at(m).at(s);
        complete = complete && figure.has_value();
        if (figure) change.after_runs_ms.push_back(*figure);
      }
      if (!complete) continue;
      any = true;
      const auto na = static_cast<double>(change.before_runs_ms.size());
      const auto nb = static_cast<double>(change.after_runs_ms.size());
      change.before_ms = average(change.before_runs_ms);
      change.after_ms = average(change.after_runs_ms);
      change.change_ms = change.after_ms - change.before_ms;
      change.ratio = change.before_ms > 0 && std::isfinite(change.after_ms / change.before_ms)
                         ? change.after_ms / change.before_ms
                         : 0;
      // Welch: se^2 = va/na + vb/nb, Satterthwaite's df.
      const double a = variance(change.before_runs_ms) / na;
      const double b = variance(change.after_runs_ms) / nb;
      change.se_ms = std::sqrt(a + b);
      change.df =
          a + b > 0 ? (a + b) * (a + b) / (a * a / (na - 1) + b * b / (nb - 1)) : na + nb - 2;
      const double t = student_t_quantile((1 + confidence) / 2, change.df);
      change.ci_low_ms = change.change_ms - t * change.se_ms;
      change.ci_high_ms = change.change_ms + t * change.se_ms;
      change.within_noise = change.ci_low_ms <= 0 && change.ci_high_ms >= 0;
      diff.changes.push_back(std::move(change));
    }
    if (!any) diff.missing.push_back(metric);
  }
  diff.before = std::move(before);
  diff.after = std::move(after);
  return diff;
}

}  // namespace kspeed::engine
