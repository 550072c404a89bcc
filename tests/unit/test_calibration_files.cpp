// Calibration files: AccelMark's result (one request at a time, at the suite's p50 lengths) and a
// per-request benchmark log, read into latency points and fitted to a deployment. The real files
// (../shared/data) are used when present; each fixture states the answer it must give.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_calibration_files {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kShared = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
  return false;
}

Platform platform_for(const std::string& model, const std::string& gpu, std::int64_t batch = 1) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.batch = {batch, Provenance::given};
  return make_platform(choice);
}

// An AccelMark-shaped result with round numbers, and its suite.
constexpr const char* kResult = R"({"schema_version": "1.0", "suite_id": "suite_X",
  "model": {"model_id": "meta-llama/Meta-Llama-3-8B-Instruct"},
  "metrics": {"interactive": {"ttft_ms_p50": 25.0, "tpot_ms_p50": 8.0}}})";
constexpr const char* kSuite = R"({"request_distribution":
  {"input_tokens_p50": 300, "output_tokens_p50": 200}})";

}  // namespace

TEST_CASE("AccelMark: the interactive p50s at the suite's p50 lengths", "[calibration]") {
  CHECK(io::looks_like_accelmark_result(kResult));
  CHECK_FALSE(io::looks_like_accelmark_result(R"({"records": []})"));
  const io::CalibrationFile file = io::parse_accelmark_result(kResult, kSuite, "r.json");
  CHECK(file.format == "accelmark-result");
  CHECK(file.stated_model == "meta-llama/Meta-Llama-3-8B-Instruct");
  CHECK(file.concurrency == 1);
  REQUIRE(file.points.size() == 1);
  CHECK(file.points[0].prompt_tokens == 300);
  CHECK(file.points[0].response_tokens == 200);
  CHECK(*file.points[0].ttft_ms == 25.0);
  CHECK(*file.points[0].tpot_ms == 8.0);
  CHECK(file.typical_prompt_tokens == 300);
  CHECK_THROWS_WITH(io::parse_accelmark_result(kResult, "", "r.json"),
                    Catch::Contains("suite_X.json") && Catch::Contains("workload/"));
  CHECK_THROWS_WITH(
      io::parse_accelmark_result(R"({"suite_id": "s", "metrics": {}})", kSuite, "r.json"),
      Catch::Contains("metrics.interactive"));
}

TEST_CASE("AccelMark's real run of Llama-3-8B on one H100: both p50s met, overhead 12.3 ms",
          "[calibration]") {
  const std::string path =
      kShared + "serving/accelmark-h100-llama3-8b-vllm0.7.3/result/interactive/result.json";
  if (!present(path)) return;
  const io::CalibrationFile file = io::read_calibration_file(path);
  REQUIRE(file.points.size() == 1);
  CHECK(file.points[0].prompt_tokens == 280);    // suite_A.json input_tokens_p50
  CHECK(file.points[0].response_tokens == 310);  // output_tokens_p50
  const CalibratedStepModel fit = calibrate_to_latencies(
      modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm")), file.points, path);
  for (const PointResidual& r : fit.residuals) CHECK(std::abs(r.residual_ms()) < 1e-6);
  // TPOT 7.74 = 0.746 (the launch floor) + s · (7.5937 + 435 · 6.6314e-5): the bandwidth side
  // moves by 0.9176, so the effective η_bw is 0.643 (the setting run's own, validation.md
  // section 7); the 280-token step is 6.968 ms of weights + 0.746 + 0.028 ms attention.
  CHECK(fit.efficiency.bandwidth == Approx(0.643).epsilon(1e-3));
  CHECK(fit.request_overhead_ms == Approx(20.08 - 6.968 - 0.746 - 0.028).epsilon(1e-3));
}

TEST_CASE("AIPerf's per-request sample: 89 points at the aggregate's concurrency 100",
          "[calibration]") {
  const std::string path = kShared + "bench/aiperf-gptoss20b-profile_export.jsonl";
  if (!present(path)) return;
  const io::CalibrationFile file = io::read_calibration_file(path);
  CHECK(file.points.size() == 89);  // 100 requests, 11 cancelled
  CHECK(file.concurrency == 100);   // profile_export_aiperf.json input_config.loadgen
  CHECK(file.stated_model == "openai/gpt-oss-20b");
  CHECK(file.typical_prompt_tokens == 550);
  CHECK(file.typical_response_tokens == 247);
  const CalibratedStepModel fit = calibrate_to_latencies(
      modelled_step_model(platform_for("gpt-oss-20b", "h100-sxm", 100)), file.points, path);
  CHECK(fit.residuals.size() == 178);
  // The reads at the roof (η_bw 1: the bound) leave 23.4 ms a step to the fixed cost and the
  // launch floor (24 MoE layers · 13 · 2.59 µs = 0.808 ms): checked against an independent
  // least-squares fit in python over the same file.
  CHECK(fit.efficiency.bandwidth == Approx(1.0).epsilon(1e-6));
  CHECK(fit.model.launch_floor_ms == Approx(24 * 13 * 2.59e-3));
  CHECK(fit.model.fixed_ms == Approx(23.4186 - 24 * 13 * 2.59e-3).epsilon(1e-4));
  CHECK(io::read_calibration_file(path, 64).concurrency == 64);
  // Each request's decode against the requests decoding alongside it, from the records' own
  // timestamps: 68.7 to 88.1 (python over the file), so the per-sequence cost is identifiable,
  // but this burst's tail decodes faster with fewer alongside (slope -0.70 ms per sequence in
  // python's least squares): no evidence of a per-sequence cost, which stays the default.
  REQUIRE(file.decode_points.size() == 89);
  double fewest = 1e9;
  double most = 0;
  for (const RunningDecodeObservation& p : file.decode_points) {
    fewest = std::min(fewest, p.running_sequences);
    most = std::max(most, p.running_sequences);
  }
  CHECK(fewest == Approx(68.737).epsilon(1e-4));
  CHECK(most == Approx(88.145).epsilon(1e-4));
  const CalibratedStepModel run =
      calibrate_to_run(modelled_step_model(platform_for("gpt-oss-20b", "h100-sxm", 100)),
                       file.points, file.decode_points, path);
  CHECK(run.model.ms_per_sequence == 0);
  CHECK(run.origins.per_sequence.provenance == Provenance::default_value);
  CHECK_THAT(run.origins.per_sequence.source, Catch::Contains("do not grow"));
  CHECK(run.model.fixed_ms == Approx(fit.model.fixed_ms));
}

}  // namespace unit_calibration_files
