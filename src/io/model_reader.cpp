#include "kspeed/io/model_reader.hpp"

#include <filesystem>
#include <system_error>

#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/json_fields.hpp"
#include "kspeed/io/preset_lookup.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

const std::vector<std::string> kModelTopKeys = {
    "name",         "description", "source",
    "layers",       "attention",   "parameters",
    "weight_dtype", "kv_dtype",    "weight_bytes_per_param",
    "sources",      "shapes",      "context_tokens"};
const std::vector<std::string> kAttentionKeys = {
    "type",           "query_heads",      "kv_heads",         "head_dim",
    "kv_lora_rank",   "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "sliding_window", "linear_attention", "chunked_attention"};
const std::vector<std::string> kGqaKeys = {"query_heads", "kv_heads", "head_dim"};
const std::vector<std::string> kMlaKeys = {"query_heads", "kv_lora_rank", "qk_rope_head_dim",
                                           "qk_nope_head_dim", "v_head_dim"};
const std::vector<std::string> kWindowKeys = {"layers", "window_tokens"};
const std::vector<std::string> kChunkedKeys = {"layers", "chunk_tokens"};
const std::vector<std::string> kLinearKeys = {"layers",       "key_heads",      "value_heads",
                                              "key_head_dim", "value_head_dim", "conv_kernel"};
const std::vector<std::string> kParameterKeys = {"total_billions", "active_billions"};
const std::vector<std::string> kModelFigureKeys = {
    "layers", "attention",     "parameters", "weight_dtype", "kv_dtype", "weight_bytes_per_param",
    "shapes", "context_tokens"};
// Names follow Hugging Face config.json (engine::FfnSpec, engine::ModelShapes).
const std::vector<std::string> kShapeKeys = {"hidden_size", "vocab_size", "tied_embeddings",
                                             "q_lora_rank", "ffn",        "weight_types"};
const std::vector<std::string> kFfnKeys = {
    "intermediate_size",     "experts",        "top_k",
    "moe_intermediate_size", "shared_experts", "shared_expert_intermediate_size",
    "dense_layers"};
const std::vector<std::string> kWeightTypeKeys = {"experts", "dense", "dense_ffn", "embedding"};

// Plausible figures, far outside today's models (8 to 671 billion parameters, 0.5 to 4 bytes a
// weight): they stop a typo or a 5e-324 from reaching the roofline as inf or NaN.
constexpr NumberRange kBillions{1e-6, 1e6, "billions of parameters from 1e-6 to 1e6"};
constexpr NumberRange kBytesPerParam{0.01, 64, "bytes per parameter from 0.01 to 64"};

std::string model_optional_string(const JsonReader& reader, const json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() ? std::string() : reader.string_value(*found, key);
}

std::int64_t count_at(const JsonReader& reader, const json& object, const std::string& path,
                      const std::string& key) {
  return positive_count(reader, reader.required(object, path, key), path + "." + key);
}

// A data type kspeed knows the size of, with did-you-mean.
std::string dtype_at(const JsonReader& reader, const json& object, const std::string& key) {
  std::string name = reader.string_value(reader.required(object, "", key), key);
  if (!engine::dtype_bytes(name)) {
    reader.fail(key, "unknown data type '" + excerpt(name) + "'" +
                         suggestion_suffix(name, engine::dtype_names()));
  }
  return name;
}

// Keys of the other attention type are a mistake in the type, not extra facts.
void reject_foreign_keys(const JsonReader& reader, const json& object, const std::string& type,
                         const std::vector<std::string>& foreign) {
  for (const std::string& key : foreign) {
    if (object.contains(key) && key != "query_heads") {
      reader.fail("attention." + key, "'" + key + "' does not apply to attention type '" + type +
                                          "': remove it, or set attention.type to \"" +
                                          (type == "gqa" ? "mla" : "gqa") + "\"");
    }
  }
}

void read_gqa(const JsonReader& reader, const json& object, engine::ModelArch& model) {
  reject_foreign_keys(reader, object, "gqa", kMlaKeys);
  model.attention = engine::AttentionType::gqa;
  model.query_heads = count_at(reader, object, "attention", "query_heads");
  model.kv_heads = count_at(reader, object, "attention", "kv_heads");
  model.head_dim = count_at(reader, object, "attention", "head_dim");
  if (model.query_heads % model.kv_heads != 0) {
    reader.fail("attention.kv_heads", "query_heads (" + std::to_string(model.query_heads) +
                                          ") must be a multiple of kv_heads (" +
                                          std::to_string(model.kv_heads) +
                                          "): each KV head serves a whole group of query heads");
  }
}

void read_mla(const JsonReader& reader, const json& object, engine::ModelArch& model) {
  reject_foreign_keys(reader, object, "mla", kGqaKeys);
  model.attention = engine::AttentionType::mla;
  model.query_heads = count_at(reader, object, "attention", "query_heads");
  model.mla.kv_lora_rank = count_at(reader, object, "attention", "kv_lora_rank");
  model.mla.qk_rope_head_dim = count_at(reader, object, "attention", "qk_rope_head_dim");
  model.mla.qk_nope_head_dim = count_at(reader, object, "attention", "qk_nope_head_dim");
  model.mla.v_head_dim = count_at(reader, object, "attention", "v_head_dim");
}

void read_window(const JsonReader& reader, const json& object, engine::ModelArch& model) {
  const std::string path = "attention.sliding_window";
  reader.expect_object(object, path, kWindowKeys);
  model.sliding_window_layers = count_at(reader, object, path, "layers");
  model.sliding_window_tokens =
      reader.token_count(reader.required(object, path, "window_tokens"), path + ".window_tokens");
  if (model.sliding_window_layers > model.layers) {
    reader.fail(path + ".layers",
                "sliding-window layers (" + std::to_string(model.sliding_window_layers) +
                    ") cannot exceed the model's layers (" + std::to_string(model.layers) + ")");
  }
}

// Chunked local attention layers (Llama 4's attention_chunk_size): each token attends to the
// keys of its own chunk of C tokens only (hardware.hpp).
void read_preset_chunked_attention(const JsonReader& reader, const json& object,
                                   engine::ModelArch& model) {
  const std::string path = "attention.chunked_attention";
  reader.expect_object(object, path, kChunkedKeys);
  model.chunked_attention_layers = count_at(reader, object, path, "layers");
  model.attention_chunk_tokens =
      reader.token_count(reader.required(object, path, "chunk_tokens"), path + ".chunk_tokens");
  if (model.chunked_attention_layers + model.sliding_window_layers > model.layers) {
    reader.fail(path + ".layers",
                "chunked-attention layers (" + std::to_string(model.chunked_attention_layers) +
                    ") and sliding-window layers (" + std::to_string(model.sliding_window_layers) +
                    ") together cannot exceed the model's layers (" + std::to_string(model.layers) +
                    ")");
  }
}

// Linear-attention layers of a hybrid model (Qwen3-Next's gated DeltaNet): their dimensions,
// from which the engine prices the constant per-sequence state (hardware.hpp).
void read_preset_linear_attention(const JsonReader& reader, const json& object,
                                  engine::ModelArch& model) {
  const std::string path = "attention.linear_attention";
  reader.expect_object(object, path, kLinearKeys);
  engine::LinearAttentionDims& d = model.linear;
  d.layers = count_at(reader, object, path, "layers");
  d.key_heads = count_at(reader, object, path, "key_heads");
  d.value_heads = count_at(reader, object, path, "value_heads");
  d.key_head_dim = count_at(reader, object, path, "key_head_dim");
  d.value_head_dim = count_at(reader, object, path, "value_head_dim");
  d.conv_kernel = count_at(reader, object, path, "conv_kernel");
  if (d.layers + model.sliding_window_layers + model.chunked_attention_layers >= model.layers) {
    reader.fail(path + ".layers", "linear-attention layers (" + std::to_string(d.layers) +
                                      ") leave no softmax-attention layer of the model's " +
                                      std::to_string(model.layers) +
                                      ": at least one layer must attend");
  }
}

void read_attention(const JsonReader& reader, const json& object, engine::ModelArch& model) {
  reader.expect_object(object, "attention", kAttentionKeys);
  const std::string type =
      reader.string_value(reader.required(object, "attention", "type"), "attention.type");
  if (type == "gqa") {
    read_gqa(reader, object, model);
  } else if (type == "mla") {
    read_mla(reader, object, model);
  } else {
    reader.fail("attention.type", "unknown attention type '" + excerpt(type) + "'" +
                                      suggestion_suffix(type, {"gqa", "mla"}) +
                                      " (gqa covers multi-head and multi-query attention too)");
  }
  if (object.contains("sliding_window")) {
    read_window(reader, object["sliding_window"], model);
  }
  if (object.contains("chunked_attention")) {
    read_preset_chunked_attention(reader, object["chunked_attention"], model);
  }
  if (object.contains("linear_attention")) {
    read_preset_linear_attention(reader, object["linear_attention"], model);
  }
}

void read_parameters(const JsonReader& reader, const json& object, engine::ModelArch& model) {
  reader.expect_object(object, "parameters", kParameterKeys);
  model.total_params_billions =
      reader.number_in_range(reader.required(object, "parameters", "total_billions"),
                             "parameters.total_billions", kBillions);
  model.active_params_billions =
      reader.number_in_range(reader.required(object, "parameters", "active_billions"),
                             "parameters.active_billions", kBillions);
  if (model.active_params_billions > model.total_params_billions) {
    reader.fail("parameters.active_billions",
                "active parameters cannot exceed the total (a dense model has active = total)");
  }
}

// A count that may be absent (0: the part does not exist), >= 1 when given.
std::int64_t optional_count(const JsonReader& reader, const json& object, const std::string& path,
                            const std::string& key) {
  return object.contains(key) ? positive_count(reader, object[key], path + "." + key) : 0;
}

// A gated FFN per layer: dense (intermediate_size), or routed experts (experts, top_k,
// moe_intermediate_size) with optional shared experts and leading dense layers.
engine::FfnSpec read_ffn(const JsonReader& reader, const json& object, std::int64_t layers) {
  const std::string path = "shapes.ffn";
  reader.expect_object(object, path, kFfnKeys);
  engine::FfnSpec ffn;
  ffn.intermediate_size = optional_count(reader, object, path, "intermediate_size");
  ffn.experts = optional_count(reader, object, path, "experts");
  ffn.shared_experts = optional_count(reader, object, path, "shared_experts");
  ffn.dense_layers = optional_count(reader, object, path, "dense_layers");
  if (ffn.experts == 0) {
    for (const char* key : {"top_k", "moe_intermediate_size", "shared_experts",
                            "shared_expert_intermediate_size", "dense_layers"}) {
      if (object.contains(key)) {
        reader.fail(path + "." + key, std::string("'") + key +
                                          "' describes a mixture of experts: give 'experts' too, "
                                          "or remove it for a dense model");
      }
    }
    ffn.intermediate_size = count_at(reader, object, path, "intermediate_size");
    return ffn;
  }
  ffn.top_k = count_at(reader, object, path, "top_k");
  ffn.moe_intermediate_size = count_at(reader, object, path, "moe_intermediate_size");
  if (ffn.top_k > ffn.experts) {
    reader.fail(path + ".top_k", "each token uses " + std::to_string(ffn.top_k) +
                                     " experts, more than the " + std::to_string(ffn.experts) +
                                     " a layer has");
  }
  if (ffn.shared_experts > 0) {
    ffn.shared_expert_intermediate_size =
        count_at(reader, object, path, "shared_expert_intermediate_size");
  }
  if (ffn.dense_layers >= layers) {
    reader.fail(path + ".dense_layers", "dense layers (" + std::to_string(ffn.dense_layers) +
                                            ") must be fewer than the model's layers (" +
                                            std::to_string(layers) + ")");
  }
  if (ffn.dense_layers > 0) {
    ffn.intermediate_size = count_at(reader, object, path, "intermediate_size");
  }
  return ffn;
}

double storage_bytes(const JsonReader& reader, const json& object, const std::string& key) {
  const std::string path = "shapes.weight_types." + key;
  const std::string name =
      reader.string_value(reader.required(object, "shapes.weight_types", key), path);
  const auto bytes = engine::dtype_bytes(name);
  if (!bytes) {
    reader.fail(path, "unknown data type '" + excerpt(name) + "'" +
                          suggestion_suffix(name, engine::dtype_names()));
  }
  return *bytes;
}

// What the decode weight bytes and the analytic share need beyond the attention (presets.md).
engine::ModelShapes read_shapes(const JsonReader& reader, const json& object,
                                const engine::ModelArch& model) {
  reader.expect_object(object, "shapes", kShapeKeys);
  engine::ModelShapes shapes;
  shapes.hidden_size = count_at(reader, object, "shapes", "hidden_size");
  shapes.vocab_size = count_at(reader, object, "shapes", "vocab_size");
  if (object.contains("tied_embeddings")) {
    if (!object["tied_embeddings"].is_boolean()) {
      reader.fail("shapes.tied_embeddings",
                  "expected true or false, found " + describe_json_type(object["tied_embeddings"]));
    }
    shapes.tied_embeddings = object["tied_embeddings"].get<bool>();
  }
  if (object.contains("q_lora_rank")) {
    if (model.attention != engine::AttentionType::mla) {
      reader.fail("shapes.q_lora_rank",
                  "'q_lora_rank' is MLA's query compression: remove it, or "
                  "set attention.type to \"mla\"");
    }
    shapes.q_lora_rank = count_at(reader, object, "shapes", "q_lora_rank");
  }
  shapes.ffn = read_ffn(reader, reader.required(object, "shapes", "ffn"), model.layers);
  const json& types = reader.required(object, "shapes", "weight_types");
  reader.expect_object(types, "shapes.weight_types", kWeightTypeKeys);
  shapes.expert_bytes_per_param = storage_bytes(reader, types, "experts");
  shapes.dense_bytes_per_param = storage_bytes(reader, types, "dense");
  // The dense FFN layers share the dense type unless the file says otherwise (an NVFP4 checkpoint
  // quantizes them and leaves attention unquantized).
  shapes.dense_ffn_bytes_per_param = types.contains("dense_ffn")
                                         ? storage_bytes(reader, types, "dense_ffn")
                                         : shapes.dense_bytes_per_param;
  shapes.embedding_bytes_per_param = storage_bytes(reader, types, "embedding");
  return shapes;
}

void read_dtypes(const JsonReader& reader, const json& document, engine::ModelArch& model) {
  model.weight_dtype = dtype_at(reader, document, "weight_dtype");
  model.weight_bytes_per_param = *engine::dtype_bytes(model.weight_dtype);
  if (document.contains("weight_bytes_per_param")) {
    model.weight_bytes_per_param = reader.number_in_range(document["weight_bytes_per_param"],
                                                          "weight_bytes_per_param", kBytesPerParam);
  }
  model.kv_dtype = dtype_at(reader, document, "kv_dtype");
}

}  // namespace

