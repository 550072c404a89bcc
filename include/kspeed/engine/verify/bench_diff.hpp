#pragma once
// Two benchmark results compared: the change in mean, p50 and p99 of TTFT, TPOT, ITL and E2E,
// with a percentile-bootstrap confidence interval when both results carry per-request values,
// and a verdict ("within noise" when the interval contains 0). Pure: no I/O.
//
// Paired when both ran the same requests (every request's id on both sides, the same prompt
// length under each id): the bootstrap then resamples request pairs, so the run-to-run spread
// of the requests themselves cancels (a per-request difference); unpaired otherwise, and the
// diff says why. A percentile gets no verdict when the sample cannot support it: a
// distribution-free interval for the q-quantile at confidence c needs n with
// 1 - q^n - (1-q)^n >= c (the sample's minimum and maximum bracket it; Hahn & Meeker,
// "Statistical Intervals", 1991, section 5.2): 299 requests for p99 at 95%. No statistic gets a
// verdict from fewer than kMinRequestsForVerdict values: below it the percentile bootstrap's
// interval is too narrow (an A/A of normal requests flags 20% at n = 3 and 9% at n = 10 against
// the nominal 5%; docs/diff.md; tests/unit/test_diff_stats.cpp simulates the rate at the minimum).
//
// The bootstrap (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13): resample
// each side's requests with replacement (same count), take the statistic of each resample, and
// keep after - before; the interval is the (1-c)/2 and (1+c)/2 percentiles of those differences.
// The generator is std::mt19937_64, whose output sequence the C++ standard fixes, seeded with
// kBootstrapSeed; indices come from its top 53 bits (not std::uniform_int_distribution, whose
// output is implementation-defined), so the interval is the same on every platform.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::engine {

enum class LatencyMetric { ttft, tpot, itl, e2e };
inline constexpr std::array<LatencyMetric, 4> kLatencyMetrics = {
    LatencyMetric::ttft, LatencyMetric::tpot, LatencyMetric::itl, LatencyMetric::e2e};
/// "ttft", "tpot", "itl", "e2e".
std::string_view to_string(LatencyMetric metric);

enum class LatencyStatistic { mean, p50, p99 };
inline constexpr std::array<LatencyStatistic, 3> kLatencyStatistics = {
    LatencyStatistic::mean, LatencyStatistic::p50, LatencyStatistic::p99};
/// "mean", "p50", "p99".
std::string_view to_string(LatencyStatistic statistic);

/// The fewest values (requests, or request pairs) any statistic's verdict needs (docs/diff.md).
inline constexpr std::int64_t kMinRequestsForVerdict = 30;

/// The fixed seed of the bootstrap's generator (documented in docs/diff.md).
inline constexpr std::uint64_t kBootstrapSeed = 20260430;

/// One benchmark result as the comparison sees it: per-request latencies (ms) when the file has
/// them, otherwise the aggregate figures it states.
struct BenchSide {
  std::string source;
  bool per_request = false;  ///< true: `samples` hold the requests' values
  /// Per-request values in ms, indexed by LatencyMetric; a request without a metric is absent.
  std::array<std::vector<double>, 4> samples;
  /// Stated aggregates in ms, [metric][statistic]; filled from `samples` when per_request.
  std::array<std::array<std::optional<double>, 3>, 4> stated{};
  std::int64_t requests = 0;  ///< requests behind the figures (0: not stated)
  /// Per request in file order, when the file identifies its requests (for pairing).
  struct Request {
    std::string id;                           ///< identity across runs (never empty here)
    std::int64_t prompt_tokens = 0;           ///< checked equal on both sides of a pair
    std::array<std::optional<double>, 4> ms;  ///< by LatencyMetric; nullopt: absent
  };
  std::vector<Request> identified;
  /// Per-request rows the reader skipped (a negative or garbled TTFT, a failed request), and
  /// the first one's reason: left out of the figures, and counted so the report can say so.
  std::int64_t skipped = 0;
  std::string first_skipped;
};

struct BootstrapOptions {
  std::int64_t resamples = 1000;  ///< --bootstrap N (0: no interval)
  double confidence = 0.95;       ///< --confidence, in (0, 1)
  std::uint64_t seed = kBootstrapSeed;
};

