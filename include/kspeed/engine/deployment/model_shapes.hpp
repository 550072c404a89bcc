#pragma once
// The shapes of a model beyond its attention: hidden width, the feed-forward network (dense or
// mixture-of-experts), the vocabulary and MLA's query compression. ModelArch carries what the
// attention roofline needs; these carry what the GEMMs, the parameter counts and the MoE expert
// union need. Names follow Hugging Face config.json.

#include <cstdint>

#include "kspeed/engine/deployment/hardware.hpp"  // ModelArch, and FfnSpec / ModelShapes (ffn_shapes.hpp)

namespace kspeed::engine {

/// Layers whose FFN is a mixture of experts.
std::int64_t moe_layers(const ModelArch& model, const FfnSpec& ffn);

/// Parameters, counted from the shapes (norms, biases and attention sinks are left out: they
/// are under 0.1% of every supported model).
struct ParamCounts {
  double total = 0;                     ///< every parameter, embeddings included
  double active = 0;                    ///< parameters one token's decode reads: all but the input
                                        ///< embedding table (a row lookup) and the unused experts
  double attention_per_layer = 0;       ///< Q, K, V, O projections (MLA: its down/up projections)
  double params_per_expert = 0;         ///< one routed expert: 3 · hidden · moe_intermediate
  double params_per_shared_expert = 0;  ///< 3 · hidden · shared_intermediate
  double dense_ffn_per_layer = 0;       ///< 3 · hidden · intermediate
  double router_per_layer = 0;          ///< hidden · E
  double embedding = 0;                 ///< vocab · hidden, one table
  double non_expert_active = 0;         ///< active minus the routed and shared experts
};

/// Counts the parameters of `model` with `shapes`.
ParamCounts count_params(const ModelArch& model, const ModelShapes& shapes);

/// Parameters of the dense FFN layers (every layer of a dense model, the leading dense layers of
/// a MoE model): stored at ModelShapes::dense_ffn_bytes_per_param.
double dense_ffn_params(const ModelArch& model, const ModelShapes& shapes, const ParamCounts& c);

/// Bytes of the layer weights every step reads apart from the experts and the output head:
/// attention, routers and linear-attention projections at the dense type, the dense FFNs at
/// theirs ((non_expert_active − head − dense FFNs) · b_dense + dense FFNs · b_dense_ffn).
double non_expert_layer_bytes(const ModelArch& model, const ModelShapes& shapes,
                              const ParamCounts& c);

}  // namespace kspeed::engine
