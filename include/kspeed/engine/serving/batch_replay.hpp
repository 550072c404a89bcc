#pragma once
// A discrete-event replay of a continuous-batching serving engine (vLLM V1's scheduler by
// default), each step timed by the deployment's step model (step_model.hpp).
//
// What one replica does, step after step (vLLM's vllm/v1/core/sched/scheduler.py, `schedule`):
// - Running requests first, in the order they were admitted: each decode asks for one token; a
//   request still in prefill asks for its next chunk. Every token counts against the step's
//   token budget (`max_batched_tokens`).
// - Then, when no running request was preempted this step, waiting requests in arrival order
//   (first come, first served) while budget remains and fewer than `max_seqs` run. With chunked
//   prefill a prompt larger than the budget takes the rest of the budget and continues next
//   step; without it a prompt that does not fit whole waits (and blocks those behind it).
// - KV cache in blocks of `block_tokens`: a request holds ceil(tokens / block) blocks. When a
//   running request needs a block and none is free, the most recently admitted running request
//   is preempted: its blocks are freed and it goes back to the front of the queue, to recompute
//   its prompt and the tokens it has produced (vLLM V1's only preemption mode, "recompute").
// - A step that completes a prompt's prefill samples that request's first token; every decode
//   samples one token. A request leaves when it has produced all its response tokens.
// The step's time is step_time(model, batch) with the attention parts divided by the kernel
// speedup; the batch is formed when the step starts, so a request arriving mid-step waits for
// the next one. Requests' time outside the engine (HTTP, tokenization: `request_overhead_ms`) is
// added to their TTFT and E2E and never queued: it is not GPU work.
//
// The parts are replaceable: the event core (event_queue.hpp), the policy that forms each step
// (step_policy.hpp; the rules above are policy_vllm_v1.cpp's), the router (router.hpp) and the
// step-time model (step_timer.hpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/scheduler_settings.hpp"
#include "kspeed/engine/deployment/step_model.hpp"

namespace kspeed::engine {

/// One request as the replay needs it: 24 bytes.
struct ReplayRequest {
  double arrival_s = 0;              ///< seconds from the log's start (open loop)
  std::int32_t prompt_tokens = 1;    ///< >= 1
  std::int32_t response_tokens = 1;  ///< >= 0 (0: prefill only; its E2E is its TTFT)
  std::int32_t cached_tokens = 0;    ///< prefix found in the prefix cache, 0..prompt-1
  /// This request's own kernel speedup (> 0; a speedup table read at its context), applied only
  /// where the side's AttentionSpeedup says per_request. A float (7 digits, far finer than any
  /// measured speedup) keeps the request in 24 bytes.
  float kernel_speedup = 1;
};

/// How requests reach the replicas.
enum class Routing : std::uint8_t {
  round_robin,        ///< request i to replica i mod N
  least_outstanding,  ///< to the replica with the fewest unfinished requests (lowest index on ties)
  /// One queue at the router: a request goes to the least-loaded replica that runs fewer than
  /// max_seqs requests, else waits at the router until one finishes (with max_seqs 1 and N
  /// replicas, the M/M/c queue).
  shared_queue,
  /// To the replica whose prefix cache holds the longest prefix of the request's blocks, when
  /// that is at least 30% of them and the loads are balanced; else to the fewest unfinished
  /// requests (SGLang's cache-aware rule, prefix_aware_router.hpp).
  prefix_aware,
};

struct ReplayPrefixCaching;

struct ArrivalOptions {
  double rate_scale = 1;  ///< X > 0: open-loop arrivals at arrival_s / X
  /// 0: open loop (the log's arrival times); N > 0: a closed loop of N clients, each sending
  /// the log's next request when its previous one finishes (vllm bench serve
  /// --max-concurrency, AIPerf --concurrency); arrival times are then ignored.
  std::int64_t concurrency = 0;
  /// Closed loop only: seconds a client waits after a response before it sends its next request
  /// (think time Z; the client's next send is its last completion + the request overhead + Z).
  double think_time_s = 0;
  /// Closed loop only: 0 or 1, each client sends the log's next request; T > 1, the log is
  /// sessions of T consecutive requests (multi-turn chats, agent loops): a client sends its
  /// session's turns in order, each one think time after the previous turn's response, then
  /// starts the next session not yet started. A turn's prefix reuse is its request's
  /// cached_tokens (the context the earlier turns left in the prefix cache).
  std::int64_t session_turns = 0;
  /// Open loop only: 0, no cap; N > 0, at most N requests in flight (sent, not yet finished):
  /// a request due while N are in flight is sent when one finishes, and its latencies count
  /// from that send (inference-perf's and vllm bench serve's --max-concurrency with a rate).
  std::int64_t max_inflight = 0;
  std::int64_t replicas = 1;
  Routing routing = Routing::round_robin;
  /// With 2+ replicas: each replica's own LRU prefix cache over the requests' block ids
  /// (replica_caches.hpp), and a request with ids takes its cached prefix from the cache of the
  /// replica it is placed on, not its cached_tokens. One replica, or none given: every request's
  /// cached_tokens (the one cache simulated in log order, as before).
  std::shared_ptr<const ReplayPrefixCaching> prefix_caching;
};

/// The kernel change: divides the attention parts of each step.
struct AttentionSpeedup {
  double prefill = 1;  ///< on prefill attention (causal pairs, sliding-window tokens)
  double decode = 1;   ///< on decode attention (KV tokens read, sliding-window sequences)
  /// A speedup table: each request's attention work in the phase is also divided by its own
  /// ReplayRequest::kernel_speedup. Attention is a sum over the step's requests (each attends
  /// to its own keys), so the step's attention after is Σ_i A_i / s_i: the step's speedup is
  /// the attention-time-weighted harmonic mean of its requests' speedups.
  bool prefill_per_request = false;
  bool decode_per_request = false;

