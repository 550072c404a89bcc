// Chunked local attention (Llama 4): a token at position p attends to the keys of its own chunk,
// [floor(p/C)·C, p], on three of every four layers; the fourth attends to the whole context.
// The figures below are derived by hand from that definition, apart from the engine's code.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_chunked_attention {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kScoutConfig = std::string(KSPEED_SOURCE_DIR) +
                                 "/tests/golden/cases/estimate-hf-config-llama4/"
                                 "Llama-4-Scout-17B-16E-Instruct/config.json";

// Keys token p reads in a chunked layer, written out from the definition: p - floor(p/C)·C + 1.
double keys_at(std::int64_t p, std::int64_t chunk) {
  return static_cast<double>(p - (p / chunk) * chunk + 1);
}

}  // namespace

TEST_CASE("Llama 4 Scout: 36 chunked local layers of 8,192 tokens and 12 global ones",
          "[chunked]") {
  for (const ModelArch& model : {io::load_model("llama-4-scout"), io::load_model(kScoutConfig)}) {
    CAPTURE(model.name);
    CHECK(model.layers == 48);
    CHECK(model.chunked_attention_layers == 36);  // no_rope_layers 1,1,1,0: layers 3, 7, .. global
    CHECK(model.attention_chunk_tokens == 8192);
    CHECK(full_attention_layers(model) == 12);
    CHECK(softmax_attention_layers(model) == 48);  // the kernel acts on both kinds
    // 48 · (62,914,560 attention + 17 · 125,829,120 experts + 81,920 router) + 2 · 202,048 · 5,120
    CHECK(count_params(model, *model.shapes).total / 1e9 == Approx(107.769).epsilon(1e-4));
    CHECK(moe_layers(model, model.shapes->ffn) == 48);
  }
}

TEST_CASE("Llama 4 Maverick: MoE on every other layer, a dense FFN on the rest", "[chunked]") {
  const ModelArch model = io::load_model("llama-4-maverick");
  CHECK(moe_layers(model, model.shapes->ffn) == 24);
  // 48 · 62,914,560 + 24 · (129 · 125,829,120 + 655,360) + 24 · 3 · 5,120 · 16,384 + tables:
  // 400.71 B, the model card's 400 B.
  CHECK(count_params(model, *model.shapes).total / 1e9 == Approx(400.711).epsilon(1e-4));
  // One token reads 1 routed + 1 shared expert in 24 layers and 24 dense FFNs: 17.18 B with the
  // input table (the card's 17 B activated); kspeed's active leaves the input table out.
  const ParamCounts c = count_params(model, *model.shapes);
  CHECK((c.active + c.embedding) / 1e9 == Approx(17.184).epsilon(1e-4));
  // The config.json reader finds the same split from interleave_moe_layer_step 2.
  nlohmann::json config = nlohmann::json::parse(R"({
    "architectures": ["Llama4ForConditionalGeneration"],
    "text_config": {"num_hidden_layers": 48, "hidden_size": 5120, "num_attention_heads": 40,
      "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 202048, "intermediate_size": 8192,
      "intermediate_size_mlp": 16384, "num_local_experts": 128, "num_experts_per_tok": 1,
      "interleave_moe_layer_step": 2, "attention_chunk_size": 8192,
      "max_position_embeddings": 1048576, "torch_dtype": "bfloat16"},
    "tie_word_embeddings": false})");
  const io::HfModel read = io::read_hf_config(config, "c.json", "maverick");
  CHECK(read.shapes.ffn.dense_layers == 24);
  CHECK(read.shapes.ffn.intermediate_size == 16384);
  CHECK(read.shapes.ffn.shared_experts == 1);
  // Without no_rope_layers, transformers' default interval 4: 36 chunked layers.
  CHECK(read.arch.chunked_attention_layers == 36);
  CHECK(count_params(read.arch, read.shapes).total ==
        Approx(count_params(model, *model.shapes).total));
}

