// The change between two benchmark results and its bootstrap interval (bench_diff.hpp).
#include "kspeed/engine/verify/bench_diff.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "kspeed/engine/distribution.hpp"
#include "kspeed/engine/verify/resampling.hpp"

namespace kspeed::engine {

std::string_view to_string(LatencyMetric metric) {
  switch (metric) {
    case LatencyMetric::ttft:
      return "ttft";
    case LatencyMetric::tpot:
      return "tpot";
    case LatencyMetric::itl:
      return "itl";
    case LatencyMetric::e2e:
      return "e2e";
  }
  return "?";
}

std::string_view to_string(LatencyStatistic statistic) {
  switch (statistic) {
    case LatencyStatistic::mean:
      return "mean";
    case LatencyStatistic::p50:
      return "p50";
    case LatencyStatistic::p99:
      return "p99";
  }
  return "?";
}

std::array<double, 3> latency_statistics(std::vector<double>& values) {
  const Distribution distribution = distribution_of(values, {50.0, 99.0});
  return {distribution.mean, distribution.percentiles.at(0), distribution.percentiles.at(1)};
}

void summarise_samples(BenchSide& side) {
  for (LatencyMetric metric : kLatencyMetrics) {
    auto& values = side.samples.at(static_cast<std::size_t>(metric));
    if (values.empty()) continue;
    std::vector<double> copy = values;
    const std::array<double, 3> statistics = latency_statistics(copy);
    for (std::size_t s = 0; s < statistics.size(); ++s) {
      side.stated.at(static_cast<std::size_t>(metric)).at(s) = statistics.at(s);
    }
  }
}

std::int64_t requests_for_quantile(double q, double confidence) {
  // P(min <= x_q <= max) = 1 - q^n - (1-q)^n for n independent draws of a continuous variable.
  std::int64_t n = 1;
  double below = q;      // q^n: every value below the quantile
  double above = 1 - q;  // (1-q)^n: every value above it
  while (1 - below - above < confidence && n < (std::int64_t{1} << 40)) {
    ++n;
    below *= q;
    above *= 1 - q;
  }
  return n;
}

Pairing pair_requests(const BenchSide& before, const BenchSide& after) {
  Pairing pairing;
  if (!before.per_request || !after.per_request) {
    pairing.problem = PairingProblem::aggregate_only;
    return pairing;
  }
  for (const BenchSide* side : {&before, &after}) {
    if (static_cast<std::int64_t>(side->identified.size()) != side->requests ||
        side->requests == 0) {
      pairing.problem = PairingProblem::unidentified;
      pairing.source = side->source;
      return pairing;
    }
  }
  std::unordered_map<std::string_view, const BenchSide::Request*> by_id;
  for (const BenchSide::Request& request : before.identified) {
    if (!by_id.emplace(request.id, &request).second) {
      pairing.problem = PairingProblem::repeated_id;
      pairing.source = before.source;
      pairing.id = request.id;
      return pairing;
    }
  }
  for (const BenchSide::Request& request : after.identified) {
    const auto match = by_id.find(request.id);
    if (match == by_id.end()) continue;
    if (match->second->prompt_tokens != request.prompt_tokens) {
      pairing.problem = PairingProblem::prompt_mismatch;
      pairing.id = request.id;
      pairing.before_prompt_tokens = match->second->prompt_tokens;
      pairing.after_prompt_tokens = request.prompt_tokens;
      return pairing;
    }
    ++pairing.pairs;
  }
  if (pairing.pairs != before.requests || pairing.pairs != after.requests) {
    pairing.problem = PairingProblem::different_requests;
    return pairing;
  }
  pairing.paired = true;
  return pairing;
}

namespace {

void resample(std::mt19937_64& generator, const std::vector<double>& values,
              std::vector<double>& out) {
  out.resize(values.size());
  for (double& value : out) value = values[uniform_index(generator, values.size())];
}

// Bootstrap differences (after - before) of mean, p50 and p99 for one metric; each resample
// draws both sides, in that order, from the one generator.
std::array<std::vector<double>, 3> bootstrap_differences(const std::vector<double>& before,
                                                         const std::vector<double>& after,
                                                         const BootstrapOptions& options,
                                                         std::mt19937_64& generator) {
  std::array<std::vector<double>, 3> differences;
  std::vector<double> before_sample;
  std::vector<double> after_sample;
  for (std::int64_t i = 0; i < options.resamples; ++i) {
    resample(generator, before, before_sample);
    resample(generator, after, after_sample);
    const std::array<double, 3> b = latency_statistics(before_sample);
    const std::array<double, 3> a = latency_statistics(after_sample);
    for (std::size_t s = 0; s < 3; ++s) differences.at(s).push_back(a.at(s) - b.at(s));
  }
  for (auto& d : differences) std::sort(d.begin(), d.end());
  return differences;
}

// The same with request pairs: before[i] and after[i] are one request's values, and each
// resample draws pairs, so both sides of a resample hold the same requests.
std::array<std::vector<double>, 3> paired_bootstrap_differences(const std::vector<double>& before,
                                                                const std::vector<double>& after,
                                                                const BootstrapOptions& options,
                                                                std::mt19937_64& generator) {
  std::array<std::vector<double>, 3> differences;
  std::vector<double> before_sample(before.size());
  std::vector<double> after_sample(after.size());
  for (std::int64_t i = 0; i < options.resamples; ++i) {
    for (std::size_t k = 0; k < before.size(); ++k) {
      const std::size_t pick = uniform_index(generator, before.size());
      before_sample[k] = before[pick];
      after_sample[k] = after[pick];
    }
    const std::array<double, 3> b = latency_statistics(before_sample);
    const std::array<double, 3> a = latency_statistics(after_sample);
    for (std::size_t s = 0; s < 3; ++s) differences.at(s).push_back(a.at(s) - b.at(s));
  }
  for (auto& d : differences) std::sort(d.begin(), d.end());
  return differences;
}

// One metric's values of the requests on both sides, in before's order.
std::pair<std::vector<double>, std::vector<double>> paired_values(const BenchSide& before,
                                                                  const BenchSide& after,
                                                                  std::size_t metric) {
  std::unordered_map<std::string_view, const BenchSide::Request*> after_by_id;
  for (const BenchSide::Request& request : after.identified) after_by_id[request.id] = &request;
  std::pair<std::vector<double>, std::vector<double>> values;
  for (const BenchSide::Request& request : before.identified) {
    const auto match = after_by_id.find(request.id);
    if (match == after_by_id.end()) continue;
    const std::optional<double>& b = request.ms.at(metric);
    const std::optional<double>& a = match->second->ms.at(metric);
    if (!b || !a) continue;
    values.first.push_back(*b);
    values.second.push_back(*a);
  }
  return values;
}

// The quantile a statistic estimates (nullopt for the mean).
std::optional<double> quantile_of(LatencyStatistic statistic) {
  switch (statistic) {
    case LatencyStatistic::mean:
      return std::nullopt;
    case LatencyStatistic::p50:
      return 0.5;
    case LatencyStatistic::p99:
      return 0.99;
  }
  return std::nullopt;
}

}  // namespace

BenchDiff compare_bench(BenchSide before, BenchSide after, const BootstrapOptions& options) {
  if (options.resamples < 0 || !(options.confidence > 0 && options.confidence < 1)) {
    throw std::invalid_argument("compare_bench: resamples >= 0 and confidence in (0, 1)");
  }
  if (before.per_request) summarise_samples(before);
  if (after.per_request) summarise_samples(after);
  BenchDiff diff;
  diff.options = options;
  diff.pairing = pair_requests(before, after);
  // One generator for the whole comparison, metrics in a fixed order: the output depends only on
  // the inputs, the seed and --bootstrap.
  std::mt19937_64 generator(options.seed);
  for (LatencyMetric metric : kLatencyMetrics) {
    const auto m = static_cast<std::size_t>(metric);
    const bool both_per_request = before.per_request && after.per_request;
    std::pair<std::vector<double>, std::vector<double>> pairs;
    if (diff.pairing.paired) pairs = paired_values(before, after, m);
    const auto& b_samples = diff.pairing.paired ? pairs.first : before.samples.at(m);
    const auto& a_samples = diff.pairing.paired ? pairs.second : after.samples.at(m);
    const std::size_t values = std::min(b_samples.size(), a_samples.size());
    const bool enough = values >= 2;
    std::array<std::vector<double>, 3> differences;
    if (both_per_request && enough && options.resamples > 0) {
      differences = diff.pairing.paired
                        ? paired_bootstrap_differences(b_samples, a_samples, options, generator)
                        : bootstrap_differences(b_samples, a_samples, options, generator);
    }
    bool any = false;
    for (LatencyStatistic statistic : kLatencyStatistics) {
      const auto s = static_cast<std::size_t>(statistic);
      const std::optional<double> b = before.stated.at(m).at(s);
      const std::optional<double> a = after.stated.at(m).at(s);
      if (!b || !a) continue;
      any = true;
      LatencyChange change;
      change.metric = metric;
      change.statistic = statistic;
      change.before_ms = *b;
      change.after_ms = *a;
      change.change_ms = *a - *b;
      // 0 when undefined (a zero before, or a quotient past a double: 1 / 5e-324): shown as
      // missing, never as inf or nan.
      change.ratio = *b > 0 && std::isfinite(*a / *b) ? *a / *b : 0;
      const std::optional<double> quantile = quantile_of(statistic);
      change.requests_needed = quantile
                                   ? std::max(kMinRequestsForVerdict,
                                              requests_for_quantile(*quantile, options.confidence))
                                   : kMinRequestsForVerdict;
      if (both_per_request) change.values = static_cast<std::int64_t>(values);
      if (!both_per_request) {
        change.no_interval = NoInterval::aggregate;
      } else if (!enough) {
        change.no_interval = NoInterval::too_few;
      } else if (static_cast<std::int64_t>(values) < *change.requests_needed) {
        change.no_interval =
            quantile ? NoInterval::too_few_for_percentile : NoInterval::too_few_for_mean;
      } else if (options.resamples == 0) {
        change.no_interval = NoInterval::no_resamples;
      } else {
        // Percentile interval: the (1-c)/2 and (1+c)/2 quantiles of the differences.
        const double tail = (1 - options.confidence) / 2;
        change.ci_low_ms = sorted_percentile(differences.at(s), tail);
        change.ci_high_ms = sorted_percentile(differences.at(s), 1 - tail);
        change.within_noise = *change.ci_low_ms <= 0 && *change.ci_high_ms >= 0;
        ++diff.judged;
      }
      diff.changes.push_back(change);
    }
    if (!any) diff.missing.push_back(metric);
  }
  diff.before = std::move(before);
  diff.after = std::move(after);
  return diff;
}

}  // namespace kspeed::engine
