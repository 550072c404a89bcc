#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/numeric.hpp"

namespace kspeed::engine {

namespace {

// Projection parameters of one attention layer.
double attention_params(const ModelArch& m, const ModelShapes& s) {
  const double h = as_double(s.hidden_size);
  const double hq = as_double(m.query_heads);
  if (m.attention == AttentionType::mla) {
    // MLA (DeepSeek-V2 paper, section 2.1): q = W_uq·(W_dq·x) when q_lora_rank > 0;
    // [c_kv, k_rope] = W_dkv·x (r + d_rope); [k_nope, v] = W_ukv·c_kv; o = W_o·v.
    const double qk = as_double(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    const double r = as_double(m.mla.kv_lora_rank);
    const double q_lora = as_double(s.q_lora_rank);
    const double q = s.q_lora_rank > 0 ? h * q_lora + q_lora * hq * qk : h * hq * qk;
    const double kv_down = h * (r + as_double(m.mla.qk_rope_head_dim));
    const double kv_up = r * hq * as_double(m.mla.qk_nope_head_dim + m.mla.v_head_dim);
    const double o = hq * as_double(m.mla.v_head_dim) * h;
    return q + kv_down + kv_up + o;
  }
  // GQA: W_q (h × Hq·d), W_k and W_v (h × Hkv·d), W_o (Hq·d × h)
  const double d = as_double(m.head_dim);
  return 2.0 * h * hq * d + 2.0 * h * as_double(m.kv_heads) * d;
}

}  // namespace

std::int64_t moe_layers(const ModelArch& model, const FfnSpec& ffn) {
  return is_moe(ffn) ? model.layers - ffn.dense_layers : 0;
}

ParamCounts count_params(const ModelArch& model, const ModelShapes& shapes) {
  const double h = as_double(shapes.hidden_size);
  const FfnSpec& f = shapes.ffn;
  ParamCounts c;
  c.attention_per_layer = attention_params(model, shapes);
  // A gated FFN (SwiGLU) of width w: gate and up (h × w), down (w × h) = 3·h·w.
  c.dense_ffn_per_layer = 3.0 * h * as_double(f.intermediate_size);
  c.params_per_expert = 3.0 * h * as_double(f.moe_intermediate_size);
  c.params_per_shared_expert = 3.0 * h * as_double(f.shared_expert_intermediate_size);
  c.router_per_layer = is_moe(f) ? h * as_double(f.experts) : 0.0;
  c.embedding = as_double(shapes.vocab_size) * h;

  const double n_moe = as_double(moe_layers(model, f));
  const double n_dense = as_double(model.layers) - n_moe;
  const double shared = as_double(f.shared_experts) * c.params_per_shared_expert;
  // Hybrid models: the linear-attention layers hold their own projections instead.
  const double n_linear = as_double(model.linear.layers);
  const double common = (as_double(model.layers) - n_linear) * c.attention_per_layer +
                        n_linear * linear_params_per_layer(model.linear, shapes.hidden_size) +
                        n_dense * c.dense_ffn_per_layer + n_moe * c.router_per_layer;
  const double head = c.embedding;  // the output head (the input table itself when tied)
  const double input_table = shapes.tied_embeddings ? 0.0 : c.embedding;
  // total = layers·attention + dense FFNs + MoE layers·(E·expert + shared + router) + tables
  c.total =
      common + n_moe * (as_double(f.experts) * c.params_per_expert + shared) + head + input_table;
  // active: the same with k of E experts and without the input table (one row per token)
  const double active_experts = n_moe * (as_double(f.top_k) * c.params_per_expert + shared);
  c.active = common + active_experts + head;
  c.non_expert_active = c.active - active_experts;
  return c;
}

double dense_ffn_params(const ModelArch& model, const ModelShapes& shapes, const ParamCounts& c) {
  return as_double(model.layers - moe_layers(model, shapes.ffn)) * c.dense_ffn_per_layer;
}

double non_expert_layer_bytes(const ModelArch& model, const ModelShapes& shapes,
                              const ParamCounts& c) {
  const double ffn = dense_ffn_params(model, shapes, c);
  return (c.non_expert_active - c.embedding - ffn) * shapes.dense_bytes_per_param +
         ffn * shapes.dense_ffn_bytes_per_param;
}

}  // namespace kspeed::engine