TEST_CASE("chunked prefill pairs at L = 20,000 with C = 8,192, derived by hand", "[chunked]") {
  // Chunks of 8,192, 8,192 and 3,616 tokens (20,000 - 2 · 8,192). Causally within each chunk:
  // 8,192 · 8,193 / 2 = 33,558,528 twice, 3,616 · 3,617 / 2 = 6,539,536: 73,656,592 pairs,
  // against 20,000 · 20,001 / 2 = 200,010,000 with full attention.
  CHECK(chunked_causal_pairs(20000, 0, 8192) == 73656592.0);
  CHECK(causal_pairs(20000, 0) == 200010000.0);
  // Summed token by token from the definition.
  double by_token = 0;
  for (std::int64_t p = 0; p < 20000; ++p) by_token += keys_at(p, 8192);
  CHECK(by_token == 73656592.0);
  // A chunk of the prompt prefilled after 10,000 cached tokens: positions 10,000 .. 19,999.
  double tail = 0;
  for (std::int64_t p = 10000; p < 20000; ++p) tail += keys_at(p, 8192);
  CHECK(chunked_causal_pairs(10000, 10000, 8192) == tail);

  // The roofline's FLOPs: L²/2 per full layer, Σ c²/2 over the chunks per chunked layer, at
  // 4 · Hq · d FLOPs a pair. Scout on one GPU: 12 · 2e8 + 36 · (2 · 8,192² + 3,616²) / 2 pairs.
  const Platform scout = test::platform_for("llama-4-scout", "h100-sxm", 1, 1);
  const double per_pair = 4.0 * 40 * 128;
  const double chunk_pairs = (2.0 * 8192.0 * 8192.0 + 3616.0 * 3616.0) / 2.0;
  CHECK(chunk_pairs == 73646592.0);
  const double expected = per_pair * (12 * 20000.0 * 20000.0 / 2.0 + 36 * chunk_pairs);
  CHECK(prefill_attention_cost(attention_shape(scout), 20000).flops == Approx(expected));
  // Full attention on every layer would be 48 · 2e8 pairs: chunking keeps 52.6% of the FLOPs.
  Platform all_full = scout;
  all_full.model.value.chunked_attention_layers = 0;
  CHECK(prefill_attention_cost(attention_shape(scout), 20000).flops /
            prefill_attention_cost(attention_shape(all_full), 20000).flops ==
        Approx((12 * 2e8 + 36 * 73646592.0) / (48 * 2e8)));
  // Up to one chunk the two are the same.
  CHECK(prefill_attention_cost(attention_shape(scout), 8192).flops ==
        Approx(prefill_attention_cost(attention_shape(all_full), 8192).flops));
}

TEST_CASE("chunked decode reads (p mod C) + 1 keys; the closed form matches the steps",
          "[chunked]") {
  const ModelArch scout = io::load_model("llama-4-scout");
  // A context of 20,000 tokens: the new token is p = 19,999, 19,999 - 16,384 + 1 = 3,616 keys.
  CHECK(attended_positions(scout, 20000) == 12 * 20000.0 + 36 * 3616.0);
  CHECK(attended_positions(scout, 8192) == 48 * 8192.0);       // the last token of chunk 1
  CHECK(attended_positions(scout, 8193) == 12 * 8193.0 + 36);  // the first of chunk 2
  // The response's closed form against the step-by-step sum, across a chunk boundary.
  const Platform platform = test::platform_for("llama-4-scout", "h100-sxm", 1, 4);
  const DecodeResponse closed = decode_over_response(platform, 8000, 600);
  const DecodeResponse steps = decode_over_response_stepwise(platform, 8000, 600);
  CHECK(closed.attention_ms == Approx(steps.attention_ms).epsilon(1e-9));
  CHECK(closed.other_ms == Approx(steps.other_ms).epsilon(1e-9));
  // The step model's mean decode batch: the mean of ((L + k - 1) mod C) + 1 over k = 1 .. n.
  const BatchComposition mean = decode_batch(8000, 600, 1, 1, 8192);
  double keys = 0;
  for (std::int64_t k = 1; k <= 600; ++k) keys += keys_at(8000 + k - 1, 8192);
  CHECK(mean.chunked_decode_kv_tokens == Approx(keys / 600));
  // vLLM keeps every layer's whole KV for a chunked model (kv_capacity.hpp): the memory a
  // 20,000-token sequence needs counts 48 layers' 20,000 tokens, not 36 layers' 3,616.
  Platform all_full = platform;
  all_full.model.value.chunked_attention_layers = 0;
  CHECK(decode_memory_needed_gb(platform, 20000) ==
        Approx(decode_memory_needed_gb(all_full, 20000)));
}

