// MoE expert union and speculative decoding in decode (MODEL.md section 8), checked on
// gpt-oss-120b's real shapes (config.json) against the arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include "worded_throw.hpp"

#include "hf_configs.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_moe {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform platform_for(const ModelArch& model, const std::string& gpu, std::int64_t batch) {
  PlatformChoice choice;
  choice.model = {model, Source::given};
  choice.gpu = {io::load_gpu(gpu), Source::given};
  choice.batch = {batch, Source::given};
  return make_platform(choice);
}

}  // namespace

TEST_CASE("expert union under uniform routing: E·(1 - (1 - k/E)^t)", "[moe]") {
  // gpt-oss-120b, E = 128, k = 4, batch 64: 128 · (1 - (124/128)^64) = 111.2 experts, not 4.
  CHECK(expected_distinct_experts(128, 4, 64) == Approx(111.221244).epsilon(1e-6));
  CHECK(expected_distinct_experts(128, 4, 1) == Approx(4.0));         // one token reads k
  CHECK(expected_distinct_experts(128, 4, 100000) == Approx(128.0));  // every expert, at most
  CHECK(expected_distinct_experts(0, 0, 64) == 0.0);                  // dense
  // DeepSeek-R1, 256 experts, top-8, one shared: batch 32 → 256 · (1 - (248/256)^32) + 1
  FfnSpec r1;
  r1.experts = 256;
  r1.top_k = 8;
  r1.shared_experts = 1;
  CHECK(experts_read_per_layer(r1, 32) == Approx(256.0 * (1 - std::pow(248.0 / 256.0, 32)) + 1));
  CHECK(experts_read_per_layer(r1, 32) == Approx(164.3138).epsilon(1e-5));
}

TEST_CASE("gpt-oss-120b decode at batch 64 reads ~56 GB of weights, not 5", "[moe]") {
  const io::HfModel model =
      io::parse_hf_config(test::kGptOss120bConfig, "config.json", "gpt-oss-120b");
  const DecodeWeights one = decode_weights(model.arch, model.shapes, 1);
  CHECK(one.experts_read_per_layer == Approx(4.0));
  CHECK(one.bytes / 1e9 == Approx(4.99).epsilon(0.002));  // the model card's per-token read
  const DecodeWeights batch = decode_weights(model.arch, model.shapes, 64);
  CHECK(batch.experts_read_per_layer == Approx(111.221244));
  // 1.547 B non-expert params in BF16 + 36 layers · 111.22 experts · 24.88 M params in MXFP4
  CHECK(batch.bytes / 1e9 == Approx(56.025).epsilon(1e-4));
  CHECK(batch.flops == Approx(2.0 * 5.13110016e9 * 64));  // each token still uses 4 experts
}

TEST_CASE("gpt-oss-120b on B200, batch 64, 8K context: decode attention share ~26%", "[moe]") {
  const io::HfModel model =
      io::parse_hf_config(test::kGptOss120bConfig, "config.json", "gpt-oss-120b");
  const Platform platform = platform_for(model.arch, "b200", 64);
  // KV: 64 sequences · (18 · 8192 + 18 · 128) positions · 2·8·64·2 bytes = 19.63 GB / 8 TB/s
  const DecodeStepTime step = moe_decode_step_time(platform, model.shapes, 8192);
  CHECK(step.attention_ms == Approx(2.453668).epsilon(1e-5));
  CHECK(step.other_ms == Approx(7.003131).epsilon(1e-5));  // 56.03 GB / 8 TB/s
  CHECK(step.share() == Approx(0.259461).epsilon(1e-4));
  // The decode model reads the union too (the preset carries the shapes); without it (active
  // parameters only, 4.99 GB) the share was 79.8%.
  const DecodeStepTime wired =
      decode_step_time(platform_for(io::load_model("gpt-oss-120b"), "b200", 64), 8192);
  CHECK(wired.share() == Approx(0.259461).epsilon(1e-4));
  ModelArch without_shapes = io::load_model("gpt-oss-120b");
  without_shapes.shapes.reset();
  CHECK(decode_step_time(platform_for(without_shapes, "b200", 64), 8192).share() ==
        Approx(0.797764).epsilon(1e-4));
}

TEST_CASE("speculative decoding: intensity × q, steps n / τ", "[moe][spec]") {
  AttentionShape shape;
  const ModelArch llama = io::load_model("llama-3.1-70b");
  shape.model = &llama;
  const KernelCost one = decode_cost_per_attended_token(shape);
  CHECK(intensity(one) == Approx(8.0));                                  // 2·G/b, G = 8, BF16
  CHECK(intensity(speculative_attention_cost(one, 2)) == Approx(16.0));  // 2·G·q/b
  const ModelArch r1 = io::load_model("deepseek-r1");
  shape.model = &r1;
  // MLA absorbed: 2·128·(2·512 + 64) FLOPs over 576·2 bytes = 241.8; with MTP (q = 2) 483.6
  const KernelCost mla = decode_cost_per_attended_token(shape);
  CHECK(intensity(speculative_attention_cost(mla, 2)) == Approx(2 * 278528.0 / 1152.0));
  CHECK(speculative_steps(8192, {2, 1.6}) == Approx(5120));
  CHECK(speculative_steps(8192, {}) == Approx(8192));
  CHECK_NOTHROW(check_speculation({3, 2.4}));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)check_speculation({0.5, 1});
             }),
             Catch::Contains("--spec-tokens 0.5: expected the tokens verified per step"));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)check_speculation({2, 2.5});
             }),
             Catch::Contains("--spec-accept 2.5: expected the mean accepted length per "
                             "step, between 1 and the tokens verified per step (2)"));
}

TEST_CASE("speculation raises the tokens a MoE step serves, and the union with it", "[moe][spec]") {
  const io::HfModel model =
      io::parse_hf_config(test::kGptOss120bConfig, "config.json", "gpt-oss-120b");
  const Platform platform = platform_for(model.arch, "b200", 16);
  const DecodeStepTime plain = moe_decode_step_time(platform, model.shapes, 8192);
  const DecodeStepTime spec = moe_decode_step_time(platform, model.shapes, 8192, {2, 1.7});
  // The KV cache is read once for both queries: attention time the same (memory-bound) ...
  CHECK(spec.attention_ms == Approx(plain.attention_ms));
  // ... while the union grows from 16 to 32 tokens: 128·(1-(124/128)^32) = 81.7 vs 51.0 experts
  CHECK(expected_distinct_experts(128, 4, 32) == Approx(81.6569).epsilon(1e-5));
  CHECK(spec.other_ms > plain.other_ms);
}

}  // namespace unit_moe
