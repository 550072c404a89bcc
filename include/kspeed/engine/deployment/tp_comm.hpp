#pragma once
// Tensor parallelism's communication in the step model.
//
// Megatron-style tensor parallelism (Shoeybi et al. 2019, arXiv:1909.08053, section 3) splits
// each layer's attention and MLP over tp GPUs and all-reduces the hidden states twice per layer:
// after the attention output projection and after the MLP's down projection. A ring all-reduce
// of S bytes moves 2(tp−1)/tp · S bytes through each GPU's link in each direction (NCCL's
// nccl-tests, doc/PERFORMANCE.md: "busbw" = algbw · 2(n−1)/n for all-reduce). Per step:
//
//     tp_ms = 2 · layers · (2(tp−1)/tp · tokens · hidden · activation_bytes / link_bandwidth
//                           + collective_latency)
//
// a cost per scheduled token (tp_ms_per_token) and per step (tp_fixed_ms). 0 with tp = 1. The
// link bandwidth is the peak per direction (the GPU preset's interconnect, or --link-bandwidth):
// NCCL reaches a fraction of it, so the term is a lower bound on the communication.

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/step_model.hpp"

namespace kspeed::engine {

/// BF16 activations: the hidden states all-reduced between the layers' halves.
inline constexpr double kActivationBytes = 2;

/// The coefficients, (tp_ms_per_token, tp_fixed_ms).
struct TpCommunication {
  double ms_per_token = 0;
  double fixed_ms = 0;
};

/// The all-reduces of a model of `layers` layers and `hidden` width over `tp` GPUs linked at
/// `link_gbs` GB/s per direction with `latency_us` per collective. Zero when tp = 1 or the link
/// bandwidth is 0 (unknown).
TpCommunication tp_communication(std::int64_t layers, std::int64_t hidden, std::int64_t tp,
                                 double link_gbs, double latency_us);

/// The platform's: its model's layers and hidden width (0 without the model's shapes), its tp and
/// link.
TpCommunication tp_communication(const Platform& platform);

/// `model` with the platform's communication term set.
StepModel with_tp_communication(StepModel model, const Platform& platform);

/// The platform's roofline step model (modelled_step_model) with its communication terms (TP
/// all-reduces and EP all-to-alls, ep_comm.hpp): the prior every command starts from before a
/// calibration.
CalibratedStepModel modelled_step_model_with_tp_comm(const Platform& platform);

}  // namespace kspeed::engine
