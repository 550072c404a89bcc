// The built-in model presets against their public Hugging Face config.json (hf_configs.hpp holds
// the real values, each with its model repository): the preset's shapes match the config, and a
// model read from the config.json prices decode exactly as the preset does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "hf_configs.hpp"
#include "kspeed/engine/chain/run_conditions.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/report/wording.hpp"
#include "worded_throw.hpp"

namespace unit_model_presets {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

struct PresetConfig {
  const char* preset;
  const char* config;  ///< the model's config.json (URL beside each in hf_configs.hpp)
};

// https://huggingface.co/<repo>/blob/main/config.json for deepseek-ai/DeepSeek-R1,
// deepseek-ai/DeepSeek-V3, openai/gpt-oss-120b, meta-llama/Llama-3.1-70B, meta-llama/Llama-3.1-8B,
// meta-llama/Llama-3.3-70B-Instruct, Qwen/Qwen3-8B, Qwen/Qwen2.5-7B-Instruct,
// Qwen/Qwen2.5-72B-Instruct, mistralai/Mistral-7B-v0.3,
// mistralai/Mistral-Small-24B-Instruct-2501, google/gemma-3-27b-it,
// meta-llama/Llama-4-Scout-17B-16E-Instruct, meta-llama/Llama-4-Maverick-17B-128E-Instruct;
// nvidia/DeepSeek-R1-FP4 as hf_configs.hpp says.
const std::vector<PresetConfig> kPresets = {
    {"deepseek-r1", test::kDeepSeekR1Config},
    {"deepseek-v3", test::kDeepSeekV3Config},
    {"deepseek-r1-fp4", test::kDeepSeekR1Fp4Config},
    {"gpt-oss-120b", test::kGptOss120bConfig},
    {"llama-3.1-70b", test::kLlama31_70bConfig},
    {"llama-3.1-8b", test::kLlama31_8bConfig},
    {"llama-3.3-70b", test::kLlama33_70bConfig},
    {"qwen3-8b", test::kQwen3_8bConfig},
    {"qwen2.5-7b", test::kQwen25_7bConfig},
    {"qwen2.5-72b", test::kQwen25_72bConfig},
    {"mistral-7b", test::kMistral7bV03Config},
    {"mistral-small-24b", test::kMistralSmall24bConfig},
    {"gemma-3-27b", test::kGemma3_27bConfig},
    {"llama-4-scout", test::kLlama4ScoutConfig},
    {"llama-4-maverick", test::kLlama4MaverickConfig},
};

Platform platform_for(const ModelArch& model, const std::string& gpu, std::int64_t batch,
                      std::int64_t tp = 1) {
  PlatformChoice choice;
  choice.model = {model, Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.batch = {batch, Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  return make_platform(choice);
}

void check_same_shapes(const ModelShapes& preset, const ModelShapes& config) {
  CHECK(preset.hidden_size == config.hidden_size);
  CHECK(preset.vocab_size == config.vocab_size);
  CHECK(preset.tied_embeddings == config.tied_embeddings);
  CHECK(preset.q_lora_rank == config.q_lora_rank);
  CHECK(preset.ffn.intermediate_size == config.ffn.intermediate_size);
  CHECK(preset.ffn.experts == config.ffn.experts);
  CHECK(preset.ffn.top_k == config.ffn.top_k);
  CHECK(preset.ffn.moe_intermediate_size == config.ffn.moe_intermediate_size);
  CHECK(preset.ffn.shared_experts == config.ffn.shared_experts);
  CHECK(preset.ffn.shared_expert_intermediate_size == config.ffn.shared_expert_intermediate_size);
  CHECK(preset.ffn.dense_layers == config.ffn.dense_layers);
  CHECK(preset.expert_bytes_per_param == config.expert_bytes_per_param);
  CHECK(preset.dense_bytes_per_param == config.dense_bytes_per_param);
  CHECK(preset.dense_ffn_bytes_per_param == config.dense_ffn_bytes_per_param);
  CHECK(preset.embedding_bytes_per_param == config.embedding_bytes_per_param);
}

void check_same_attention(const ModelArch& preset, const ModelArch& config) {
  CHECK(preset.layers == config.layers);
  CHECK(preset.attention == config.attention);
  CHECK(preset.query_heads == config.query_heads);
  CHECK(preset.kv_heads == config.kv_heads);
  CHECK(preset.head_dim == config.head_dim);
  CHECK(preset.mla.kv_lora_rank == config.mla.kv_lora_rank);
  CHECK(preset.mla.qk_rope_head_dim == config.mla.qk_rope_head_dim);
  CHECK(preset.mla.qk_nope_head_dim == config.mla.qk_nope_head_dim);
  CHECK(preset.mla.v_head_dim == config.mla.v_head_dim);
  CHECK(preset.sliding_window_layers == config.sliding_window_layers);
  CHECK(preset.sliding_window_tokens == config.sliding_window_tokens);
  CHECK(preset.chunked_attention_layers == config.chunked_attention_layers);
  CHECK(preset.attention_chunk_tokens == config.attention_chunk_tokens);
  CHECK(preset.weight_dtype == config.weight_dtype);
  CHECK(preset.kv_dtype == config.kv_dtype);
}

}  // namespace

TEST_CASE("every model preset matches its config.json and prices decode exactly as it",
          "[presets][hf_config]") {
  for (const PresetConfig& entry : kPresets) {
    INFO(entry.preset);
    const ModelArch preset = io::load_model(entry.preset);
    const ModelArch config = io::parse_hf_config(entry.config, "config.json", entry.preset).arch;
    REQUIRE(preset.shapes);
    REQUIRE(config.shapes);
    check_same_attention(preset, config);
    check_same_shapes(*preset.shapes, *config.shapes);
    // The context the preset cites is the config's max_position_embeddings, where the config
    // copy here carries it.
    if (config.context_tokens > 0) {
      CHECK(preset.context_tokens == config.context_tokens);
    }
    // The cited parameter counts (model cards) agree with the ones counted from the shapes
    // within 1.5% (the counts leave out norms and biases; Llama's cards round).
    CHECK(config.total_params_billions == Approx(preset.total_params_billions).epsilon(0.015));
    // tp 4 splits every preset's heads (Qwen2.5-7B's 28 query heads not 8 ways); the B200 has
    // an FP4 peak, so the NVFP4 checkpoint's GEMM precision is compared too.
    for (const char* gpu : {"h100-sxm", "b200"}) {
      for (const std::int64_t batch : {1, 8, 64}) {
        const Platform a = platform_for(preset, gpu, batch, 4);
        const Platform b = platform_for(config, gpu, batch, 4);
        CHECK(a.gemm_precision.value == b.gemm_precision.value);
        CHECK(a.gemm_peak_tflops == b.gemm_peak_tflops);
        const KernelCost weights_a = non_attention_step_cost(a);
        const KernelCost weights_b = non_attention_step_cost(b);
        CHECK(weights_a.bytes == weights_b.bytes);
        CHECK(weights_a.flops == weights_b.flops);
        const DecodeResponse ra = decode_over_response(a, 8192, 128);
        const DecodeResponse rb = decode_over_response(b, 8192, 128);
        CHECK(ra.share == rb.share);
        CHECK(ra.attention_ms == rb.attention_ms);
        CHECK(ra.other_ms == rb.other_ms);
      }
    }
  }
}

TEST_CASE("gpt-oss-120b decode on a B200 at batch 64 reads the expert union, ~26% attention",
          "[presets][moe]") {
  // python3 check (docs/fidelity.md): U = 128·(1 - (124/128)^64) = 111.22 experts per layer;
  // weights 36·(26.54 M attention + 0.37 M router)·2 B + 579 M head·2 B + 36·111.22·24.88 M
  // expert parameters·0.53125 B = 56.03 GB per step; KV at 8,192 tokens: (18·8,192 + 18·128)
  // positions·2,048 B·64 sequences = 19.63 GB; both memory-bound on 8 TB/s: first step
  // 19.63 / (19.63 + 56.03) = 25.95%, over a 128-token response 26.09%.
  const Platform platform = platform_for(io::load_model("gpt-oss-120b"), "b200", 64);
  CHECK(non_attention_step_cost(platform).bytes / 1e9 == Approx(56.03).epsilon(0.001));
  CHECK(decode_step_time(platform, 8193).share() == Approx(0.2595).epsilon(0.002));
  CHECK(decode_over_response(platform, 8192, 128).share == Approx(0.2609).epsilon(0.002));
  // One sequence reads k = 4 experts per layer: the active weights, 5.00 GB.
  const Platform single = platform_for(io::load_model("gpt-oss-120b"), "b200", 1);
  CHECK(non_attention_step_cost(single).bytes / 1e9 == Approx(4.998).epsilon(0.002));
}

TEST_CASE("DeepSeek-R1 NVFP4 on 4 B200s (tp 4, ep 4) reads its experts and FFNs at 4.5 bits",
          "[presets][nvfp4][moe]") {
  // python3 over the shapes: every step 61 · 187.1 M MLA + 58 · 1.835 M router parameters and
  // the 926.7 M head in BF16, 3 · 396.4 M dense FFN and 58 · 44.04 M shared-expert parameters in
  // NVFP4 = 27.00 GB, split 4 ways; the 58 · 256 routed experts, 367.8 GB, 64 a GPU, of which one
  // token's step reads the busiest rank's 3.479 (E[max of 4 Binomial(64, 1/32)]): 11.749 GB a
  // GPU. (The FP8 checkpoint, deepseek-r1, reads 17.12 GB / 4 + 653.9 GB / 4 · 0.0544 = 13.17.)
  PlatformChoice choice;
  choice.model = {io::load_model("deepseek-r1-fp4"), Provenance::given};
  choice.gpu = {io::load_gpu("b200"), Provenance::given};
  choice.batch = {1, Provenance::given};
  choice.tensor_parallel = {4, Provenance::given};
  choice.expert_parallel = {4, Provenance::given};
  const Platform platform = make_platform(choice);
  CHECK(non_attention_step_cost(platform).bytes / 1e9 == Approx(11.7486).epsilon(1e-4));
  CHECK(platform.kv_dtype.value == "fp8");
  PlatformChoice fp8 = choice;
  fp8.model = {io::load_model("deepseek-r1"), Provenance::given};
  CHECK(non_attention_step_cost(make_platform(fp8)).bytes / 1e9 == Approx(13.1661).epsilon(1e-4));
  // GEMMs: 66.0% of the active parameters (experts, dense FFNs) at the 9,000 FP4 TFLOP/s, the
  // rest at the 2,250 BF16: 36.62 / (24.18 / 9000 + 12.45 / 2250) = 4,456.5 TFLOP/s.
  CHECK(platform.gemm_precision.value == "fp4+bf16");
  CHECK(platform.gemm_peak_tflops == Approx(4456.5).epsilon(1e-4));
  // Without an FP4 peak (H200) the GEMMs stay at BF16.
  choice.gpu = {io::load_gpu("h200-sxm"), Provenance::given};
  CHECK(make_platform(choice).gemm_precision.value == "bf16");
}

TEST_CASE("a model file's shapes are checked", "[presets]") {
  const std::string head = R"({"layers": 4, "attention": {"type": "gqa", "query_heads": 8,
    "kv_heads": 8, "head_dim": 64}, "parameters": {"total_billions": 1, "active_billions": 1},
    "weight_dtype": "bf16", "kv_dtype": "bf16", "shapes": )";
  const auto parse = [&](const std::string& shapes) {
    return io::parse_model(head + shapes + "}", "m.json");
  };
  const std::string types = R"("weight_types": {"experts": "bf16", "dense": "bf16",
    "embedding": "bf16"})";
  CHECK(parse(R"({"hidden_size": 512, "vocab_size": 1000, "ffn": {"intermediate_size": 2048},
    )" + types +
              "}")
            .shapes->ffn.intermediate_size == 2048);
  CHECK_THROWS_WITH(
      parse(R"({"hidden_size": 512, "vocab_size": 1000, "ffn": {"top_k": 2}, )" + types + "}"),
      Catch::Contains("shapes.ffn.top_k") && Catch::Contains("give 'experts'"));
  CHECK_THROWS_WITH(parse(R"({"hidden_size": 512, "vocab_size": 1000, "ffn": {"experts": 4,
    "top_k": 8, "moe_intermediate_size": 64}, )" +
                          types + "}"),
                    Catch::Contains("shapes.ffn.top_k") && Catch::Contains("more than the 4"));
  CHECK_THROWS_WITH(parse(R"({"hidden_size": 512, "vocab_size": 1000, "ffn": {"experts": 4,
    "top_k": 2, "moe_intermediate_size": 64}, "weight_types": {"experts": "fp9", "dense": "bf16",
    "embedding": "bf16"}})"),
                    Catch::Contains("shapes.weight_types.experts") && Catch::Contains("fp9"));
  CHECK_THROWS_WITH(parse(R"({"hidden_size": 512, "vocab_size": 1000, "q_lora_rank": 64,
    "ffn": {"intermediate_size": 2048}, )" +
                          types + "}"),
                    Catch::Contains("shapes.q_lora_rank"));
}

