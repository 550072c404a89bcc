#include "kspeed/engine/deployment/kv_capacity.hpp"

#include <algorithm>
#include <cmath>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/numeric.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

namespace {

constexpr double kActivationBytes = 2;  // BF16/FP16 activations, whatever the weights' type
constexpr double kLogitBytes = 4;       // the sampler's float32 logits

// One dense (gated) FFN layer over `tokens`: residual and normed input, gate_up (2·I), the
// activation (I), the down projection's output (h).
double dense_ffn_live_bytes(double tokens, double hidden, double width) {
  return tokens * (3 * hidden + 3 * width) * kActivationBytes;
}

// One MoE layer (fused_moe): the residual and normed input over every token, and the three
// intermediate caches over one chunk of routed rows.
double moe_ffn_live_bytes(double tokens, double hidden, double routed_rows, double width) {
  return (2 * hidden * tokens + routed_rows * (3 * width + hidden)) * kActivationBytes;
}

}  // namespace

double activation_peak_bytes(const Platform& platform, std::int64_t max_batched_tokens,
                             std::int64_t max_seqs) {
  const ModelArch& model = platform.model.value;
  if (!model.shapes || max_batched_tokens < 1) return 0;
  const ModelShapes& shapes = *model.shapes;
  const double tokens = as_double(max_batched_tokens);
  const double hidden = as_double(shapes.hidden_size);
  const double tp = as_double(platform.tensor_parallel.value);
  const FfnSpec& ffn = shapes.ffn;
  double ffn_peak = 0;
  if (ffn.intermediate_size > 0 && (!is_moe(ffn) || ffn.dense_layers > 0)) {
    ffn_peak =
        dense_ffn_live_bytes(tokens, hidden, as_double(ffn.intermediate_size) / tp);
  }
  if (is_moe(ffn)) {
    const double chunk = std::min(tokens, as_double(kVllmFusedMoeChunkTokens));
    const double ep = as_double(platform.expert_parallel.value);
    // Expert parallelism keeps experts whole and routes each rank ~k/ep of the chunk's rows.
    const double rows = chunk * as_double(ffn.top_k) / ep;
    const double width = as_double(ffn.moe_intermediate_size) / (ep > 1 ? 1 : tp);
    ffn_peak = std::max(ffn_peak, moe_ffn_live_bytes(tokens, hidden, rows, width));
  }
  const double sampler_rows = as_double(std::min(max_seqs, max_batched_tokens));
  const double logits = sampler_rows * as_double(shapes.vocab_size) * kLogitBytes;
  return std::max(ffn_peak, logits);
}

KvCapacity kv_cache_capacity(const Platform& platform, const KvSizing& sizing) {
  KvCapacity capacity;
  const Gpu& gpu = platform.gpu.value;
  capacity.block_tokens = sizing.block_tokens;
  capacity.total_is_visible = gpu.memory_visible_gib.has_value();
  capacity.total_bytes = capacity.total_is_visible ? *gpu.memory_visible_gib * kBytesPerGib
                                                   : gpu.memory_gb * kBytesPerGb;
  capacity.budget_bytes = capacity.total_bytes * sizing.memory_utilization;
  // At context 0 the memory a decode needs is the weights alone.
  capacity.weight_bytes = decode_memory_needed_gb(platform, 0) * kBytesPerGb;
  capacity.activation_bytes =
      activation_peak_bytes(platform, sizing.max_batched_tokens, sizing.max_seqs);
  capacity.cuda_graph_bytes = 0;
  capacity.non_torch_bytes = kDefaultNonTorchGib * kBytesPerGib;
  AttentionShape one_sequence = attention_shape(platform);
  one_sequence.batch = 1;
  // One token of context: one position in every layer, full and sliding-window alike.
  capacity.kv_bytes_per_token = decode_attention_cost(one_sequence, 1).bytes;
  const double free_bytes = capacity.budget_bytes - capacity.weight_bytes -
                            capacity.activation_bytes - capacity.cuda_graph_bytes -
                            capacity.non_torch_bytes;
  const double block_bytes = capacity.kv_bytes_per_token * as_double(sizing.block_tokens);
  if (free_bytes > 0 && block_bytes > 0) {
    capacity.blocks = static_cast<std::int64_t>(std::floor(free_bytes / block_bytes));
  }
  return capacity;
}

}  // namespace kspeed::engine
