// mix --replay on the user's deployment: the KV capacity its GPU memory leaves beside the
// weights, and the step model modelled from --model/--gpu or fitted to --calibrate's file, built
// directly (fixtures.hpp, engine::resolve_deployment) and worded by the report; the command
// itself where the test is of the command. The AccelMark result is used when present.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kspeed/cli/app.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_mix_deployment {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kShared = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";
const std::string kLog = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/mix/azure-sample.csv";

using test::platform_for;

// Runs `kspeed mix` with JSON to a file; returns the document and the exit code.
nlohmann::json run_mix(std::vector<std::string> args, int& exit_code) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / "kspeed-mix-deployment.json";
  std::filesystem::remove(out);
  args.insert(args.begin(), {"kspeed", "mix", kLog});
  for (const char* extra : {"--format", "json", "-o"}) args.emplace_back(extra);
  args.push_back(out.string());
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  exit_code = cli::run(static_cast<int>(argv.size()), argv.data());
  if (!std::filesystem::exists(out)) return nullptr;
  std::ifstream in(out);
  nlohmann::json document = nlohmann::json::parse(in);
  std::filesystem::remove(out);
  return document;
}

}  // namespace

TEST_CASE("KV capacity of Llama-3.1-8B on one H100: budget - weights - profile-run reserves",
          "[kv_capacity]") {
  KvSizing sizing;  // vLLM's 0.9, 16-token blocks, 8,192 tokens and 256 sequences
  const KvCapacity kv = kv_cache_capacity(platform_for("llama-3.1-8b", "h100-sxm"), sizing);
  CHECK_FALSE(kv.total_is_visible);  // the preset cites no visible memory: its 80 GB datasheet
  CHECK(kv.budget_bytes == Approx(72e9));
  // 8,029,995,008 parameters from config.json's shapes (untied embeddings) in BF16: the
  // checkpoint's 8,030,261,248 less its 65 RMSNorm vectors of 4,096, which the shapes omit
  CHECK(kv.weight_bytes == Approx(8029995008.0 * 2).epsilon(1e-12));
  // LlamaMLP over 8,192 tokens: 8,192 · (3 · 4,096 + 3 · 14,336) · 2 bytes; the sampler's
  // 256 × 128,256 float32 logits (131 MB) are smaller
  CHECK(kv.activation_bytes == Approx(905969664.0));
  CHECK(kv.cuda_graph_bytes == 0);
  CHECK(kv.non_torch_bytes == Approx(0.2 * 1073741824.0));
  // vLLM's rotary cos/sin cache: 131,072 positions × 128 × 2 bytes
  CHECK(kv.rope_cache_bytes == Approx(33554432.0));
  // K and V, 8 KV heads of 128 in BF16, 32 layers
  CHECK(kv.kv_bytes_per_token == Approx(2.0 * 8 * 128 * 2 * 32));
  // (72e9 - 16,059,990,016 - 33,554,432 - 905,969,664 - 214,748,364.8) / (131,072 · 16)
  // = 26,123.9: python
  CHECK(kv.blocks == 26123);
}

TEST_CASE(
    "KV capacity splits weights, the FFN's activations and KV heads over tensor "
    "parallelism; no room is 0 blocks",
    "[kv_capacity]") {
  KvSizing sizing;
  sizing.max_seqs = 1024;  // vLLM's H100 default: 1,024 rows of logits (525 MB)
  const KvCapacity tp2 = kv_cache_capacity(platform_for("llama-3.1-8b", "h100-sxm", 2), sizing);
  CHECK(tp2.kv_bytes_per_token == Approx(65536));
  // 8,192 · (3 · 4,096 + 3 · 7,168) · 2 = 553,648,128 > 1,024 · 128,256 · 4 = 525,336,576
  CHECK(tp2.activation_bytes == Approx(553648128.0));
  // (72e9 - 8,029,995,008 - 33,554,432 - 553,648,128 - 214,748,364.8) / (65,536 · 16)
  // = 60,241.8 (the rotary cache is whole on every rank): python
  CHECK(tp2.blocks == 60241);
  // Llama-3.1-70B's 141 GB of BF16 weights do not fit one 80 GB GPU
  CHECK(kv_cache_capacity(platform_for("llama-3.1-70b", "h100-sxm"), sizing).blocks == 0);
}

