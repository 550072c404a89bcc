#include "kspeed/io/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

enum class Family {
  dense_gqa,  ///< Llama, Mistral, Qwen2, Qwen3
  mixtral,    ///< Mixtral: num_local_experts, experts intermediate_size wide
  qwen_moe,   ///< Qwen2-MoE, Qwen3-MoE: num_experts, moe_intermediate_size, shared expert
  deepseek,   ///< DeepSeek-V2/V3/R1: MLA, n_routed_experts, n_shared_experts
  gpt_oss,    ///< gpt-oss: num_local_experts, experts_per_token, layer_types
  gemma3,     ///< Gemma 3: dense, 5 sliding-window layers per global one, transformers defaults
  llama4,     ///< Llama 4: chunked local attention on RoPE layers, MoE (+ shared) interleaved
};

struct Supported {
  const char* architecture;
  Family family;
};

constexpr Supported kSupported[] = {
    {"LlamaForCausalLM", Family::dense_gqa},
    {"MistralForCausalLM", Family::dense_gqa},
    {"Qwen2ForCausalLM", Family::dense_gqa},
    {"Qwen3ForCausalLM", Family::dense_gqa},
    {"MixtralForCausalLM", Family::mixtral},
    {"Qwen2MoeForCausalLM", Family::qwen_moe},
    {"Qwen3MoeForCausalLM", Family::qwen_moe},
    {"DeepseekV2ForCausalLM", Family::deepseek},
    {"DeepseekV3ForCausalLM", Family::deepseek},
    {"GptOssForCausalLM", Family::gpt_oss},
    {"Qwen3NextForCausalLM", Family::qwen_moe},
    {"Gemma3ForCausalLM", Family::gemma3},
    {"Gemma3ForConditionalGeneration", Family::gemma3},
    {"Qwen3_5ForConditionalGeneration", Family::dense_gqa},
    {"Qwen3_5MoeForConditionalGeneration", Family::qwen_moe},
    {"Llama4ForConditionalGeneration", Family::llama4},
    {"Llama4ForCausalLM", Family::llama4},
};

// A config.json writes `null` for "not used" (sliding_window, head_dim, q_lora_rank).
const json* present(const json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() || found->is_null() ? nullptr : &*found;
}

std::int64_t whole_number(const JsonReader& reader, const json& value, const char* key,
                          std::int64_t minimum) {
  constexpr std::int64_t kLargest = 1'000'000'000;  // no model shape is near this
  // Some exporters write whole numbers as floats (4096.0): accept those, not 2.5.
  const bool whole =
      value.is_number_integer() || (value.is_number_float() && std::isfinite(value.get<double>()) &&
                                    std::abs(value.get<double>()) <= 1e9 &&
                                    value.get<double>() == std::floor(value.get<double>()));
  if (!whole || value.get<std::int64_t>() < minimum || value.get<std::int64_t>() > kLargest) {
    reader.fail(key, "expected a whole number >= " + std::to_string(minimum) + ", found " +
                         (value.is_number() ? value.dump() : describe_json_type(value)));
  }
  return value.get<std::int64_t>();
}

std::int64_t required_count(const JsonReader& reader, const json& config, const char* key) {
  const json* value = present(config, key);
  if (value == nullptr) {
    reader.fail(key, std::string("missing (or null): this architecture needs '") + key +
                         "', as its transformers config class writes it");
  }
  return whole_number(reader, *value, key, 1);
}

std::int64_t optional_count(const JsonReader& reader, const json& config, const char* key,
                            std::int64_t fallback) {
  const json* value = present(config, key);
  return value == nullptr ? fallback : whole_number(reader, *value, key, 0);
}

// The first key present among `keys` (renamed fields: experts_per_token / num_experts_per_tok).
std::int64_t required_count_any(const JsonReader& reader, const json& config,
                                const std::vector<const char*>& keys) {
  for (const char* key : keys) {
    if (present(config, key) != nullptr) {
      return required_count(reader, config, key);
    }
  }
  return required_count(reader, config, keys.front());
}

