#pragma once
// KV cache layouts as named presets: how many bytes one token's cache entry takes in one layer,
// block scales included. A layout is a storage format, so its bytes follow from its definition
// and the model's shapes, never from a number hidden in code.

#include <optional>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"

namespace kspeed::engine {

/// One KV cache layout.
struct KvLayout {
  std::string_view name;         ///< the --kv-layout name, e.g. "nvfp4"
  std::string_view description;  ///< one line for people
  std::string_view source;       ///< where the format is defined
  double bits_per_value = 0;     ///< storage per cached value, scales included (0: packed)
  /// A packed MLA entry of a fixed size per token and layer (0: not packed). Only for MLA
  /// models whose latent is 512 wide with a 64-wide RoPE key (DeepSeek-V3/R1).
  double packed_mla_bytes_per_token = 0;
};

/// Every layout kspeed knows: bf16, fp8, fp8-ds-mla (vLLM's packed 656-byte MLA entry), nvfp4,
/// mxfp4.
const std::vector<KvLayout>& kv_layouts();

/// The layout named `name`, if kspeed knows it.
std::optional<KvLayout> find_kv_layout(std::string_view name);

/// Values one token caches in one layer: GQA 2 · Hkv · d (K and V); MLA r + d_rope (the latent
/// and the RoPE key). Whole model, before tensor parallelism.
double kv_values_per_token_per_layer(const ModelArch& model);

/// Bytes one token's cache entry takes in one layer with `layout`. Throws InputError when the
/// layout is a packed MLA format and the model is not MLA with a 512 + 64 latent.
double kv_bytes_per_token_per_layer(const KvLayout& layout, const ModelArch& model);

}  // namespace kspeed::engine
