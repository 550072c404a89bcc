#include "kspeed/engine/deployment/moe.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kspeed/engine/numeric.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

double expected_distinct_experts(std::int64_t experts, std::int64_t top_k, double tokens) {
  if (experts <= 0 || tokens <= 0) {
    return 0.0;
  }
  // U(t) = E · (1 - (1 - k/E)^t)
  const double e = as_double(experts);
  return e * (1.0 - std::pow(1.0 - as_double(top_k) / e, tokens));
}

double expected_busiest_rank_experts(std::int64_t experts, std::int64_t top_k, std::int64_t ranks,
                                     double tokens) {
  if (experts <= 0 || tokens <= 0 || ranks <= 0) return 0.0;
  if (ranks == 1) return expected_distinct_experts(experts, top_k, tokens);
  const std::int64_t m = experts / ranks;  // experts on one rank
  // p = 1 - (1 - k/E)^t: one expert chosen by some token of the step
  const double p = expected_distinct_experts(experts, top_k, tokens) / as_double(experts);
  if (p >= 1.0) return as_double(m);
  if (p <= 0.0) return 0.0;
  // E[max of `ranks` iid Binomial(m, p)] = Σ_{x=0}^{m-1} (1 - F(x)^ranks); the pmf by the
  // recurrence P(x+1) = P(x) · (m - x)/(x + 1) · p/(1 - p), from P(0) = (1 - p)^m.
  double pmf = std::pow(1.0 - p, as_double(m));
  double cdf = 0;
  double busiest = 0;
  const double odds = p / (1.0 - p);
  for (std::int64_t x = 0; x < m; ++x) {
    cdf = std::min(1.0, cdf + pmf);
    busiest += 1.0 - std::pow(cdf, as_double(ranks));
    pmf *= as_double(m - x) / as_double(x + 1) * odds;
  }
  return busiest;
}

double routed_expert_fraction(const StepExperts& e, double tokens) {
  if (e.experts <= 0 || tokens <= 0) return 0.0;
  const std::int64_t ranks = std::max<std::int64_t>(e.expert_parallel, 1);
  // The busiest rank's distinct experts over the m = E/ep it holds (ep = 1: U(t)/E).
  return expected_busiest_rank_experts(e.experts, e.top_k, ranks, tokens) /
         (as_double(e.experts) / as_double(ranks));
}

double experts_read_per_layer(const FfnSpec& ffn, double tokens) {
  return expected_distinct_experts(ffn.experts, ffn.top_k, tokens) + as_double(ffn.shared_experts);
}

WeightReads weight_reads(const ModelArch& model, const ModelShapes& shapes) {
  const ParamCounts params = count_params(model, shapes);
  const FfnSpec& f = shapes.ffn;
  const double n_moe = as_double(moe_layers(model, f));
  WeightReads out;
  // every step: (non-expert - head) at their types (non_expert_layer_bytes) + head·b_embedding +
  // MoE layers·shared·P_shared·b_expert
  out.every_step_bytes = non_expert_layer_bytes(model, shapes, params) +
                         params.embedding * shapes.embedding_bytes_per_param +
                         n_moe * as_double(f.shared_experts) * params.params_per_shared_expert *
                             shapes.expert_bytes_per_param;
  // routed: MoE layers · E · P_expert · b_expert
  out.routed_experts_bytes =
      n_moe * as_double(f.experts) * params.params_per_expert * shapes.expert_bytes_per_param;
  return out;
}

double routed_active_params(const ModelArch& model, const ModelShapes& shapes) {
  const ParamCounts params = count_params(model, shapes);
  return as_double(moe_layers(model, shapes.ffn)) * as_double(shapes.ffn.top_k) *
         params.params_per_expert;
}

DecodeWeights decode_weights(const ModelArch& model, const ModelShapes& shapes, double tokens) {
  const ParamCounts params = count_params(model, shapes);
  const FfnSpec& f = shapes.ffn;
  const double n_moe = as_double(moe_layers(model, f));
  DecodeWeights out;
  out.experts_read_per_layer = experts_read_per_layer(f, tokens);
  // expert params read = MoE layers · (U(t)·P_expert + shared·P_shared)
  const double expert_params =
      n_moe * (expected_distinct_experts(f.experts, f.top_k, tokens) * params.params_per_expert +
               as_double(f.shared_experts) * params.params_per_shared_expert);
  out.params_read = params.non_expert_active + expert_params;
  // bytes = (non-expert - head) at their types + head·b_embedding + expert params·b_expert
  out.bytes = non_expert_layer_bytes(model, shapes, params) +
              params.embedding * shapes.embedding_bytes_per_param +
              expert_params * shapes.expert_bytes_per_param;
  // FLOPs = 2 · active · t: the union changes what is read, not what each token computes
  out.flops = 2.0 * params.active * tokens;
  return out;
}

void check_speculation(const Speculation& s) {
  if (!(s.tokens_per_step >= 1) || !std::isfinite(s.tokens_per_step)) {
    throw InputError(flag_mark("spec-tokens") + " " + number_mark(s.tokens_per_step) +
                     ": expected the tokens verified per step, >= 1 (1 + draft tokens; MTP "
                     "with one draft token verifies 2)");
  }
  if (!(s.mean_accepted >= 1) || s.mean_accepted > s.tokens_per_step) {
    throw InputError(flag_mark("spec-accept") + " " + number_mark(s.mean_accepted) +
                     ": expected the mean accepted length per step, between 1 and the tokens "
                     "verified per step (" +
                     number_mark(s.tokens_per_step) + ")");
  }
}

KernelCost speculative_attention_cost(const KernelCost& one_query, double tokens_per_step) {
  // q queries against one read of the cache: FLOPs · q, bytes unchanged, AI · q
  return {one_query.flops * tokens_per_step, one_query.bytes};
}

double speculative_steps(double response_tokens, const Speculation& speculation) {
  // steps ≈ n / τ
  return response_tokens / speculation.mean_accepted;
}

DecodeStepTime moe_decode_step_time(const Platform& platform, const ModelShapes& shapes,
                                    std::int64_t context_tokens, const Speculation& speculation) {
  const Roof roof = roof_of(platform);
  const double tp = as_double(platform.tensor_parallel.value);
  const double tokens = as_double(platform.batch.value) * speculation.tokens_per_step;
  const KernelCost attention =
      speculative_attention_cost(decode_attention_cost(attention_shape(platform), context_tokens),
                                 speculation.tokens_per_step);
  const DecodeWeights weights = decode_weights(platform.model.value, shapes, tokens);
  // Tensor parallelism splits every weight matrix: bytes / tp and FLOPs / tp per GPU.
  const KernelCost other{weights.flops / tp, weights.bytes / tp};
  return {roofline_time_ms(attention, roof, {}), roofline_time_ms(other, roof, {})};
}

}  // namespace kspeed::engine