std::string supported_list() {
  std::string list;
  for (const Supported& s : kSupported) {
    list += (list.empty() ? "" : ", ") + std::string(s.architecture);
  }
  return list;
}

Supported architecture_of(const JsonReader& reader, const json& config) {
  const json* list = present(config, "architectures");
  if (list == nullptr || !list->is_array() || list->empty() || !(*list)[0].is_string()) {
    reader.fail("architectures",
                "expected a list naming the model class, e.g. "
                "[\"LlamaForCausalLM\"]; kspeed reads " +
                    supported_list());
  }
  const std::string name = (*list)[0].get<std::string>();
  for (const Supported& s : kSupported) {
    if (name == s.architecture) {
      return s;
    }
  }
  reader.fail("architectures", "'" + name + "' is not an architecture kspeed reads (it reads " +
                                   supported_list() +
                                   "): describe the model in kspeed's own model format instead "
                                   "(docs/presets.md)");
}

void read_gqa(const JsonReader& reader, const json& config, engine::ModelArch& arch,
              engine::ModelShapes& shapes) {
  arch.attention = engine::AttentionType::gqa;
  arch.query_heads = required_count(reader, config, "num_attention_heads");
  // transformers: num_key_value_heads defaults to num_attention_heads (multi-head attention),
  // head_dim to hidden_size / num_attention_heads.
  arch.kv_heads = optional_count(reader, config, "num_key_value_heads", arch.query_heads);
  if (arch.kv_heads < 1 || arch.query_heads % arch.kv_heads != 0) {
    reader.fail("num_key_value_heads", "expected a divisor of num_attention_heads (" +
                                           std::to_string(arch.query_heads) + "), found " +
                                           std::to_string(arch.kv_heads));
  }
  if (present(config, "head_dim") != nullptr) {
    arch.head_dim = required_count(reader, config, "head_dim");
  } else if (shapes.hidden_size % arch.query_heads == 0) {
    arch.head_dim = shapes.hidden_size / arch.query_heads;
  } else {
    reader.fail("head_dim", "missing, and hidden_size (" + std::to_string(shapes.hidden_size) +
                                ") is not a multiple of num_attention_heads (" +
                                std::to_string(arch.query_heads) + "): give head_dim");
  }
}

void read_mla(const JsonReader& reader, const json& config, engine::ModelArch& arch,
              engine::ModelShapes& shapes) {
  arch.attention = engine::AttentionType::mla;
  arch.query_heads = required_count(reader, config, "num_attention_heads");
  arch.mla.kv_lora_rank = required_count(reader, config, "kv_lora_rank");
  arch.mla.qk_rope_head_dim = required_count(reader, config, "qk_rope_head_dim");
  arch.mla.qk_nope_head_dim = required_count(reader, config, "qk_nope_head_dim");
  arch.mla.v_head_dim = required_count(reader, config, "v_head_dim");
  shapes.q_lora_rank = optional_count(reader, config, "q_lora_rank", 0);  // null: no compression
}

// Sliding windows: layer_types names each layer (gpt-oss, recent Qwen and Mistral configs);
// otherwise Mistral's sliding_window applies to every layer and Qwen's use_sliding_window to
// the layers from max_window_layers on.
void read_sliding_window(const JsonReader& reader, const json& config, Family family,
                         engine::ModelArch& arch) {
  std::int64_t sliding_layers = 0;
  if (const json* types = present(config, "layer_types")) {
    if (!types->is_array() || static_cast<std::int64_t>(types->size()) != arch.layers) {
      reader.fail("layer_types", "expected a list of " + std::to_string(arch.layers) +
                                     " layer types (one per num_hidden_layers), found " +
                                     (types->is_array() ? std::to_string(types->size()) + " entries"
                                                        : describe_json_type(*types)));
    }
    sliding_layers = std::count(types->begin(), types->end(), json("sliding_attention"));
  } else if (family == Family::gemma3 && present(config, "sliding_window") != nullptr) {
    // Older Gemma 3 configs state no layer_types: layer i attends globally when
    // (i + 1) % sliding_window_pattern == 0 (transformers' Gemma3TextConfig, default 6: five
    // sliding-window layers per global one).
    const std::int64_t pattern =
        std::max<std::int64_t>(optional_count(reader, config, "sliding_window_pattern", 6), 1);
    sliding_layers = arch.layers - arch.layers / pattern;
  } else if (present(config, "sliding_window") != nullptr) {
    const json* use = present(config, "use_sliding_window");
    const bool qwen_style = use != nullptr;
    if (!qwen_style && family == Family::dense_gqa) {
      sliding_layers = arch.layers;  // Mistral: every layer
    } else if (qwen_style && use->is_boolean() && use->get<bool>()) {
      const std::int64_t first = optional_count(reader, config, "max_window_layers", 0);
      sliding_layers = std::max<std::int64_t>(arch.layers - first, 0);
    }
  }
  if (sliding_layers > 0) {
    arch.sliding_window_layers = sliding_layers;
    arch.sliding_window_tokens = required_count(reader, config, "sliding_window");
  }
}