TEST_CASE("mix --replay --model --gpu: the modelled step model and the memory's KV blocks",
          "[mix][kv_capacity]") {
  const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm", 1, true);
  const CalibratedStepModel modelled =
      modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  CHECK(deployment.step->model.weights_ms == Approx(modelled.model.weights_ms));
  CHECK(deployment.step->model.ms_per_kv_token == Approx(modelled.model.ms_per_kv_token));
  CHECK(report::step_model_source(deployment) ==
        "modelled: llama-3.1-8b on h100-sxm roofline at the cited default efficiencies");
  // vLLM's H100 defaults: 8,192 tokens, 1,024 sequences (the FFN's 906 MB peak still leads)
  CHECK(deployment.scheduler.kv_blocks == 26123);
  CHECK(report::kv_capacity_source(deployment)
            .rfind("modelled like vLLM's profile run (vLLM 0.6.5-0.20: memory outside PyTorch "
                   "grown since the worker's start, default): (80 GB × 0.9 (vLLM's default) − "
                   "14.96 GiB weights − 0.03 GiB rotary cache − 0.84 GiB activation peak at 8,192 "
                   "tokens − 0.00 GiB CUDA graphs − 0.20 GiB non-torch)",
                   0) == 0);
  CHECK(deployment.scheduler.request_overhead_ms == kspeed::engine::kPriorRequestOverheadMs);

  // Stated blocks and coefficients override, each labelled given
  DeploymentRequest request = test::request_for(platform_for("llama-3.1-8b", "h100-sxm"), true);
  request.scheduler.kv_blocks = 500;
  StepModel stated;
  stated.fixed_ms = 2;
  stated.weights_ms = 4.8;
  stated.ms_per_token = 0.023;
  stated.ms_per_prefill_pair = 7.5e-7;
  stated.ms_per_kv_token = 3.9e-5;
  request.step_model = StatedStepModel{stated, "--step-model"};
  const Deployment given = resolve_deployment(request);
  CHECK(given.scheduler.kv_blocks == 500);
  CHECK(report::kv_capacity_source(given) == "given: --kv-blocks");
  CHECK(report::step_model_source(given) == "given: --step-model");
  CHECK(given.step->model.weights_ms == 4.8);
}

