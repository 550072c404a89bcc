#include "kspeed/engine/deployment/decode_model.hpp"

#include <algorithm>

#include "kspeed/engine/denominator.hpp"
#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/numeric.hpp"

namespace kspeed::engine {

namespace {

constexpr double kBillion = 1e9;

// sum_{k=1..S} (L0 + k) = S·L0 + S(S+1)/2
double sum_linear(double first_context, double steps) {
  return steps * first_context + steps * (steps + 1.0) / 2.0;
}

// sum_{k=1..S} min(L0 + k, W): the first m = clamp(W - L0, 0, S) steps grow, the rest hold W.
double sum_capped(double first_context, double steps, double window) {
  const double growing = std::clamp(window - first_context, 0.0, steps);
  return sum_linear(first_context, growing) + (steps - growing) * window;
}

// sum_{k=1..S} (((L0 + k - 1) mod C) + 1): the keys a chunked local layer reads over S steps
// (step_model.hpp's prefix sums).
double sum_chunked(double first_context, double steps, double chunk) {
  return chunk > 0 ? chunked_causal_pairs(steps, first_context, chunk) : 0.0;
}

// Attended positions summed over the steps of a response, one sequence.
double attended_positions_over_steps(const ModelArch& model, double prompt, double steps) {
  const double window = as_double(model.sliding_window_tokens);
  const double full = as_double(full_attention_layers(model)) * sum_linear(prompt, steps);
  const double windowed =
      as_double(model.sliding_window_layers) *
      (window > 0 ? sum_capped(prompt, steps, window) : sum_linear(prompt, steps));
  const double chunked = as_double(model.chunked_attention_layers) *
                         sum_chunked(prompt, steps, as_double(model.attention_chunk_tokens));
  return full + windowed + chunked;
}

// Tokens one decode step computes: batch · q (q = 1 without speculative decoding).
double tokens_per_step(const Platform& platform) {
  return as_double(platform.batch.value) * platform.spec_tokens_per_step.value;
}

double scaled_time_ms(const KernelCost& per_unit, double units, const Roof& roof) {
  // max(aF / P, aB / BW) = a · max(F / P, B / BW): decode intensity does not change with context.
  return roofline_time_ms({per_unit.flops * units, per_unit.bytes * units}, roof, Efficiency{});
}

DecodeResponse finish(const Platform& platform, std::int64_t prompt, std::int64_t steps,
                      double attention_ms, double other_ms) {
  DecodeResponse out;
  out.steps = steps;
  out.attention_ms = attention_ms;
  out.other_ms = other_ms;
  out.first_step_share = decode_step_time(platform, prompt + 1).share();
  out.last_step_share =
      decode_step_time(platform, prompt + std::max<std::int64_t>(steps, 1)).share();
  // The roofline's kernels summed: a share of kernel time, as the step's share() is.
  out.share = steps > 0 ? share_of(Time<TimeBase::kernel>{attention_ms},
                                   Time<TimeBase::kernel>{attention_ms + other_ms})
                              .fraction
                        : out.first_step_share;
  return out;
}

}  // namespace

AttentionShape attention_shape(const Platform& platform) {
  AttentionShape shape;
  shape.model = &platform.model.value;
  shape.kv_bytes_per_element = platform.kv_bytes_per_element;
  shape.activation_bytes_per_element = 2;  // BF16 activations
  shape.tensor_parallel = platform.tensor_parallel.value;
  shape.batch = platform.batch.value;
  shape.decode_queries = platform.spec_tokens_per_step.value;
  return shape;
}

KernelCost linear_attention_step_cost(const Platform& platform) {
  const LinearAttentionDims& d = platform.model.value.linear;
  if (d.layers < 1) return {};
  // Each sequence's state is read and written once per step (tokens of one sequence share it),
  // split over tensor parallelism by heads; the recurrence updates and reads it per token:
  // about 4 FLOPs per state element and token (decay-and-rank-one update, then the readout).
  const double tp = as_double(platform.tensor_parallel.value);
  const double layers = as_double(d.layers);
  const double state = linear_state_bytes_per_layer(d);
  const double elements = as_double(d.value_heads * d.key_head_dim * d.value_head_dim);
  return {4.0 * elements * layers * tokens_per_step(platform) / tp,
          2.0 * state * layers * as_double(platform.batch.value) / tp};
}

KernelCost non_attention_step_cost(const Platform& platform) {
  const KernelCost linear = linear_attention_step_cost(platform);
  const KernelCost rest = weights_step_cost(platform);
  return {rest.flops + linear.flops, rest.bytes + linear.bytes};
}

KernelCost weights_step_cost(const Platform& platform) {
  const ModelArch& m = platform.model.value;
  if (m.shapes) {
    // From the shapes: non-expert weights + MoE layers · (U(t) + shared) experts, t = batch
    // (moe.hpp; a dense model reads its active weights). Tensor parallelism splits every
    // matrix: bytes / tp and FLOPs / tp per GPU.
    const double tp = as_double(platform.tensor_parallel.value);
    const std::int64_t ep = platform.expert_parallel.value;
    if (ep > 1) {
      // Expert parallelism: the other weights split by tp, E/ep whole experts per rank, of which
      // the busiest rank reads its share of the union (moe.hpp); FLOPs per token
      // 2·(P_active - P_routed)/tp + 2·P_routed/ep (the routed FLOPs spread evenly, a mean).
      const ModelShapes& s = *m.shapes;
      const WeightReads reads = weight_reads(m, s);
      const double tokens = tokens_per_step(platform);
      const double routed_active = routed_active_params(m, s);
      const double active = count_params(m, s).active;
      const StepExperts experts{s.ffn.experts, s.ffn.top_k, ep, 0};
      return {2.0 * tokens * ((active - routed_active) / tp + routed_active / as_double(ep)),
              reads.every_step_bytes / tp + reads.routed_experts_bytes / as_double(ep) *
                                                routed_expert_fraction(experts, tokens)};
    }
    const DecodeWeights weights = decode_weights(m, *m.shapes, tokens_per_step(platform));
    return {weights.flops / tp, weights.bytes / tp};
  }
  const double params_per_rank =
      m.active_params_billions * kBillion / as_double(platform.tensor_parallel.value);
  // Every active weight is read once per step and used by each token of the step:
  // bytes = P·bytes_per_param / tp, FLOPs = 2·P·batch·q / tp.
  return {2.0 * params_per_rank * tokens_per_step(platform),
          params_per_rank * m.weight_bytes_per_param};
}

DecodeStepTime decode_step_time(const Platform& platform, std::int64_t context_tokens) {
  const Roof roof = roof_of(platform);
  DecodeStepTime step;
  step.attention_ms =
      roofline_time_ms(decode_attention_cost(attention_shape(platform), context_tokens), roof, {});
  step.other_ms = roofline_time_ms(non_attention_step_cost(platform), roof, {});
  return step;
}

DecodeResponse decode_over_response(const Platform& platform, std::int64_t prompt_tokens,
                                    std::int64_t response_tokens) {
  const Roof roof = roof_of(platform);
  const std::int64_t steps = std::max<std::int64_t>(response_tokens - 1, 0);
  const double positions = attended_positions_over_steps(
                               platform.model.value, as_double(prompt_tokens), as_double(steps)) *
                           as_double(platform.batch.value);
  // Speculative decoding: about n / τ steps, each at a context τ tokens past the last, so every
  // sum over the tokens' steps is divided by τ (MODEL.md section 8).
  const double tau = platform.spec_mean_accepted.value;
  const double attention_ms =
      scaled_time_ms(decode_cost_per_attended_token(attention_shape(platform)), positions, roof) /
      tau;
  const double other_ms =
      as_double(steps) * roofline_time_ms(non_attention_step_cost(platform), roof, {}) / tau;
  return finish(platform, prompt_tokens, steps, attention_ms, other_ms);
}

DecodeResponse decode_over_response_stepwise(const Platform& platform, std::int64_t prompt_tokens,
                                             std::int64_t response_tokens) {
  const std::int64_t steps = std::max<std::int64_t>(response_tokens - 1, 0);
  double attention_ms = 0;
  double other_ms = 0;
  for (std::int64_t k = 1; k <= steps; ++k) {
    const DecodeStepTime step = decode_step_time(platform, prompt_tokens + k);
    attention_ms += step.attention_ms / platform.spec_mean_accepted.value;
    other_ms += step.other_ms / platform.spec_mean_accepted.value;
  }
  return finish(platform, prompt_tokens, steps, attention_ms, other_ms);
}

namespace {

// The resident weights' bytes. With shapes, each part in its own storage type (gpt-oss-120b:
// MXFP4 experts, BF16 attention and tables): layers · attention + routers at the dense type, the
// dense FFNs at theirs, every expert at the expert type, the tables at the embedding type. Without,
// every parameter in the nominal weight type.
double resident_weight_bytes(const ModelArch& m) {
  if (!m.shapes) {
    return m.total_params_billions * kBillion *
           dtype_bytes(m.weight_dtype).value_or(m.weight_bytes_per_param);
  }
  const ModelShapes& s = *m.shapes;
  const ParamCounts c = count_params(m, s);
  const double experts = as_double(moe_layers(m, s.ffn)) *
                         (as_double(s.ffn.experts) * c.params_per_expert +
                          as_double(s.ffn.shared_experts) * c.params_per_shared_expert);
  const double tables = c.embedding * (s.tied_embeddings ? 1.0 : 2.0);
  const double ffn = dense_ffn_params(m, s, c);
  return (c.total - experts - tables - ffn) * s.dense_bytes_per_param +
         ffn * s.dense_ffn_bytes_per_param + experts * s.expert_bytes_per_param +
         tables * s.embedding_bytes_per_param;
}

}  // namespace

double decode_memory_needed_gb(const Platform& platform, std::int64_t context_tokens) {
  // Every parameter is resident (MoE: all experts), each part in its storage type:
  // weight bytes / tp; plus the batch's KV cache as one decode step reads it.
  const ModelArch& m = platform.model.value;
  double weights = resident_weight_bytes(m) / as_double(platform.tensor_parallel.value);
  if (platform.expert_parallel.value > 1 && m.shapes) {
    // Expert parallelism: E/ep whole routed experts per GPU, the rest split by tp.
    const double routed = weight_reads(m, *m.shapes).routed_experts_bytes;
    weights = (resident_weight_bytes(m) - routed) / as_double(platform.tensor_parallel.value) +
              routed / as_double(platform.expert_parallel.value);
  }
  // vLLM keeps a chunked local layer's whole KV, not its current chunk's (kv_capacity.hpp): its
  // cache is counted like a full layer's.
  Platform resident = platform;
  resident.model.value.chunked_attention_layers = 0;
  const KernelCost kv = decode_attention_cost(attention_shape(resident), context_tokens);
  return (weights + kv.bytes) / kBillion;
}

}  // namespace kspeed::engine
