// Hugging Face config.json → model: each built-in preset's real config.json must reproduce the
// preset's numbers, MoE checkpoints their model cards' parameter counts, and bad configs fail
// naming the field.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "hf_configs.hpp"
#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_hf_config {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

io::HfModel read(const char* text, const std::string& name) {
  return io::parse_hf_config(text, name + "/config.json", name);
}

// What the roofline reads must be identical; parameters agree with the preset's (model card)
// figures to within `tolerance`.
void check_against_preset(const io::HfModel& model, const std::string& preset_name,
                          double tolerance) {
  const ModelArch preset = io::load_model(preset_name);
  const ModelArch& arch = model.arch;
  INFO(preset_name);
  CHECK(arch.layers == preset.layers);
  CHECK(arch.attention == preset.attention);
  CHECK(arch.query_heads == preset.query_heads);
  CHECK(arch.kv_heads == preset.kv_heads);
  CHECK(arch.head_dim == preset.head_dim);
  CHECK(arch.mla.kv_lora_rank == preset.mla.kv_lora_rank);
  CHECK(arch.mla.qk_rope_head_dim == preset.mla.qk_rope_head_dim);
  CHECK(arch.mla.qk_nope_head_dim == preset.mla.qk_nope_head_dim);
  CHECK(arch.mla.v_head_dim == preset.mla.v_head_dim);
  CHECK(arch.sliding_window_layers == preset.sliding_window_layers);
  CHECK(arch.sliding_window_tokens == preset.sliding_window_tokens);
  CHECK(arch.weight_dtype == preset.weight_dtype);
  CHECK(arch.kv_dtype == preset.kv_dtype);
  CHECK(arch.total_params_billions == Approx(preset.total_params_billions).epsilon(tolerance));
}

}  // namespace

