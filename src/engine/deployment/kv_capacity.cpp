#include "kspeed/engine/deployment/kv_capacity.hpp"

#include <algorithm>
#include <cmath>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/numeric.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

KvCapacity kv_cache_capacity(const Platform& platform, double memory_utilization,
                             std::int64_t block_tokens) {
  KvCapacity capacity;
  capacity.block_tokens = block_tokens;
  capacity.budget_bytes = platform.gpu.value.memory_gb * kBytesPerGb * memory_utilization;
  // At context 0 the memory a decode needs is the weights alone.
  capacity.weight_bytes = decode_memory_needed_gb(platform, 0) * kBytesPerGb;
  AttentionShape one_sequence = attention_shape(platform);
  one_sequence.batch = 1;
  // One token of context: one position in every layer, full and sliding-window alike.
  capacity.kv_bytes_per_token = decode_attention_cost(one_sequence, 1).bytes;
  const double free_bytes = capacity.budget_bytes - capacity.weight_bytes;
  const double block_bytes = capacity.kv_bytes_per_token * static_cast<double>(block_tokens);
  if (free_bytes > 0 && block_bytes > 0) {
    capacity.blocks = static_cast<std::int64_t>(std::floor(free_bytes / block_bytes));
  }
  return capacity;
}

}  // namespace kspeed::engine
