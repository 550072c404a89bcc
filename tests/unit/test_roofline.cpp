// The roofline: ridges of the presets against MODEL.md section 5, attention FLOPs and bytes from
// model shapes (hand-computed), and what each lever is worth on a memory- or compute-bound kernel.
#include <catch2/catch.hpp>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/roofline/phase_roofline.hpp"
#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_roofline {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform platform_for(const std::string& model, const std::string& gpu, std::int64_t batch = 1,
                      std::int64_t tp = 1, std::optional<std::string> kv_dtype = std::nullopt) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.batch = {batch, Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  choice.kv_dtype = std::move(kv_dtype);
  return make_platform(choice);
}

Roof roof_for(const std::string& gpu, const std::string& precision = "bf16") {
  const Gpu g = io::load_gpu(gpu);
  return {*peak_tflops(g, precision), g.hbm_bandwidth_tbs};
}

}  // namespace

TEST_CASE("preset ridges match MODEL.md section 5 within 0.5 FLOP/byte", "[roofline]") {
  // MODEL.md: ridge = dense peak / HBM bandwidth.
  struct Expected {
    const char* gpu;
    double bf16;
    std::optional<double> fp8;
  };
  const Expected table[] = {{"a100-sxm-80gb", 153.0, std::nullopt},
                            {"h100-sxm", 295.3, 590.7},
                            {"h200-sxm", 206.1, 412.3},
                            {"b200", 281.3, 562.5},
                            {"mi300x", 246.7, 493.4},
                            {"rtx-4090", 163.9, 327.7},
                            {"rtx-pro-6000", 281.1, 562.3},
                            // issue 28's presets: the datasheets' dense peak / bandwidth
                            {"a100-sxm-40gb", 200.6, std::nullopt},
                            {"a100-pcie-80gb", 161.2, std::nullopt},
                            {"a100-pcie-40gb", 200.6, std::nullopt},
                            {"h100-pcie", 378.3, 756.5},
                            {"h100-nvl", 214.2, 428.3},
                            {"l4", 403.3, 808.3},
                            {"l40s", 419.0, 848.4},
                            {"mi325x", 217.9, 435.8}};
  for (const Expected& e : table) {
    INFO(e.gpu);
    CHECK(ridge_flop_per_byte(roof_for(e.gpu)) == Approx(e.bf16).margin(0.5));
    const Gpu gpu = io::load_gpu(e.gpu);
    REQUIRE(peak_tflops(gpu, "fp8").has_value() == e.fp8.has_value());
    if (e.fp8) {
      CHECK(ridge_flop_per_byte(roof_for(e.gpu, "fp8")) == Approx(*e.fp8).margin(0.5));
    }
  }
}

TEST_CASE("every built-in GPU and model preset parses", "[roofline]") {
  for (const std::string& name : io::builtin_gpu_names()) {
    INFO(name);
    const Gpu gpu = io::load_gpu(name);
    CHECK(gpu.name == name);
    CHECK_FALSE(gpu.source.empty());
  }
  for (const std::string& name : io::builtin_model_names()) {
    INFO(name);
    const ModelArch model = io::load_model(name);
    CHECK(model.name == name);
    CHECK_FALSE(model.source.empty());
  }
  CHECK(io::builtin_gpu_names().size() == 26);
  CHECK(io::builtin_model_names().size() == 26);
}

TEST_CASE("roofline time, bound and attainable fraction", "[roofline]") {
  const Roof roof{1000, 4};  // ridge 250 FLOP/byte
  CHECK(ridge_flop_per_byte(roof) == 250);
  // 1 GFLOP and 1 GB: compute 1e9 / 1e15 s = 1 us; memory 1e9 / 4e12 s = 250 us.
  const KernelCost cost{1e9, 1e9};
  CHECK(roofline_time_ms(cost, roof, {}) == Approx(0.25));
  CHECK(bound_of(cost, roof, {}) == Bound::memory);
  CHECK(attainable_fraction_of_peak(intensity(cost), roof) == Approx(1.0 / 250));
  // Half the bandwidth achieved doubles a memory-bound time.
  CHECK(roofline_time_ms(cost, roof, {1.0, 0.5}) == Approx(0.5));
  const KernelCost heavy{1e12, 1e9};  // AI 1000 > ridge
  CHECK(bound_of(heavy, roof, {}) == Bound::compute);
  CHECK(roofline_time_ms(heavy, roof, {}) == Approx(1.0));
  CHECK(attainable_fraction_of_peak(1000, roof) == 1.0);
}