TEST_CASE("config.json: Llama-3.1-8B reproduces its preset and its checkpoint's count",
          "[hf_config]") {
  const io::HfModel model = read(test::kLlama31_8bConfig, "Llama-3.1-8B");
  CHECK(model.architecture == "LlamaForCausalLM");
  CHECK(model.arch.name == "Llama-3.1-8B");
  CHECK(model.arch.head_dim == 128);  // no head_dim in the file: 4096 / 32
  check_against_preset(model, "llama-3.1-8b", 0.001);
  // Checkpoint: 8,030,261,248 parameters; kspeed leaves out the RMSNorm weights,
  // 2 per layer and 1 final, 4,096 each: 65 · 4,096 = 266,240.
  const ParamCounts params = count_params(model.arch, model.shapes);
  CHECK(params.total == 8'030'261'248.0 - 65.0 * 4096.0);
  // Dense presets count the input embedding table as active; a decode step reads one row of
  // it, so kspeed's active count leaves it out: 8.03 B - 128,256 · 4,096 = 7.505 B.
  CHECK(model.arch.active_params_billions == Approx(7.504658432));
  CHECK(model.arch.weight_bytes_per_param == 2.0);
}

TEST_CASE("config.json: Llama-3.1-70B and Qwen3-8B reproduce their presets", "[hf_config]") {
  const io::HfModel llama = read(test::kLlama31_70bConfig, "Llama-3.1-70B");
  check_against_preset(llama, "llama-3.1-70b", 0.001);  // 70.552 vs 70.55
  const io::HfModel qwen = read(test::kQwen3_8bConfig, "Qwen3-8B");
  check_against_preset(qwen, "qwen3-8b", 0.002);  // 8.190 vs 8.2 (model card rounds)
  CHECK(qwen.arch.sliding_window_layers == 0);    // use_sliding_window false, window null
  // Non-embedding parameters, model card: 6.95 B.
  const ParamCounts params = count_params(qwen.arch, qwen.shapes);
  CHECK((params.total - 2 * params.embedding) / 1e9 == Approx(6.95).epsilon(0.001));
}

TEST_CASE("config.json: DeepSeek-R1 reproduces its preset (MLA, MoE, shared expert)",
          "[hf_config]") {
  const io::HfModel model = read(test::kDeepSeekR1Config, "DeepSeek-R1");
  check_against_preset(model, "deepseek-r1", 0.001);  // 671.03 vs 671
  const FfnSpec& ffn = model.shapes.ffn;
  CHECK(ffn.experts == 256);
  CHECK(ffn.top_k == 8);
  CHECK(ffn.shared_experts == 1);
  CHECK(ffn.moe_intermediate_size == 2048);
  CHECK(ffn.dense_layers == 3);
  CHECK(model.shapes.q_lora_rank == 1536);
  // Model card: 37 B activated; kspeed counts 36.62 B without the input embedding table.
  CHECK(model.arch.active_params_billions == Approx(37.0).epsilon(0.015));
  // Every linear layer in FP8, the 0.93 B output head in BF16.
  CHECK(model.arch.weight_bytes_per_param == Approx(1.0253).epsilon(1e-3));
}

TEST_CASE("config.json: gpt-oss-120b reproduces its preset (MXFP4 experts, sliding window)",
          "[hf_config]") {
  const io::HfModel model = read(test::kGptOss120bConfig, "gpt-oss-120b");
  check_against_preset(model, "gpt-oss-120b", 0.001);  // 116.79 vs 116.83 (biases left out)
  const ModelArch preset = io::load_model("gpt-oss-120b");
  CHECK(model.arch.active_params_billions ==
        Approx(preset.active_params_billions).epsilon(0.001));  // 5.131 vs 5.13
  CHECK(model.arch.weight_bytes_per_param ==
        Approx(preset.weight_bytes_per_param).epsilon(0.005));  // 0.974 vs 0.97
  CHECK(model.shapes.ffn.experts == 128);
  CHECK(model.shapes.ffn.top_k == 4);
  CHECK(model.shapes.expert_bytes_per_param == 4.25 / 8.0);
  CHECK(model.shapes.dense_bytes_per_param == 2.0);
}

TEST_CASE("config.json: Mixtral, Qwen3-MoE and Qwen2-MoE match their model cards", "[hf_config]") {
  // Mixtral-8x7B: 46.7 B total, 12.9 B active (with the embedding table).
  const io::HfModel mixtral = read(test::kMixtral8x7bConfig, "Mixtral-8x7B");
  CHECK(mixtral.arch.total_params_billions == Approx(46.7).epsilon(0.001));
  CHECK(mixtral.shapes.ffn.moe_intermediate_size == 14336);
  const ParamCounts m = count_params(mixtral.arch, mixtral.shapes);
  CHECK((m.active + m.embedding) / 1e9 == Approx(12.9).epsilon(0.002));
  // Qwen3-30B-A3B: 30.5 B total, 3.3 B activated.
  const io::HfModel qwen3 = read(test::kQwen3_30bA3bConfig, "Qwen3-30B-A3B");
  CHECK(qwen3.arch.total_params_billions == Approx(30.5).epsilon(0.002));
  const ParamCounts q3 = count_params(qwen3.arch, qwen3.shapes);
  CHECK((q3.active + q3.embedding) / 1e9 == Approx(3.3).epsilon(0.02));
  CHECK(qwen3.shapes.ffn.dense_layers == 0);
  // Qwen1.5-MoE-A2.7B: 14.3 B total, 2.7 B activated; one shared expert 5,632 wide.
  const io::HfModel qwen2 = read(test::kQwen15MoeConfig, "Qwen1.5-MoE-A2.7B");
  CHECK(qwen2.shapes.ffn.shared_experts == 1);
  CHECK(qwen2.shapes.ffn.shared_expert_intermediate_size == 5632);
  CHECK(qwen2.arch.total_params_billions == Approx(14.3).epsilon(0.002));
  const ParamCounts q2 = count_params(qwen2.arch, qwen2.shapes);
  CHECK((q2.active + q2.embedding) / 1e9 == Approx(2.7).epsilon(0.005));
}

TEST_CASE("config.json: what is not supported fails naming the field and the fix", "[hf_config]") {
  CHECK_THROWS_WITH(
      io::parse_hf_config(R"({"architectures": ["FalconForCausalLM"]})", "c.json", "falcon"),
      Catch::Contains("c.json: architectures: 'FalconForCausalLM' is not an "
                      "architecture kspeed reads (it reads LlamaForCausalLM, ") &&
          Catch::Contains("GptOssForCausalLM, Qwen3NextForCausalLM, Gemma3ForCausalLM, "
                          "Gemma3ForConditionalGeneration, Qwen3_5ForConditionalGeneration, "
                          "Qwen3_5MoeForConditionalGeneration, Llama4ForConditionalGeneration, "
                          "Llama4ForCausalLM)"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"model_type": "llama"})", "c.json", "x"),
                    Catch::Contains("c.json: architectures: expected a list naming the model"));
  CHECK_THROWS_WITH(
      io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096})",
                          "c.json", "x"),
      Catch::Contains("c.json: num_hidden_layers: missing (or null)"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "num_key_value_heads": 3})",
                                        "c.json", "x"),
                    Catch::Contains("num_key_value_heads: expected a divisor of "
                                    "num_attention_heads (8), found 3"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["GptOssForCausalLM"],
      "num_hidden_layers": 3, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 8, "sliding_window": 4,
      "layer_types": ["sliding_attention"], "num_local_experts": 4, "experts_per_token": 2})",
                                        "c.json", "x"),
                    Catch::Contains("layer_types: expected a list of 3 layer types"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["MixtralForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "num_local_experts": 2, "num_experts_per_tok": 3})",
                                        "c.json", "x"),
                    Catch::Contains("num_experts_per_tok: each token uses 3 experts, more than "
                                    "the 2 the layer has"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "quantization_config": {"quant_method": "awq"}})",
                                        "c.json", "x"),
                    Catch::Contains("quantization_config.quant_method: 'awq' is not a weight "
                                    "format kspeed reads"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 2.5})",
                                        "c.json", "x"),
                    Catch::Contains("num_hidden_layers: expected a whole number >= 1, found 2.5"));
  CHECK_THROWS_AS(io::parse_hf_config("{", "c.json", "x"), InputError);
}

