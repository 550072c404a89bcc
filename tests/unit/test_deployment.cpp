// One Deployment, built without the command line (fixtures.hpp), priced three ways: an estimate,
// a sweep and a replay. Each answer is checked against the step model evaluated directly
// (request_latency, step_time), a second way to the same number.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_deployment {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

StepModel stated_coefficients() {
  StepModel model;
  model.fixed_ms = 2.0;
  model.weights_ms = 4.8;
  model.ms_per_token = 0.023;
  model.ms_per_prefill_pair = 7.5e-7;
  model.ms_per_kv_token = 3.9e-5;
  return model;
}

const StepModel kStated = stated_coefficients();

// The built-in example's request lengths alone (what estimate keeps on a named deployment).
Workload lengths_only() {
  Workload workload = request_lengths_only(io::load_workload("deepseek-r1-fp8"));
  workload.name = "test";
  return workload;
}

}  // namespace

TEST_CASE("resolve_deployment: the modelled step model and the memory's KV blocks",
          "[deployment]") {
  const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm", 1, true);
  REQUIRE(deployment.step);
  CHECK(deployment.step->calibration == Provenance::modelled);
  // The roofline's coefficients with tp's all-reduces (none at tp 1): the same function direct.
  const CalibratedStepModel modelled =
      modelled_step_model_with_tp_comm(test::platform_for("llama-3.1-8b", "h100-sxm"));
  CHECK(deployment.step->model.weights_ms == modelled.model.weights_ms);
  CHECK(deployment.step->model.ms_per_kv_token == modelled.model.ms_per_kv_token);
  CHECK(report::deployment_name(*deployment.platform) == "llama-3.1-8b on h100-sxm");
  // (80 GB · 0.9 - 16,059,990,016 bytes of weights - 33,554,432 bytes of rotary cache
  // (131,072 positions · 128 · 2 bytes) - 905,969,664 bytes of activation peak
  // (8,192 tokens · (3 · 4,096 + 3 · 14,336) · 2 bytes) - 0.2 GiB non-torch reserve)
  // / (131,072 bytes · 16 tokens) = 26,123.9
  CHECK(deployment.kv.provenance == Provenance::modelled);
  CHECK(deployment.kv.memory_utilization.provenance == Provenance::default_value);
  REQUIRE(deployment.scheduler.kv_blocks);
  CHECK(*deployment.scheduler.kv_blocks == 26123);
  // The prior's request overhead (step_calibration.hpp), set by public runs, labelled default.
  CHECK(deployment.scheduler.request_overhead_ms == kPriorRequestOverheadMs);

  // tp 8: the name says so, the all-reduces join the step
  const Deployment tp8 = test::deployment_for("llama-3.1-70b", "h100-sxm", 8);
  CHECK(report::deployment_name(*tp8.platform) == "llama-3.1-70b on h100-sxm tp 8");
  CHECK(tp8.step->model.tp_ms_per_token > 0);
  CHECK(tp8.kv.provenance == Provenance::default_value);  // it serves no replay: no KV decided
}

TEST_CASE("resolve_deployment: given values win, each labelled given", "[deployment]") {
  DeploymentRequest request =
      test::request_for(test::platform_for("llama-3.1-8b", "h100-sxm"), true);
  request.scheduler.kv_blocks = 500;
  request.step_model = StatedStepModel{kStated, "test"};
  request.request_overhead_ms = 3.0;
  const Deployment given = resolve_deployment(request);
  CHECK(given.kv.provenance == Provenance::given);
  CHECK(*given.scheduler.kv_blocks == 500);
  CHECK(given.step->calibration == Provenance::given);
  CHECK(given.step->model.weights_ms == 4.8);
  CHECK(given.scheduler.request_overhead_ms == 3.0);
  CHECK(given.step->request_overhead_ms == 3.0);

  // --gpu-memory-utilization 0.5: (40e9 - 16,059,990,016 - 33,554,432 - 905,969,664 -
  // 214,748,364.8) / 2,097,152 = 10,865.4 blocks
  DeploymentRequest half = test::request_for(test::platform_for("llama-3.1-8b", "h100-sxm"), true);
  half.gpu_memory_utilization = 0.5;
  const Deployment halved = resolve_deployment(half);
  CHECK(halved.kv.memory_utilization.provenance == Provenance::given);
  CHECK(*halved.scheduler.kv_blocks == 10865);

  // --vllm-version 0.2.4: that worker counted nothing outside PyTorch, so the 0.2 GiB reserve
  // (102.4 blocks of 2 MiB) goes back to the cache: 26,123.9 + 102.4 = 26,226.3
  DeploymentRequest old_vllm =
      test::request_for(test::platform_for("llama-3.1-8b", "h100-sxm"), true);
  old_vllm.vllm_version = "0.2.4";
  const Deployment old_rule = resolve_deployment(old_vllm);
  CHECK(old_rule.kv.rule.provenance == Provenance::given);
  CHECK(old_rule.kv.rule.value == VllmMemoryRule::torch_only);
  CHECK(*old_rule.scheduler.kv_blocks == 26226);
  // 0.21 and later subtract a CUDA graph estimate kspeed does not model: refused, naming the fix
  old_vllm.vllm_version = "0.21.0";
  CHECK_THROWS_WITH(resolve_deployment(old_vllm),
                    Catch::Contains("pull request 30515") && Catch::Contains("kv-blocks"));
  old_vllm.vllm_version = "newest";
  CHECK_THROWS_WITH(resolve_deployment(old_vllm), Catch::Contains("MAJOR.MINOR"));
}

