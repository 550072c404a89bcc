#include "kspeed/engine/deployment/ep_comm.hpp"

#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/numeric.hpp"

namespace kspeed::engine {

namespace {
// A dispatch and a combine per MoE layer.
constexpr double kAllToAllsPerLayer = 2;
constexpr double kMsPerUs = 1e-3;
}  // namespace

double expected_remote_ranks(std::int64_t experts, std::int64_t top_k, std::int64_t ranks) {
  if (ranks <= 1 || experts <= 0 || top_k <= 0) return 0.0;
  const double e = static_cast<double>(experts);
  const double m = e / static_cast<double>(ranks);
  // C(E - m, k) / C(E, k) = Π_{i<k} (E - m - i) / (E - i): none of the k on a given rank
  double none = 1;
  for (std::int64_t i = 0; i < top_k; ++i) {
    const double d = static_cast<double>(i);
    none *= e - m - d > 0 ? (e - m - d) / (e - d) : 0.0;
  }
  return static_cast<double>(ranks - 1) * (1.0 - none);
}

bool data_parallel_attention(const Platform& platform) {
  return platform.expert_parallel.value > 1 &&
         platform.expert_parallel.value > platform.tensor_parallel.value;
}

EpCommunication ep_communication(const Platform& platform) {
  const ModelArch& model = platform.model.value;
  const std::int64_t ep = platform.expert_parallel.value;
  EpCommunication out;
  if (ep <= 1 || !model.shapes || !is_moe(model.shapes->ffn)) return out;
  // Tensor-parallel attention over the EP ranks: every rank holds every token, no all-to-all.
  if (!data_parallel_attention(platform)) return out;
  out.all_to_alls = true;
  const ModelShapes& s = *model.shapes;
  out.remote_ranks_per_token = expected_remote_ranks(s.ffn.experts, s.ffn.top_k, ep);
  // dispatch + combine: 2 · R · hidden · activation bytes
  out.bytes_per_token_per_layer = kAllToAllsPerLayer * out.remote_ranks_per_token *
                                  static_cast<double>(s.hidden_size) * kActivationBytes;
  const double link_gbs = platform.link_bandwidth_gbs.value;
  if (link_gbs <= 0) return out;
  const double layers = static_cast<double>(moe_layers(model, s.ffn));
  out.ms_per_token =
      layers * out.bytes_per_token_per_layer / (link_gbs * kBytesPerGb) * kMsPerSecond;
  out.fixed_ms = layers * kAllToAllsPerLayer * platform.all_to_all_latency_us.value * kMsPerUs;
  return out;
}

StepModel with_ep_communication(StepModel model, const Platform& platform) {
  const EpCommunication comm = ep_communication(platform);
  model.ep_ms_per_token = comm.ms_per_token;
  model.ep_fixed_ms = comm.fixed_ms;
  return model;
}

}  // namespace kspeed::engine