TEST_CASE("config.json: sliding windows from layer_types, Mistral and Qwen", "[hf_config]") {
  const char* mistral = R"({"architectures": ["MistralForCausalLM"], "num_hidden_layers": 32,
      "hidden_size": 4096, "vocab_size": 32000, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_key_value_heads": 8, "sliding_window": 4096})";
  const io::HfModel m = read(mistral, "Mistral-7B-v0.1");
  CHECK(m.arch.sliding_window_layers == 32);
  CHECK(m.arch.sliding_window_tokens == 4096);
  const char* qwen = R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 28,
      "hidden_size": 3584, "vocab_size": 152064, "intermediate_size": 18944,
      "num_attention_heads": 28, "num_key_value_heads": 4, "sliding_window": 32768,
      "use_sliding_window": true, "max_window_layers": 21})";
  const io::HfModel q = read(qwen, "Qwen2-7B");
  CHECK(q.arch.sliding_window_layers == 7);  // layers 21..27
  CHECK(q.arch.head_dim == 128);
  CHECK(io::is_hf_config(nlohmann::json::parse(qwen)));
  CHECK_FALSE(io::is_hf_config(nlohmann::json::parse(R"({"name": "x", "layers": 2})")));
}

TEST_CASE("config.json: real-file quirks (BOM, CRLF, Infinity, NaN, 4096.0) are read",
          "[hf_config]") {
  const std::string text =
      "\xEF\xBB\xBF{\r\n  \"architectures\": [\"LlamaForCausalLM\"],\r\n"
      "  \"num_hidden_layers\": 32, \"hidden_size\": 4096.0, \"vocab_size\": 128256,\r\n"
      "  \"intermediate_size\": 14336, \"num_attention_heads\": 32,\r\n"
      "  \"num_key_value_heads\": 8, \"max_position_embeddings\": Infinity,\r\n"
      "  \"name_or_path\": \"a NaN and -Infinity in a string stay\", \"x\": -Infinity,\r\n"
      "  \"router_aux_loss_coef\": NaN\r\n}\r\n";
  const io::HfModel model = io::parse_hf_config(text, "config.json", "m");
  CHECK(model.shapes.hidden_size == 4096);
  CHECK(model.arch.head_dim == 128);
  CHECK(model.arch.total_params_billions == Approx(8.03).epsilon(0.001));
}

TEST_CASE("config.json: a file is named after its folder", "[hf_config]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / "kspeed-hf-config-test" / "Qwen3-8B";
  fs::create_directories(folder);
  {
    std::ofstream out(folder / "config.json", std::ios::binary);
    out << test::kQwen3_8bConfig;
  }
  const io::HfModel model = io::load_hf_config((folder / "config.json").string());
  CHECK(model.arch.name == "Qwen3-8B");
  CHECK(model.arch.layers == 36);
  fs::remove_all(folder.parent_path());
  CHECK_THROWS_WITH(io::load_hf_config((folder / "config.json").string()),
                    Catch::Contains("config.json' does not exist"));
}

}  // namespace unit_hf_config