// Chunked local attention (Llama 4): attention_chunk_size C applies to the layers with RoPE.
// layer_types names them "chunked_attention" where a config states it; otherwise no_rope_layers
// marks each layer 1 (RoPE, chunked) or 0 (NoPE, global), and without it transformers'
// Llama4TextConfig default makes layer i global when (i + 1) % no_rope_layer_interval == 0
// (interval 4). vLLM's Llama4Attention the same: chunked local attention when the layer uses
// RoPE and attention_chunk_size is set.
void read_config_chunked_attention(const JsonReader& reader, const json& config,
                                   engine::ModelArch& arch) {
  if (present(config, "attention_chunk_size") == nullptr) return;
  std::int64_t chunked_layers = 0;
  if (const json* types = present(config, "layer_types"); types != nullptr && types->is_array()) {
    chunked_layers = std::count(types->begin(), types->end(), json("chunked_attention"));
  } else if (const json* rope = present(config, "no_rope_layers")) {
    if (!rope->is_array() || static_cast<std::int64_t>(rope->size()) != arch.layers) {
      reader.fail("no_rope_layers",
                  "expected a list of " + std::to_string(arch.layers) +
                      " flags (1: RoPE and chunked, 0: global), found " +
                      (rope->is_array() ? std::to_string(rope->size()) + " entries"
                                        : describe_json_type(*rope)));
    }
    chunked_layers = std::count(rope->begin(), rope->end(), json(1));
  } else {
    const std::int64_t interval =
        std::max<std::int64_t>(optional_count(reader, config, "no_rope_layer_interval", 4), 1);
    chunked_layers = arch.layers - arch.layers / interval;
  }
  if (chunked_layers == 0) return;
  arch.chunked_attention_layers = chunked_layers;
  arch.attention_chunk_tokens = required_count(reader, config, "attention_chunk_size");
}

// MoE layers of Llama 4: moe_layers where a config lists them, else transformers'
// Llama4TextConfig default, layers interleave_moe_layer_step - 1, 2·step - 1, ... (step 1:
// every layer; Maverick's 2: every other). The rest run a dense FFN intermediate_size_mlp wide.
std::int64_t llama4_dense_layers(const JsonReader& reader, const json& config,
                                 std::int64_t layers) {
  if (const json* listed = present(config, "moe_layers")) {
    if (!listed->is_array()) {
      reader.fail("moe_layers",
                  "expected a list of layer indices, found " + describe_json_type(*listed));
    }
    return layers - std::min<std::int64_t>(static_cast<std::int64_t>(listed->size()), layers);
  }
  const std::int64_t step =
      std::max<std::int64_t>(optional_count(reader, config, "interleave_moe_layer_step", 1), 1);
  return layers - layers / step;
}