TEST_CASE("mix --replay refuses what it cannot run, naming flags it takes", "[mix]") {
  int exit_code = -1;
  // No step model: exit 2 and nothing written (the deployment's refusals: test_deployment.cpp)
  CHECK(run_mix({"--replay"}, exit_code).is_null());
  CHECK(exit_code == 2);
  // Weights that leave no KV cache (0 blocks: test_deployment.cpp), worded by the command
  CHECK(
      run_mix({"--replay", "--model", "llama-3.1-70b", "--gpu", "h100-sxm"}, exit_code).is_null());
  CHECK(exit_code == 2);
  // --strict: the default workload's illustrative reference latencies reach the answer ...
  CHECK(run_mix({"--strict"}, exit_code).is_null());
  CHECK(exit_code == 2);
  // ... but not a named deployment's (its step model prices each request: modelled)
  CHECK_FALSE(
      run_mix({"--replay", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--strict"}, exit_code)
          .is_null());
  CHECK(exit_code == 0);
  // --fail-on modelled: the modelled step model reaches the replay
  CHECK(run_mix({"--replay", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ttft", "500ms",
                 "--ctx", "4k", "--tpot", "20ms", "--share", "0.3", "--fail-on", "modelled"},
                exit_code)
            .is_null());
  CHECK(exit_code == 2);
  CHECK_FALSE(
      run_mix({"--replay", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ttft", "500ms",
               "--ctx", "4k", "--tpot", "20ms", "--share", "0.3", "--fail-on", "illustrative"},
              exit_code)
          .is_null());
  CHECK(exit_code == 0);
}

TEST_CASE("mix --replay --calibrate: AccelMark's H100 run fits the step model and its overhead",
          "[mix][calibration]") {
  const std::string path =
      kShared + "serving/accelmark-h100-llama3-8b-vllm0.7.3/result/interactive/result.json";
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
    return;
  }
  const io::CalibrationFile file = io::read_calibration_file(path);
  DeploymentRequest request = test::request_for(platform_for("llama-3.1-8b", "h100-sxm"), true);
  request.calibration = CalibrationRun{file.source,        file.ttft_note,     file.points,
                                       file.cached_tokens, file.decode_points, file.fitted};
  const Deployment deployment = resolve_deployment(request);
  const CalibratedStepModel fit = calibrate_to_latencies(
      modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm")), file.points, path);
  CHECK(deployment.step->calibration == Provenance::fitted);
  CHECK(report::step_model_source(deployment).rfind("fitted: llama-3.1-8b on h100-sxm to ", 0) ==
        0);
  CHECK(deployment.step->model.weights_ms == Approx(fit.model.weights_ms));
  // The overhead the fit found (12.3 ms: test_calibration_files) is outside the queue
  CHECK(fit.request_overhead_ms == Approx(20.08 - 7.711 - 0.028).epsilon(1e-3));
  CHECK(deployment.scheduler.request_overhead_ms == Approx(fit.request_overhead_ms));
  // Stated coefficients and the calibration both set the step model: refused
  request.step_model = StatedStepModel{deployment.step->model, "--step-model"};
  CHECK_THROWS_AS(resolve_deployment(request), InputError);
}

TEST_CASE("mix on a deployment prices each request by its step model, alone", "[mix][deployment]") {
  const CalibratedStepModel step = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  MixModel model;
  model.step_model = step;
  model.kernel_speedup = {2.0, Provenance::given};
  model.phase = Phase::both;
  MixRun run(model);
  Request request;
  request.prompt_tokens = 4096;
  request.response_tokens = 256;
  const RequestOutcome& out = run.add(request);
  // The step model by hand: one prefill step of 4,096 tokens (4,096·4,097/2 causal pairs) and
  // the decode step at the mean context 4,096 + 256/2, alone.
  const StepModel& m = step.model;
  const double pairs = 4096.0 * 4097.0 / 2.0;
  const double prefill_other = std::max(m.weights_ms, m.ms_per_token * 4096);
  const double prefill_attention = m.ms_per_prefill_pair * pairs;
  const double ttft = step.request_overhead_ms + m.fixed_ms + prefill_other + prefill_attention;
  CHECK(out.ttft_source == LatencySource::modelled);
  CHECK(out.ttft_before_ms == Approx(ttft).epsilon(1e-12));
  CHECK(out.prefill_share == Approx(prefill_attention / ttft).epsilon(1e-12));
  CHECK(out.ttft_after_ms == Approx(ttft - prefill_attention / 2).epsilon(1e-12));
  const RequestLatency same = request_latency(step, 4096, 256);
  CHECK(out.ttft_before_ms == Approx(same.ttft_ms()).epsilon(1e-12));
  CHECK(out.tpot_source == LatencySource::modelled);
  CHECK(out.tpot_before_ms == Approx(same.tpot_ms()).epsilon(1e-12));
  CHECK(out.tpot_after_ms ==
        Approx(same.tpot_ms() - same.decode_step.decode_attention_ms / 2).epsilon(1e-12));
  // Llama-3.1-8B on one H100: ~16 GB of BF16 weights over 3.35 TB/s at η 0.58, a few ms a step.
  CHECK(out.tpot_before_ms > 7.0);
  CHECK(out.tpot_before_ms < 10.0);

  // A cached prefix: only the fresh tokens are computed, each after the cached ones.
  MixRun cached_run(model);
  request.cached_tokens = 3072;
  const RequestOutcome& cached = cached_run.add(request);
  const double fresh_pairs = 1024.0 * 3072 + 1024.0 * 1025 / 2;
  CHECK(cached.ttft_before_ms ==
        Approx(step.request_overhead_ms + m.fixed_ms +
               std::max(m.weights_ms, m.ms_per_token * 1024) + m.ms_per_prefill_pair * fresh_pairs)
            .epsilon(1e-12));
}

TEST_CASE("mix --model --gpu without --workload names the deployment, not the example",
          "[mix][deployment]") {
  int code = -1;
  const nlohmann::json doc = run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm"}, code);
  REQUIRE(code == 0);
  CHECK(doc["workload"]["name"] == "llama-3.1-8b on h100-sxm");
  CHECK(doc["inputs"]["step_model_provenance"] == "modelled");
  CHECK(doc["inputs"]["reference_ttft_ms"].is_null());
  CHECK(doc["inputs"]["tpot_ms"].is_null());
  CHECK(doc.dump().find("deepseek") == std::string::npos);
}

TEST_CASE("mix --ttft-point fits TTFT to the given points for every request", "[mix]") {
  const Workload workload = io::load_workload("deepseek-r1-fp8");
  EstimateOptions options;
  options.ttft_points = {{1024, 300}, {8192, 600}};
  const Scenario scenario = resolve_scenario(workload, options);
  MixRun run(make_mix_model(workload, scenario, Extrapolation::clamp));
  Request request;
  request.prompt_tokens = 4096;
  request.response_tokens = 2;
  const RequestOutcome& out = run.add(request);
  // The same fit, by the latency model directly: TTFT = T0 + a·L·(1 + odds(L)) at L = 4,096.
  const TtftModel fit =
      fit_ttft(options.ttft_points, workload.prefill_shares, Extrapolation::clamp);
  CHECK(out.ttft_source == LatencySource::fitted);
  CHECK(out.ttft_before_ms == Approx(ttft_at(fit, 4096).ttft_ms).epsilon(1e-12));
  // Not the workload's own points (267 ms at 1k, 474 ms at 8k): a different answer.
  MixRun own(make_mix_model(workload, resolve_scenario(workload, {}), Extrapolation::clamp));
  CHECK(own.add(request).ttft_before_ms != Approx(out.ttft_before_ms));
}

TEST_CASE("mix --tpot-point fits TPOT = c + b·L at each request's prompt", "[mix]") {
  const Workload workload = io::load_workload("deepseek-r1-fp8");
  EstimateOptions options;
  options.tpot_points = {{1024, 50}, {131072, 95}};
  const Scenario scenario = resolve_scenario(workload, options);
  MixRun run(make_mix_model(workload, scenario, Extrapolation::clamp, options.tpot_points));
  Request request;
  request.prompt_tokens = 32768;
  request.response_tokens = 64;
  const RequestOutcome& out = run.add(request);
  // By hand: the line through (1,024, 50) and (131,072, 95) at L = 32,768.
  const double b = (95.0 - 50.0) / (131072.0 - 1024.0);
  CHECK(out.tpot_source == LatencySource::fitted);
  CHECK(out.tpot_before_ms == Approx(50.0 + b * (32768.0 - 1024.0)).epsilon(1e-12));
  request.prompt_tokens = 1024;
  CHECK(run.add(request).tpot_before_ms == Approx(50.0).epsilon(1e-12));
}

TEST_CASE("mix --ttft-overhead is each modelled TTFT's fixed term, as estimate's", "[mix]") {
  const Workload workload = io::load_workload("deepseek-r1-fp8");
  const Scenario scenario = resolve_scenario(workload, {});
  MixModel model = make_mix_model(workload, scenario, Extrapolation::clamp);
  model.kernel_speedup = {2.0, Provenance::given};
  Request request;
  request.prompt_tokens = 4096;  // on the table's first point: p = 0.18 exactly
  request.response_tokens = 2;
  const RequestOutcome fitted = MixRun(model).add(request);
  // By hand (python3): the workload's points (267 ms at 1k, 474 ms at 8k) fit T0 = 242.117 ms,
  // a = 0.0199259 ms/token; TTFT(4k) = T0 + a·4096/0.82 = 341.649 ms, after (T0 kept)
  // T0 + (TTFT - T0)·(0.82 + 0.09) = 332.691 ms.
  REQUIRE(fitted.ttft_source == LatencySource::fitted);
  CHECK(fitted.ttft_before_ms == Approx(341.6492734382408).epsilon(1e-9));
  CHECK(fitted.ttft_after_ms == Approx(332.6913606256519).epsilon(1e-9));
  // --ttft-overhead 100ms replaces T0: the TTFT stays, Amdahl moves TTFT - 100 ms.
  model.ttft_overhead_ms = 100.0;
  const RequestOutcome given = MixRun(model).add(request);
  CHECK(given.ttft_before_ms == Approx(341.6492734382408).epsilon(1e-9));
  CHECK(given.ttft_after_ms == Approx(319.9008388287991).epsilon(1e-9));
  // 0: no fixed term, Amdahl on all of TTFT.
  model.ttft_overhead_ms = 0.0;
  CHECK(MixRun(model).add(request).ttft_after_ms == Approx(310.9008388287991).epsilon(1e-9));
  // An overhead above a request's TTFT makes all of it fixed: nothing moves, and it is counted
  // with the overhead and the shortest such TTFT (the fix names it).
  model.ttft_overhead_ms = 1000.0;
  MixRun above(model);
  const RequestOutcome all_fixed = above.add(request);
  CHECK(all_fixed.ttft_after_ms == all_fixed.ttft_before_ms);
  {
    Request shorter = request;
    shorter.prompt_tokens = 1024;
    const double shortest = above.add(shorter).ttft_before_ms;
    REQUIRE(shortest < all_fixed.ttft_before_ms);
    const std::vector<Warning> warnings = above.warnings();
    const auto found = std::find_if(warnings.begin(), warnings.end(), [](const Warning& w) {
      return w.code == WarningCode::requests_ttft_below_overhead;
    });
    REQUIRE(found != warnings.end());
    CHECK(found->number("requests") == 2);
    CHECK(found->number("overhead_ms") == 1000.0);
    CHECK(found->number("shortest_ttft_ms") == shortest);
  }
  // A measured TTFT moves only the modelled GPU time of its prefill (issue 27): the fit's
  // TTFT(4k) less T0, 341.649 - 242.117 ms, 18% of it halved (python3: 391.0421 ms).
  request.ttft_ms = 400.0;
  CHECK(MixRun(model).add(request).ttft_after_ms == Approx(391.0420871874111).epsilon(1e-9));
}

TEST_CASE("mix --ttft-overhead on the step model: the share is of the prefill step's GPU time",
          "[mix][deployment]") {
  const CalibratedStepModel step = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  MixModel model;
  model.step_model = step;
  model.kernel_speedup = {2.0, Provenance::given};
  model.ttft_overhead_ms = 5.0;
  Request request;
  request.prompt_tokens = 16384;
  request.response_tokens = 2;
  const RequestOutcome out = MixRun(model).add(request);
  const RequestLatency alone = request_latency(step, 16384, 2);
  const double gpu = alone.prefill_step.gpu_ms();
  const double share = alone.prefill_step.prefill_attention_ms / gpu;
  CHECK(out.ttft_before_ms == Approx(alone.ttft_ms()).epsilon(1e-12));
  CHECK(out.prefill_share == Approx(share).epsilon(1e-12));
  CHECK(out.ttft_after_ms ==
        Approx(5.0 + (alone.ttft_ms() - 5.0) * (1 - share + share / 2)).epsilon(1e-12));

  int code = -1;
  const nlohmann::json doc =
      run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ttft-overhead", "5ms"}, code);
  REQUIRE(code == 0);
  CHECK(doc["inputs"]["ttft_overhead_ms"] == 5.0);
  CHECK(doc["inputs"]["ttft_overhead_ms_provenance"] == "given");
  const nlohmann::json without = run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm"}, code);
  CHECK(without["inputs"]["ttft_overhead_ms"].is_null());
  CHECK(doc["summary"] != without["summary"]);
  // An overhead above some modelled TTFTs: they are counted in JSON's warnings. The sample's
  // modelled TTFTs include the prior's 19.0 ms request overhead (mix-deployment-without-replay):
  // 20 of them are below 60 ms.
  const nlohmann::json above =
      run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ttft-overhead", "60ms"}, code);
  REQUIRE(code == 0);
  const nlohmann::json* warning = nullptr;
  for (const nlohmann::json& w : above["warnings"]) {
    if (w["code"] == "requests_ttft_below_overhead") warning = &w;
  }
  REQUIRE(warning != nullptr);
  CHECK((*warning)["values"]["requests"].get<double>() == 20);
  CHECK((*warning)["values"]["overhead_ms"] == 60.0);
  CHECK((*warning)["values"]["shortest_ttft_ms"].get<double>() ==
        Approx(without["summary"]["ttft_ms"]["before"]["min"].get<double>()));
}

TEST_CASE("mix --kernel-speedup-table reads each request's speedup at its prompt", "[mix]") {
  MixModel model;
  model.prefill_share = 0.5;
  model.reference = ReferenceLatency{8192, {1000.0, Provenance::given}};
  model.kernel_speedup_table =
      KernelSpeedupTable{SpeedupKey::context, {{1024, 1.2}, {131072, 1.8}}};
  MixRun run(model);
  Request request;
  request.prompt_tokens = 8192;
  request.response_tokens = 1;
  // By hand (python3): ln s linear in ln L between (1k, 1.2) and (128k, 1.8): at 8k, t = 3/7,
  // s = 1.2 · 1.5^(3/7) = 1.42774; TTFT' = 1000 · (0.5 + 0.5 / s) = 850.204 ms.
  const RequestOutcome at_8k = run.add(request);
  CHECK(at_8k.ttft_before_ms == Approx(1000.0).epsilon(1e-12));
  CHECK(at_8k.ttft_after_ms == Approx(850.2039787003783).epsilon(1e-12));
  // 512 tokens lie below the table: held at 1.2× (clamped). Scaled TTFT: 0.5 · 1000 / 8192 per
  // token over 512 tokens / (1 - 0.5) = 62.5 ms, after 62.5 · (0.5 + 0.5 / 1.2).
  request.prompt_tokens = 512;
  const RequestOutcome below = run.add(request);
  CHECK(below.ttft_before_ms == Approx(62.5).epsilon(1e-12));
  CHECK(below.ttft_after_ms == Approx(62.5 * (0.5 + 0.5 / 1.2)).epsilon(1e-12));
  CHECK(run.speedups_interpolated() == 1);
  CHECK(run.speedups_clamped() == 1);
  // Without the table the model's one speedup (default 2×) applies to both.
  model.kernel_speedup_table.reset();
  CHECK(MixRun(model).add(request).ttft_after_ms == Approx(62.5 * 0.75).epsilon(1e-12));

  // Through the command: a CSV table, named in the JSON; refused with --kernel-speedup or a
  // table by batch.
  const std::filesystem::path table =
      std::filesystem::temp_directory_path() / "kspeed-mix-speedup-table.csv";
  std::ofstream(table) << "context,speedup\n1024,1.2\n131072,1.8\n";
  int code = -1;
  const nlohmann::json doc = run_mix({"--kernel-speedup-table", table.string()}, code);
  REQUIRE(code == 0);
  CHECK(doc["inputs"]["kernel_speedup"].is_null());
  CHECK(doc["inputs"]["kernel_speedup_table"][1]["context_tokens"] == 131072.0);
  CHECK(doc["inputs"]["kernel_speedup_table"][1]["speedup"] == 1.8);
  run_mix({"--kernel-speedup-table", table.string(), "--kernel-speedup", "2"}, code);
  CHECK(code == 2);

  // With --replay: each request's own speedup on its attention work in every step it shares
  // (test_batch_replay.cpp checks a step by hand). The caption and JSON say it is per request.
  const std::vector<std::string> replay{
      "--kernel-speedup-table", table.string(), "--replay", "--step-model",
      "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token="
      "3.9e-5"};
  const nlohmann::json replayed = run_mix(replay, code);
  REQUIRE(code == 0);
  CHECK(replayed["replay"]["prefill_attention_speedup"].is_null());
  CHECK(replayed["replay"]["decode_attention_speedup"] == 1.0);
  const nlohmann::json& before = replayed["replay"]["before"]["ttft_ms"];
  const nlohmann::json& after = replayed["replay"]["after"]["ttft_ms"];
  CHECK(after["mean"].get<double>() < before["mean"].get<double>());
  // A table of 2× at every row is --kernel-speedup 2, step for step.
  std::ofstream(table) << "context,speedup\n1024,2\n131072,2\n";
  const nlohmann::json flat = run_mix(replay, code);
  REQUIRE(code == 0);
  std::vector<std::string> scalar(replay.begin() + 2, replay.end());
  scalar.insert(scalar.end(), {"--kernel-speedup", "2"});
  const nlohmann::json one = run_mix(scalar, code);
  REQUIRE(code == 0);
  // (equal to rounding: the per-request path sums each request's attention in its own order)
  for (const char* side : {"after", "no_queue_after"}) {
    for (const char* metric : {"ttft_ms", "tpot_ms", "e2e_ms", "queue_ms"}) {
      for (const char* figure : {"mean", "p50", "p90", "p99"}) {
        INFO(side << " " << metric << " " << figure);
        CHECK(flat["replay"][side][metric][figure].get<double>() ==
              Approx(one["replay"][side][metric][figure].get<double>()).epsilon(1e-6));
      }
    }
    CHECK(flat["replay"][side]["attention_fraction"].get<double>() ==
          Approx(one["replay"][side]["attention_fraction"].get<double>()).epsilon(1e-9));
  }
  CHECK(flat["replay"]["after"]["ttft_ms"]["mean"] != flat["replay"]["before"]["ttft_ms"]["mean"]);

  std::ofstream(table) << "batch,speedup\n1,1.2\n64,1.8\n";
  run_mix({"--kernel-speedup-table", table.string()}, code);
  CHECK(code == 2);
  std::filesystem::remove(table);
}

TEST_CASE("mix --share-model analytic: each request's share from the architecture at its prompt",
          "[mix][deployment]") {
  const Platform platform = platform_for("llama-3.1-8b", "h100-sxm");
  const CalibratedStepModel step = modelled_step_model(platform);
  MixModel model;
  model.step_model = step;
  model.kernel_speedup = {2.0, Provenance::given};
  model.share_model = ModelledPrefillShare{platform.model.value, std::nullopt};
  MixRun run(model);
  Request request;
  request.prompt_tokens = 4096;
  request.response_tokens = 2;
  // By hand (python3), Llama-3.1-8B: A = 32 layers · 4·32 heads·128 · L²/2 FLOPs, G = 2·L · 32 ·
  // (2·4096² + 2·4096·1024 + 3·4096·14336): p(4k) = 1/14, p(16k) = 4/17.
  const RequestOutcome at_4k = run.add(request);
  CHECK(at_4k.prefill_share == Approx(0.07142857142857142).epsilon(1e-12));
  // The share is of the prefill step's GPU time: the overhead and fixed cost stay.
  const RequestLatency alone = request_latency(step, 4096, 2);
  const double fixed = alone.overhead_ms + alone.prefill_step.fixed_ms;
  const double p = 1.0 / 14.0;
  CHECK(at_4k.ttft_before_ms == Approx(alone.ttft_ms()).epsilon(1e-12));
  CHECK(at_4k.ttft_after_ms ==
        Approx(fixed + (alone.ttft_ms() - fixed) * (1 - p + p / 2)).epsilon(1e-12));
  request.prompt_tokens = 16384;
  CHECK(run.add(request).prefill_share == Approx(0.23529411764705882).epsilon(1e-12));
  // A cached prefix reads the share at the effective prompt 2c + n: 2·4,096 + 8,192 = 16k.
  request.prompt_tokens = 12288;
  request.cached_tokens = 4096;
  CHECK(run.add(request).prefill_share == Approx(0.23529411764705882).epsilon(1e-12));

  // Through the command: named in the JSON, and refused without --model.
  int code = -1;
  const nlohmann::json doc =
      run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--share-model", "analytic"}, code);
  REQUIRE(code == 0);
  CHECK(doc["inputs"]["prefill_share_model"] == "analytic");
  const nlohmann::json table = run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm"}, code);
  CHECK(table["inputs"]["prefill_share_model"].is_null());
  CHECK(doc["summary"]["prefill_attention_share"] != table["summary"]["prefill_attention_share"]);
  run_mix({"--share-model", "analytic"}, code);
  CHECK(code == 2);
}

TEST_CASE("mix --replay --step-model on a deployment: one step model for the table and the replay",
          "[mix][deployment]") {
  const std::string coefficients =
      "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,"
      "ms_per_kv_token=3.9e-5";
  int code = -1;
  const nlohmann::json doc = run_mix(
      {"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--replay", "--step-model", coefficients},
      code);
  REQUIRE(code == 0);
  CHECK(doc["inputs"]["step_model_provenance"] == "given");
  // The no-queue TTFT of each request is the given model's, 2 + max(4.8, 0.023·n) +
  // 7.5e-7·n(n+1)/2 ms with no overhead, not the roofline's Llama-3.1-8B coefficients: by hand
  // (python3 over the 48 requests of the sample) the median is 65.7859 ms. With --replay that
  // is no_queue_summary; summary holds the replay's (the headline's) latencies.
  CHECK(doc["no_queue_summary"]["ttft_ms"]["before"]["p50"].get<double>() ==
        Approx(65.78589424999998).epsilon(1e-9));
  CHECK(doc["summary"]["basis"] == "replay");
  CHECK(doc["summary"]["ttft_ms"]["before"] == doc["replay"]["before"]["ttft_ms"]);
  const nlohmann::json without = run_mix({"--model", "llama-3.1-8b", "--gpu", "h100-sxm"}, code);
  CHECK(without["summary"]["ttft_ms"]["before"]["p50"].get<double>() !=
        Approx(65.78589424999998).epsilon(1e-3));
}

}  // namespace unit_mix_deployment