namespace unit_hf_config {

TEST_CASE("config.json: max_position_embeddings is the model's context, as the presets cite it",
          "[hf_config][context]") {
  // The real config.json files (hf_configs.hpp) state 131,072 and 163,840; the presets cite them.
  const io::HfModel llama = read(test::kLlama31_8bConfig, "Llama-3.1-8B");
  CHECK(llama.arch.context_tokens == 131072);
  CHECK(io::load_model("llama-3.1-8b").context_tokens == llama.arch.context_tokens);
  const io::HfModel deepseek = read(test::kDeepSeekR1Config, "DeepSeek-R1");
  CHECK(deepseek.arch.context_tokens == 163840);
  CHECK(io::load_model("deepseek-r1").context_tokens == deepseek.arch.context_tokens);
  // A config.json without the key leaves the context unknown (0): nothing is checked against it.
  const io::HfModel qwen = read(test::kQwen3_8bConfig, "Qwen3-8B");
  CHECK(qwen.arch.context_tokens == 0);
  // Every preset states its context, with a source that names the field it was read from: the
  // config.json's max_position_embeddings, or (qwen3.5-35b-a3b, whose config.json was not at
  // hand) a serving recipe's context_length.
  for (const std::string& name : io::builtin_model_names()) {
    INFO(name);
    const ModelArch preset = io::load_model(name);
    CHECK(preset.context_tokens >= 32768);
    bool cited = false;
    for (const auto& [figure, source] : preset.figure_sources) {
      cited = cited || (figure == "context_tokens" &&
                        (source.find("max_position_embeddings") != std::string::npos ||
                         source.find("context_length") != std::string::npos));
    }
    CHECK(cited);
  }
}

}  // namespace unit_hf_config

namespace unit_hf_config {

TEST_CASE(
    "config.json: a modelopt NVFP4 DeepSeek-R1 reads NVFP4 FFNs and experts, BF16 "
    "attention and an FP8 KV cache",
    "[hf_config][nvfp4]") {
  // NVFP4: 4-bit values + one FP8 scale per 16 = 4.5 bits.
  CHECK(dtype_bytes("nvfp4") == 0.5625);
  const io::HfModel model = read(test::kDeepSeekR1Fp4Config, "DeepSeek-R1-FP4");
  check_against_preset(model, "deepseek-r1-fp4", 0.001);
  CHECK(model.arch.weight_dtype == "nvfp4");
  CHECK(model.arch.kv_dtype == "fp8");
  CHECK(model.shapes.expert_bytes_per_param == 0.5625);
  CHECK(model.shapes.dense_ffn_bytes_per_param == 0.5625);
  CHECK(model.shapes.dense_bytes_per_param == 2.0);      // the MLA projections, excluded
  CHECK(model.shapes.embedding_bytes_per_param == 2.0);  // lm_head, excluded
  // python3 over the shapes: 61 · 187,105,280 attention + 58 · 1,835,008 router parameters in
  // BF16, 3 · 396,361,728 dense FFN + 58 · 9 · 44,040,192 expert parameters in NVFP4, the
  // 926.7 M head in BF16 = 38.49 GB per token over 36.62 B active = 1.0510 bytes per parameter
  // (the FP8 checkpoint: 1.0253; its BF16 attention costs the FP4 one more than its FP4 experts
  // save at one token).
  CHECK(model.arch.active_params_billions == Approx(36.6246).epsilon(1e-4));
  CHECK(model.arch.weight_bytes_per_param == Approx(1.05102).epsilon(1e-4));
  // Without exclusions every linear layer is NVFP4, attention included.
  const std::string all_fp4 = R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "vocab_size": 10, "intermediate_size": 128, "num_attention_heads": 8,
      "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
      "ignore": ["lm_head"]}})";
  const io::HfModel llama = io::parse_hf_config(all_fp4, "c.json", "x");
  CHECK(llama.shapes.dense_bytes_per_param == 0.5625);
  CHECK(llama.shapes.dense_ffn_bytes_per_param == 0.5625);
  CHECK(llama.arch.kv_dtype == "bf16");
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "quantization_config": {"quant_method": "modelopt",
      "quant_algo": "W4A8_AWQ"}})",
                                        "c.json", "x"),
                    Catch::Contains("c.json: quantization_config.quant_algo: 'W4A8_AWQ' is not a "
                                    "modelopt format kspeed reads (it reads NVFP4 and FP8)"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 10, "intermediate_size": 8,
      "num_attention_heads": 8, "quantization_config": {"quant_method": "modelopt",
      "quant_algo": "NVFP4", "kv_cache_quant_algo": "NVFP4"}})",
                                        "c.json", "x"),
                    Catch::Contains("quantization_config.kv_cache_quant_algo: 'NVFP4' is not a "
                                    "KV cache type kspeed reads"));
}