// Linear-attention layers (hybrid models): layer_types naming "linear_attention" layers, else
// Qwen3-Next's full_attention_interval (layer i attends fully when (i + 1) % interval == 0,
// transformers' Qwen3NextConfig), with the gated DeltaNet's linear_* dimensions.
void read_config_linear_attention(const JsonReader& reader, const json& config,
                                  engine::ModelArch& arch) {
  std::int64_t linear_layers = 0;
  if (const json* types = present(config, "layer_types"); types != nullptr && types->is_array()) {
    linear_layers = std::count(types->begin(), types->end(), json("linear_attention"));
  } else if (present(config, "full_attention_interval") != nullptr) {
    const std::int64_t interval = required_count(reader, config, "full_attention_interval");
    linear_layers = arch.layers - arch.layers / interval;
  }
  if (linear_layers == 0) return;
  if (linear_layers + arch.sliding_window_layers >= arch.layers) {
    reader.fail("layer_types", std::to_string(linear_layers) +
                                   " linear-attention layers leave no softmax-attention layer of " +
                                   std::to_string(arch.layers));
  }
  engine::LinearAttentionDims& d = arch.linear;
  d.layers = linear_layers;
  d.key_heads = required_count(reader, config, "linear_num_key_heads");
  d.value_heads = required_count(reader, config, "linear_num_value_heads");
  d.key_head_dim = required_count(reader, config, "linear_key_head_dim");
  d.value_head_dim = required_count(reader, config, "linear_value_head_dim");
  d.conv_kernel = required_count(reader, config, "linear_conv_kernel_dim");
}

// MoE layers of a Qwen-MoE model: layer i is sparse when it is not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0 (transformers' Qwen2MoeDecoderLayer).
std::int64_t qwen_dense_layers(const JsonReader& reader, const json& config, std::int64_t layers) {
  const std::int64_t step =
      std::max<std::int64_t>(optional_count(reader, config, "decoder_sparse_step", 1), 1);
  std::vector<std::int64_t> mlp_only;
  if (const json* listed = present(config, "mlp_only_layers")) {
    if (!listed->is_array()) {
      reader.fail("mlp_only_layers",
                  "expected a list of layer indices, found " + describe_json_type(*listed));
    }
    for (const json& index : *listed) {
      mlp_only.push_back(whole_number(reader, index, "mlp_only_layers", 0));
    }
  }
  std::int64_t dense = 0;
  for (std::int64_t i = 0; i < layers; ++i) {
    const bool listed = std::find(mlp_only.begin(), mlp_only.end(), i) != mlp_only.end();
    dense += (listed || (i + 1) % step != 0) ? 1 : 0;
  }
  return dense;
}

// DeepSeek: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
std::int64_t deepseek_dense_layers(const JsonReader& reader, const json& config,
                                   std::int64_t layers) {
  const std::int64_t first = optional_count(reader, config, "first_k_dense_replace", 0);
  const std::int64_t freq =
      std::max<std::int64_t>(optional_count(reader, config, "moe_layer_freq", 1), 1);
  std::int64_t dense = 0;
  for (std::int64_t i = 0; i < layers; ++i) {
    dense += (i >= first && i % freq == 0) ? 0 : 1;
  }
  return dense;
}

