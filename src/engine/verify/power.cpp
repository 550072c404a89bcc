// Minimum detectable effects and sample sizes of an A/B benchmark (power.hpp).
#include "kspeed/engine/verify/power.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

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

// `sides` is 2 for two independent groups (each with `count`), 1 for pairs.
Detectability detectability(double k, double sd_ms, double mean_ms, double count, double sides,
                            double effect) {
  Detectability out;
  out.sd_ms = sd_ms;
  out.mde_fraction = k * sd_ms * std::sqrt(sides / count) / mean_ms;
  const double change_ms = effect * mean_ms;
  out.needed = ceil_count(sides * k * k * sd_ms * sd_ms / (change_ms * change_ms));
  out.detectable = effect >= out.mde_fraction;
  return out;
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
  plan.unpaired = detectability(plan.k, sd, plan.mean_ms, n * static_cast<double>(plan.repeats), 2,
                                input.effect);
  if (input.runs.size() >= 2) {
    const std::vector<double> differences = paired_differences(first, input.runs[1]);
    if (differences.size() >= 2) {
      plan.paired = detectability(plan.k, sd_of(differences), plan.mean_ms,
                                  n * static_cast<double>(plan.repeats), 1, input.effect);
    }
    std::vector<double> run_means;
    for (const BaselineRun& run : input.runs) run_means.push_back(mean_of(run.values_ms));
    const double run_sd = sd_of(run_means);
    plan.between_runs = detectability(plan.k, run_sd, plan.mean_ms,
                                      static_cast<double>(plan.repeats), 2, input.effect);
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
