#pragma once
// Decode with mixture-of-experts weights and speculative decoding (MODEL.md section 8).
//
// A MoE layer with E routed experts and top-k routing, serving t tokens in one step, reads the
// weights of every expert at least one token chose. Under uniform, independent routing each
// expert is missed by one token with probability 1 - k/E, so the expected union is
//
//     U(t) = E · (1 - (1 - k/E)^t)          (plus the shared experts, always read)
//
// Real routers are skewed (popular experts take more tokens), which makes the union smaller:
// U(t) is an upper bound on the expected experts read, not a prediction.
//
// Speculative decoding / multi-token prediction verifies q tokens per sequence per step: the
// step reads the KV cache once for q queries, so decode attention's intensity grows q-fold
// (≈ 2·G·q / b for GQA), and a response of n tokens takes about n / τ steps, τ the mean
// accepted length per step.

#include <cstdint>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

/// U(t) = E · (1 - (1 - k/E)^t): expected distinct routed experts per layer for t tokens under
/// uniform independent routing (an upper bound for a real, skewed router). 0 for a dense FFN.
double expected_distinct_experts(std::int64_t experts, std::int64_t top_k, double tokens);

/// Expert parallelism spreads the E routed experts over `ranks` GPUs, E/ranks whole experts each,
/// and a step waits for its busiest rank. Each expert is chosen by some of t tokens with
/// probability p = 1 - (1 - k/E)^t; taking the experts as independent (each token's k are
/// distinct, a small negative correlation the simulation in tests/unit/test_moe.cpp bounds), a
/// rank's distinct experts X ~ Binomial(m = E/ranks, p) and the busiest of the ranks has
///
///     E[max X] = Σ_{x=0}^{m-1} (1 - F(x)^ranks),   F the binomial CDF
///
/// (one token of DeepSeek-V3, E = 256, k = 8, over 8 ranks: 2.54 experts on the busiest rank
/// against a mean of 1). `ranks` = 1 gives U(t). Requires E divisible by ranks.
double expected_busiest_rank_experts(std::int64_t experts, std::int64_t top_k, std::int64_t ranks,
                                     double tokens);

/// Experts one MoE layer reads in a step of `tokens`: U(t) + shared experts.
double experts_read_per_layer(const FfnSpec& ffn, double tokens);

/// Weight traffic and arithmetic of one decode step of `tokens` tokens (batch · q), whole model.
struct DecodeWeights {
  double experts_read_per_layer = 0;  ///< U(t) + shared
  double params_read = 0;             ///< non-expert active + MoE layers · experts read
  double bytes = 0;                   ///< params read in their storage types
  double flops = 0;                   ///< 2 · active · tokens: each token still uses k experts
};

/// A model's weights split by how a step reads them, bytes, whole model (not per GPU).
struct WeightReads {
  double every_step_bytes = 0;      ///< read by every step: non-expert active + shared experts
  double routed_experts_bytes = 0;  ///< every routed expert of every MoE layer (0: dense)
};

/// The split of a model with shapes, each part in its storage type.
WeightReads weight_reads(const ModelArch& model, const ModelShapes& shapes);

/// Parameters of the routed experts one token uses: MoE layers · k · P_expert.
double routed_active_params(const ModelArch& model, const ModelShapes& shapes);

/// Weights read once per step: the non-expert active parameters (layers in their type, the
/// output head in its own) + MoE layers · (U(t) + shared) · expert parameters in the experts'
/// type. A dense model reads its active parameters.
DecodeWeights decode_weights(const ModelArch& model, const ModelShapes& shapes, double tokens);

/// Speculative decoding / MTP: tokens verified per sequence per step and mean accepted length.
struct Speculation {
  double tokens_per_step = 1;  ///< q >= 1: 1 + draft tokens verified in one step
  double mean_accepted = 1;    ///< τ in [1, q]: tokens accepted per step, on average
};

/// Throws InputError unless q >= 1 and 1 <= τ <= q.
void check_speculation(const Speculation& speculation);

/// One decode step's attention with q queries per sequence: FLOPs × q, the same KV bytes
/// (the cache is read once for all q queries), so intensity × q.
KernelCost speculative_attention_cost(const KernelCost& one_query, double tokens_per_step);

/// Decode steps for `response_tokens` generated tokens: n / τ.
double speculative_steps(double response_tokens, const Speculation& speculation);

/// One decode step of a MoE platform: attention from the KV cache (q queries per sequence) and
/// weights with the expert union at batch · q tokens, each on the roofline, per GPU (weights
/// split by tensor parallelism like decode_model's).
DecodeStepTime moe_decode_step_time(const Platform& platform, const ModelShapes& shapes,
                                    std::int64_t context_tokens,
                                    const Speculation& speculation = {});

}  // namespace kspeed::engine
