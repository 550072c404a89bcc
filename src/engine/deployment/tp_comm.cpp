#include "kspeed/engine/deployment/tp_comm.hpp"

#include "kspeed/engine/deployment/ep_comm.hpp"
#include "kspeed/engine/numeric.hpp"

namespace kspeed::engine {

namespace {
// Two all-reduces per layer: after attention and after the MLP (Megatron-LM, section 3).
constexpr double kAllReducesPerLayer = 2;
constexpr double kMsPerUs = 1e-3;
}  // namespace

TpCommunication tp_communication(std::int64_t layers, std::int64_t hidden, std::int64_t tp,
                                 double link_gbs, double latency_us) {
  if (tp <= 1 || link_gbs <= 0 || hidden <= 0) return {};
  const double n = static_cast<double>(tp);
  const double collectives = kAllReducesPerLayer * static_cast<double>(layers);
  // A ring all-reduce sends 2(n−1)/n of the buffer through each GPU's link.
  const double ring_factor = 2 * (n - 1) / n;
  const double bytes_per_token = ring_factor * static_cast<double>(hidden) * kActivationBytes;
  return {collectives * bytes_per_token / (link_gbs * kBytesPerGb) * kMsPerSecond,
          collectives * latency_us * kMsPerUs};
}

TpCommunication tp_communication(const Platform& platform) {
  const ModelArch& model = platform.model.value;
  const std::int64_t hidden = model.shapes ? model.shapes->hidden_size : 0;
  return tp_communication(model.layers, hidden, platform.tensor_parallel.value,
                          platform.link_bandwidth_gbs.value, platform.link_latency_us.value);
}

StepModel with_tp_communication(StepModel model, const Platform& platform) {
  const TpCommunication comm = tp_communication(platform);
  model.tp_ms_per_token = comm.ms_per_token;
  model.tp_fixed_ms = comm.fixed_ms;
  return model;
}

CalibratedStepModel modelled_step_model_with_tp_comm(const Platform& platform) {
  CalibratedStepModel step = modelled_step_model(platform);
  step.model = with_ep_communication(with_tp_communication(step.model, platform), platform);
  return step;
}

}  // namespace kspeed::engine