TEST_CASE("Llama-3.1-70B decode intensity is 2G/b: 8 with BF16 KV, 16 with FP8 KV", "[roofline]") {
  const Platform bf16 = platform_for("llama-3.1-70b", "h100-sxm");
  const Platform fp8 = platform_for("llama-3.1-70b", "h100-sxm", 1, 1, "fp8");
  // G = 64 / 8 = 8: AI = 2·8/2 = 8 and 2·8/1 = 16.
  const PhaseRoofline at_bf16 = decode_roofline(bf16, std::nullopt);
  const PhaseRoofline at_fp8 = decode_roofline(fp8, std::nullopt);
  CHECK(at_bf16.intensity_flop_per_byte == Approx(8.0));
  CHECK(at_fp8.intensity_flop_per_byte == Approx(16.0));
  CHECK(at_bf16.bound == Bound::memory);
  CHECK(at_fp8.bound == Bound::memory);
  CHECK(at_bf16.ridge_flop_per_byte == Approx(989.4 / 3.35));
  // Independent of context, batch and (with kv_heads >= tp) tensor parallelism.
  const Platform tp8 = platform_for("llama-3.1-70b", "h100-sxm", 64, 8);
  CHECK(decode_roofline(tp8, std::nullopt).intensity_flop_per_byte == Approx(8.0));
  CHECK(intensity(decode_attention_cost(attention_shape(bf16), 131072)) == Approx(8.0));
}

TEST_CASE("levers on memory-bound decode: compute 1.00x, bytes 2.00x", "[roofline]") {
  const Platform platform = platform_for("llama-3.1-70b", "h100-sxm");
  Levers compute;
  compute.compute_speedup = 2;
  Levers bytes;
  bytes.bytes_reduction = 2;
  CHECK(decode_roofline(platform, compute).attention_speedup.value() == Approx(1.0));
  CHECK(decode_roofline(platform, bytes).attention_speedup.value() == Approx(2.0));
  Levers bandwidth;
  bandwidth.bandwidth_efficiency_before = 0.5;
  bandwidth.bandwidth_efficiency_after = 0.55;
  CHECK(decode_roofline(platform, bandwidth).attention_speedup.value() == Approx(1.1));
}

TEST_CASE("levers on compute-bound prefill: compute 2x, bytes little", "[roofline]") {
  const Platform platform = platform_for("llama-3.1-70b", "h100-sxm");
  // GQA prefill: AI = Hq·L / (Hq·a + Hkv·b) = 64·4096 / (128 + 16) = 1820.4
  Levers compute;
  compute.compute_speedup = 2;
  Levers bytes;
  bytes.bytes_reduction = 2;
  const PhaseRoofline none = prefill_roofline(platform, 4096, std::nullopt);
  CHECK(none.intensity_flop_per_byte == Approx(64.0 * 4096 / 144));
  CHECK(none.bound == Bound::compute);
  CHECK(none.attainable_fraction == 1.0);
  CHECK(prefill_roofline(platform, 4096, compute).attention_speedup.value() == Approx(2.0));
  CHECK(prefill_roofline(platform, 4096, bytes).attention_speedup.value() == Approx(1.0));
  // Prefill intensity grows with the prompt.
  CHECK(prefill_roofline(platform, 128, std::nullopt).intensity_flop_per_byte <
        none.intensity_flop_per_byte);
}

TEST_CASE("levers compose on the roofline", "[roofline]") {
  const Roof roof{1000, 4};                             // ridge 250
  const KernelCost cost = unit_cost_at_intensity(100);  // memory-bound by 2.5x
  Levers levers;
  levers.compute_speedup = 2;
  levers.bytes_reduction = 4;  // AI 400 after: now compute-bound
  const LeverOutcome out = apply_levers(cost, roof, levers);
  // before: max(100/1000, 1/4) = 0.25; after: max(50/1000, 0.25/4) = 0.0625 -> 4x
  CHECK(out.speedup == Approx(4.0));
  CHECK(out.bound_before == Bound::memory);
  CHECK(out.bound_after == Bound::memory);
  levers.bytes_reduction = 8;  // after: max(0.05, 0.03125) = 0.05 -> 5x, compute-bound
  const LeverOutcome more = apply_levers(cost, roof, levers);
  CHECK(more.speedup == Approx(5.0));
  CHECK(more.bound_after == Bound::compute);
  const auto breakdown = lever_breakdown(levers);
  REQUIRE(breakdown.size() == 3);
  CHECK(breakdown[0].first == LeverKind::compute);
  CHECK(breakdown[1].first == LeverKind::bytes);
  CHECK(breakdown[2].first == LeverKind::combined);
}

