#pragma once
// Prefill/decode disaggregation (DistServe, Zhong et al., OSDI 2024; Splitwise, Patel et al.,
// ISCA 2024; how llm-d, Dynamo, SGLang and vLLM deploy at scale): a prefill pool computes each
// prompt, its KV cache crosses a link to a decode pool, and the decode pool produces the
// response. Each pool is a deployment of its own (step model, scheduler, replicas) replayed by
// the continuous-batching replay (batch_replay.hpp).
//
// A request's path:
//   1. It arrives at the prefill pool and is replayed there as a prefill-only request (its
//      prompt, one sampled token): t_p = its arrival to the end of its prefill step.
//   2. Its prompt's KV (kv_bytes_per_token · prompt tokens) crosses the link:
//      t_x = alpha + bytes / beta (Hockney's model). Transfers do not contend for the link.
//   3. It arrives at the decode pool at arrival + t_p + t_x, and is admitted when a replica has
//      blocks for its whole KV (the scheduler's KV rule). The decode engine computes the
//      prompt's last token (the rest of the prompt's KV is the transfer's; vLLM recomputes a
//      fully cached prompt's last token for its logits, kv_cache_manager.get_computed_blocks)
//      and samples the first token, then decodes the rest.
//   TTFT = t_p + t_x + the decode pool's TTFT; E2E = t_p + t_x + the decode pool's E2E; TPOT
//   is the decode pool's. The prefill pool never waits for the decode pool (no backpressure),
//   so the two replays run one after the other, exactly.
//
// Link figures for callers to cite: NVLink 4 450 GB/s a direction (H100 SXM datasheet);
// InfiniBand NDR 400 Gb/s = 50 GB/s a port (ConnectX-7); Mooncake's transfer engine 87 GB/s
// over 4×200 Gbps RoCE and 190 GB/s over 8×400 Gbps (kvcache-ai/Mooncake README).

#include <cstdint>
#include <vector>

#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"

namespace kspeed::engine {

/// One pool: a deployment of its own.
struct ServingPool {
  StepModel step;  ///< before the kernel change
  SchedulerOptions scheduler;
  std::int64_t replicas = 1;
  Routing routing = Routing::round_robin;
};

/// The KV link between the pools: time = latency_s + bytes / bytes_per_s.
struct KvLink {
  double latency_s = 0;    ///< alpha, per transfer
  double bytes_per_s = 0;  ///< beta (> 0)
};

struct DisaggSetup {
  ServingPool prefill;
  ServingPool decode;
  KvLink link;
  double kv_bytes_per_token = 0;   ///< the model's KV bytes of one token, every layer (> 0)
  double request_overhead_ms = 0;  ///< outside the engines, added once to TTFT and E2E
  double rate_scale = 1;           ///< arrivals at arrival_s / rate_scale
};

/// What one pool did.
struct PoolReplay {
  ReplayTotals totals;
  double span_s = 0;       ///< its first arrival to its last completion
  double utilisation = 0;  ///< busy time / (replicas · span): the fraction of time in steps
};

struct DisaggReplay {
  std::vector<RequestTiming> timing;  ///< the client's view, in the order of the requests
  std::vector<float> prefill_ms;      ///< t_p per request (queue and prefill, prefill pool)
  std::vector<float> transfer_ms;     ///< t_x per request
  std::vector<float> decode_queue_ms;  ///< arrival at the decode pool to first scheduled there
  PoolReplay prefill;
  PoolReplay decode;
};

/// The KV transfer time of a prompt of `prompt_tokens` tokens (ms).
double kv_transfer_ms(const DisaggSetup& setup, std::int64_t prompt_tokens);

/// Replays `requests` (sorted by arrival) through both pools with `speedup` (each pool's steps
/// see the phase it runs: prefill attention in the prefill pool, decode attention in the
/// decode pool). Preconditions as replay_batches, for each pool.
DisaggReplay replay_disaggregated(const std::vector<ReplayRequest>& requests,
                                  const DisaggSetup& setup, const AttentionSpeedup& speedup);

}  // namespace kspeed::engine
