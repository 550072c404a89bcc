// Minimum detectable effects and sample sizes of an A/B benchmark (power.hpp).
#include "kspeed/engine/verify/power.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "kspeed/engine/verify/t_test.hpp"

namespace kspeed::engine {

namespace {

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Sample standard deviation (n - 1).
double sd_of(const std::vector<double>& values) {
  const double mean = mean_of(values);
  double squares = 0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::int64_t ceil_count(double value) {
  if (!std::isfinite(value) || value > 9e18) return INT64_MAX;
  return std::max<std::int64_t>(2, static_cast<std::int64_t>(std::ceil(value)));
}

// One comparison's standard error and t test degrees of freedom at `count` a side (requests,
// pairs or runs): `sides` 2 for two independent groups, 1 for pairs.
struct Design {
  double sd_ms;
  double sides;
  double se(double count) const { return sd_ms * std::sqrt(sides / count); }
  double df(double count) const { return sides == 2 ? 2 * count - 2 : count - 1; }
};

// Beyond this many a side the t test is the normal one to 1e-6: the normal count is exact.
constexpr double kExactLimit = 1e7;

// The smallest count (>= 2) whose t test detects `change_ms` with the power: from the normal
// approximation's count, which the exact t test never needs fewer than, up.
std::int64_t needed_count(const Design& design, double change_ms, double k,
                          const PowerOptions& options) {
  const double normal =
      design.sides * k * k * design.sd_ms * design.sd_ms / (change_ms * change_ms);
  std::int64_t low = ceil_count(normal);
  if (low == INT64_MAX || static_cast<double>(low) > kExactLimit) return low;
  const auto enough = [&](std::int64_t count) {
    const auto c = static_cast<double>(count);
    return t_test_power(change_ms / design.se(c), design.df(c), options.alpha) >= options.power;
  };
  if (enough(low)) return low;
  std::int64_t high = low + 1;
  while (!enough(high)) {
    low = high;
    high = high * 2;
    if (static_cast<double>(high) > kExactLimit) return high;
  }
  // enough(high), not enough(low): bisect to the first count that is.
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    (enough(mid) ? high : low) = mid;
  }
  return high;
}

Detectability detectability(const Design& design, double k, double mean_ms, double count,
                            double effect, const PowerOptions& options) {
  Detectability out;
  out.sd_ms = design.sd_ms;
  out.df = design.df(count);
  const double se = design.se(count);
  const double change_ms = effect * mean_ms;
  if (out.df < 1) {
    // One run a side: the t test has no degrees of freedom, nothing is detectable.
    out.mde_fraction = std::numeric_limits<double>::infinity();
    out.power = 0;
  } else if (count > kExactLimit) {
    // The normal limit: delta = k.
    out.mde_fraction = k * se / mean_ms;
    const double z = normal_quantile(1 - options.alpha / 2);
    const double shift = change_ms / se;
    out.power = 0.5 * std::erfc(-(shift - z) / std::sqrt(2.0)) +
                0.5 * std::erfc((shift + z) / std::sqrt(2.0));
  } else {
    out.mde_fraction = t_test_detectable_delta(options.power, out.df, options.alpha) * se / mean_ms;
    out.power = t_test_power(change_ms / se, out.df, options.alpha);
  }
  out.needed = needed_count(design, change_ms, k, options);
  out.detectable = effect >= out.mde_fraction;
  return out;
}

// The 95% range of a spread estimated from per-request values, kurtosis-adjusted (Bonett,
// "Approximate confidence interval for standard deviation of nonnormal distributions",
// Computational Statistics & Data Analysis 50, 2006): heavy tails, where the sample SD most
// often falls short of the true one, widen the range; for normal data it matches the
// chi-square interval. kurtosis = n sum (y - m)^4 / (sum (y - mean)^2)^2 with m the mean trimmed
// by 1 / (2 sqrt(n - 4)) at each end; c = n / (n - z); se = c sqrt((kurtosis - (n - 3) / n) /
// (n - 1)); the variance lies in exp(ln(c s^2) -+ z se).
std::optional<std::pair<double, double>> spread_range(std::vector<double> values, double sd) {
  const auto n = static_cast<double>(values.size());
  if (values.size() < 10 || !(sd > 0)) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double trim = 1 / (2 * std::sqrt(n - 4));
  const auto cut = static_cast<std::size_t>(std::floor(trim * n));
  double trimmed_sum = 0;
  for (std::size_t i = cut; i < values.size() - cut; ++i) trimmed_sum += values[i];
  const double trimmed_mean = trimmed_sum / (n - 2 * static_cast<double>(cut));
  const double mean = mean_of(values);
  double fourth = 0;
  double second = 0;
  for (const double y : values) {
    fourth += std::pow(y - trimmed_mean, 4);
    second += (y - mean) * (y - mean);
  }
  const double kurtosis = n * fourth / (second * second);
  const double z = normal_quantile(0.975);
  const double c = n / (n - z);
  const double se = c * std::sqrt(std::max(0.0, (kurtosis - (n - 3) / n) / (n - 1)));
  const double log_variance = std::log(c * sd * sd);
  return std::pair{std::exp((log_variance - z * se) / 2), std::exp((log_variance + z * se) / 2)};
}

// Per-request differences (second - first) of the requests both runs identify; empty when the
// runs do not share every id.
std::vector<double> paired_differences(const BaselineRun& first, const BaselineRun& second) {
  std::vector<double> differences;
  if (first.ids.size() != first.values_ms.size() || second.ids.size() != second.values_ms.size() ||
      first.ids.size() != second.ids.size() || first.ids.empty()) {
    return differences;
  }
  std::unordered_map<std::string, double> by_id;
  for (std::size_t i = 0; i < first.ids.size(); ++i) by_id[first.ids[i]] = first.values_ms[i];
  for (std::size_t i = 0; i < second.ids.size(); ++i) {
    const auto match = by_id.find(second.ids[i]);
    if (match == by_id.end()) return {};
    differences.push_back(second.values_ms[i] - match->second);
  }
  return differences;
}

}  // namespace

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p in (0, 1)");
  // Bisection on the CDF, Phi(z) = erfc(-z / sqrt 2) / 2: 200 halvings of [-40, 40] reach the
  // double's resolution; exact enough for a sample size and free of table constants.
  double low = -40;
  double high = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (low + high) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

const Detectability& Plan::deciding() const {
  if (between_runs) return *between_runs;
  if (paired) return *paired;
  return unpaired;
}

Plan plan_ab(const PlanInput& input) {
  if (input.runs.empty()) throw std::invalid_argument("plan_ab: at least one run");
  for (const BaselineRun& run : input.runs) {
    if (run.values_ms.size() < 2) throw std::invalid_argument("plan_ab: 2+ values a run");
  }
  if (!(input.effect > 0) || !(input.options.power > 0 && input.options.power < 1) ||
      !(input.options.alpha > 0 && input.options.alpha < 1)) {
    throw std::invalid_argument("plan_ab: effect > 0, power and alpha in (0, 1)");
  }
  Plan plan;
  plan.input = input;
  const BaselineRun& first = input.runs.front();
  plan.mean_ms = mean_of(first.values_ms);
  plan.requests = input.requests.value_or(static_cast<std::int64_t>(first.values_ms.size()));
  plan.repeats = input.repeats.value_or(1);
  plan.k = normal_quantile(1 - input.options.alpha / 2) + normal_quantile(input.options.power);
  const double n = static_cast<double>(plan.requests);
  const double sd = sd_of(first.values_ms);
  // With r runs a side the requests pool: n r per side.
  const double pooled = n * static_cast<double>(plan.repeats);
  plan.unpaired = detectability({sd, 2}, plan.k, plan.mean_ms, pooled, input.effect, input.options);
  // Each request-level spread with its 95% range and what the range's upper end needs (issue 30:
  // a heavy-tailed baseline's SD understates the spread the A/B meets).
  const auto add_range = [&](Detectability& d, const std::vector<double>& values, double sides) {
    if (const auto range = spread_range(values, d.sd_ms)) {
      d.sd_low_ms = range->first;
      d.sd_high_ms = range->second;
      d.needed_high =
          needed_count({range->second, sides}, input.effect * plan.mean_ms, plan.k, input.options);
    }
  };
  add_range(plan.unpaired, first.values_ms, 2);
  if (input.runs.size() >= 2) {
    const std::vector<double> differences = paired_differences(first, input.runs[1]);
    if (differences.size() >= 2) {
      plan.paired = detectability({sd_of(differences), 1}, plan.k, plan.mean_ms, pooled,
                                  input.effect, input.options);
      add_range(*plan.paired, differences, 1);
    }
  }
  if (input.runs.size() >= kMinRunsForSpread) {
    std::vector<double> run_means;
    for (const BaselineRun& run : input.runs) run_means.push_back(mean_of(run.values_ms));
    const double run_sd = sd_of(run_means);
    const auto repeats = static_cast<double>(plan.repeats);
    Detectability between =
        detectability({run_sd, 2}, plan.k, plan.mean_ms, repeats, input.effect, input.options);
    // The spread's 95% range: (R - 1) s^2 / sigma^2 is chi-square with R - 1 degrees of freedom,
    // so sigma lies in [s sqrt(v / chi2_0.975), s sqrt(v / chi2_0.025)] (v = R - 1).
    const auto v = static_cast<double>(run_means.size() - 1);
    between.sd_low_ms = run_sd * std::sqrt(v / chi_square_quantile(0.975, v));
    between.sd_high_ms = run_sd * std::sqrt(v / chi_square_quantile(0.025, v));
    between.needed_high =
        needed_count({*between.sd_high_ms, 2}, input.effect * plan.mean_ms, plan.k, input.options);
    plan.between_runs = between;
    plan.run_floor = run_sd > sd / std::sqrt(static_cast<double>(first.values_ms.size()));
  }
  // Judged on the deciding estimate: between runs, else paired, else unpaired.
  if (plan.between_runs) {
    plan.impractical = plan.between_runs->needed > kImpracticalRepeats;
  } else if (plan.paired) {
    plan.impractical = plan.paired->needed > kImpracticalRequests;
  } else {
    plan.impractical = plan.unpaired.needed > kImpracticalRequests;
  }
  return plan;
}

}  // namespace kspeed::engine