engine::FfnSpec read_ffn(const JsonReader& reader, const json& config, Family family,
                         std::int64_t layers) {
  engine::FfnSpec ffn;
  switch (family) {
    case Family::dense_gqa:
    case Family::gemma3:
      ffn.intermediate_size = required_count(reader, config, "intermediate_size");
      break;
    case Family::mixtral:
      ffn.experts = required_count(reader, config, "num_local_experts");
      ffn.top_k = required_count(reader, config, "num_experts_per_tok");
      ffn.moe_intermediate_size = required_count(reader, config, "intermediate_size");
      break;
    case Family::gpt_oss:
      ffn.experts = required_count(reader, config, "num_local_experts");
      ffn.top_k = required_count_any(reader, config, {"experts_per_token", "num_experts_per_tok"});
      ffn.moe_intermediate_size = required_count(reader, config, "intermediate_size");
      break;
    case Family::qwen_moe:
      ffn.experts = required_count(reader, config, "num_experts");
      ffn.top_k = required_count(reader, config, "num_experts_per_tok");
      ffn.moe_intermediate_size = required_count(reader, config, "moe_intermediate_size");
      ffn.shared_expert_intermediate_size =
          optional_count(reader, config, "shared_expert_intermediate_size", 0);
      ffn.shared_experts = ffn.shared_expert_intermediate_size > 0 ? 1 : 0;
      ffn.dense_layers = qwen_dense_layers(reader, config, layers);
      ffn.intermediate_size = ffn.dense_layers > 0
                                  ? required_count(reader, config, "intermediate_size")
                                  : optional_count(reader, config, "intermediate_size", 0);
      break;
    case Family::llama4:
      // Llama4TextMoe: num_local_experts routed experts intermediate_size wide, top-k, and one
      // shared expert of the same width (Llama4TextMLP(config)) in every MoE layer.
      ffn.experts = required_count(reader, config, "num_local_experts");
      ffn.top_k = required_count(reader, config, "num_experts_per_tok");
      ffn.moe_intermediate_size = required_count(reader, config, "intermediate_size");
      ffn.shared_experts = 1;
      ffn.shared_expert_intermediate_size = ffn.moe_intermediate_size;
      ffn.dense_layers = llama4_dense_layers(reader, config, layers);
      // Scout's intermediate_size_mlp (16,384) belongs to no layer: every layer is MoE.
      ffn.intermediate_size =
          ffn.dense_layers > 0 ? required_count(reader, config, "intermediate_size_mlp") : 0;
      break;
    case Family::deepseek:
      ffn.experts = required_count(reader, config, "n_routed_experts");
      ffn.top_k = required_count(reader, config, "num_experts_per_tok");
      ffn.moe_intermediate_size = required_count(reader, config, "moe_intermediate_size");
      ffn.shared_experts = optional_count(reader, config, "n_shared_experts", 0);
      ffn.shared_expert_intermediate_size = ffn.moe_intermediate_size;
      ffn.dense_layers = deepseek_dense_layers(reader, config, layers);
      ffn.intermediate_size = required_count(reader, config, "intermediate_size");
      break;
  }
  if (ffn.top_k > ffn.experts) {
    reader.fail("num_experts_per_tok", "each token uses " + std::to_string(ffn.top_k) +
                                           " experts, more than the " +
                                           std::to_string(ffn.experts) + " the layer has");
  }
  return ffn;
}

// torch_dtype (or transformers 4.56+'s `dtype`) names the unquantized weights' type.
std::string unquantized_dtype(const JsonReader& reader, const json& config) {
  const json* value = present(config, "torch_dtype");
  value = value != nullptr ? value : present(config, "dtype");
  if (value == nullptr) {
    return "bf16";
  }
  const std::string name = reader.string_value(*value, "torch_dtype");
  if (name == "bfloat16") return "bf16";
  if (name == "float16") return "fp16";
  if (name == "float32") return "fp32";
  reader.fail("torch_dtype",
              "unknown weight type '" + name + "': expected bfloat16, float16 or float32");
}

// The weight type a modelopt quant_algo names.
std::string modelopt_weight_type(const JsonReader& reader, const json& quantization) {
  const json* algo = present(quantization, "quant_algo");
  const std::string name =
      algo != nullptr ? reader.string_value(*algo, "quantization_config.quant_algo") : "";
  if (name == "NVFP4") return "nvfp4";
  if (name == "FP8") return "fp8";
  reader.fail("quantization_config.quant_algo",
              "'" + name +
                  "' is not a modelopt format kspeed reads (it reads NVFP4 and FP8): remove "
                  "quantization_config to count the weights in torch_dtype, or describe the model "
                  "in kspeed's own model format (docs/presets.md)");
}

