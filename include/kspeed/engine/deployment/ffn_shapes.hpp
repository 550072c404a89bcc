#pragma once
// The shapes of a model beyond its attention (hidden width, feed-forward network, vocabulary,
// storage of each part of the weights), as plain values. Kept apart from model_shapes.hpp so that
// engine::ModelArch (hardware.hpp) can carry them; the arithmetic over them is in
// model_shapes.hpp and moe.hpp. Names follow Hugging Face config.json.

#include <cstdint>

namespace kspeed::engine {

/// The feed-forward network of every layer. A dense model has experts = 0; a MoE model has
/// `dense_layers` dense layers (DeepSeek's leading first_k_dense_replace, Llama 4 Maverick's
/// interleaved ones: for bytes and FLOPs only their count matters) and MoE layers for the rest.
/// Every FFN is gated (SwiGLU): gate, up and down projections, 3 · hidden · width parameters.
struct FfnSpec {
  std::int64_t intermediate_size = 0;      ///< dense FFN width (dense models, dense layers)
  std::int64_t experts = 0;                ///< E: routed experts per MoE layer (0: dense model)
  std::int64_t top_k = 0;                  ///< k: routed experts each token uses
  std::int64_t moe_intermediate_size = 0;  ///< width of one routed expert
  std::int64_t shared_experts = 0;         ///< experts every token uses (always read)
  std::int64_t shared_expert_intermediate_size = 0;  ///< width of one shared expert
  std::int64_t dense_layers = 0;  ///< layers of a MoE model whose FFN is dense (DeepSeek's
                                  ///< first_k_dense_replace; Qwen-MoE's mlp_only_layers;
                                  ///< Llama 4's layers between interleave_moe_layer_step's)
};

/// What ModelArch lacks for GEMM FLOPs, parameter counts and MoE weight reads.
struct ModelShapes {
  std::int64_t hidden_size = 0;  ///< residual stream width
  std::int64_t vocab_size = 0;   ///< embedding rows
  bool tied_embeddings = false;  ///< the output head reuses the input embedding
  std::int64_t q_lora_rank = 0;  ///< MLA: query compression rank (0: queries projected directly)
  FfnSpec ffn;
  double expert_bytes_per_param = 0;     ///< storage of routed and shared experts (MXFP4: 0.53125)
  double dense_bytes_per_param = 0;      ///< storage of the other layer weights (attention,
                                         ///< router, linear-attention projections)
  double dense_ffn_bytes_per_param = 0;  ///< storage of the dense FFN layers (a dense model's
                                         ///< FFNs, DeepSeek's first_k_dense_replace layers):
                                         ///< the dense type unless a checkpoint quantizes them
                                         ///< apart (NVFP4 DeepSeek-R1: FFNs FP4, attention BF16)
  double embedding_bytes_per_param = 0;  ///< storage of the embedding table and output head
};

/// True when the FFN has routed experts.
inline bool is_moe(const FfnSpec& ffn) {
  return ffn.experts > 0;
}

}  // namespace kspeed::engine