TEST_CASE("MLA decode intensity is computed from its own shapes", "[roofline]") {
  // DeepSeek-R1: Hq 128, r 512, d_rope 64. FLOPs/position = 2·128·(2·512 + 64) = 278,528;
  // bytes/position = (512 + 64)·b. BF16: 241.8; FP8: 483.6 (above H100's BF16 ridge 295.3).
  const Platform bf16 = platform_for("deepseek-r1", "h100-sxm");
  const Platform fp8 = platform_for("deepseek-r1", "h100-sxm", 1, 1, "fp8");
  CHECK(decode_roofline(bf16, std::nullopt).intensity_flop_per_byte == Approx(278528.0 / 1152.0));
  CHECK(decode_roofline(bf16, std::nullopt).bound == Bound::memory);
  CHECK(decode_roofline(fp8, std::nullopt).intensity_flop_per_byte == Approx(278528.0 / 576.0));
  CHECK(decode_roofline(fp8, std::nullopt).bound == Bound::compute);
  // tp 8 splits the heads but replicates the latent: 16 heads per GPU, AI / 8.
  const Platform tp8 = platform_for("deepseek-r1", "h100-sxm", 1, 8);
  CHECK(decode_roofline(tp8, std::nullopt).intensity_flop_per_byte ==
        Approx(278528.0 / 1152.0 / 8.0));
}

TEST_CASE("sliding-window layers are capped at the window", "[roofline]") {
  const ModelArch oss = io::load_model("gpt-oss-120b");
  CHECK(oss.sliding_window_layers == 18);
  CHECK(oss.sliding_window_tokens == 128);
  // 18 full layers see the whole context, 18 windowed layers at most 128 positions.
  CHECK(attended_positions(oss, 10000) == 18.0 * 10000 + 18.0 * 128);
  CHECK(attended_positions(oss, 100) == 36.0 * 100);
  // Prefill: windowed pairs L·W - W^2/2 instead of L^2/2.
  const Platform platform = platform_for("gpt-oss-120b", "h100-sxm");
  AttentionShape shape = attention_shape(platform);
  const KernelCost cost = prefill_attention_cost(shape, 4096);
  const double per_pair = 4.0 * 64 * 64;  // 4·Hq·d
  const double pairs = 18 * (4096.0 * 4096 / 2) + 18 * (4096.0 * 128 - 128.0 * 128 / 2);
  CHECK(cost.flops == Approx(per_pair * pairs));
}

TEST_CASE("tensor parallelism must split the heads", "[roofline]") {
  CHECK_THROWS_AS(platform_for("llama-3.1-70b", "h100-sxm", 1, 3), InputError);
  CHECK_THROWS_WITH(platform_for("llama-3.1-70b", "h100-sxm", 1, 3),
                    Catch::Contains("cannot split"));
  CHECK_NOTHROW(platform_for("llama-3.1-8b", "h100-sxm", 1, 16));  // KV heads replicated
  PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-8b"), Provenance::given};
  choice.gpu = {io::load_gpu("a100-sxm-80gb"), Provenance::given};
  choice.precision = "fp8";
  CHECK_THROWS_WITH(make_platform(choice), Catch::Contains("no dense fp8 peak"));
}

TEST_CASE("efficiencies must lie in (0, 1]", "[roofline]") {
  CHECK(io::parse_efficiency("0.6", "--x") == Approx(0.6));
  CHECK(io::parse_efficiency("60%", "--x") == Approx(0.6));
  CHECK(io::parse_efficiency("1", "--x") == 1.0);
  CHECK_THROWS_AS(io::parse_efficiency("0", "--x"), InputError);
  CHECK_THROWS_AS(io::parse_efficiency("1.2", "--x"), InputError);
  CHECK_THROWS_AS(io::parse_efficiency("-0.5", "--x"), InputError);
  CHECK_THROWS_WITH(io::parse_efficiency("1.5", "--bandwidth-efficiency"),
                    Catch::Contains("outside (0, 1]"));
  const auto change = io::parse_efficiency_change("0.5:0.55", "--bandwidth-efficiency");
  CHECK(change.first == Approx(0.5));
  CHECK(change.second == Approx(0.55));
  CHECK(io::parse_efficiency_change("0.7", "--x").second == Approx(0.7));
  CHECK_THROWS_WITH(io::parse_efficiency_change("0.5:2", "--bandwidth-efficiency"),
                    Catch::Contains("after ':'"));
}