// True when modelopt's exclusions keep a module whose name contains `part` unquantized
// (nvidia/DeepSeek-R1-FP4 lists "model.layers.N.self_attn*" for every layer, and "lm_head").
// Exports write the list as exclude_modules, newer ones as ignore.
bool modelopt_excludes(const JsonReader& reader, const json& quantization, std::string_view part) {
  for (const char* key : {"exclude_modules", "ignore"}) {
    const json* listed = present(quantization, key);
    if (listed == nullptr) continue;
    if (!listed->is_array()) {
      reader.fail(std::string("quantization_config.") + key,
                  "expected a list of module name patterns, found " + describe_json_type(*listed));
    }
    const bool found = std::any_of(listed->begin(), listed->end(), [&](const json& entry) {
      return entry.is_string() && entry.get<std::string>().find(part) != std::string::npos;
    });
    if (found) return true;
  }
  return false;
}

// quant_method modelopt (TensorRT Model Optimizer's export; config.json carries what its
// hf_quant_config.json states): quant_algo quantizes every linear layer except the modules
// exclude_modules names. Its DeepSeek recipe (examples/deepseek/ptq.py in
// github.com/NVIDIA/TensorRT-Model-Optimizer) disables the quantizers of "*attn*" and "*head*":
// the MLA projections and the output head stay in torch_dtype while the dense FFNs, the shared
// and the routed experts are NVFP4. An exclusion naming any attention module counts the whole
// attention unquantized (a checkpoint that quantizes only o_proj is priced a little high).
// kv_cache_quant_algo FP8 caches K/V in FP8.
void read_modelopt(const JsonReader& reader, const json& quantization, const std::string& base,
                   engine::ModelArch& arch, engine::ModelShapes& shapes) {
  const std::string type = modelopt_weight_type(reader, quantization);
  const double bytes = *engine::dtype_bytes(type);
  const double base_bytes = *engine::dtype_bytes(base);
  arch.weight_dtype = type;
  shapes.expert_bytes_per_param =
      modelopt_excludes(reader, quantization, "experts") ? base_bytes : bytes;
  // A whole MLP ("model.layers.0.mlp*") or its projections; not the router ("*mlp.gate").
  shapes.dense_ffn_bytes_per_param = modelopt_excludes(reader, quantization, ".mlp*") ||
                                             modelopt_excludes(reader, quantization, "mlp.up_proj")
                                         ? base_bytes
                                         : bytes;
  shapes.dense_bytes_per_param =
      modelopt_excludes(reader, quantization, "attn") ? base_bytes : bytes;
  if (const json* kv = present(quantization, "kv_cache_quant_algo")) {
    const std::string kv_name = reader.string_value(*kv, "quantization_config.kv_cache_quant_algo");
    if (kv_name != "FP8") {
      reader.fail("quantization_config.kv_cache_quant_algo",
                  "'" + kv_name +
                      "' is not a KV cache type kspeed reads from config.json (FP8 or "
                      "null): remove it and pass --kv-dtype");
    }
    arch.kv_dtype = "fp8";
  }
}

// Storage of each part of the weights. quant_method fp8 (DeepSeek's block-scaled E4M3): every
// linear layer in FP8, embeddings and head unquantized. mxfp4 (gpt-oss): the MoE experts in
// MXFP4, attention, router, embeddings and head unquantized (modules_to_not_convert). modelopt:
// read_modelopt.
void read_weight_types(const JsonReader& reader, const json& config, engine::ModelArch& arch,
                       engine::ModelShapes& shapes) {
  const std::string base = unquantized_dtype(reader, config);
  const double base_bytes = engine::dtype_bytes(base).value_or(2.0);
  arch.weight_dtype = base;
  shapes.expert_bytes_per_param = base_bytes;
  shapes.dense_bytes_per_param = base_bytes;
  shapes.dense_ffn_bytes_per_param = base_bytes;
  shapes.embedding_bytes_per_param = base_bytes;
  const json* quantization = present(config, "quantization_config");
  if (quantization == nullptr) {
    return;
  }
  const json* method = quantization->is_object() ? present(*quantization, "quant_method") : nullptr;
  const std::string name =
      method != nullptr ? reader.string_value(*method, "quantization_config.quant_method") : "";
  if (name == "fp8") {
    arch.weight_dtype = "fp8";
    shapes.expert_bytes_per_param = 1.0;
    shapes.dense_bytes_per_param = 1.0;
    shapes.dense_ffn_bytes_per_param = 1.0;
  } else if (name == "mxfp4") {
    arch.weight_dtype = "mxfp4";
    shapes.expert_bytes_per_param = engine::dtype_bytes("mxfp4").value_or(4.25 / 8.0);
  } else if (name == "modelopt") {
    read_modelopt(reader, *quantization, base, arch, shapes);
  } else {
    reader.fail(
        "quantization_config.quant_method",
        "'" + name +
            "' is not a weight format kspeed reads from config.json (it reads "
            "fp8, mxfp4 and modelopt NVFP4/FP8): remove quantization_config to count the weights "
            "in torch_dtype, or describe the model in kspeed's own model format (docs/presets.md)");
  }
}

