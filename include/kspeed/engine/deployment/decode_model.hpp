#pragma once
// Decode attention's share modelled from the model, the GPU, the batch and tensor parallelism
// (MODEL.md section 5). One decode step reads the active weights once per GPU (shared by the
// batch) and every sequence's KV cache; each part takes its roofline time, and attention's share
// of the step is its part. The context grows by one token per step, so a response's decode time
// is a sum over its steps, computed here in closed form.

#include <cstdint>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

/// The attention shape of a platform (its model, KV type, batch and tp; activations in BF16).
AttentionShape attention_shape(const Platform& platform);

/// The weights' part of one decode step: the model's GEMMs over the step's tokens (MoE: the
/// experts they route to).
KernelCost weights_step_cost(const Platform& platform);

/// Linear-attention layers' part of one decode step (hybrid models; zero without them): each
/// running sequence's constant state read and written in every such layer.
KernelCost linear_attention_step_cost(const Platform& platform);

/// The non-attention work of one decode step on one GPU: weights read once,
/// bytes = P_active · bytes_per_param / tp; FLOPs = 2 · P_active · batch / tp. A model with
/// shapes reads its weights from them, a MoE model the expert union at the batch
/// (moe.hpp's decode_weights: E · (1 - (1 - k/E)^batch) experts per layer, an upper bound).
/// Plus a hybrid model's linear-attention state (linear_attention_step_cost).
KernelCost non_attention_step_cost(const Platform& platform);

/// One decode step's modelled time on one GPU.
struct DecodeStepTime {
  double attention_ms = 0;  ///< roofline time of the attention kernels
  double other_ms = 0;      ///< roofline time of everything else (weights)
  double share() const { return attention_ms / (attention_ms + other_ms); }
};

/// The step whose sequences hold `context_tokens` tokens each.
DecodeStepTime decode_step_time(const Platform& platform, std::int64_t context_tokens);

/// A response's decode steps: step k (1 .. n_out - 1) attends to prompt + k tokens.
struct DecodeResponse {
  std::int64_t steps = 0;   ///< n_out - 1
  double attention_ms = 0;  ///< summed over the steps
  double other_ms = 0;      ///< summed over the steps
  double share = 0;         ///< time-weighted: attention / (attention + other)
  double first_step_share = 0;
  double last_step_share = 0;
};

/// Closed form: sum_k positions(L0 + k) = n_full·(S·L0 + S(S+1)/2) + n_window·sum_k min(L0+k, W)
/// + n_chunked·sum_k (((L0 + k - 1) mod C) + 1).
/// A one-token response has no decode steps; its share is then that of the first step.
DecodeResponse decode_over_response(const Platform& platform, std::int64_t prompt_tokens,
                                    std::int64_t response_tokens);

/// The same sum step by step: the reference the closed form is tested and benchmarked against.
DecodeResponse decode_over_response_stepwise(const Platform& platform, std::int64_t prompt_tokens,
                                             std::int64_t response_tokens);

/// HBM one GPU needs, GB: its share of all the weights (total parameters in the nominal weight
/// type; MoE keeps every expert resident) plus the batch's KV cache at `context_tokens`.
double decode_memory_needed_gb(const Platform& platform, std::int64_t context_tokens);

}  // namespace kspeed::engine
