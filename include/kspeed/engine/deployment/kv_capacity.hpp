#pragma once
// How many KV cache blocks one GPU of a deployment holds, sized the way vLLM sizes its cache:
// the engine takes `gpu_memory_utilization` of the GPU's memory, the weights take their share,
// and what is left is cut into blocks of `block_tokens` tokens' KV. vLLM also reserves the
// profiled activation peak and CUDA graphs before sizing, which this leaves out: the count is an
// upper bound (vLLM logs the real one as "GPU KV cache size").

#include <cstdint>

#include "kspeed/engine/deployment/hardware.hpp"

namespace kspeed::engine {

/// vLLM's default --gpu-memory-utilization: 0.9 of each GPU's memory goes to the engine
/// (vllm-project/vllm, vllm/engine/arg_utils.py: EngineArgs.gpu_memory_utilization = 0.90; the
/// engine arguments page of docs.vllm.ai lists the same default).
inline constexpr double kDefaultGpuMemoryUtilization = 0.9;

/// One GPU's KV cache, with the figures it came from.
struct KvCapacity {
  double budget_bytes = 0;        ///< GPU memory × utilization
  double weight_bytes = 0;        ///< this GPU's share of the resident weights (all experts)
  double kv_bytes_per_token = 0;  ///< this GPU's KV bytes of one token, every attention layer
  std::int64_t block_tokens = 0;
  /// floor((budget - weights) / (kv bytes per token · block tokens)); 0 when the weights leave
  /// no room.
  std::int64_t blocks = 0;
};

/// The KV capacity of one GPU of `platform`. Sliding-window layers are counted like full ones
/// (vLLM's paged cache gives every layer a block per block_tokens tokens).
KvCapacity kv_cache_capacity(const Platform& platform, double memory_utilization,
                             std::int64_t block_tokens);

}  // namespace kspeed::engine