engine::ModelArch parse_model(std::string_view text, std::string_view source) {
  const json document = parse_json_document(text, source);
  const JsonReader reader{std::string(source)};
  reader.expect_object(document, "", kModelTopKeys);
  engine::ModelArch model;
  model.name = model_optional_string(reader, document, "name");
  model.description = model_optional_string(reader, document, "description");
  model.source = model_optional_string(reader, document, "source");
  model.layers = count_at(reader, document, "", "layers");
  read_attention(reader, reader.required(document, "", "attention"), model);
  read_parameters(reader, reader.required(document, "", "parameters"), model);
  read_dtypes(reader, document, model);
  if (document.contains("shapes")) {
    model.shapes = read_shapes(reader, document["shapes"], model);
  }
  if (document.contains("context_tokens")) {
    model.context_tokens = count_at(reader, document, "", "context_tokens");
  }
  if (document.contains("sources")) {
    reader.expect_object(document["sources"], "sources", kModelFigureKeys);
    for (const auto& item : document["sources"].items()) {
      model.figure_sources.emplace_back(item.key(),
                                        reader.string_value(item.value(), "sources." + item.key()));
    }
  }
  return model;
}

std::vector<std::string> builtin_model_names() {
  return builtin_names("models");
}

std::string_view builtin_model_text(std::string_view name) {
  return builtin_text(kModelKind, name);
}

engine::ModelArch load_model(const std::string& file_or_name) {
  if (!looks_like_path(file_or_name)) return load_named(file_or_name, kModelKind, parse_model);
  // A file is read once (a pipe or <(...) has no second reading) and sniffed from its text: a
  // JSON object naming `architectures` is a Hugging Face config.json, whatever the path is
  // called; anything else is kspeed's own model format.
  const std::string text = read_text_file(file_or_name, "model file");
  const std::filesystem::path file(file_or_name);
  if (looks_like_hf_config_text(text)) {
    const std::string name = file.filename() == "config.json" && file.has_parent_path() &&
                                     !file.parent_path().filename().empty()
                                 ? file.parent_path().filename().string()
                                 : file.stem().string();
    return parse_hf_config(text, file_or_name, name).arch;
  }
  engine::ModelArch model = parse_model(text, file_or_name);
  if (model.name.empty()) model.name = file.stem().string();
  return model;
}

}  // namespace kspeed::io