  bool per_request() const { return prefill_per_request || decode_per_request; }
};

/// The scalar speedups one request sees: the side's, times its own where the side is per
/// request.
inline AttentionSpeedup speedup_for(const AttentionSpeedup& speedup, const ReplayRequest& request) {
  const double own = static_cast<double>(request.kernel_speedup);
  return {speedup.prefill * (speedup.prefill_per_request ? own : 1.0),
          speedup.decode * (speedup.decode_per_request ? own : 1.0)};
}

/// The kernel change folded into the step model's coefficients: every attention part is linear
/// in its coefficient (step_time), so dividing the coefficients divides exactly the attention
/// parts, the sliding-window and chunked local layers' included; nothing else moves. Per-request
/// speedups are not folded here (speedup_for gives one request's).
inline StepModel with_attention_speedup(StepModel model, const AttentionSpeedup& speedup) {
  model.ms_per_prefill_pair /= speedup.prefill;
  model.ms_per_window_prefill_token /= speedup.prefill;
  model.ms_per_kv_token /= speedup.decode;
  model.ms_per_window_decode_sequence /= speedup.decode;
  model.ms_per_chunked_prefill_pair /= speedup.prefill;
  model.ms_per_chunked_kv_token /= speedup.decode;
  return model;
}

/// One request's replayed latencies (ms, float: a model's output, 20 bytes).
struct RequestTiming {
  float queue_ms = 0;             ///< arrival to first scheduled (vLLM's "queued" interval)
  float ttft_ms = 0;              ///< arrival to first token, plus the request overhead
  float tpot_ms = 0;              ///< (E2E - TTFT) / (response - 1); NaN for fewer than 2 tokens
  float e2e_ms = 0;               ///< arrival to last token, plus the request overhead
  std::uint16_t preemptions = 0;  ///< times preempted (saturates at 65535)
  std::uint16_t replica = 0;      ///< which replica served it (saturates)
};

/// Inter-token latencies over all tokens, in log-spaced bins (0.5% wide from 1 us to 1000 s):
/// percentiles to within the bin's width without keeping one value per token.
struct ItlHistogram {
  std::vector<std::int64_t> counts;
  std::int64_t total = 0;
  double sum_ms = 0;

