#include "kspeed/engine/roofline/roofline.hpp"

#include "kspeed/engine/roofline/bound.hpp"

#include <algorithm>
#include <cmath>
#include "kspeed/engine/numeric.hpp"

namespace kspeed::engine {

namespace {

// TFLOP/s and TB/s are 10^12 per second; a millisecond is 10^-3 s: t_ms = x / (rate · 10^9).
constexpr double kTeraPerMs = 1e9;

// Query heads on one GPU: tensor parallelism splits them evenly.
double query_heads_per_rank(const AttentionShape& shape) {
  return as_double(shape.model->query_heads) / as_double(shape.tensor_parallel);
}

// GQA KV heads on one GPU: split like the query heads, but never fewer than one; once tp exceeds
// the KV heads each rank holds a replica of one (vLLM's rule).
double kv_heads_per_rank(const AttentionShape& shape) {
  return std::max(1.0, as_double(shape.model->kv_heads) / as_double(shape.tensor_parallel));
}

// Causal (query, key) pairs of a prompt of L tokens: L^2 / 2 with full attention; with a window
// W < L, each query sees at most W keys: L·W - W^2 / 2.
double windowed_causal_pairs(double prompt_tokens, double window_tokens) {
  if (window_tokens <= 0 || prompt_tokens <= window_tokens) {
    return prompt_tokens * prompt_tokens / 2.0;
  }
  return prompt_tokens * window_tokens - window_tokens * window_tokens / 2.0;
}

// Causal (query, key) pairs of a prompt of L tokens in a chunked local layer: each chunk of C
// tokens attends causally within itself, so the pairs are summed over the chunks: q = floor(L/C)
// whole chunks of C^2 / 2 and the last r = L - q·C tokens' r^2 / 2 (L^2 / 2 when L <= C).
double prefill_pairs_within_chunks(double prompt_tokens, double chunk_tokens) {
  if (chunk_tokens <= 0 || prompt_tokens <= chunk_tokens) {
    return prompt_tokens * prompt_tokens / 2.0;
  }
  const double whole = std::floor(prompt_tokens / chunk_tokens);
  const double rest = prompt_tokens - whole * chunk_tokens;
  return whole * chunk_tokens * chunk_tokens / 2.0 + rest * rest / 2.0;
}

// Prefill work of one layer and one sequence whose attention sees `pairs` causal pairs.
KernelCost prefill_layer_cost(const AttentionShape& shape, double prompt_tokens, double pairs) {
  const ModelArch& m = *shape.model;
  const double hq = query_heads_per_rank(shape);
  const double a = shape.activation_bytes_per_element;
  if (m.attention == AttentionType::mla) {
    // Prefill runs MLA as ordinary attention on decompressed heads: QK^T over d_nope + d_rope,
    // PV over d_v. FLOPs = 2·Hq·(d_qk + d_v)·pairs; bytes: Q, K (d_qk) and V, O (d_v) once.
    const double qk = as_double(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    const double v = as_double(m.mla.v_head_dim);
    return {2.0 * hq * (qk + v) * pairs, prompt_tokens * hq * a * (2.0 * qk + 2.0 * v)};
  }
  // GQA: FLOPs = 4·Hq·d·pairs (QK^T and PV); bytes = L·d·(2·Hq·a + 2·Hkv·b): Q read and O
  // written in the activation type, K and V read once from the cache.
  const double d = as_double(m.head_dim);
  const double bytes = prompt_tokens * d *
                       (2.0 * hq * a + 2.0 * kv_heads_per_rank(shape) * shape.kv_bytes_per_element);
  return {4.0 * hq * d * pairs, bytes};
}

}  // namespace

Roof roof_of(const Platform& platform) {
  return {platform.peak_tflops, platform.gpu.value.hbm_bandwidth_tbs};
}

double ridge_flop_per_byte(const Roof& roof) {
  // ridge = peak / bandwidth: TFLOP/s / (TB/s) = FLOP/byte
  return roof.peak_tflops / roof.bandwidth_tbs;
}

double intensity(const KernelCost& cost) {
  return cost.flops / cost.bytes;
}

double roofline_time_ms(const KernelCost& cost, const Roof& roof, const Efficiency& efficiency) {
  // t = max(FLOPs / (peak · η_compute), bytes / (bandwidth · η_bandwidth))
  const double compute_ms = cost.flops / (roof.peak_tflops * efficiency.compute * kTeraPerMs);
  const double memory_ms = cost.bytes / (roof.bandwidth_tbs * efficiency.bandwidth * kTeraPerMs);
  return std::max(compute_ms, memory_ms);
}

Bound bound_of(const KernelCost& cost, const Roof& roof, const Efficiency& efficiency) {
  // The one definition (bound.hpp): compute-bound when AI >= ridge · η_compute / η_bandwidth.
  return bound_of(intensity(cost), ridge_flop_per_byte(roof), efficiency.compute,
                  efficiency.bandwidth);
}

double attainable_fraction_of_peak(double intensity_flop_per_byte, const Roof& roof) {
  // attainable FLOP/s = min(peak, AI · bandwidth), so the fraction is min(1, AI / ridge)
  return std::min(1.0, intensity_flop_per_byte / ridge_flop_per_byte(roof));
}

LeverOutcome apply_levers(const KernelCost& cost, const Roof& roof, const Levers& levers) {
  const Efficiency before{levers.compute_efficiency, levers.bandwidth_efficiency_before};
  // The new kernel: its compute term s_c times smaller, its bytes r times fewer, and its own
  // bandwidth efficiency: max(F / (s_c·P·η_c), B / (r·BW·η_after)).
  const KernelCost changed{cost.flops / levers.compute_speedup,
                           cost.bytes / levers.bytes_reduction};
  const Efficiency after{levers.compute_efficiency, levers.bandwidth_efficiency_after};
  LeverOutcome out;
  out.time_before_ms = roofline_time_ms(cost, roof, before);
  out.time_after_ms = roofline_time_ms(changed, roof, after);
  out.speedup = out.time_before_ms / out.time_after_ms;
  out.bound_before = bound_of(cost, roof, before);
  out.bound_after = bound_of(changed, roof, after);
  return out;
}

KernelCost unit_cost_at_intensity(double intensity_flop_per_byte) {
  return {intensity_flop_per_byte, 1.0};
}

KernelCost decode_cost_per_attended_token(const AttentionShape& shape) {
  const ModelArch& m = *shape.model;
  const double hq = query_heads_per_rank(shape);
  const double b = shape.kv_bytes_per_element;
  if (m.attention == AttentionType::mla) {
    // Absorbed MLA: every head scores against the shared latent (r) and RoPE key (d_rope), then
    // sums the latent (r): FLOPs = 2·Hq·(r + d_rope + r). The cache holds r + d_rope elements
    // per token, read once for all heads on the rank (the latent is replicated across ranks).
    const double r = as_double(m.mla.kv_lora_rank);
    const double rope = as_double(m.mla.qk_rope_head_dim);
    return {2.0 * hq * (2.0 * r + rope) * shape.decode_queries, (r + rope) * b};
  }
  // GQA: q·k and p·v per query head, 2·d FLOPs each: 4·Hq·d. K and V of each KV head: 2·Hkv·d·b.
  // AI = 4·Hq·d / (2·Hkv·d·b) = 2·G / b with G = Hq / Hkv; q queries per step: 2·G·q / b.
  const double d = as_double(m.head_dim);
  return {4.0 * hq * d * shape.decode_queries, 2.0 * kv_heads_per_rank(shape) * d * b};
}

double attended_positions(const ModelArch& model, double context_tokens) {
  // n_full·L + n_window·min(L, W) + n_chunked·(((L - 1) mod C) + 1)
  const double window = as_double(model.sliding_window_tokens);
  const double windowed = window > 0 ? std::min(context_tokens, window) : context_tokens;
  return as_double(full_attention_layers(model)) * context_tokens +
         as_double(model.sliding_window_layers) * windowed +
         as_double(model.chunked_attention_layers) *
             chunk_attended_tokens(context_tokens, as_double(model.attention_chunk_tokens));
}

KernelCost decode_attention_cost(const AttentionShape& shape, std::int64_t context_tokens) {
  const KernelCost per_token = decode_cost_per_attended_token(shape);
  const double positions =
      attended_positions(*shape.model, as_double(context_tokens)) * as_double(shape.batch);
  return {per_token.flops * positions, per_token.bytes * positions};
}

KernelCost prefill_attention_cost(const AttentionShape& shape, std::int64_t prompt_tokens) {
  const ModelArch& m = *shape.model;
  const double prompt = as_double(prompt_tokens);
  const KernelCost full = prefill_layer_cost(shape, prompt, windowed_causal_pairs(prompt, 0));
  const KernelCost windowed = prefill_layer_cost(
      shape, prompt, windowed_causal_pairs(prompt, as_double(m.sliding_window_tokens)));
  const KernelCost chunked = prefill_layer_cost(
      shape, prompt, prefill_pairs_within_chunks(prompt, as_double(m.attention_chunk_tokens)));
  const double n_full = as_double(full_attention_layers(m));
  const double n_window = as_double(m.sliding_window_layers);
  const double n_chunked = as_double(m.chunked_attention_layers);
  const double batch = as_double(shape.batch);
  return {batch * (n_full * full.flops + n_window * windowed.flops + n_chunked * chunked.flops),
          batch * (n_full * full.bytes + n_window * windowed.bytes + n_chunked * chunked.bytes)};
}

}  // namespace kspeed::engine
