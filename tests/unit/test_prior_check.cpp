// The uncalibrated prior against measured one-at-a-time latencies (engine/deployment/
// prior_check.hpp), and the GPU presets it runs on. docs/validation.md section 7 prints the
// same check from the command line (kspeed validate --prior).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kspeed/engine/deployment/prior_check.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"

namespace unit_prior_check {

using namespace kspeed;
using namespace kspeed::engine;
using Catch::Matchers::Contains;

namespace {

LatencyObservation observed(double prompt, double response, double ttft, double tpot) {
  LatencyObservation point;
  point.label = "request";
  point.prompt_tokens = prompt;
  point.response_tokens = response;
  point.ttft_ms = ttft;
  point.tpot_ms = tpot;
  return point;
}

PriorCheck check_with(const std::string& deployment, double ttft_error, double tpot_error) {
  PriorCheck check;
  check.deployment = deployment;
  check.points.push_back({"p", LatencyKind::ttft, 100, 100 * (1 + ttft_error)});
  check.points.push_back({"p", LatencyKind::tpot, 10, 10 * (1 + tpot_error)});
  return check;
}

std::string prior_shared_data() {
  if (const char* env = std::getenv("KSPEED_SHARED_DATA")) return std::string(env) + "/";
  return std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";
}

}  // namespace

TEST_CASE("the prior's prediction of a run is the median over its requests, cached TTFTs out",
          "[prior_check]") {
  const CalibratedStepModel prior =
      modelled_step_model(test::platform_for("llama-3.1-8b", "h100-sxm"));
  const std::vector<LatencyObservation> points = {
      observed(100, 50, 30, 8), observed(2000, 300, 90, 9), observed(800, 150, 50, 10)};
  const PriorCheck check = check_prior(prior, points, {0, 1500, 0}, "d", "run.csv");
  REQUIRE(check.points.size() == 2);
  CHECK(check.requests == 3);
  CHECK(check.cached_ttfts_left_out == 1);
  CHECK(check.prompt_tokens == 800);
  CHECK(check.response_tokens == 150);
  // TTFT: the two uncached requests (100 and 800 tokens), medians of two are their means.
  const PointResidual& ttft = check.points[0];
  CHECK(ttft.kind == LatencyKind::ttft);
  CHECK(ttft.measured_ms == Approx(40));
  CHECK(ttft.predicted_ms == Approx(0.5 * (request_latency(prior, 100, 50).ttft_ms() +
                                           request_latency(prior, 800, 150).ttft_ms())));
  // TPOT: all three requests; the middle prediction is the 800-token request's.
  const PointResidual& tpot = check.points[1];
  CHECK(tpot.measured_ms == Approx(9));
  CHECK(tpot.predicted_ms == Approx(request_latency(prior, 800, 150).tpot_ms()));
  CHECK(prior_error(tpot) == Approx(tpot.predicted_ms / 9 - 1));
  CHECK_THROWS_WITH(check_prior(prior, {}, {}, "d", "empty.csv"), Contains("empty.csv"));
}

TEST_CASE("the summary across deployments: median and worst |error| per latency", "[prior_check]") {
  const std::vector<PriorCheck> checks = {check_with("a", 0.10, -0.05),
                                          check_with("b", -0.40, 0.20), check_with("c", 0.25, 0.01),
                                          check_with("d", -0.30, -0.08)};
  const std::vector<PriorErrorSummary> summary = summarize_prior_checks(checks);
  REQUIRE(summary.size() == 2);
  CHECK(summary[0].kind == LatencyKind::ttft);
  CHECK(summary[0].deployments == 4);
  CHECK(summary[0].median_abs_error == Approx(0.275));  // |0.25|, |-0.30| in the middle
  CHECK(summary[0].worst_abs_error == Approx(0.40));
  CHECK(summary[0].worst_deployment == "b");
  CHECK(summary[1].median_abs_error == Approx(0.065));  // 0.05 and 0.08
  CHECK(summary[1].worst_abs_error == Approx(0.20));
  CHECK(summary[1].worst_deployment == "b");
}

TEST_CASE("the new GPU presets carry their datasheet figures", "[prior_check][presets]") {
  struct Figures {
    const char* name;
    double bf16_tflops;
    double bandwidth_tbs;
    double memory_gb;
  };
  const std::vector<Figures> presets = {
      {"a800-sxm-80gb", 312, 2.039, 80}, {"h20", 148, 4.0, 96},
      {"h20-3e", 148, 4.8, 141},         {"rtx-5090", 209.5, 1.792, 32},
      {"rtx-6000-ada", 364.2, 0.96, 48}, {"gh200", 989.4, 4.0, 96},
      {"gb200", 2500, 8.0, 186},         {"b300", 2250, 8.0, 288},
      {"mi250x", 191.5, 1.6384, 64},     {"mi355x", 2516.6, 8.0, 288}};
  for (const Figures& expected : presets) {
    INFO(expected.name);
    const Gpu gpu = io::load_gpu(expected.name);
    CHECK(peak_tflops(gpu, "bf16") == Approx(expected.bf16_tflops));
    CHECK(gpu.hbm_bandwidth_tbs == Approx(expected.bandwidth_tbs));
    CHECK(gpu.memory_gb == Approx(expected.memory_gb));
    CHECK(gpu.interconnect.has_value());
    CHECK_FALSE(gpu.source.empty());
  }
}

TEST_CASE("the prior's defaults: per memory family, from the setting runs", "[prior_check]") {
  // step_calibration.hpp: each family's median of the achieved fractions of AccelMark suite A.
  // (TPOT p50 less the 0.746 ms launch floor of 32 dense layers).
  CHECK(bandwidth_prior(MemoryKind::hbm).efficiency == 0.59);
  CHECK(bandwidth_prior(MemoryKind::gddr).efficiency == 0.81);
  CHECK(bandwidth_prior(MemoryKind::unstated).efficiency == 0.64);
  CHECK(bandwidth_prior(MemoryKind::gddr).low == Approx(0.771));
  CHECK(bandwidth_prior(MemoryKind::hbm).low == Approx(0.260));
  // The presets say which family: a GeForce card reads its weights at the GDDR prior.
  CHECK(io::load_gpu("rtx-4090").memory == MemoryKind::gddr);
  CHECK(io::load_gpu("l4").memory == MemoryKind::gddr);
  CHECK(io::load_gpu("h100-sxm").memory == MemoryKind::hbm);
  CHECK(io::load_gpu("mi300x").memory == MemoryKind::hbm);
  const CalibratedStepModel gddr =
      modelled_step_model(test::platform_for("llama-3.1-8b", "rtx-4090"));
  CHECK(gddr.efficiency.bandwidth == 0.81);
  CHECK(gddr.model.weights_ms == Approx(7504658432.0 * 2 / (1.008e9 * 0.81)));
  // The launch floor: 32 dense layers · 9 unpriced kernels · 2.59 µs.
  CHECK(gddr.model.launch_floor_ms == Approx(32 * 9 * 2.59e-3));
  REQUIRE(gddr.prior.has_value());
  CHECK(gddr.request_overhead_ms == kPriorRequestOverheadMs);
  CHECK(gddr.origins.request_overhead.provenance == Provenance::default_value);
  CHECK(gddr.model.fixed_ms == 0);
  // A given efficiency is not the prior: no prior range is claimed for it.
  StepEfficiency given;
  given.bandwidth = 0.9;
  CHECK_FALSE(
      modelled_step_model(test::platform_for("llama-3.1-8b", "rtx-4090"), given).prior.has_value());
}

TEST_CASE("a GPU file's memory_type: hbm, gddr, or left out; anything else is refused",
          "[prior_check]") {
  const std::string base =
      R"({"name": "g", "peak_dense_tflops": {"bf16": 100}, "hbm_bandwidth_tbs": 1, "memory_gb": 24)";
  CHECK(io::parse_gpu(base + "}", "g.json").memory == MemoryKind::unstated);
  CHECK(io::parse_gpu(base + R"(, "memory_type": "gddr"})", "g.json").memory == MemoryKind::gddr);
  CHECK_THROWS_WITH(io::parse_gpu(base + R"(, "memory_type": "hbm3"})", "g.json"),
                    Contains("memory_type") && Contains("expected \"hbm\""));
}

TEST_CASE("the prior against eight of the nine AccelMark suite-A runs that set it (in sample)",
          "[prior_check][validation]") {
  const std::string folder =
      prior_shared_data() + "serving/accelmark-suiteA-more-gpus-llama3-8b-vllm0.7.3/";
  const std::string suite =
      prior_shared_data() + "serving/accelmark-h100-llama3-8b-vllm0.7.3/workload/suite_A.json";
  if (!std::filesystem::exists(folder) || !std::filesystem::exists(suite)) {
    WARN("skipped: " << folder << " is not present (../shared/data holds the real files)");
    return;
  }
  const std::string suite_text = io::read_text_file(suite, "suite");
  struct Run {
    const char* folder;
    const char* gpu;
  };
  const std::vector<Run> runs = {{"a100-sxm4-80gb", "a100-sxm-80gb"},
                                 {"a800-sxm4-80gb", "a800-sxm-80gb"},
                                 {"h20-3e", "h20-3e"},
                                 {"h200", "h200-sxm"},
                                 {"rtx-3090", "rtx-3090"},
                                 {"rtx-4090", "rtx-4090"},
                                 {"rtx-5090", "rtx-5090"},
                                 {"rtx-6000-ada", "rtx-6000-ada"}};
  std::vector<PriorCheck> checks;
  for (const Run& run : runs) {
    const std::string path = folder + run.folder + "/interactive/result.json";
    const io::CalibrationFile file =
        io::parse_accelmark_result(io::read_text_file(path, "run"), suite_text, path);
    const CalibratedStepModel prior =
        modelled_step_model(test::platform_for("llama-3.1-8b", run.gpu));
    checks.push_back(check_prior(prior, file.points, file.cached_tokens, run.gpu, path));
  }
  const std::vector<PriorErrorSummary> summary = summarize_prior_checks(checks);
  REQUIRE(summary.size() == 2);
  // A Python replica (7,504,658,432 weights at 2 bytes, 131,072 KV bytes a token, 280 in and
  // 310 out, η 0.59 HBM / 0.81 GDDR, a 0.746 ms launch floor beside the reads, 0.72 / 0.75
  // compute, 19.0 ms overhead) gives the same.
  REQUIRE(checks[3].points.size() == 2);
  CHECK(checks[3].points[0].predicted_ms == Approx(19.0 + 6.074).epsilon(1e-3));  // H200 TTFT
  CHECK(checks[2].points[1].predicted_ms == Approx(6.066).epsilon(1e-3));         // H20-3e TPOT
  CHECK(checks[6].points[1].predicted_ms == Approx(11.126).epsilon(1e-3));        // RTX 5090 TPOT
  // In sample (these runs set the defaults): not a validation figure, what the fit leaves.
  CHECK(summary[1].worst_deployment == "h20-3e");
  CHECK(summary[1].worst_abs_error == Approx(0.5265).margin(5e-4));
}

TEST_CASE("the prior against AccelMark suite D's seven runs, which set none of it",
          "[prior_check][validation]") {
  // tests/data/serving/accelmark-prior-checks (Apache-2.0): 28,650-token prompts, 256 out.
  const std::string folder =
      std::string(KSPEED_SOURCE_DIR) + "/tests/data/serving/accelmark-prior-checks/";
  const std::string suite_text = io::read_text_file(folder + "suite_D.json", "suite");
  struct Run {
    const char* folder;
    const char* gpu;
  };
  const std::vector<Run> runs = {{"h100-suite-D", "h100-sxm"},
                                 {"a100-sxm4-80gb-suite-D", "a100-sxm-80gb"},
                                 {"a800-sxm4-80gb-suite-D", "a800-sxm-80gb"},
                                 {"h200-suite-D", "h200-sxm"},
                                 {"h20-3e-suite-D", "h20-3e"},
                                 {"rtx-5090-suite-D", "rtx-5090"},
                                 {"rtx-6000-ada-suite-D", "rtx-6000-ada"}};
  std::vector<PriorCheck> checks;
  for (const Run& run : runs) {
    const std::string path = folder + run.folder + "/interactive/result.json";
    const io::CalibrationFile file =
        io::parse_accelmark_result(io::read_text_file(path, "run"), suite_text, path);
    checks.push_back(check_prior(modelled_step_model(test::platform_for("llama-3.1-8b", run.gpu)),
                                 file.points, file.cached_tokens, run.gpu, path));
  }
  const std::vector<PriorErrorSummary> summary = summarize_prior_checks(checks);
  REQUIRE(summary.size() == 2);
  // A Python replica (docs/validation.md section 7) gives the same: the A800 at +1.7% / +2.4%,
  // the H20-3e's long-context decode at -80.2%, the RTX 6000 Ada's 28.6K prefill at -58.0%.
  REQUIRE(checks[2].points.size() == 2);
  CHECK(checks[2].points[0].predicted_ms == Approx(2852.83).epsilon(1e-4));  // A800 TTFT
  CHECK(checks[2].points[1].predicted_ms == Approx(16.358).epsilon(1e-3));   // A800 TPOT
  CHECK(summary[0].median_abs_error == Approx(0.217).margin(1e-3));
  CHECK(summary[0].worst_deployment == "rtx-6000-ada");
  CHECK(summary[0].worst_abs_error == Approx(0.580).margin(1e-3));
  CHECK(summary[1].median_abs_error == Approx(0.137).margin(1e-3));
  CHECK(summary[1].worst_deployment == "h20-3e");
  CHECK(summary[1].worst_abs_error == Approx(0.791).margin(1e-3));
}

}  // namespace unit_prior_check
