#pragma once
// Hugging Face config.json → kspeed model: the attention shapes the roofline needs
// (engine::ModelArch) and the FFN, MoE and embedding shapes the GEMM, parameter and expert-union
// arithmetic needs (engine::ModelShapes). Parameter counts and the average bytes per active
// parameter are computed from the shapes and the checkpoint's quantization_config.
//
// Supported `architectures`: Llama, Mistral, Qwen2, Qwen3 (GQA, dense), Mixtral, Qwen2-MoE,
// Qwen3-MoE (GQA + MoE), DeepSeek-V2/V3/R1 (MLA + MoE with shared experts), gpt-oss (GQA +
// MoE, sliding window on the layers layer_types names). A config.json is not a kspeed file:
// keys kspeed does not use are ignored, `null` means absent, and defaults follow transformers'.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"

namespace kspeed::io {

/// A model read from config.json.
struct HfModel {
  engine::ModelArch arch;      ///< attention shapes, parameters, weight and KV types
  engine::ModelShapes shapes;  ///< hidden size, FFN / MoE, vocabulary, bytes per parameter
  std::string architecture;    ///< the `architectures` entry it was read as
};

/// The `architectures` values kspeed reads.
const std::vector<std::string>& supported_hf_architectures();

/// True when `document` looks like a Hugging Face config (it has `architectures` or
/// `model_type`), so a caller can tell it from a kspeed model file and try the other reader.
bool is_hf_config(const nlohmann::json& document);

/// True when `text` is a JSON object naming `architectures` (a Hugging Face config.json, with
/// Python's Infinity/NaN tolerated), so load_model reads it with read_hf_config.
bool looks_like_hf_config_text(std::string_view text);

/// Reads a parsed config. `source` names it in errors; `name` becomes the model's name.
/// Throws InputError for an unsupported architecture (listing the supported ones), a missing or
/// malformed field (naming it), or inconsistent shapes.
HfModel read_hf_config(const nlohmann::json& document, std::string_view source,
                       const std::string& name);

/// parse_json_document + read_hf_config: for tests and for text already in memory.
HfModel parse_hf_config(std::string_view text, std::string_view source, const std::string& name);

/// Reads `path`; the model is named after its folder (models/Qwen3-8B/config.json → Qwen3-8B),
/// or the file's stem when it is not called config.json.
HfModel load_hf_config(const std::string& path);

}  // namespace kspeed::io
