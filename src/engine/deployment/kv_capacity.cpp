#include "kspeed/engine/deployment/kv_capacity.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/numeric.hpp"
#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

constexpr double kPeakActivationBytes = 2;  // BF16/FP16 activations, whatever the weights' type
constexpr double kLogitBytes = 4;           // the sampler's float32 logits
constexpr double kRotaryElementBytes = 2;   // the cos/sin cache in the model's BF16/FP16 dtype

// One dense (gated) FFN layer over `tokens`: residual and normed input, gate_up (2·I), the
// activation (I), the down projection's output (h).
double dense_ffn_live_bytes(double tokens, double hidden, double width) {
  return tokens * (3 * hidden + 3 * width) * kPeakActivationBytes;
}

// One MoE layer (fused_moe): the residual and normed input over every token, and the three
// intermediate caches over one chunk of routed rows.
double moe_ffn_live_bytes(double tokens, double hidden, double routed_rows, double width) {
  return (2 * hidden * tokens + routed_rows * (3 * width + hidden)) * kPeakActivationBytes;
}

// Reads one decimal number from the front of `text`, moving past it; nullopt without a digit.
std::optional<int> take_version_number(std::string_view& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

}  // namespace

VllmMemoryRule vllm_memory_rule_of(std::string_view version, std::string_view flag) {
  std::string_view rest = version;
  if (!rest.empty() && (rest.front() == 'v' || rest.front() == 'V')) rest.remove_prefix(1);
  const std::optional<int> major = take_version_number(rest);
  std::optional<int> minor;
  if (major && !rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    minor = take_version_number(rest);
  }
  int patch = 0;
  if (minor && !rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    patch = take_version_number(rest).value_or(0);
  }
  if (!major || !minor) {
    throw InputError(std::string(flag) + ": '" + std::string(version) +
                     "' is not a vLLM version; expected MAJOR.MINOR[.PATCH] as vLLM's start-up "
                     "banner prints it, e.g. 0.6.4 or 0.19.0");
  }
  const auto at_least = [&](int a, int b, int c) {
    if (*major != a) return *major > a;
    if (*minor != b) return *minor > b;
    return patch >= c;
  };
  if (at_least(0, 21, 0)) return VllmMemoryRule::with_cuda_graph_estimate;
  if (at_least(0, 6, 5)) return VllmMemoryRule::growth_since_start;
  if (at_least(0, 2, 5)) return VllmMemoryRule::device_wide;
  return VllmMemoryRule::torch_only;
}

std::string_view describe_vllm_rule(VllmMemoryRule rule) {
  switch (rule) {
    case VllmMemoryRule::torch_only:
      return "vLLM <= 0.2.4: PyTorch's peak only, nothing outside it";
    case VllmMemoryRule::device_wide:
      return "vLLM 0.2.5-0.6.4: all memory outside PyTorch, CUDA context included (not "
             "modelled: the reserve is a lower bound)";
    case VllmMemoryRule::growth_since_start:
      return "vLLM 0.6.5-0.20: memory outside PyTorch grown since the worker's start";
    case VllmMemoryRule::with_cuda_graph_estimate:
      return "vLLM >= 0.21: also its CUDA graph estimate (not modelled)";
  }
  return "";
}

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
    ffn_peak = dense_ffn_live_bytes(tokens, hidden, as_double(ffn.intermediate_size) / tp);
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

double rotary_cache_bytes(const ModelArch& model) {
  const std::int64_t width =
      model.attention == AttentionType::mla ? model.mla.qk_rope_head_dim : model.head_dim;
  if (model.context_tokens < 1 || width < 1) return 0;
  return as_double(model.context_tokens) * as_double(width) * kRotaryElementBytes;
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
  capacity.rope_cache_bytes = rotary_cache_bytes(platform.model.value);
  capacity.activation_bytes =
      activation_peak_bytes(platform, sizing.max_batched_tokens, sizing.max_seqs);
  capacity.cuda_graph_bytes = 0;
  // Versions before pull request 2031 subtract nothing outside PyTorch (VllmMemoryRule).
  capacity.non_torch_bytes =
      sizing.rule == VllmMemoryRule::torch_only ? 0 : kDefaultNonTorchGib * kBytesPerGib;
  AttentionShape one_sequence = attention_shape(platform);
  one_sequence.batch = 1;
  // One token of context: one position in every layer, full and sliding-window alike.
  capacity.kv_bytes_per_token = decode_attention_cost(one_sequence, 1).bytes;
  const double free_bytes = capacity.budget_bytes - capacity.weight_bytes -
                            capacity.rope_cache_bytes - capacity.activation_bytes -
                            capacity.cuda_graph_bytes - capacity.non_torch_bytes;
  const double block_bytes = capacity.kv_bytes_per_token * as_double(sizing.block_tokens);
  if (free_bytes > 0 && block_bytes > 0) {
    capacity.blocks = static_cast<std::int64_t>(std::floor(free_bytes / block_bytes));
  }
  return capacity;
}

}  // namespace kspeed::engine
