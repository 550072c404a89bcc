#pragma once
// The no-queue baseline of the batching replay: each request alone on an idle replica (a closed
// loop of one client), in closed form.
//
// Alone, a request's steps are known in advance: its prefill in chunks of at most
// `max_batched_tokens` (each chunk one step of known tokens and causal pairs), then one decode
// step per further output token, each carrying one sequence of one token whose KV length grows
// by one a step. In a decode step the max() of the step model sees the same token count every
// time, and every other term is constant but the KV read, which is linear in the step's index:
// the decode steps' times form an arithmetic series, summed in O(1), and their inter-token
// latencies fill the ITL histogram one bin at a time. The replay of the log is then O(prefill
// chunks + ITL bins touched) a request instead of O(output tokens).
//
// The step-by-step replay (replay_batches with concurrency 1) stays the reference and the
// fallback: the closed form declines (nullopt) whatever it does not model exactly — a request
// that cannot be scheduled (a prompt over the budget without chunked prefill, a request over the
// KV capacity: both dropped by the replay), a negative request overhead or KV coefficient.
// The replay has no speculative decoding (one query a decode step), so neither has this.

#include <optional>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/deployment/step_model.hpp"

namespace kspeed::engine {

/// One request alone on an idle replica, in the engine's time (ms, the request overhead left out).
struct AloneTimes {
  double ttft_ms = 0;  ///< Σ of its prefill chunks' steps
  double e2e_ms = 0;   ///< and of its decode steps
  double attention_ms = 0;
  std::int64_t steps = 0;
};

/// `request` alone, in closed form: O(prefill chunks of `max_batched_tokens`). `model` already
/// carries the kernel change (the attention coefficients divided by its speedups).
AloneTimes time_alone(const ReplayRequest& request, const StepModel& model,
                      std::int64_t max_batched_tokens);

/// Each request alone, in closed form; nullopt when the closed form does not cover the log (then
/// replay_batches with a closed loop of one client is the answer). `arrivals` gives the replicas
/// and routing; its rate scale and concurrency are ignored (a closed loop of one).
std::optional<BatchReplay> replay_alone_closed_form(const std::vector<ReplayRequest>& requests,
                                                    const StepModel& model,
                                                    const AttentionSpeedup& speedup,
                                                    const SchedulerOptions& scheduler,
                                                    const ArrivalOptions& arrivals);

/// Each request alone: the closed form when it covers the log, else the step-by-step replay.
BatchReplay replay_alone(const std::vector<ReplayRequest>& requests, const StepModel& model,
                         const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                         const ArrivalOptions& arrivals);

}  // namespace kspeed::engine