TEST_CASE("config.json: the new presets' contexts are their configs' max_position_embeddings",
          "[hf_config][context]") {
  const std::vector<std::pair<const char*, const char*>> presets = {
      {"deepseek-v3", test::kDeepSeekV3Config},
      {"deepseek-r1-fp4", test::kDeepSeekR1Fp4Config},
      {"llama-3.3-70b", test::kLlama33_70bConfig},
      {"qwen2.5-7b", test::kQwen25_7bConfig},
      {"qwen2.5-72b", test::kQwen25_72bConfig},
      {"mistral-7b", test::kMistral7bV03Config},
      {"mistral-small-24b", test::kMistralSmall24bConfig},
      {"gemma-3-27b", test::kGemma3_27bConfig}};
  for (const auto& [name, config] : presets) {
    INFO(name);
    const io::HfModel model = read(config, name);
    check_against_preset(model, name, 0.002);
    CHECK(model.arch.context_tokens > 0);
    CHECK(io::load_model(name).context_tokens == model.arch.context_tokens);
  }
  // Mistral Small states head_dim 128 beside hidden_size 5120 and 32 heads: the stated one wins.
  CHECK(read(test::kMistralSmall24bConfig, "m").arch.head_dim == 128);
}

TEST_CASE("config.json: a multimodal wrapper's text_config, Gemma 3's defaults and its windows",
          "[hf_config][gemma]") {
  const io::HfModel gemma = read(test::kGemma3_27bConfig, "gemma-3-27b-it");
  CHECK(gemma.architecture == "Gemma3ForConditionalGeneration");
  CHECK(gemma.arch.layers == 62);
  // 62 layers, every 6th global: layers 5, 11, ..., 59 (10); the other 52 see 1,024 tokens.
  CHECK(gemma.arch.sliding_window_layers == 52);
  CHECK(gemma.arch.sliding_window_tokens == 1024);
  CHECK(gemma.shapes.vocab_size == 262208);  // transformers' default, not in the file
  CHECK(gemma.shapes.tied_embeddings);
  CHECK(gemma.arch.context_tokens == 131072);
  // 62 · (2·5376·4096 + 2·5376·2048 + 3·5376·21504) + 262208·5376 = 27,007,991,808.
  CHECK(count_params(gemma.arch, gemma.shapes).total == 27'007'991'808.0);
  bool default_cited = false;
  for (const auto& [figure, source] : gemma.arch.figure_sources) {
    default_cited = default_cited || (figure == "context_tokens" &&
                                      source.find("Gemma3TextConfig default") != std::string::npos);
  }
  CHECK(default_cited);
  // Layer types, where a config states them, win over the pattern.
  nlohmann::json typed = nlohmann::json::parse(test::kGemma3_27bConfig);
  typed["text_config"]["num_hidden_layers"] = 4;
  typed["text_config"]["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention",
                                         "full_attention"};
  CHECK(io::read_hf_config(typed, "c.json", "x").arch.sliding_window_layers == 2);
  // A Qwen3.5 MoE wrapper (the text_config keys as a public inventory of Qwen3.5-35B-A3B's
  // snapshot lists them; a reader test, not a preset): 40 layers, 3 gated-DeltaNet layers per
  // full-attention one, 256 experts top-8 and a shared expert.
  nlohmann::json qwen35 = {{"architectures", {"Qwen3_5MoeForConditionalGeneration"}},
                           {"tie_word_embeddings", false},
                           {"text_config",
                            {{"hidden_size", 2048},
                             {"num_hidden_layers", 40},
                             {"vocab_size", 248320},
                             {"num_attention_heads", 16},
                             {"num_key_value_heads", 2},
                             {"head_dim", 256},
                             {"num_experts", 256},
                             {"num_experts_per_tok", 8},
                             {"moe_intermediate_size", 512},
                             {"shared_expert_intermediate_size", 512},
                             {"linear_num_key_heads", 16},
                             {"linear_num_value_heads", 32},
                             {"linear_key_head_dim", 128},
                             {"linear_value_head_dim", 128},
                             {"linear_conv_kernel_dim", 4},
                             {"dtype", "bfloat16"}}}};
  nlohmann::json types = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) types.push_back(i % 4 == 3 ? "full_attention" : "linear_attention");
  qwen35["text_config"]["layer_types"] = types;
  const io::HfModel hybrid = io::read_hf_config(qwen35, "c.json", "qwen3.5");
  CHECK(hybrid.arch.linear.layers == 30);
  CHECK(softmax_attention_layers(hybrid.arch) == 10);
  CHECK(hybrid.shapes.ffn.experts == 256);
  CHECK(hybrid.shapes.ffn.shared_experts == 1);
  CHECK_FALSE(hybrid.shapes.tied_embeddings);
  // A text_config that is not an object is named.
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"architectures": ["Gemma3ForConditionalGeneration"],
      "text_config": 3})",
                                        "c.json", "x"),
                    Catch::Contains("c.json: text_config: expected the language model's config "
                                    "object, found a number"));
}

}  // namespace unit_hf_config