TEST_CASE("the step model prices chunked layers apart and a kernel speedup divides them",
          "[chunked]") {
  const Platform scout = test::platform_for("llama-4-scout", "h100-sxm", 1, 1);
  const CalibratedStepModel step = modelled_step_model(scout);
  CHECK(step.model.attention_chunk_tokens == 8192);
  // Per pair and per key, 36 chunked layers against 12 full ones.
  CHECK(step.model.ms_per_chunked_prefill_pair == Approx(3 * step.model.ms_per_prefill_pair));
  CHECK(step.model.ms_per_chunked_kv_token == Approx(3 * step.model.ms_per_kv_token));
  // A 20,000-token prompt in one step: its prefill attention is the 12 full layers' 200,010,000
  // pairs and the 36 chunked layers' 73,656,592.
  const BatchComposition prefill = prefill_batch(20000, 1, 0, 8192);
  CHECK(prefill.chunked_prefill_pairs == 73656592.0);
  const StepTime time = step_time(step.model, prefill);
  CHECK(time.prefill_attention_ms == Approx(step.model.ms_per_prefill_pair * 200010000.0 +
                                            step.model.ms_per_chunked_prefill_pair * 73656592.0));
  const StepTime faster = step_time(step.model, prefill, 2.0);
  CHECK(faster.prefill_attention_ms == Approx(time.prefill_attention_ms / 2));
  CHECK(faster.other_ms == Approx(time.other_ms));
  // The replay's speedup folds into both kinds' coefficients.
  AttentionSpeedup speedup;
  speedup.prefill = 2.0;
  speedup.decode = 4.0;
  const StepModel folded = with_attention_speedup(step.model, speedup);
  CHECK(folded.ms_per_chunked_prefill_pair == Approx(step.model.ms_per_chunked_prefill_pair / 2));
  CHECK(folded.ms_per_chunked_kv_token == Approx(step.model.ms_per_chunked_kv_token / 4));
}

TEST_CASE("the replay's decode steps cross chunk boundaries as the definition says", "[chunked]") {
  const Platform scout = test::platform_for("llama-4-scout", "h100-sxm", 1, 1);
  const StepModel model = modelled_step_model(scout).model;
  // One request whose response crosses the 8,192 boundary: 8,100-token prompt, 300 tokens out.
  ReplayRequest request;
  request.prompt_tokens = 8100;
  request.response_tokens = 300;
  SchedulerOptions scheduler;
  scheduler.max_batched_tokens = 16384;
  const BatchReplay replay = replay_batches({request}, model, {}, scheduler, {});
  // Its E2E by hand: the prefill step, then 299 decode steps each reading its context in the 12
  // full layers and its chunk's keys in the 36 chunked ones.
  BatchComposition prefill;
  prefill.prefill_tokens = 8100;
  prefill.prefill_pairs = causal_pairs(8100, 0);
  prefill.chunked_prefill_pairs = chunked_causal_pairs(8100, 0, 8192);
  double e2e = step_time(model, prefill).total_ms();
  for (std::int64_t k = 1; k < 300; ++k) {
    BatchComposition decode;
    decode.decode_sequences = 1;
    decode.decode_kv_tokens = static_cast<double>(8100 + k);
    decode.chunked_decode_kv_tokens = keys_at(8100 + k - 1, 8192);
    e2e += step_time(model, decode).total_ms();
  }
  REQUIRE(replay.timing.size() == 1);
  CHECK(static_cast<double>(replay.timing[0].e2e_ms) == Approx(e2e).epsilon(1e-5));
}

TEST_CASE("a deployment file keeps a chunked model's C and coefficients; others omit them",
          "[chunked]") {
  io::DeploymentFile file;
  file.settings = {{"model", "llama-4-scout", "flag --model"},
                   {"gpu", "h100-sxm", "flag --gpu"},
                   {"tp", "4", "flag --tp"}};
  file.step = modelled_step_model(test::platform_for("llama-4-scout", "h100-sxm", 4, 1));
  file.typical_prompt_tokens = 1024;
  file.typical_response_tokens = 128;
  const std::string text = io::deployment_to_json_text(file);
  CHECK(text.find("\"attention_chunk_tokens\"") != std::string::npos);
  const io::DeploymentFile back = io::parse_deployment_file(text, "d.json");
  const StepModel& a = file.step.model;
  const StepModel& b = back.step.model;
  CHECK(b.attention_chunk_tokens == 8192);
  CHECK(b.ms_per_chunked_prefill_pair == a.ms_per_chunked_prefill_pair);
  CHECK(b.ms_per_chunked_kv_token == a.ms_per_chunked_kv_token);
  // A model without chunked layers writes none of the three keys.
  file.step = modelled_step_model(test::platform_for("llama-3.1-8b", "h100-sxm", 1, 1));
  const std::string plain = io::deployment_to_json_text(file);
  CHECK(plain.find("attention_chunk_tokens") == std::string::npos);
  CHECK(plain.find("ms_per_chunked") == std::string::npos);
}

}  // namespace unit_chunked_attention
