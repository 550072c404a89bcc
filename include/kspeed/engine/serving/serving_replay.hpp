#pragma once
// What a serving engineer reads from the batching replay (batch_replay.hpp): per-request
// latencies summarised before and after the kernel change on the same arrivals, SLO attainment,
// capacity (the highest arrival rate meeting the SLOs), throughput, how close the load is to
// saturation, and the no-queue answer (each request alone on an idle replica) to compare with.

#include <cstdint>
#include <optional>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/distribution.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/warning.hpp"

namespace kspeed::engine {

/// Service-level objectives. A request meets them when TTFT <= ttft_ms and TPOT <= tpot_ms (an
/// absent SLO is met by every request; a request without a TPOT meets the TPOT SLO).
struct Slo {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  double attainment_target = 0.9;  ///< capacity's fraction of requests that must meet both
  bool any() const { return ttft_ms.has_value() || tpot_ms.has_value(); }
};

/// Everything one replay needs besides the requests.
struct ServingSetup {
  StepModel step;  ///< before the change
  AttentionSpeedup speedup;
  SchedulerOptions scheduler;
  ArrivalOptions arrivals;
  Slo slo;
  std::vector<double> percentiles{50, 90, 99};
};

/// One side (before or after) of a replay, summarised.
struct ReplaySide {
  Distribution ttft_ms;
  Distribution tpot_ms;  ///< over requests of 2+ tokens
  Distribution itl_ms;   ///< over tokens, from a 0.5%-bin histogram (count: tokens)
  Distribution e2e_ms;
  Distribution queue_ms;
  std::int64_t preemptions = 0;
  std::int64_t requests_preempted = 0;
  std::optional<double> attainment;  ///< with an SLO
  double offered_rate_per_s = 0;     ///< requests / arrival span (closed loop: achieved)
  double achieved_rate_per_s = 0;    ///< requests / (last completion - first arrival)
  double output_tokens_per_s = 0;    ///< over the same span, all replicas
  double output_tokens_per_s_per_replica = 0;
  double mean_batch_sequences = 0;  ///< sequences per step
  std::int64_t max_batch_sequences = 0;
  double attention_fraction = 0;  ///< of the steps' time
  /// The most this mix of requests gets through: requests/s with every replica's batch full
  /// (a closed loop of max_seqs clients per replica). Offered / this is the load rho.
  double saturation_rate_per_s = 0;
  double load = 0;  ///< rho = offered / saturation rate (open loop)
  ReplayTotals totals;
};

/// How a capacity search ended.
enum class CapacityStatus {
  found,        ///< the highest rate meeting the target, to 0.1%
  unreachable,  ///< not even at 1/1000 of the saturation rate
  above_range,  ///< met up to 4× the saturation rate (a short log drains before it queues)
};

struct Capacity {
  CapacityStatus status = CapacityStatus::unreachable;
  double rate_scale = 0;      ///< X at capacity
  double requests_per_s = 0;  ///< the log's rate times X
  double attainment = 0;      ///< attainment at that X
  int replays = 0;
};

/// How a fewest-replicas search ended.
enum class ReplicaStatus {
  found,        ///< the fewest replicas meeting the target
  unreachable,  ///< not even each request alone meets it, or not with kMaxReplicasSearched
};

/// Capacity as an operator buys it: the fewest replicas meeting the SLOs at the log's own rate
/// (times --rate-scale), with the setup's routing.
struct ReplicaCapacity {
  ReplicaStatus status = ReplicaStatus::unreachable;
  std::int64_t replicas = 0;  ///< fewest meeting the target (0 when unreachable)
  double attainment = 0;      ///< at that many replicas (unreachable: at the most tried)
  int replays = 0;
};

/// The most replicas the search tries.
inline constexpr std::int64_t kMaxReplicasSearched = 4096;

/// The whole answer: before and after on the same arrivals, capacity, and the no-queue baseline.
struct ServingReplay {
  std::int64_t requests = 0;
  ReplaySide before;
  ReplaySide after;
  std::optional<Capacity> capacity_before;  ///< open loop with an SLO
  std::optional<Capacity> capacity_after;
  std::optional<ReplicaCapacity> replicas_before;  ///< open loop with an SLO
  std::optional<ReplicaCapacity> replicas_after;
  ReplaySide alone_before;  ///< each request alone (closed loop of one client): no queue, no batch
  ReplaySide alone_after;
  std::vector<Warning> warnings;
};

/// Load at which a warning says small step-time errors blow up (AIConfigurator's analysis: a
/// 5–10% step error becomes 20–40% TTFT error near saturation).
inline constexpr double kSaturationWarningLoad = 0.85;

/// Summarises one replay of `requests` with `setup`'s step model and `speedup`.
ReplaySide summarise_replay(const std::vector<ReplayRequest>& requests, const BatchReplay& replay,
                            const ServingSetup& setup);

/// Whether one request meets both SLOs (NaN latencies never do).
bool meets_slo(const RequestTiming& timing, const Slo& slo);

/// Fraction of requests meeting both SLOs (NaN latencies never do). nullopt without an SLO.
std::optional<double> slo_attainment(const std::vector<RequestTiming>& timing, const Slo& slo);

/// Requests/s with every replica's batch full: a closed loop of max_seqs clients per replica.
double saturation_rate(const std::vector<ReplayRequest>& requests, const StepModel& step,
                       const AttentionSpeedup& speedup, const ServingSetup& setup);

/// DistServe's goodput (Zhong et al., OSDI 2024) as capacity: the highest rate scale X at which
/// at least the target fraction of requests meet both SLOs, by bisection in log X to 0.1%.
/// Attainment falls as X grows (more waiting), so the bracket starts at the saturation rate.
Capacity find_capacity(const std::vector<ReplayRequest>& requests, const StepModel& step,
                       const AttentionSpeedup& speedup, const ServingSetup& setup,
                       double saturation_rate_per_s);

/// The fewest replicas (1 .. kMaxReplicasSearched) at which at least the target fraction of
/// requests meet both SLOs at the setup's arrival rate: doubling from 1, then bisection, taking
/// attainment not to fall as replicas are added. `alone_attainment` (each request on an idle
/// replica) bounds what any number of replicas reaches: below the target, unreachable at once.
ReplicaCapacity find_fewest_replicas(const std::vector<ReplayRequest>& requests,
                                     const StepModel& step, const AttentionSpeedup& speedup,
                                     const ServingSetup& setup, double alone_attainment);

/// Replays before and after (and each request alone), with capacity when an SLO is set.
ServingReplay replay_serving(const std::vector<ReplayRequest>& requests, const ServingSetup& setup);

/// Both sides' per-request values, for --per-request (same order as the requests).
struct PerRequestReplay {
  std::vector<RequestTiming> before;
  std::vector<RequestTiming> after;
};

/// Like replay_serving, but also returns the per-request values (20 bytes a request a side).
ServingReplay replay_serving(const std::vector<ReplayRequest>& requests, const ServingSetup& setup,
                             PerRequestReplay& per_request);

/// Either of the above: the per-request values when `per_request` is not null.
ServingReplay replay_serving(const std::vector<ReplayRequest>& requests, const ServingSetup& setup,
                             PerRequestReplay* per_request);

}  // namespace kspeed::engine