TEST_CASE("roofline analysis with --ai and illustrative levers", "[roofline]") {
  RooflineQuery query;
  query.gpu_name = "h100-sxm";
  query.peak_tflops = {989.4, Provenance::workload};
  query.bandwidth_tbs = {3.35, Provenance::workload};
  query.given_intensity = 8.0;
  query.phase = Phase::decode;
  const RooflineResult result = analyse_roofline(query);
  CHECK(result.intensity_source == Provenance::given);
  CHECK(result.bound == Bound::memory);
  CHECK(result.attainable_tflops == Approx(8.0 * 3.35));
  CHECK(result.levers_illustrative);
  REQUIRE(result.levers.size() == 2);
  CHECK(result.levers[0].outcome.speedup == Approx(1.0));
  CHECK(result.levers[1].outcome.speedup == Approx(2.0));
  CHECK_FALSE(result.time_ms.has_value());
  CHECK(result.warnings.empty());
}

TEST_CASE("a pure compute speedup on memory-bound decode is a warning", "[roofline]") {
  RooflineQuery query;
  query.gpu_name = "h100-sxm";
  query.peak_tflops = {989.4, Provenance::workload};
  query.bandwidth_tbs = {3.35, Provenance::workload};
  query.platform = platform_for("llama-3.1-70b", "h100-sxm", 1, 8);
  query.phase = Phase::decode;
  query.levers.compute_speedup = 2;
  query.levers_given = true;
  const RooflineResult result = analyse_roofline(query);
  REQUIRE(result.levers.size() == 1);
  CHECK(result.levers[0].outcome.speedup == Approx(1.0));
  REQUIRE(result.warnings.size() == 1);
  CHECK(kspeed::report::warning_code(result.warnings[0]) ==
        "decode_attention_compute_speedup_no_gain");
  CHECK(result.warnings[0].number("speedup") == Approx(1.0));
  CHECK_THAT(kspeed::report::warning_sentence(result.warnings[0]), Catch::Contains("memory-bound"));
}

TEST_CASE("unknown presets get a did-you-mean", "[roofline]") {
  CHECK_THROWS_AS(io::load_gpu("h100"), InputError);
  // Three H100 presets are 4 edits from "h100": the first in name order is suggested.
  CHECK_THROWS_WITH(io::load_gpu("h100"), Catch::Contains("did you mean 'h100-nvl'?"));
  CHECK_THROWS_WITH(io::load_gpu("h10-sxm"), Catch::Contains("did you mean 'h100-sxm'?"));
  CHECK_THROWS_WITH(io::load_gpu("tpu"), Catch::Contains("kspeed gpus lists them"));
  CHECK_THROWS_WITH(io::load_model("llama-3.1-7b"), Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(io::load_model("qwen3"), Catch::Contains("did you mean 'qwen3-"));
  CHECK_THROWS_WITH(io::load_model("missing/model.json"), Catch::Contains("does not exist"));
}

namespace {

const char* kGoodModel = R"({
  "layers": 4,
  "attention": {"type": "gqa", "query_heads": 8, "kv_heads": 2, "head_dim": 64},
  "parameters": {"total_billions": 1, "active_billions": 1},
  "weight_dtype": "bf16",
  "kv_dtype": "fp8"
})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("model files are validated", "[roofline]") {
  const ModelArch good = io::parse_model(kGoodModel, "m.json");
  CHECK(good.kv_heads == 2);
  CHECK(good.weight_bytes_per_param == 2);
  auto fails_with = [](const std::string& text, const std::string& needle) {
    INFO(text);
    CHECK_THROWS_AS(io::parse_model(text, "m.json"), InputError);
    CHECK_THROWS_WITH(io::parse_model(text, "m.json"), Catch::Contains(needle));
  };
  fails_with(with(kGoodModel, "\"kv_heads\"", "\"kv_head\""), "did you mean 'kv_heads'?");
  fails_with(with(kGoodModel, "\"kv_heads\": 2", "\"kv_heads\": 3"), "multiple of kv_heads");
  fails_with(with(kGoodModel, "\"head_dim\": 64", "\"head_dim\": 64, \"kv_lora_rank\": 512"),
             "does not apply to attention type 'gqa'");
  fails_with(with(kGoodModel, "\"gqa\"", "\"mha\""), "unknown attention type 'mha'");
  fails_with(with(kGoodModel, "\"fp8\"", "\"fp9\""), "did you mean 'fp8'?");
  fails_with(with(kGoodModel, "\"active_billions\": 1", "\"active_billions\": 2"),
             "cannot exceed the total");
  fails_with(with(kGoodModel, "\"layers\": 4", "\"layers\": 0"), "whole number >= 1");
  fails_with(with(kGoodModel, "\"layers\": 4", "\"layers\": 4.5"), "whole number >= 1");
  fails_with(with(kGoodModel, "\"layers\": 4,", ""), "missing required key 'layers'");
  fails_with(with(kGoodModel, "\"head_dim\": 64",
                  "\"head_dim\": 64, \"sliding_window\": {\"layers\": 9, \"window_tokens\": 128}"),
             "cannot exceed the model's layers");
  fails_with("{\"layers\": 4,", "the JSON ends early");
  fails_with("[]", "expected an object");
}

