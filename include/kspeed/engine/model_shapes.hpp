#pragma once
// The shapes of a model beyond its attention: hidden width, the feed-forward network (dense or
// mixture-of-experts), the vocabulary and MLA's query compression. ModelArch carries what the
// attention roofline needs; these carry what the GEMMs, the parameter counts and the MoE expert
// union need. Names follow Hugging Face config.json.

#include <cstdint>

#include "kspeed/engine/hardware.hpp"

namespace kspeed::engine {

/// The feed-forward network of every layer. A dense model has experts = 0; a MoE model has
/// `dense_layers` leading dense layers (DeepSeek's first_k_dense_replace) and MoE layers after.
/// Every FFN is gated (SwiGLU): gate, up and down projections, 3 · hidden · width parameters.
struct FfnSpec {
  std::int64_t intermediate_size = 0;      ///< dense FFN width (dense models, dense layers)
  std::int64_t experts = 0;                ///< E: routed experts per MoE layer (0: dense model)
  std::int64_t top_k = 0;                  ///< k: routed experts each token uses
  std::int64_t moe_intermediate_size = 0;  ///< width of one routed expert
  std::int64_t shared_experts = 0;         ///< experts every token uses (always read)
  std::int64_t shared_expert_intermediate_size = 0;  ///< width of one shared expert
  std::int64_t dense_layers = 0;  ///< layers of a MoE model whose FFN is dense (DeepSeek's
                                  ///< first_k_dense_replace; Qwen-MoE's mlp_only_layers)
};

/// What ModelArch lacks for GEMM FLOPs, parameter counts and MoE weight reads.
struct ModelShapes {
  std::int64_t hidden_size = 0;  ///< residual stream width
  std::int64_t vocab_size = 0;   ///< embedding rows
  bool tied_embeddings = false;  ///< the output head reuses the input embedding
  std::int64_t q_lora_rank = 0;  ///< MLA: query compression rank (0: queries projected directly)
  FfnSpec ffn;
  double expert_bytes_per_param = 0;     ///< storage of routed and shared experts (MXFP4: 0.53125)
  double dense_bytes_per_param = 0;      ///< storage of the other layer weights (attention, router,
                                         ///< dense FFN)
  double embedding_bytes_per_param = 0;  ///< storage of the embedding table and output head
};

/// True when the FFN has routed experts.
inline bool is_moe(const FfnSpec& ffn) {
  return ffn.experts > 0;
}

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

}  // namespace kspeed::engine
