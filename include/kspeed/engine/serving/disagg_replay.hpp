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
// A closed loop of N clients (vllm bench serve --max-concurrency N: each client sends the log's
// next request when its previous one has finished) couples the pools: a send waits on an E2E
// that passes through both. It is found by replaying again until the sends stop changing: round
// one replays the first N requests (sent at 0); each round sends, client by client in the
// log's order, every request whose client's previous request has been replayed, and replays
// them all from the start. The replay is causal (a request sent at t changes no step before t),
// so the sends settle from the earliest onwards, in about requests / N rounds when latencies
// are alike; the answer is the round whose sends reproduce themselves exactly, a fixed point of
// the replay and so the closed loop it describes.
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
  double rate_scale = 1;           ///< arrivals at arrival_s / rate_scale (open loop)
  /// 0: open loop (the requests' arrival times); N > 0: a closed loop of N clients, each sending
  /// the log's next request when its previous one has finished (its E2E, the request overhead
  /// included) plus think_time_s; arrival times and rate_scale are then ignored.
  std::int64_t concurrency = 0;
  double think_time_s = 0;  ///< closed loop only: a client's wait after a response (>= 0)
};

/// What one pool did.
struct PoolReplay {
  ReplayTotals totals;
  double span_s = 0;       ///< its first arrival to its last completion
  double utilisation = 0;  ///< busy time / (replicas · span): the fraction of time in steps
};

struct DisaggReplay {
  std::vector<RequestTiming> timing;   ///< the client's view, in the order of the requests
  std::vector<float> prefill_ms;       ///< t_p per request (queue and prefill, prefill pool)
  std::vector<float> transfer_ms;      ///< t_x per request
  std::vector<float> decode_queue_ms;  ///< arrival at the decode pool to first scheduled there
  PoolReplay prefill;
  PoolReplay decode;
  std::vector<double> send_s;           ///< closed loop: when each request was sent; else empty
  std::int64_t closed_loop_rounds = 0;  ///< closed loop: replays until the sends settled
};

/// The most rounds a closed loop may take to settle: 4 · ceil(requests / clients) + 16, four
/// times the rounds requests of alike latencies need; more throws InputError (nothing settles).
std::int64_t disagg_closed_loop_round_cap(std::int64_t requests, std::int64_t clients);

/// The KV transfer time of a prompt of `prompt_tokens` tokens (ms).
double kv_transfer_ms(const DisaggSetup& setup, std::int64_t prompt_tokens);

/// Replays `requests` (sorted by arrival; closed loop: in the order the clients send them)
/// through both pools with `speedup` (each pool's steps see the phase it runs: prefill
/// attention in the prefill pool, decode attention in the decode pool). Preconditions as
/// replay_batches, for each pool.
DisaggReplay replay_disaggregated(const std::vector<ReplayRequest>& requests,
                                  const DisaggSetup& setup, const AttentionSpeedup& speedup);

}  // namespace kspeed::engine