void fill_parameters(engine::ModelArch& arch, const engine::ModelShapes& shapes) {
  const engine::ParamCounts params = engine::count_params(arch, shapes);
  const double expert_active = params.active - params.non_expert_active;
  const double bytes = engine::non_expert_layer_bytes(arch, shapes, params) +
                       params.embedding * shapes.embedding_bytes_per_param +
                       expert_active * shapes.expert_bytes_per_param;
  arch.total_params_billions = params.total / 1e9;
  arch.active_params_billions = params.active / 1e9;
  // The average over what one token reads: bytes per step / active parameters.
  arch.weight_bytes_per_param = bytes / params.active;
}

// Multimodal checkpoints (Gemma3ForConditionalGeneration, Qwen3_5*ForConditionalGeneration)
// nest the language model's keys under text_config (transformers' get_text_config); the weight
// type, quantization_config and tie_word_embeddings may stay at the top level, where they then
// apply to the language model too.
json language_model_config(const JsonReader& reader, const json& document) {
  const json* text = present(document, "text_config");
  if (text == nullptr) return document;
  if (!text->is_object()) {
    reader.fail("text_config",
                "expected the language model's config object, found " + describe_json_type(*text));
  }
  json merged = *text;
  for (const char* key : {"torch_dtype", "dtype", "quantization_config", "tie_word_embeddings"}) {
    if (present(merged, key) == nullptr && present(document, key) != nullptr) {
      merged[key] = document[key];
    }
  }
  return merged;
}

// Gemma 3's published config.json files leave keys at transformers' Gemma3TextConfig defaults
// (google/gemma-3-27b-it states no vocab_size, max_position_embeddings or
// tie_word_embeddings): vocab_size 262208, max_position_embeddings 131072, tied embeddings.
// Returns the keys it filled, for the figures' sources.
std::vector<std::string> fill_gemma3_defaults(json& config) {
  std::vector<std::string> filled;
  const auto fill = [&](const char* key, const json& value) {
    if (present(config, key) != nullptr) return;
    config[key] = value;
    filled.emplace_back(key);
  };
  fill("vocab_size", 262208);
  fill("max_position_embeddings", 131072);
  fill("tie_word_embeddings", true);
  return filled;
}

// Python's json module writes the floats inf and nan as Infinity and NaN, which JSON does not
// allow; config.json files carry them in fields kspeed does not read (rope scaling limits and
// the like). Outside strings they become null (padded with spaces where the token is longer, so
// error columns stay put).
std::string python_floats_as_null(std::string_view text) {
  std::string out(text);
  bool in_string = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (const std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (out.compare(i, token.size(), token) == 0) {
        const std::string replacement =
            "null" + std::string(token.size() > 4 ? token.size() - 4 : 0, ' ');
        out.replace(i, token.size(), replacement);
        i += replacement.size() - 1;
        break;
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& supported_hf_architectures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Supported& s : kSupported) {
      out.emplace_back(s.architecture);
    }
    return out;
  }();
  return names;
}

bool is_hf_config(const json& document) {
  return document.is_object() &&
         (document.contains("architectures") || document.contains("model_type"));
}

bool looks_like_hf_config_text(std::string_view text) {
  const json document = json::parse(python_floats_as_null(text), nullptr, false);
  return !document.is_discarded() && document.is_object() && document.contains("architectures");
}

