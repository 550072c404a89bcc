#pragma once
// Expert parallelism's communication in the step model.
//
// With the routed experts spread over ep GPUs (E/ep whole experts each), every MoE layer sends
// each token's hidden state to the ranks holding the experts it chose (dispatch) and brings the
// experts' outputs back (combine): two all-to-alls per MoE layer (DeepSeek-V3 Technical Report,
// arXiv:2412.19437, section 3.4; DeepEP's dispatch and combine kernels, deepseek-ai/DeepEP). A
// token's k experts fall on D distinct ranks, and under uniform routing a given rank holds none
// of them with probability C(E - m, k) / C(E, k), m = E/ep, so the expected remote ranks are
//
//     R = (ep - 1) · (1 - C(E - m, k) / C(E, k))
//
// and each all-to-all moves R · hidden · activation bytes per token through the GPU's link:
//
//     ep_ms = MoE layers · (2 · R · hidden · activation_bytes · tokens / link_bandwidth
//                           + 2 · collective_latency)
//
// a cost per scheduled token (ep_ms_per_token) and per step (ep_fixed_ms), the latency being the
// link's all-to-all latency (Interconnect::all_to_all_latency_us, cited per GPU preset: a
// one-token dispatch or combine over 8 Hopper GPUs' NVLink takes ~42 µs, perplexityai/
// pplx-kernels README, "1 token per GPU", EP8 NVLink; DeepEP's RDMA low-latency kernels take
// 77 and 114 µs at EP8 with 128 tokens, deepseek-ai/DeepEP docs/legacy.md). Like tp_comm.hpp's,
// the link bandwidth is the peak per direction, so the term is a lower bound.
//
// The all-to-alls exist only when the attention is data-parallel, ep > tp: ep / tp attention
// groups each hold different tokens, which must travel to the experts' ranks. With ep <= tp
// (vLLM's --tensor-parallel-size N --enable-expert-parallel, data parallelism 1) every rank
// already holds every token after the attention's all-reduce: each runs its own experts on them
// and the MoE output is summed by the all-reduce tensor parallelism already pays (tp_comm.hpp).
// vLLM's FusedMoEParallelConfig.use_all2all_kernels is `dp_size > 1 and use_ep`
// (vllm/model_executor/layers/fused_moe/config.py). The busiest-rank wait (moe.hpp) applies
// either way: every rank runs only its own E/ep experts.

#include <cstdint>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/step_model.hpp"

namespace kspeed::engine {

/// The all-to-alls of one deployment, and the figures they come from.
struct EpCommunication {
  double remote_ranks_per_token = 0;     ///< R: remote ranks a token's k experts fall on
  double bytes_per_token_per_layer = 0;  ///< dispatch + combine: 2 · R · hidden · bytes
  double ms_per_token = 0;
  double fixed_ms = 0;
  /// Whether the step pays all-to-alls: ep > 1 with data-parallel attention (ep > tp).
  bool all_to_alls = false;
};

/// Data-parallel attention: the EP ranks hold different tokens (ep > tp), so the MoE layers
/// dispatch and combine them with all-to-alls. False with ep <= tp or ep = 1.
bool data_parallel_attention(const Platform& platform);

/// R = (ep - 1) · (1 - C(E - E/ep, k) / C(E, k)); 0 when ep <= 1.
double expected_remote_ranks(std::int64_t experts, std::int64_t top_k, std::int64_t ranks);

/// The platform's: its model's MoE layers and hidden width, its ep and link. Zero when ep = 1,
/// the model is dense, the attention is not data-parallel (ep <= tp: no all-to-all) or the link
/// bandwidth is unknown (0).
EpCommunication ep_communication(const Platform& platform);

/// `model` with the platform's all-to-all terms set.
StepModel with_ep_communication(StepModel model, const Platform& platform);

}  // namespace kspeed::engine