TEST_CASE("the run's conditions follow --model and --gpu", "[presets][conditions]") {
  Workload workload;
  workload.conditions = {{"model", "DeepSeek-R1"}, {"precision", "FP8 attention, FP8 KV cache"}};
  PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-70b"), Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Provenance::given};
  choice.tensor_parallel = {8, Provenance::given};
  const auto conditions = engine::run_conditions(workload, make_platform(choice));
  REQUIRE(conditions.size() == 3);
  CHECK(conditions[0].key == "model");
  CHECK(report::condition_text(conditions[0]) == "llama-3.1-70b");
  CHECK(conditions[0].provenance == Provenance::given);
  CHECK(conditions[1].key == "hardware");
  CHECK(report::condition_text(conditions[1]) == "8 × h100-sxm");
  // The engine decides the values; only the report words them.
  const auto* hardware = std::get_if<engine::HardwareCondition>(&conditions[1].value);
  REQUIRE(hardware != nullptr);
  CHECK(hardware->gpus == 8);
  CHECK(hardware->gpu == "h100-sxm");
  CHECK(report::condition_text(conditions[2]) == "bf16 weights, bf16 KV cache, bf16 compute");
  const auto missing = engine::missing_conditions(conditions);
  CHECK(std::find(missing.begin(), missing.end(), "hardware") == missing.end());
  CHECK(std::find(missing.begin(), missing.end(), "model") == missing.end());
  // Without a platform the workload's own conditions stand.
  const auto own = engine::run_conditions(workload, std::nullopt);
  REQUIRE(own.size() == 2);
  CHECK(report::condition_text(own[0]) == "DeepSeek-R1");
  CHECK(own[0].provenance == Provenance::workload);
}

}  // namespace unit_model_presets