TEST_CASE("resolve_deployment refuses what it cannot decide", "[deployment]") {
  // A served deployment with no step model: neither a platform nor coefficients
  DeploymentRequest nothing;
  nothing.serves = true;
  CHECK_THROWS_AS(resolve_deployment(nothing), InputError);
  // ... but an estimate needs none: no step model, no platform
  nothing.serves = false;
  CHECK_FALSE(resolve_deployment(nothing).step);
  // Stated coefficients and a calibration run both set the step model
  DeploymentRequest both = test::request_for(test::platform_for("llama-3.1-8b", "h100-sxm"), true);
  both.step_model = StatedStepModel{kStated, "test"};
  both.calibration = CalibrationRun{"run.json", "", {}, {}, {}, std::nullopt};
  CHECK_THROWS_AS(resolve_deployment(both), InputError);
  // A utilization with no GPU to take it from
  DeploymentRequest no_gpu;
  no_gpu.serves = true;
  no_gpu.step_model = StatedStepModel{kStated, "test"};
  no_gpu.gpu_memory_utilization = 0.8;
  CHECK_THROWS_AS(resolve_deployment(no_gpu), InputError);
  // Llama-3.1-70B's 141 GB of weights on one 80 GB GPU: no KV room, said by 0 blocks
  const Deployment full = test::deployment_for("llama-3.1-70b", "h100-sxm", 1, true);
  REQUIRE(full.kv.modelled);
  CHECK(full.kv.modelled->blocks == 0);
  CHECK(test::deployment_for("llama-3.1-70b", "h100-sxm", 4, true).kv.modelled->blocks > 0);
}

TEST_CASE("one Deployment runs an estimate, a sweep and a replay without the command line",
          "[deployment]") {
  const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm", 1, true);
  const CalibratedStepModel& step = *deployment.step;
  const Workload workload = lengths_only();
  EstimateOptions options = test::options_on(deployment);
  options.prompt_tokens = 4096;
  options.response_tokens = 256;
  options.kernel_speedup = 2.0;

  // Estimate: TTFT and TPOT are the step model's for this request, alone
  const Estimate estimate = run_estimate(workload, options);
  const RequestLatency alone = request_latency(step, 4096, 256);
  CHECK(estimate.scenario.ttft_ms.value == Approx(alone.ttft_ms()).epsilon(1e-12));
  CHECK(estimate.scenario.tpot_ms.value == Approx(alone.tpot_ms()).epsilon(1e-12));
  CHECK(estimate.scenario.ttft_ms.provenance == Provenance::modelled);
  // ... and the prefill share the prefill step's attention over its time
  CHECK(
      estimate.scenario.prefill_share.value ==
      Approx(alone.prefill_step.prefill_attention_ms / alone.prefill_step.gpu_ms()).epsilon(1e-9));

  // Sweep over the prompt: each point is that estimate at its prompt
  SweepAxes axes;
  axes.prompt_tokens = {1024, 4096};
  const Sweep sweep = run_sweep(workload, options, axes);
  REQUIRE(sweep.rows.size() == 2);
  CHECK(sweep.rows[0].ttft_ms.value ==
        Approx(request_latency(step, 1024, 256).ttft_ms()).epsilon(1e-12));
  CHECK(sweep.rows[1].ttft_ms.value == Approx(estimate.scenario.ttft_ms.value).epsilon(1e-12));
  CHECK(sweep.rows[1].result.request.speedup ==
        Approx(estimate.result.request.speedup).epsilon(1e-12));

  // Replay: one request alone on the deployment's engine; its prompt fits one step (8,192-token
  // budget), so its TTFT is that one prefill step, its first decode at 4,097 tokens of KV
  ServingSetup setup;
  setup.step = step.model;
  setup.scheduler = deployment.scheduler;
  setup.speedup.prefill = 2.0;  // the kernel change: attention twice as fast
  setup.speedup.decode = 2.0;
  ReplayRequest request;
  request.prompt_tokens = 4096;
  request.response_tokens = 2;
  const ServingReplay replay = replay_serving({request}, setup);
  REQUIRE(replay.requests == 1);
  BatchComposition prefill;
  prefill.prefill_tokens = 4096;
  prefill.prefill_pairs = 4096.0 * 4097.0 / 2.0;
  const double prefill_ms = step_time(step.model, prefill).total_ms();
  // TTFT: the prior's request overhead (19.0 ms, step_calibration.hpp) and the prefill step.
  CHECK(replay.before.ttft_ms.mean == Approx(step.request_overhead_ms + prefill_ms).epsilon(1e-6));
  CHECK(replay.before.ttft_ms.mean ==
        Approx(request_latency(step, 4096, 2).ttft_ms()).epsilon(1e-6));
  // After: the same step with its attention parts halved
  CHECK(replay.after.ttft_ms.mean ==
        Approx(step.request_overhead_ms + step_time(step.model, prefill, 2.0).total_ms())
            .epsilon(1e-6));
  CHECK(replay.after.ttft_ms.mean < replay.before.ttft_ms.mean);
}

}  // namespace unit_deployment