  void add(double itl_ms);
  /// `count` values that all fall in `bin` and sum to `run_sum_ms` (a run of equal-bin ITLs).
  void add_to_bin(std::size_t bin, std::int64_t count, double run_sum_ms);
  static std::size_t bin_of(double itl_ms);  ///< the bin add() puts `itl_ms` in
  double percentile(double point) const;     ///< bin midpoint (geometric); 0 when empty
  double mean() const { return total > 0 ? sum_ms / static_cast<double>(total) : 0.0; }
};

/// What one replay of a whole log did, besides the per-request values.
struct ReplayTotals {
  std::int64_t requests = 0;
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  /// Requests that could never be scheduled (a prompt over the token budget without chunked
  /// prefill, or over the KV capacity): dropped with NaN latencies so the replay ends.
  std::int64_t unschedulable = 0;
  std::int64_t prompt_tokens_computed = 0;  ///< prefill tokens run, recomputation included
  std::int64_t output_tokens = 0;
  std::int64_t max_running = 0;  ///< largest batch (sequences) any step carried
  double mean_running = 0;       ///< sequences per step, averaged over steps
  double busy_ms = 0;            ///< Σ step times over replicas
  double attention_ms = 0;       ///< Σ attention parts of the steps
  double first_arrival_s = 0;    ///< after rate scaling (closed loop: 0)
  double last_arrival_s = 0;
  double last_completion_s = 0;  ///< when the last token of the log is out (engine time)
  /// Per-replica prefix caches ran (ArrivalOptions::prefix_caching with 2+ replicas): the prompt
  /// tokens of the requests placed on replicas, and the cached prefix they found there.
  bool per_replica_caches = false;
  std::int64_t placed_prompt_tokens = 0;
  std::int64_t placed_cached_tokens = 0;
  ItlHistogram itl;

  /// Token hit rate of the per-replica caches: cached ÷ prompt tokens placed (0 when none).
  double cache_hit_rate() const {
    return placed_prompt_tokens > 0 ? static_cast<double>(placed_cached_tokens) /
                                          static_cast<double>(placed_prompt_tokens)
                                    : 0.0;
  }
};

struct BatchReplay {
  std::vector<RequestTiming> timing;  ///< in the order of the input requests
  /// When each request was sent (s, engine time; same order; only with keep_sent_times, 8 bytes
  /// a request): its arrival after rate scaling, or when its client (closed loop) or an
  /// in-flight slot (max_inflight) let it go. Its latencies count from here; it is in flight
  /// until sent_s + e2e.
  std::vector<double> sent_s;
  ReplayTotals totals;
};

/// Called once per request as it completes (index into the input): streams per-request output.
using CompletionCallback = std::function<void(std::size_t, const RequestTiming&)>;

/// Replays `requests` (sorted by arrival_s; ties keep their order) through `arrivals.replicas`
/// engines. Preconditions (the caller validates): options >= 1 where counts, speedups > 0,
/// kv_blocks (when set) large enough for the longest request (check with fits_kv). Without
/// `keep_timing` the result's timing is empty (20 bytes a request saved): on_complete sees each
/// request's values as it finishes (a dropped request never finishes). With `keep_sent_times`
/// the result's sent_s holds each request's send time.
BatchReplay replay_batches(const std::vector<ReplayRequest>& requests, const StepModel& model,
                           const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                           const ArrivalOptions& arrivals,
                           const CompletionCallback& on_complete = {}, bool keep_timing = true,
                           bool keep_sent_times = false);

/// Whether a replay goes on: asked once per request as it completes (index into the input);
/// false ends the replay there, the rest of the log unreplayed.
using CompletionVerdict = std::function<bool(std::size_t, const RequestTiming&)>;

/// A replay kept to what a search asks of it (a capacity search's attainment, the saturation
/// rate): no per-request values and no ITL histogram are kept (the totals' itl stays empty);
/// each request's values go to `keep_going` as it completes, and the replay stops when it says
/// false (the totals then cover only what ran). Otherwise the same replay as replay_batches.
ReplayTotals replay_until(const std::vector<ReplayRequest>& requests, const StepModel& model,
                          const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                          const ArrivalOptions& arrivals, const CompletionVerdict& keep_going);

class StepTimer;

/// The same with the step-time model injected (step_timer.hpp): `timer` times every step.
BatchReplay replay_batches(const std::vector<ReplayRequest>& requests, StepTimer& timer,
                           const SchedulerOptions& scheduler, const ArrivalOptions& arrivals,
                           const CompletionCallback& on_complete = {}, bool keep_timing = true,
                           bool keep_sent_times = false);

/// Blocks one request needs at its longest (prompt + response tokens).
std::int64_t blocks_needed(const ReplayRequest& request, std::int64_t block_tokens);

}  // namespace kspeed::engine