HfModel read_hf_config(const json& whole, std::string_view source, const std::string& name) {
  const JsonReader reader{std::string(source)};
  if (!whole.is_object()) {
    reader.fail("", "expected a config.json object, found " + describe_json_type(whole));
  }
  const Supported kind = architecture_of(reader, whole);
  json document = language_model_config(reader, whole);
  const std::vector<std::string> defaulted =
      kind.family == Family::gemma3 ? fill_gemma3_defaults(document) : std::vector<std::string>{};
  const bool context_defaulted =
      std::find(defaulted.begin(), defaulted.end(), "max_position_embeddings") != defaulted.end();
  HfModel model;
  model.architecture = kind.architecture;
  engine::ModelArch& arch = model.arch;
  engine::ModelShapes& shapes = model.shapes;
  arch.name = name;
  arch.description = name + " (" + model.architecture + ", read from config.json)";
  arch.source = std::string(source) + " (Hugging Face config.json)";
  arch.layers = required_count(reader, document, "num_hidden_layers");
  shapes.hidden_size = required_count(reader, document, "hidden_size");
  shapes.vocab_size = required_count(reader, document, "vocab_size");
  const json* tied = present(document, "tie_word_embeddings");
  shapes.tied_embeddings = tied != nullptr && tied->is_boolean() && tied->get<bool>();
  if (kind.family == Family::deepseek) {
    read_mla(reader, document, arch, shapes);
  } else {
    read_gqa(reader, document, arch, shapes);
    read_sliding_window(reader, document, kind.family, arch);
    if (kind.family == Family::llama4) read_config_chunked_attention(reader, document, arch);
    read_config_linear_attention(reader, document, arch);
  }
  shapes.ffn = read_ffn(reader, document, kind.family, arch.layers);
  read_weight_types(reader, document, arch, shapes);
  fill_parameters(arch, shapes);
  arch.shapes = shapes;
  // The positions the model was built for: what a server's max_model_len defaults to (vLLM and
  // SGLang derive it from max_position_embeddings); 0 (unknown) when config.json omits it.
  arch.context_tokens = optional_count(reader, document, "max_position_embeddings", 0);
  if (arch.context_tokens > 0) {
    arch.figure_sources.emplace_back(
        "context_tokens",
        (context_defaulted ? "not in config.json: transformers' Gemma3TextConfig default "
                             "max_position_embeddings "
                           : "config.json max_position_embeddings ") +
            std::to_string(arch.context_tokens));
  }
  arch.from_hf_config = true;
  if (arch.kv_dtype == "fp8") {
    arch.figure_sources.emplace_back(
        "kv_dtype", "config.json quantization_config.kv_cache_quant_algo FP8 (modelopt)");
  } else {
    // config.json does not say how the KV cache is stored: the engines cache in the activation
    // type unless told otherwise.
    arch.kv_dtype = "bf16";
    arch.figure_sources.emplace_back(
        "kv_dtype", "not in config.json: vLLM and SGLang cache K/V in the activation type, BF16");
  }
  arch.figure_sources.emplace_back(
      "parameters",
      "counted from the shapes in config.json (active: what one token's decode "
      "reads, without the input embedding table)" +
          std::string(defaulted.empty() ? ""
                                        : "; vocab_size and tie_word_embeddings, where config.json "
                                          "omits them, at transformers' Gemma3TextConfig "
                                          "defaults (262208, tied)"));
  return model;
}

HfModel parse_hf_config(std::string_view text, std::string_view source, const std::string& name) {
  return read_hf_config(parse_json_document(python_floats_as_null(text), source), source, name);
}

HfModel load_hf_config(const std::string& path) {
  const std::filesystem::path file(path);
  const std::string name = file.filename() == "config.json" && file.has_parent_path() &&
                                   !file.parent_path().filename().empty()
                               ? file.parent_path().filename().string()
                               : file.stem().string();
  return parse_hf_config(read_text_file(path, "model config"), path, name);
}

}  // namespace kspeed::io
