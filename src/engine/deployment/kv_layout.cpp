#include "kspeed/engine/deployment/kv_layout.hpp"

#include <string>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// vLLM's fp8_ds_mla entry, per token and layer (FlashMLA's FP8 KV format, used by vLLM's
// FlashMLA sparse backend): 512 latent values in FP8 E4M3 (512 B), one FP32 scale per 128 of
// them (4 · 4 = 16 B), and the 64-wide RoPE key kept in BF16 (128 B): 512 + 16 + 128 = 656 B.
constexpr double kFp8DsMlaLatent = 512.0 * 1.0;
constexpr double kFp8DsMlaScales = (512.0 / 128.0) * 4.0;
constexpr double kFp8DsMlaRope = 64.0 * 2.0;
constexpr double kFp8DsMlaBytes = kFp8DsMlaLatent + kFp8DsMlaScales + kFp8DsMlaRope;

}  // namespace

const std::vector<KvLayout>& kv_layouts() {
  static const std::vector<KvLayout> layouts = {
      {"bf16", "BF16 keys and values (the serving engines' default)", "bfloat16: 16 bits", 16.0,
       0.0},
      {"fp8", "FP8 E4M3 keys and values, one scale per tensor",
       "OCP 8-bit floating point (E4M3); a per-tensor FP32 scale, negligible per token", 8.0, 0.0},
      {"fp8-ds-mla",
       "vLLM's packed FP8 MLA entry: FP8 latent, FP32 scale per 128 values, BF16 RoPE key",
       "vLLM kv_cache_dtype fp8_ds_mla (FlashMLASparseBackend.get_kv_cache_shape: 656 bytes, "
       "after deepseek-ai/FlashMLA's FP8 KV cache format)",
       0.0, kFp8DsMlaBytes},
      // NVFP4: E2M1 values in blocks of 16 sharing one FP8 (E4M3) scale: 4 + 8/16 = 4.5 bits.
      {"nvfp4", "NVFP4: 4-bit E2M1 values, one FP8 E4M3 scale per 16 values",
       "NVIDIA, 'Introducing NVFP4 for Efficient and Accurate Low-Precision Inference' (16-value "
       "blocks, E4M3 scale; the per-tensor FP32 scale is negligible per token)",
       4.0 + 8.0 / 16.0, 0.0},
      // MXFP4: E2M1 values in blocks of 32 sharing one E8M0 scale: 4 + 8/32 = 4.25 bits.
      {"mxfp4", "MXFP4: 4-bit E2M1 values, one E8M0 scale per 32 values",
       "OCP Microscaling Formats (MX) v1.0 specification", 4.0 + 8.0 / 32.0, 0.0},
  };
  return layouts;
}

std::optional<KvLayout> find_kv_layout(std::string_view name) {
  for (const KvLayout& layout : kv_layouts()) {
    if (layout.name == name) {
      return layout;
    }
  }
  return std::nullopt;
}

double kv_values_per_token_per_layer(const ModelArch& model) {
  if (model.attention == AttentionType::mla) {
    // MLA caches the latent c_kv (r) and the decoupled RoPE key (d_rope), shared by all heads.
    return static_cast<double>(model.mla.kv_lora_rank + model.mla.qk_rope_head_dim);
  }
  // GQA caches K and V for each KV head: 2 · Hkv · d.
  return 2.0 * static_cast<double>(model.kv_heads * model.head_dim);
}

double kv_bytes_per_token_per_layer(const KvLayout& layout, const ModelArch& model) {
  if (layout.packed_mla_bytes_per_token > 0) {
    if (model.attention != AttentionType::mla || model.mla.kv_lora_rank != 512 ||
        model.mla.qk_rope_head_dim != 64) {
      throw InputError(flag_mark("kv-layout") + " " + std::string(layout.name) +
                       ": a packed entry for MLA " +
                       "with a 512-wide latent and a 64-wide RoPE key (DeepSeek-V3/R1); " +
                       model.name + " is not such a model: use fp8 or bf16");
    }
    return layout.packed_mla_bytes_per_token;
  }
  // bytes = values · bits / 8
  return kv_values_per_token_per_layer(model) * layout.bits_per_value / 8.0;
}

}  // namespace kspeed::engine
