#pragma once
// `kspeed mix --replay --disagg xPyD`: the log's requests replayed through a prefill pool of x
// replicas and a decode pool of y replicas joined by a KV link (serving/disagg_replay.hpp),
// before and after the kernel change, beside the colocated replay of the same requests. The
// kernel acts where its phase runs: prefill attention in the prefill pool, decode attention in
// the decode pool; each pool's busy time before and after says what it is worth there.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/distribution.hpp"
#include "kspeed/engine/serving/disagg_replay.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"

namespace kspeed::engine {

/// The KV link between the pools, and where its figures come from.
struct KvLinkChoice {
  std::string name;  ///< "nvlink", "ib-ndr", "roce-mooncake", or the typed "ALPHA_US:GBPS"
  KvLink link;
  bool cited = false;  ///< a preset's published figures (cited); else typed by the user (given)
  std::string source;  ///< the preset's public source, for people
};

/// The link presets: NVLink 4 (450 GB/s a direction, H100 SXM datasheet), InfiniBand NDR
/// (400 Gb/s = 50 GB/s a port, ConnectX-7), Mooncake's transfer engine over 4×200 Gbps RoCE
/// (87 GB/s, kvcache-ai/Mooncake README). Their latencies (alpha) are not in those sources:
/// NVLink 2 us, InfiniBand and RoCE 5 us, each stated in `source`. nullopt: not a preset.
std::optional<KvLinkChoice> kv_link_preset(const std::string& name);

/// What the command asked for: x prefill and y decode replicas, each pool's deployment
/// (resolved by resolve_deployment), the link.
struct DisaggRequest {
  std::string shape;  ///< "1P1D": the pools' replicas, as the command line names them
  std::int64_t prefill_replicas = 1;
  std::int64_t decode_replicas = 1;
  Deployment prefill;
  Deployment decode;
  KvLinkChoice link;
  Routing routing = Routing::round_robin;  ///< in each pool
  double rate_scale = 1;
  /// > 0: a closed loop of N clients through both pools (vllm bench serve --max-concurrency);
  /// then rate_scale is not used and there is no capacity search (a closed loop sets its rate).
  std::int64_t concurrency = 0;
  double think_time_s = 0;
};

/// The model's KV bytes of one token over every attention layer and every tensor-parallel rank
/// (the whole prompt's KV crosses the link). Throws InputError when the deployment has no
/// platform (a stated --step-model alone names no model to size the KV from).
double whole_kv_bytes_per_token(const Deployment& deployment, const char* pool);

/// The engine's setup of a request.
DisaggSetup disagg_setup(const DisaggRequest& request);

/// One side (before or after) of the disaggregated replay, summarised.
struct DisaggSide {
  Distribution ttft_ms;
  Distribution tpot_ms;  ///< over requests of 2+ tokens
  Distribution e2e_ms;
  Distribution prefill_queue_ms;  ///< arrival to first scheduled at the prefill pool
  Distribution decode_wait_ms;    ///< arrival at the decode pool to first scheduled there
  PoolReplay prefill;
  PoolReplay decode;
  std::optional<double> attainment;  ///< with an SLO
  std::int64_t unschedulable = 0;    ///< dropped by either pool
};

/// The disaggregated answer beside the colocated one.
struct MixDisagg {
  std::string name;  ///< "1P1D"
  DisaggRequest request;
  double kv_bytes_per_token = 0;
  AttentionSpeedup speedup;
  std::int64_t requests = 0;
  Distribution transfer_ms;  ///< t_x per request (the kernel does not change it)
  DisaggSide before;
  DisaggSide after;
  std::optional<Capacity> capacity_before;  ///< open loop with an SLO
  std::optional<Capacity> capacity_after;
  std::int64_t closed_loop_rounds_before = 0;  ///< closed loop: replays until the sends settled
  std::int64_t closed_loop_rounds_after = 0;
};

/// Replays `requests` (sorted by arrival) disaggregated, before and after `speedup`, with
/// capacity at `slo` (the highest rate scale meeting it, by bisection in log X to 0.1%).
MixDisagg replay_disaggregated_mix(const std::vector<ReplayRequest>& requests,
                                   const DisaggRequest& request, const AttentionSpeedup& speedup,
                                   const Slo& slo, const std::vector<double>& percentiles);

}  // namespace kspeed::engine
