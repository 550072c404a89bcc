#pragma once
// The step model fitted through the batching replay on chosen load levels of a measured run, and
// every other level predicted (docs/validation.md section 3: one level cannot separate the
// weights read from the per-sequence cost, and a fit to per-request decode times charges prompts
// twice; replaying the levels fits the model the way it is used).
//
//   lightest fit level: the bandwidth side (weights and KV reads, one factor) so that its replay
//                       gives the level's measured per-token time;
//   second fit level:   the per-sequence cost so that its replay gives that level's;
//   the two alternate until neither moves by 1e-4; the request overhead is what the lightest
//   level's measured TTFT leaves of its replayed one (the same statistic, like with like).
// A coefficient no fit level can identify keeps its prior origin, and the fit says so.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"

namespace kspeed::engine {

/// A summary statistic as the benchmark reported it (ms); absent: not reported.
struct LevelStat {
  std::optional<double> mean_ms;
  std::optional<double> p50_ms;
  std::optional<double> p90_ms;
  std::optional<double> p99_ms;
};

/// One measured load level and the requests that reproduce its load in the replay.
struct ReplayLevel {
  std::string label;
  std::vector<ReplayRequest> requests;
  std::int64_t closed_loop_clients = 0;  ///< > 0: a closed loop (one at a time: 1)
  /// Open loop: at most this many requests in flight (0: no cap), as the benchmark's client
  /// capped them (sglang.bench_serving and vllm bench serve --max-concurrency with a rate).
  std::int64_t max_inflight = 0;
  LevelStat ttft;
  LevelStat tpot;  ///< per output token after the first
  /// The per-token figure is the gaps between tokens over all tokens (ITL, as sglang.bench_serving
  /// reports it), not per request: held-out levels compare it with the replay's ITL; the fit
  /// matches the replay's per-request TPOT of the same statistic to it.
  bool per_token_is_itl = false;
  LevelStat e2e;
  std::optional<double> achieved_rate_per_s;
  std::optional<double> requested_rate_per_s;  ///< open loop: the rate the client was asked for
};

/// A level the server could not keep up with: it achieved under 90% of the requested rate.
bool saturated(const ReplayLevel& level);

/// The fit and what it took.
struct ReplayFit {
  CalibratedStepModel model;
  int replays = 0;
  std::vector<std::string> notes;  ///< a coefficient not identified, a bound hit
};

/// Fits `prior` through the replay of `fit_levels` (one or two, lightest first) under `setup`'s
/// scheduler. Throws InputError when a fit level has no per-token or TTFT statistic.
ReplayFit fit_through_replay(const CalibratedStepModel& prior, const ServingSetup& setup,
                             const std::vector<const ReplayLevel*>& fit_levels,
                             std::string_view source);

/// How the replay sends `level`'s requests: `setup`'s arrivals with the level's client, a closed
/// loop of closed_loop_clients or an open loop capped at max_inflight, as the benchmark ran it.
ArrivalOptions level_arrivals(const ReplayLevel& level, const ServingSetup& setup);

/// One level replayed under the fitted model.
ReplaySide replay_level(const ReplayLevel& level, const ServingSetup& setup);

/// The statistic a level reports, and the replay's same statistic: the mean when the level has
/// one, else the p50 (like with like). nullopt when the level reports neither.
struct PairedStat {
  double measured_ms = 0;
  double predicted_ms = 0;
  const char* statistic = "mean";
};
std::optional<PairedStat> paired_per_token(const ReplayLevel& level, const ReplaySide& side);
std::optional<PairedStat> paired_ttft(const ReplayLevel& level, const ReplaySide& side);

/// One metric of a held-out level: the measured figure and the replay's same statistic.
struct MetricComparison {
  std::string metric;  ///< "ttft p50", "tpot mean", "e2e p99", "throughput"
  std::string unit;    ///< "ms" or "req/s"
  double measured = 0;
  double predicted = 0;
  double error() const { return (predicted - measured) / measured; }
};

/// The metrics a level reports, each beside the replay's (TTFT p50/p90/p99, TPOT p50/p99 or its
/// mean, E2E mean/p99, achieved throughput); what the level does not report is left out.
std::vector<MetricComparison> compare_level(const ReplayLevel& level, const ReplaySide& side);

/// Whether a level's latencies are compared like with like: below saturation, or saturated with
/// the client's cap on requests in flight replayed (the queue then forms where the benchmark's
/// did: at most max_inflight sent, the rest waiting in the client, timed from their send).
bool latencies_comparable(const ReplayLevel& level);

/// Median and worst |error| of one metric over the held-out levels that report it: latencies over
/// the levels where latencies_comparable holds, throughput (the saturation point) over every
/// level.
struct MetricSummary {
  std::string metric;
  double median_abs_error = 0;
  double worst_abs_error = 0;
  std::string worst_level;
  std::size_t levels = 0;
};

struct LevelValidation {
  std::string label;
  std::vector<MetricComparison> metrics;
  double offered_rate_per_s = 0;  ///< the replay's
  /// The measured server saturated (saturated()): its latencies are set by the benchmark's
  /// client (a cap on requests in flight) as much as by the engine. Without that cap in the replay
  /// (max_inflight 0) only its throughput is summarised.
  bool saturated = false;
  std::int64_t max_inflight = 0;     ///< the client's cap the replay applied (0: none)
  bool latencies_summarised = true;  ///< latencies_comparable(): its latencies enter the summary
};

/// Fit on `fit_indices` (one or two levels, lightest first), predict every other level: a fit
/// level never appears among `levels`.
struct ValidationResult {
  std::string source;
  std::vector<std::string> fit_levels;
  ReplayFit fit;
  std::vector<LevelValidation> levels;  ///< held out, in the run's order
  std::vector<MetricSummary> summary;   ///< per metric, in the order first seen
  int replays = 0;                      ///< the fit's and the predictions'
};

ValidationResult validate_through_replay(const CalibratedStepModel& prior,
                                         const ServingSetup& setup,
                                         const std::vector<ReplayLevel>& levels,
                                         const std::vector<std::size_t>& fit_indices,
                                         std::string_view source);

}  // namespace kspeed::engine