/// Why a change has no interval.
enum class NoInterval {
  none,                    ///< it has one
  aggregate,               ///< one side states only aggregates: there is nothing to resample
  too_few,                 ///< fewer than 2 values on a side
  no_resamples,            ///< --bootstrap 0
  too_few_for_percentile,  ///< fewer requests than a distribution-free interval needs
  too_few_for_mean,        ///< fewer than kMinRequestsForVerdict values behind a mean
};

/// One statistic of one metric before and after.
struct LatencyChange {
  LatencyMetric metric = LatencyMetric::ttft;
  LatencyStatistic statistic = LatencyStatistic::mean;
  double before_ms = 0;
  double after_ms = 0;
  double change_ms = 0;             ///< after - before
  double ratio = 0;                 ///< after / before (0 when before is 0)
  std::optional<double> ci_low_ms;  ///< of after - before
  std::optional<double> ci_high_ms;
  NoInterval no_interval = NoInterval::none;
  /// True when the interval contains 0; unset without an interval.
  std::optional<bool> within_noise;
  /// Values behind the interval (request pairs when paired, the smaller side otherwise).
  std::int64_t values = 0;
  /// Requests a verdict on this statistic needs: kMinRequestsForVerdict for the mean, for a
  /// percentile the larger of that and requests_for_quantile.
  std::optional<std::int64_t> requests_needed;
};

/// Why two results were not paired request by request.
enum class PairingProblem {
  none,                ///< paired
  aggregate_only,      ///< a side states only aggregates
  unidentified,        ///< `source` does not identify each request
  repeated_id,         ///< `id` appears twice in `source`
  prompt_mismatch,     ///< request `id` has a different prompt length on each side
  different_requests,  ///< only `pairs` requests share an id
};

/// Whether the two results were paired request by request, and why not (the report words it).
struct Pairing {
  bool paired = false;
  std::int64_t pairs = 0;  ///< requests present on both sides under one id
  PairingProblem problem = PairingProblem::none;
  std::string source;                     ///< unidentified, repeated_id: the file
  std::string id;                         ///< repeated_id, prompt_mismatch: the request
  std::int64_t before_prompt_tokens = 0;  ///< prompt_mismatch
  std::int64_t after_prompt_tokens = 0;   ///< prompt_mismatch
};

struct BenchDiff {
  BenchSide before;
  BenchSide after;
  BootstrapOptions options;
  std::vector<LatencyChange> changes;  ///< metric-major, then statistic; only those on both sides
  /// Metrics neither side's pair states (for the report to say what is missing).
  std::vector<LatencyMetric> missing;
  Pairing pairing;
  /// Rows with a verdict (an interval): each is judged at the confidence alone, so with no real
  /// change the chance that at least one row flags is up to 1 - c^judged (Bonferroni's bound
  /// 1 - (1 - (1-c) judged) when they are dependent); the report states it.
  std::int64_t judged = 0;
  /// Conditions (conditions_audit.hpp) the two results state differently; set by the caller.
  std::vector<std::string> differing_conditions;
};

/// Mean, p50 and p99 (numpy's linear percentile) of `values`; `values` is reordered.
std::array<double, 3> latency_statistics(std::vector<double>& values);

/// The fewest values whose minimum and maximum bracket the q-quantile with probability at
/// least `confidence`: the smallest n with 1 - q^n - (1-q)^n >= confidence (299 for q = 0.99
/// at 95%, 6 for the median). q in (0, 1), confidence in (0, 1).
std::int64_t requests_for_quantile(double q, double confidence);

/// Pairs two sides' identified requests: paired when every request of each side has an id
/// found once on the other side with the same prompt length.
Pairing pair_requests(const BenchSide& before, const BenchSide& after);

/// Fills a per-request side's `stated` from its samples.
void summarise_samples(BenchSide& side);

/// Compares two results. Throws std::invalid_argument on bad options (resamples < 0,
/// confidence outside (0, 1)); the CLI checks them first.
BenchDiff compare_bench(BenchSide before, BenchSide after, const BootstrapOptions& options);

}  // namespace kspeed::engine
