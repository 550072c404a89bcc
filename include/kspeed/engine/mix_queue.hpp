#pragma once
// A replay of a log's arrival times through FCFS prefill queues, SLO attainment and goodput.
//
// The queue model and its simplifications (docs/mix.md says the same):
// - One central first-come-first-served queue in front of N identical prefill replicas (M/G/N
//   when arrivals are Poisson). A request starts when it has arrived and a replica is free.
// - Service time is the request's own prefill time. Prefill is compute-bound: serving a batch of
//   prefills takes about as long as serving them one after the other, so batching is ignored.
//   No chunked prefill, no preemption, no KV-cache capacity limit, no routing by prefix.
// - TTFT = wait + prefill. Decode runs in its own pool and is not queued: TPOT is the request's
//   own, whatever the load (disaggregated serving; with colocated serving decode also slows).
// - A rate scale X divides every inter-arrival time by X: the log's burstiness is kept, its
//   rate multiplied by X.

#include <cstdint>
#include <optional>
#include <vector>

namespace kspeed::engine {

/// Whether the queue drains. At utilisation rho = lambda * E[S] / N >= 1 the expected wait grows
/// without bound: a finite replay still returns numbers, but they measure the log's length, not
/// the system, so they are not reported.
enum class QueueStability { stable, unstable };

/// How to replay.
struct ReplayOptions {
  int replicas = 1;         ///< N prefill servers, >= 1
  double rate_scale = 1.0;  ///< X > 0: arrivals at X times the log's rate
};

/// A request of the replay: when it arrives and how long its prefill takes.
struct QueuedRequest {
  double arrival_s = 0;   ///< seconds, any origin
  double service_ms = 0;  ///< prefill time, ms (>= 0)
};

/// The result of one replay.
struct QueueReplay {
  QueueStability stability = QueueStability::stable;
  double utilisation = 0;         ///< rho = lambda * E[S] / N; infinite when all arrive at once
  double arrival_rate_per_s = 0;  ///< lambda = requests / arrival span, after rate scaling
  double mean_wait_ms = 0;        ///< over all requests of this replay
  std::vector<double> wait_ms;    ///< per request, in the order given
};

/// Replays `requests` (any order; sorted by arrival inside, ties kept in the given order).
///   start_i = max(arrival_i / X, earliest time a replica is free);  wait_i = start_i - arrival_i /
///   X
QueueReplay replay_prefill_queue(const std::vector<QueuedRequest>& requests,
                                 const ReplayOptions& options);

/// Utilisation without replaying: rho = (requests / span) * X * mean(service) / N.
double queue_utilisation(const std::vector<QueuedRequest>& requests, const ReplayOptions& options);

/// Service-level objectives. A request meets them when TTFT <= ttft_ms and TPOT <= tpot_ms
/// (an absent SLO is met by every request; a request without a TPOT meets the TPOT SLO).
struct Slo {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  double attainment_target = 0.9;  ///< goodput's fraction of requests that must meet both
};

/// Fraction of requests meeting both SLOs with TTFT = wait + service. `tpot_ms` holds NaN for
/// requests without a TPOT. nullopt when the replay is unstable.
std::optional<double> slo_attainment(const std::vector<QueuedRequest>& requests,
                                     const std::vector<double>& tpot_ms, const Slo& slo,
                                     const ReplayOptions& options);

/// How the goodput search ended.
enum class GoodputStatus {
  found,             ///< the highest rate scale meeting the target, within the stable range
  limited_by_queue,  ///< the target is met up to the edge of stability (rho -> 1): that edge
  unreachable,       ///< not even a rate 1e-6 of the stable edge (almost no waiting) meets it
};

struct Goodput {
  GoodputStatus status = GoodputStatus::unreachable;
  double rate_scale = 0;      ///< X at goodput (0 when unreachable)
  double requests_per_s = 0;  ///< the log's arrival rate times X
  double attainment = 0;      ///< attainment at that X
  int replays = 0;            ///< replays the bisection ran
};

/// DistServe's goodput (Zhong et al., OSDI 2024): the highest rate at which at least the target
/// fraction of requests meet both SLOs. Bisection over the rate scale X in (0, X_stable), where
/// X_stable makes rho = 1; attainment falls as X grows (more waiting), so the bisection keeps
/// the largest X found meeting the target, to a relative width of 1e-4. The search starts at
/// X = 1e-6 X_stable: requests that arrive at the same instant queue at any rate.
Goodput find_goodput(const std::vector<QueuedRequest>& requests, const std::vector<double>& tpot_ms,
                     const Slo& slo, int replicas);

}  // namespace kspeed::engine