TEST_CASE("GPU files are validated", "[roofline]") {
  const char* good =
      R"({"peak_dense_tflops": {"bf16": 100}, "hbm_bandwidth_tbs": 1, "memory_gb": 16})";
  CHECK(io::parse_gpu(good, "g.json").hbm_bandwidth_tbs == 1);
  CHECK_THROWS_WITH(io::parse_gpu(R"({"peak_dense_tflops": {"fp8": 100}, "hbm_bandwidth_tbs": 1,
                        "memory_gb": 16})",
                                  "g.json"),
                    Catch::Contains("missing 'bf16'"));
  CHECK_THROWS_WITH(io::parse_gpu(R"({"peak_dense_tflops": {"bf16": 100}, "hbm_bandwidth_tbs": 3350,
                        "memory_gb": 16})",
                                  "g.json"),
                    Catch::Contains("looks like GB/s"));
  CHECK_THROWS_WITH(io::parse_gpu(R"({"peak_dense_tflops": {"bf61": 100}, "hbm_bandwidth_tbs": 1,
                        "memory_gb": 16})",
                                  "g.json"),
                    Catch::Contains("did you mean 'bf16'?"));
  CHECK_THROWS_WITH(io::parse_gpu(R"({"peak_dense_tflops": {"bf16": -1}, "hbm_bandwidth_tbs": 1,
                        "memory_gb": 16})",
                                  "g.json"),
                    Catch::Contains("greater than 0"));
}

TEST_CASE("lever invariants hold across the roofline", "[roofline]") {
  // For factors >= 1 and an efficiency that does not drop: the kernel never gets slower, and it
  // never gains more than its largest single factor (compute, or bytes times the efficiency gain).
  const Roof roof{989.4, 3.35};
  for (double ai : {0.5, 8.0, 100.0, 295.0, 300.0, 1000.0, 1e5}) {
    for (double compute : {1.0, 1.5, 2.0, 8.0}) {
      for (double bytes : {1.0, 2.0, 4.0}) {
        for (double after : {0.5, 0.75, 1.0}) {
          Levers levers;
          levers.compute_speedup = compute;
          levers.bytes_reduction = bytes;
          levers.bandwidth_efficiency_before = 0.5;
          levers.bandwidth_efficiency_after = after;
          const LeverOutcome out = apply_levers(unit_cost_at_intensity(ai), roof, levers);
          INFO("ai " << ai << " compute " << compute << " bytes " << bytes << " after " << after);
          CHECK(out.time_after_ms <= out.time_before_ms * (1 + 1e-12));
          CHECK(out.speedup >= 1 - 1e-12);
          CHECK(out.speedup <= std::max(compute, bytes * after / 0.5) * (1 + 1e-12));
          CHECK(out.speedup == Approx(out.time_before_ms / out.time_after_ms));
        }
      }
    }
  }
}

}  // namespace unit_roofline
