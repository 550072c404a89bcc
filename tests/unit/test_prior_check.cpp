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

TEST_CASE("the uncalibrated prior on AccelMark suite A's eight GPUs (one at a time)",
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
  for (const PriorCheck& check : checks) {
    for (const PointResidual& point : check.points) {
      UNSCOPED_INFO(check.deployment << " " << to_string(point.kind) << " measured "
                                     << point.measured_ms << " prior " << point.predicted_ms
                                     << " error " << prior_error(point));
    }
  }
  // A Python replica of the roofline (7,504,658,432 weights read at 2 bytes, 131,072 KV bytes a
  // token, 280-token prompts and 310 outputs from suite_A.json, the presets' peaks and
  // bandwidths at 0.58 / 0.72 / 0.75) gives the same errors: TTFT -59.5% (A100) to -7.5%
  // (RTX 3090), TPOT -57.8% (H20-3e) to +41.8% (RTX 5090).
  REQUIRE(checks[3].points.size() == 2);
  CHECK(checks[3].points[0].predicted_ms == Approx(5.927).epsilon(1e-3));   // H200 TTFT
  CHECK(checks[2].points[1].predicted_ms == Approx(5.412).epsilon(1e-3));   // H20-3e TPOT
  CHECK(checks[6].points[1].predicted_ms == Approx(14.496).epsilon(1e-3));  // RTX 5090 TPOT
  // The targets of issue 28 are 25% (TTFT) and 15% (TPOT): the prior misses both.
  CHECK(summary[0].median_abs_error == Approx(0.4603).margin(5e-4));
  CHECK(summary[0].worst_abs_error == Approx(0.7875).margin(5e-4));
  CHECK(summary[0].worst_deployment == "h200-sxm");
  CHECK(summary[1].median_abs_error == Approx(0.2912).margin(5e-4));
  CHECK(summary[1].worst_abs_error == Approx(0.5775).margin(5e-4));
  CHECK(summary[1].worst_deployment == "h20-3e");
}

}  // namespace unit_prior_check
