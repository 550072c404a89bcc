// The step model of one deployment: modelled from the roofline at cited efficiencies, then
// fitted to measured latencies or profiled steps, every coefficient with its origin and every
// calibration point with its residual.
#include <catch2/catch.hpp>
#include <cmath>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_step_calibration {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform platform_for(const std::string& model, const std::string& gpu, std::int64_t tp = 1) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  return make_platform(choice);
}

// Llama-3.1-8B: 7,504,658,432 weights read per decode step (test_decode_model.cpp counts them),
// 32 layers · 2·8·128 · 2 bytes = 131,072 KV bytes per token; H100 SXM 3.35 TB/s, 989.4 TFLOP/s.
constexpr double kLlamaWeightBytes = 7504658432.0 * 2;
constexpr double kLlamaKvBytesPerToken = 131072.0;
constexpr double kH100BytesPerMs = 3.35e9;

}  // namespace

TEST_CASE("modelled: Llama-3.1-8B on one H100, by hand", "[step_model]") {
  const CalibratedStepModel m = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  const double eta = kDefaultStepBandwidthEfficiency;
  CHECK(m.model.weights_ms == Approx(kLlamaWeightBytes / (kH100BytesPerMs * eta)));
  CHECK(m.model.ms_per_kv_token == Approx(kLlamaKvBytesPerToken / (kH100BytesPerMs * eta)));
  // 32 layers · 4 · 32 heads · 128 = 524,288 FLOPs per pair at 989.4 TFLOP/s · 0.75
  CHECK(m.model.ms_per_prefill_pair == Approx(524288.0 / (989.4e9 * 0.75)).epsilon(1e-3));
  CHECK(m.model.fixed_ms == 0);
  // The launch floor: 32 dense layers · 9 unpriced kernels · 2.59 µs = 0.74592 ms.
  CHECK(m.model.launch_floor_ms == Approx(0.74592));
  CHECK(m.origins.weights.provenance == Provenance::modelled);
  CHECK(m.origins.fixed.provenance == Provenance::default_value);
  CHECK(m.calibration == Provenance::modelled);

  // TPOT at batch 1, 4K in and 1 token out: the launch floor, then the weights and 4,096
  // cached tokens at η_bw.
  const RequestLatency at_4k = request_latency(m, 4096, 1);
  const double bytes = kLlamaWeightBytes + 4096.5 * kLlamaKvBytesPerToken;
  CHECK(at_4k.tpot_ms() == Approx(0.74592 + bytes / (kH100BytesPerMs * eta)));
  // 0.746 + 7.594 + 4,096.5 · 6.631e-5 (η 0.59)
  CHECK(at_4k.tpot_ms() == Approx(8.6115).margin(0.001));
  // The prefill step of 4K tokens is compute-bound: 2·7.5e9·4096 FLOPs outweigh the weights.
  CHECK(at_4k.prefill_step.other_ms > m.model.weights_ms);
  CHECK(at_4k.prefill_step.prefill_attention_ms > 0);
}

TEST_CASE("the launch floor: each layer's unpriced kernels at the shortest traced kernel",
          "[step_model][launch_floor]") {
  // scripts/launch_floor.py over the two public TraceLens traces: 9 kernels a dense layer, 13 a
  // MoE layer, the shortest once-a-layer kernel 2.59 µs (B200; MI300X's is 4.33).
  const LaunchFloor llama = launch_floor(io::load_model("llama-3.1-8b"));
  CHECK(llama.dense_layers == 32);
  CHECK(llama.moe_layers == 0);
  CHECK(llama.kernels() == 288);
  CHECK(llama.ms() == Approx(0.74592));
  // DeepSeek-R1: 3 leading dense layers, 58 MoE.
  const LaunchFloor deepseek = launch_floor(io::load_model("deepseek-r1"));
  CHECK(deepseek.dense_layers == 3);
  CHECK(deepseek.moe_layers == 58);
  CHECK(deepseek.ms() == Approx((3 * 9 + 58 * 13) * 2.59e-3));
  // Qwen3-Next: every layer MoE, linear-attention layers included (they run the same kernels).
  const ModelArch next = io::load_model("qwen3-next-80b-a3b");
  CHECK(launch_floor(next).moe_layers == next.layers);

  // It sits with the reads: a one-sequence decode step pays it on top of the weights; a long
  // prefill, compute-bound, does not (its GEMM efficiency is an end-to-end one that holds those
  // kernels), and scale_reads (a calibration's bandwidth factor) leaves it.
  const CalibratedStepModel m = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  BatchComposition decode;
  decode.decode_sequences = 1;
  CHECK(step_time(m.model, decode).other_ms == Approx(m.model.weights_ms + 0.74592));
  const BatchComposition prefill = prefill_batch(8192, 1);
  CHECK(step_time(m.model, prefill).other_ms == Approx(8192 * m.model.ms_per_token));
  StepModel scaled = m.model;
  scale_reads(scaled, 0.5);
  CHECK(scaled.launch_floor_ms == m.model.launch_floor_ms);

  // A profiler trace times those kernels among the others: its calibration folds them into the
  // measured factor, and the floor goes (else they would be counted twice).
  StepObservation step;
  step.label = "decode";
  step.batch = decode;
  step.attention_kernel_ms = 0.1;
  step.other_kernel_ms = 8.0;
  step.wall_ms = 8.1;
  const CalibratedStepModel traced = calibrate_to_steps(m, {step}, "trace");
  CHECK(traced.model.launch_floor_ms == 0);
  CHECK(step_time(traced.model, decode).other_ms == Approx(8.0));
}

TEST_CASE("modelled: an MoE and an MLA deployment", "[step_model]") {
  const CalibratedStepModel moe = modelled_step_model(platform_for("gpt-oss-120b", "h100-sxm"));
  const CalibratedStepModel mla = modelled_step_model(platform_for("deepseek-r1", "h200-sxm", 8));
  for (const CalibratedStepModel* m : {&moe, &mla}) {
    CHECK(m->model.weights_ms > 0);
    CHECK(m->model.ms_per_token > 0);
    CHECK(m->model.ms_per_prefill_pair > 0);
    CHECK(m->model.ms_per_kv_token > 0);
  }
  // gpt-oss alternates 128-token windows with full layers: only the full half reads the cache
  // per context token, so a longer context grows the step by the full layers' KV only.
  const double at_1k = request_latency(moe, 1024, 1).tpot_ms();
  const double at_2k = request_latency(moe, 2048, 1).tpot_ms();
  CHECK(at_2k - at_1k == Approx(1024 * moe.model.ms_per_kv_token));
  // MLA caches r + d_rope = 576 values a token and layer, replicated on every rank: 61 layers.
  const double kv_bytes = mla.model.ms_per_kv_token * 4.8e9 * kDefaultStepBandwidthEfficiency;
  CHECK(kv_bytes ==
        Approx(61.0 * 576.0 * platform_for("deepseek-r1", "h200-sxm", 8).kv_bytes_per_element));
}

TEST_CASE("calibrated to a one-at-a-time run: both points met exactly", "[step_model]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  // AccelMark's interactive run: TTFT p50 20.08 ms, TPOT p50 7.74 ms, ShareGPT p50 lengths.
  LatencyObservation point;
  point.label = "p50";
  point.prompt_tokens = 280;
  point.response_tokens = 310;
  point.ttft_ms = 20.08;
  point.tpot_ms = 7.74;
  const CalibratedStepModel fit = calibrate_to_latencies(prior, {point}, "interactive.json");
  REQUIRE(fit.residuals.size() == 2);
  CHECK(fit.residuals[0].kind == LatencyKind::ttft);
  CHECK(fit.residuals[0].predicted_ms == Approx(20.08).epsilon(1e-6));
  CHECK(fit.residuals[1].predicted_ms == Approx(7.74).epsilon(1e-6));
  // One TPOT point fixes the bandwidth side only: 7.74 = floor + s · (W + 435 · k).
  const double modelled_reads = prior.model.weights_ms + 435 * prior.model.ms_per_kv_token;
  CHECK(fit.model.weights_ms / prior.model.weights_ms ==
        Approx((7.74 - prior.model.launch_floor_ms) / modelled_reads));
  CHECK(fit.model.launch_floor_ms == prior.model.launch_floor_ms);
  CHECK(fit.model.fixed_ms == 0);
  CHECK(fit.origins.fixed.provenance == Provenance::default_value);
  CHECK(fit.origins.weights.provenance == Provenance::fitted);
  CHECK(fit.origins.weights.source == "interactive.json");
  // One TTFT point: the overhead is what the 280-token prefill step leaves.
  const double prefill = step_time(fit.model, prefill_batch(280, 1)).total_ms();
  CHECK(fit.request_overhead_ms == Approx(20.08 - prefill));
  CHECK(fit.origins.per_token.provenance == Provenance::modelled);
  CHECK(fit.calibration == Provenance::fitted);
}

TEST_CASE("calibration recovers a known model from several points", "[step_model]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  CalibratedStepModel truth = prior;
  truth.model.fixed_ms = 0.9;
  truth.model.weights_ms *= 1.3;
  truth.model.ms_per_kv_token *= 1.3;
  truth.model.ms_per_token *= 1.6;
  truth.model.ms_per_prefill_pair *= 1.6;
  truth.request_overhead_ms = 11;
  std::vector<LatencyObservation> points;
  for (const double concurrency : {1.0, 8.0, 64.0}) {
    for (const double prompt : {512.0, 4096.0}) {
      const RequestLatency latency = request_latency(truth, prompt, 256, concurrency);
      points.push_back({"c" + std::to_string(static_cast<int>(concurrency)), prompt, 256,
                        concurrency, latency.ttft_ms(), latency.tpot_ms()});
    }
  }
  const CalibratedStepModel fit = calibrate_to_latencies(prior, points, "synthetic");
  CHECK(fit.model.fixed_ms == Approx(0.9).epsilon(1e-4));
  CHECK(fit.model.weights_ms == Approx(truth.model.weights_ms).epsilon(1e-4));
  CHECK(fit.model.ms_per_token == Approx(truth.model.ms_per_token).epsilon(1e-4));
  CHECK(fit.request_overhead_ms == Approx(11).epsilon(1e-3));
  for (const PointResidual& r : fit.residuals) {
    CHECK(std::abs(r.relative_residual()) < 1e-4);
  }
}

TEST_CASE("calibrated to profiled steps: kernel classes and the idle fixed cost", "[step_model]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  StepObservation step;
  step.label = "prefill 888";
  step.batch = prefill_batch(888, 1);
  const StepTime modelled = step_time(prior.model, step.batch);
  step.attention_kernel_ms = 2 * modelled.attention_ms();
  step.other_kernel_ms = 0.5 * modelled.other_ms;
  step.wall_ms = step.attention_kernel_ms + step.other_kernel_ms + 3;
  const CalibratedStepModel fit = calibrate_to_steps(prior, {step}, "trace.json");
  CHECK(fit.model.ms_per_prefill_pair == Approx(2 * prior.model.ms_per_prefill_pair));
  CHECK(fit.model.weights_ms == Approx(0.5 * prior.model.weights_ms));
  CHECK(fit.model.fixed_ms == Approx(3));
  CHECK(fit.origins.prefill_pair.provenance == Provenance::measured);
  REQUIRE(fit.residuals.size() == 1);
  CHECK(fit.residuals[0].kind == LatencyKind::step);
  CHECK(fit.residuals[0].residual_ms() == Approx(0).margin(1e-9));
}

TEST_CASE("calibrated to decode steps only: prefill attention keeps its prior", "[step_model]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  StepObservation step;
  step.label = "decode bs=32";
  step.batch = decode_batch(1024, 2, 32);
  const StepTime modelled = step_time(prior.model, step.batch);
  step.attention_kernel_ms = 3 * modelled.attention_ms();
  step.other_kernel_ms = modelled.other_ms;
  step.wall_ms = step.attention_kernel_ms + step.other_kernel_ms;
  const CalibratedStepModel fit = calibrate_to_steps(prior, {step}, "decode.json");
  CHECK(fit.model.ms_per_kv_token == Approx(3 * prior.model.ms_per_kv_token));
  CHECK(fit.origins.kv_token.provenance == Provenance::measured);
  CHECK(fit.model.ms_per_prefill_pair == prior.model.ms_per_prefill_pair);
  CHECK(fit.origins.prefill_pair.provenance == prior.origins.prefill_pair.provenance);
  CHECK(fit.efficiency.attention_compute == prior.efficiency.attention_compute);
}

TEST_CASE("a profiled workload's steps as calibration observations", "[step_model]") {
  ProfiledStep prefill;
  prefill.label = "execute_15_context_15";
  prefill.phase = Phase::prefill;
  prefill.prefill_requests = 15;
  prefill.prefill_tokens = 15 * 1024;
  prefill.kernel_ms = 1.5;
  prefill.attention_kernel_ms = 0.3;
  prefill.time_ms = 1.5;
  ProfiledStep decode;
  decode.phase = Phase::decode;
  decode.decode_requests = 32;
  decode.decode_kv_tokens = 32 * 1100;
  decode.kernel_ms = 1.03;
  decode.attention_kernel_ms = 0.24;
  decode.wall_ms = 6.03;
  decode.profiler_gap_ms = 5.0;
  decode.time_ms = 1.03;  // kernel-time: the step's time on the share's denominator
  const std::vector<StepObservation> observed = step_observations({prefill, decode});
  REQUIRE(observed.size() == 2);
  // 15 prompts of 1,024 tokens from an empty cache: 15 · 1,024 · 1,025 / 2 causal pairs
  CHECK(observed[0].batch.prefill_tokens == 15360);
  CHECK(observed[0].batch.prefill_pairs == Approx(15.0 * 1024 * 1025 / 2));
  CHECK(observed[0].attention_kernel_ms == Approx(0.3));
  CHECK(observed[0].other_kernel_ms == Approx(1.2));
  CHECK(observed[1].batch.decode_sequences == 32);
  CHECK(observed[1].batch.decode_kv_tokens == 35200);
  CHECK(observed[1].other_kernel_ms == Approx(0.79));
  CHECK(observed[1].wall_ms == Approx(1.03));  // not the 6.03 ms the profiler stretched it to
}

TEST_CASE("calibration rejects what it cannot fit", "[step_model][errors]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  CHECK_THROWS_AS(calibrate_to_latencies(prior, {}, "empty.json"), InputError);
  LatencyObservation bad{"bad", 100, 10, 1, -1.0, std::nullopt};
  CHECK_THROWS_WITH(calibrate_to_latencies(prior, {bad}, "bad.json"),
                    Catch::Contains("bad.json") && Catch::Contains("latencies > 0 ms"));
  CHECK_THROWS_AS(calibrate_to_steps(prior, {}, "none"), InputError);
  StepObservation empty;
  CHECK_THROWS_AS(calibrate_to_steps(prior, {empty}, "trace"), InputError);
}

TEST_CASE("the deployment answers an estimate: no other deployment's number", "[step_model]") {
  const Platform platform = platform_for("llama-3.1-8b", "h100-sxm");
  const Workload lengths = request_lengths_only(io::load_workload("deepseek-r1-fp8"));
  CHECK(lengths.request.illustrative);
  CHECK_FALSE(lengths.request.ttft_ms);
  CHECK(lengths.prefill_shares.empty());
  CHECK_FALSE(lengths.kv_dtype);
  EstimateOptions options;
  options.prompt_tokens = 4096;
  options.platform = platform;
  options.step_model = modelled_step_model(platform);
  const Estimate e = run_estimate(lengths, options);
  const RequestLatency latency = request_latency(*options.step_model, 4096, 128);
  CHECK(e.scenario.tpot_ms.value == Approx(latency.tpot_ms()));
  CHECK(e.scenario.tpot_ms.provenance == Provenance::modelled);
  CHECK(e.scenario.ttft_ms.value == Approx(latency.ttft_ms()));
  CHECK(e.scenario.prefill_share.value ==
        Approx(latency.prefill_step.prefill_attention_ms / latency.prefill_step.gpu_ms()));
  CHECK(e.scenario.prefill_share.provenance == Provenance::modelled);
  REQUIRE(e.scenario.decode_share);
  CHECK(e.scenario.decode_share->provenance == Provenance::modelled);
  CHECK(e.scenario.response_tokens.provenance == Provenance::illustrative);
  CHECK(e.scenario.deployment_inputs.size() == 4);
  // Nothing of DeepSeek-R1 reaches it: TPOT is this deployment's 8.6 ms, not the example's 50.
  CHECK(e.scenario.tpot_ms.value == Approx(8.6157).margin(0.001));
  // --strict refuses the illustrative response length, and passes once it is given.
  CHECK(refused_inputs(e.scenario, strict_filter()).size() == 1);
  options.response_tokens = 128;
  CHECK(refused_inputs(run_estimate(lengths, options).scenario, strict_filter()).empty());
}

TEST_CASE("--share-model calibrated on the example's table is borrowed, and --strict says so",
          "[step_model]") {
  // What load_estimate_workload hands the engine for --model/--gpu --share-model calibrated and
  // no --workload: the lengths, and the example's prefill table to calibrate on, marked.
  const Workload example = io::load_workload("deepseek-r1-fp8");
  Workload lengths = request_lengths_only(example);
  lengths.prefill_shares = example.prefill_shares;
  lengths.borrowed_share_table = example.name;
  const Platform platform = platform_for("llama-3.1-8b", "h100-sxm");
  EstimateOptions options;
  options.prompt_tokens = 4096;
  options.response_tokens = 128;
  options.platform = platform;
  options.step_model = modelled_step_model(platform);
  options.share_model = ShareModel::calibrated;
  const Estimate e = run_estimate(lengths, options);
  CHECK(e.scenario.prefill_share.provenance == Provenance::modelled);
  CHECK(e.scenario.prefill_share_borrowed_from == "deepseek-r1-fp8");
  const std::vector<AnswerInput> refused = refused_inputs(e.scenario, strict_filter());
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].name == "prefill attention share");
  CHECK(refused[0].borrowed);
  CHECK_THROWS_WITH(refuse_inputs(e.scenario, strict_filter(), "--strict"),
                    Catch::Contains("borrowed from the built-in example deepseek-r1-fp8's share "
                                    "table, modelled"));
  // The user's own table (no borrowed mark), or a given --share, is not refused.
  lengths.borrowed_share_table.clear();
  CHECK(refused_inputs(run_estimate(lengths, options).scenario, strict_filter()).empty());
  lengths.borrowed_share_table = example.name;
  options.prefill_share = 0.3;
  CHECK(refused_inputs(run_estimate(lengths, options).scenario, strict_filter()).empty());
}

TEST_CASE("--strict on the bare estimate names the illustrative and clamped inputs",
          "[step_model]") {
  const Estimate e = run_estimate(io::load_workload("deepseek-r1-fp8"), {});
  std::vector<std::string> names;
  for (const AnswerInput& input : refused_inputs(e.scenario, strict_filter())) {
    names.push_back(input.name);
  }
  CHECK(names ==
        std::vector<std::string>{"prompt", "response", "TTFT", "TPOT", "prefill attention share"});
  CHECK_THROWS_WITH(refuse_inputs(e.scenario, strict_filter(), "--strict"),
                    Catch::Contains("TTFT (illustrative)") &&
                        Catch::Contains("prefill attention share (clamped)"));
  const InputFilter filter = parse_input_filter("clamped,borrowed", "--fail-on");
  CHECK(filter.borrowed);
  CHECK(refused_inputs(e.scenario, filter).size() == 1);
  CHECK_THROWS_WITH(parse_input_filter("clampd", "--fail-on"),
                    Catch::Contains("unknown provenance 'clampd'"));
}

TEST_CASE("speculative decoding through the step model: q tokens of work, τ tokens a step",
          "[step_model][speculation]") {
  // DeepSeek-R1 on 8 × H200, batch 32, 8K prompt, 128 out: the deployment of issue 21's note.
  const auto deployment = [](double tokens, double accepted) {
    PlatformChoice choice;
    choice.model = {io::load_model("deepseek-r1"), Provenance::given};
    choice.gpu = {io::load_gpu("h200-sxm"), Provenance::given};
    choice.tensor_parallel = {8, Provenance::given};
    choice.batch = {32, Provenance::given};
    choice.spec_tokens = tokens;
    choice.spec_accept = accepted;
    return make_platform(choice);
  };
  const CalibratedStepModel m = modelled_step_model(deployment(2, 1.8));
  CHECK(m.spec_tokens_per_step == 2);
  CHECK(m.spec_mean_accepted == 1.8);
  const RequestLatency latency = request_latency(m, 8192, 128, 32);
  // The step verifies 32 · 2 tokens of GEMM work; attention reads each sequence's KV once at
  // the mean context 8,192 + 64.
  // The weights every step reads plus the routed experts' share U(64)/E = 1 - (248/256)^64.
  const double union_share = 1 - std::pow(248.0 / 256.0, 64);
  CHECK(latency.decode_step.other_ms ==
        Approx(std::max(m.model.weights_ms + m.model.experts.all_experts_ms * union_share +
                            m.model.launch_floor_ms,
                        64 * m.model.ms_per_token)));
  CHECK(latency.decode_step.decode_attention_ms == Approx(32 * 8256 * m.model.ms_per_kv_token));
  CHECK(latency.tpot_ms() == Approx(latency.decode_step.total_ms() / 1.8));
  // By hand (python over the presets): per GPU, (61 MLA attention blocks + 3 dense FFNs + 58 ·
  // (222.44 routed experts read by 64 tokens + 1 shared) + routers) in FP8 and the BF16 head, / 8
  // = 73.16 GB at 4.8 TB/s · 0.58: 26.2800 ms; KV 61 · 576 · 2 B / (4.8 TB/s · 0.58) = 2.5241e-5
  // ms a token: 26.2800 + 32 · 8,256 · 2.5241e-5 = 32.9486 ms a step at the old single η 0.58;
  // at the HBM prior 0.59, · 0.58 / 0.59 = 32.3901, plus the launch floor of 3 dense and 58 MoE
  // layers, (3 · 9 + 58 · 13) · 2.59 µs = 2.0228 ms: 34.4129 ms a step, 19.1183 a token at 1.8.
  CHECK(m.model.launch_floor_ms == Approx(781 * 2.59e-3));
  CHECK(latency.decode_step.total_ms() == Approx(34.4129).margin(0.0001));
  CHECK(latency.tpot_ms() == Approx(19.1183).margin(0.0001));

  // τ moves the estimate's modelled TPOT and nothing divides it twice: 1, 1.5, 2 differ.
  const Workload lengths = request_lengths_only(io::load_workload("deepseek-r1-fp8"));
  std::vector<double> tpots;
  for (const double tau : {1.0, 1.5, 2.0}) {
    EstimateOptions options;
    options.prompt_tokens = 8192;
    options.response_tokens = 128;
    options.phase = Phase::decode;
    options.platform = deployment(2, tau);
    options.step_model = modelled_step_model(*options.platform);
    const Estimate e = run_estimate(lengths, options);
    CHECK(e.scenario.tpot_ms.value == Approx(34.4129 / tau).margin(0.0001));
    // The speculation note quotes the same step and the same TPOT.
    bool noted = false;
    for (const Warning& note : e.scenario.notes) {
      if (note.code != WarningCode::speculation_acceptance) continue;
      noted = true;
      CHECK(note.number("step_ms") == Approx(latency.decode_step.total_ms()));
      CHECK(note.number("ms_per_token") == Approx(e.scenario.tpot_ms.value));
      CHECK(note.number("context_tokens") == 8256);
    }
    CHECK(noted);
    tpots.push_back(e.scenario.tpot_ms.value);
  }
  CHECK(tpots[0] > tpots[1]);
  CHECK(tpots[1] > tpots[2]);

  // A TPOT measured with speculation is per output token: calibrating to the modelled value
  // itself leaves the bandwidth side where it was.
  LatencyObservation point;
  point.label = "tpot";
  point.prompt_tokens = 8192;
  point.response_tokens = 128;
  point.concurrency = 32;
  point.tpot_ms = latency.tpot_ms();
  const CalibratedStepModel fitted = calibrate_to_latencies(m, {point}, "self");
  CHECK(fitted.model.weights_ms == Approx(m.model.weights_ms).epsilon(1e-4));
  CHECK(request_latency(fitted, 8192, 128, 32).tpot_ms() == Approx(latency.tpot_ms()));
}

TEST_CASE("the per-sequence cost: a known line over the running sequences is recovered",
          "[step_model][per_sequence]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  // The truth: reads 10% slower than the prior (scale 1.1), 0.09 ms per running sequence.
  StepModel truth = prior.model;
  truth.weights_ms *= 1.1;
  truth.ms_per_kv_token *= 1.1;
  truth.ms_per_sequence = 0.09;
  std::vector<RunningDecodeObservation> points;
  for (const double n : {1.0, 16.0, 40.0, 90.0}) {
    RunningDecodeObservation p;
    p.label = "N=" + std::to_string(n);
    p.running_sequences = n;
    p.prompt_tokens = 204;
    p.response_tokens = 63;
    p.per_token_ms = step_time(truth, decode_batch(204, 63, n)).total_ms();
    points.push_back(p);
  }
  const CalibratedStepModel fitted = calibrate_to_running_sequences(prior, points, "levels");
  CHECK(fitted.model.ms_per_sequence == Approx(0.09).epsilon(1e-4));
  CHECK(fitted.model.weights_ms == Approx(truth.weights_ms).epsilon(1e-4));
  CHECK(fitted.efficiency.bandwidth == Approx(kDefaultStepBandwidthEfficiency / 1.1).epsilon(1e-4));
  CHECK(fitted.origins.per_sequence.provenance == Provenance::fitted);
  CHECK(fitted.origins.weights.source == "levels");
  REQUIRE(fitted.residuals.size() == 4);
  for (const PointResidual& r : fitted.residuals) CHECK(std::fabs(r.relative_residual()) < 1e-4);
  // The modelled prior has none, by default.
  CHECK(prior.model.ms_per_sequence == 0);
  CHECK(prior.origins.per_sequence.provenance == Provenance::default_value);
  // The step time carries it per decode sequence, outside the attention the kernel divides.
  const StepTime step = step_time(truth, decode_batch(204, 63, 10), 2.0);
  CHECK(step.sequence_ms == Approx(0.9));
  CHECK(step.total_ms() == Approx(step.fixed_ms + 0.9 + step.other_ms + step.attention_ms()));
}

TEST_CASE("the per-sequence cost is refused where the points cannot identify it",
          "[step_model][per_sequence][errors]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  RunningDecodeObservation one{"alone", 1.0, 204, 63, 7.2};
  CHECK_THROWS_WITH(calibrate_to_running_sequences(prior, {one}, "f.json"),
                    Catch::Contains("f.json: the per-sequence cost needs decode times at two or "
                                    "more numbers of "
                                    "running sequences, got one point"));
  RunningDecodeObservation close = one;
  close.running_sequences = 1.5;
  CHECK_THROWS_WITH(calibrate_to_running_sequences(prior, {one, close}, "f.json"),
                    Catch::Contains("cannot be told from the per-step cost"));
  RunningDecodeObservation bad = one;
  bad.per_token_ms = 0;
  bad.running_sequences = 9;
  CHECK_THROWS_WITH(calibrate_to_running_sequences(prior, {one, bad}, "f.json"),
                    Catch::Contains("decode point 'alone': expected"));
}

TEST_CASE("requests decoding alongside each request, from its timestamps", "[per_sequence]") {
  // A: 0..4, B: 1..3, C: 2..6, D: an instant at 3 (B's end, C open: B, C, D).
  const std::vector<double> alongside = mean_decoding_alongside({{0, 4}, {1, 3}, {2, 6}, {3, 3}});
  REQUIRE(alongside.size() == 4);
  // A over 0..4: 1 on [0,1), 2 on [1,2), 3 on [2,3), 2 on [3,4): 8 / 4.
  CHECK(alongside[0] == Approx(2.0));
  // B over 1..3: 2 on [1,2), 3 on [2,3): 5 / 2.
  CHECK(alongside[1] == Approx(2.5));
  // C over 2..6: 3, 2, 1, 1: 7 / 4.
  CHECK(alongside[2] == Approx(1.75));
  CHECK(alongside[3] == Approx(4.0));  // A, B (its closed end), C and D itself
}

TEST_CASE("prompts prefilled during each decode, from their first-token times", "[per_sequence]") {
  // Decodes 0..4 and 2..3; prompts end at 0 (the first decode's own), 1, 3 and 5.
  const std::vector<std::vector<PromptStep>> during =
      prompts_prefilled_during({{0, 4}, {2, 3}}, {{5, 1000}, {1, 100}, {0, 10}, {3, 20}});
  REQUIRE(during.size() == 2);
  // 0..4: the prompts ending at 1 and 3 (not its own at 0, not the one at 5).
  REQUIRE(during[0].size() == 2);
  CHECK(during[0][0].prompt_tokens == 100);
  CHECK(during[0][0].decode_sequences == 1);  // the first decode alone at 1
  CHECK(during[0][1].prompt_tokens == 20);
  CHECK(during[0][1].decode_sequences == 2);  // both at 3 (the second's last token)
  // 2..3: the one ending at its last token, 3.
  REQUIRE(during[1].size() == 1);
  CHECK(during[1][0].prompt_tokens == 20);
}

TEST_CASE("the per-sequence cost: the prompts that shared the decodes' steps are not charged to it",
          "[step_model][per_sequence]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  StepModel truth = prior.model;
  truth.ms_per_sequence = 0.09;
  std::vector<RunningDecodeObservation> points;
  for (const double n : {4.0, 20.0, 60.0}) {
    // More prompts arrive while more sequences run: n prompts of 400 tokens, each one mixed
    // step with the n decodes (400 + n tokens: above the weights floor, more so at larger n).
    const double prompts = n;
    const BatchComposition decode = decode_batch(204, 63, n);
    BatchComposition mixed = decode;
    mixed.prefill_tokens = 400;
    mixed.prefill_pairs = 400 * 401 / 2.0;
    const double extra_ms =
        prompts * (step_time(truth, mixed).total_ms() - step_time(truth, decode).total_ms());
    RunningDecodeObservation p{
        "N", n, 204,
        63,  0, std::vector<PromptStep>(static_cast<std::size_t>(prompts), PromptStep{400, n})};
    p.per_token_ms = step_time(truth, decode).total_ms() + extra_ms / 62;
    points.push_back(p);
  }
  CHECK(calibrate_to_running_sequences(prior, points, "run").model.ms_per_sequence ==
        Approx(0.09).epsilon(1e-3));
  // Without the prompts the line takes their work as the sequences'.
  for (RunningDecodeObservation& p : points) p.prompts_alongside = {};
  CHECK(calibrate_to_running_sequences(prior, points, "run").model.ms_per_sequence > 0.1);
}

TEST_CASE("a run's calibration: latencies, then the per-sequence cost where its records give it",
          "[step_model][per_sequence]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  StepModel truth = prior.model;
  truth.ms_per_sequence = 0.08;
  const LatencyObservation alone{"alone", 204, 63, 1, 31.0, std::nullopt};
  std::vector<RunningDecodeObservation> decode;
  for (const double n : {4.0, 12.0, 30.0}) {
    decode.push_back({"N", n, 204, 63, step_time(truth, decode_batch(204, 63, n)).total_ms()});
  }
  const CalibratedStepModel run = calibrate_to_run(prior, {alone}, decode, "run.jsonl");
  CHECK(run.model.ms_per_sequence == Approx(0.08).epsilon(1e-3));
  CHECK(run.origins.per_sequence.provenance == Provenance::fitted);
  // The overhead is what the TTFT leaves of the final model's prefill step.
  REQUIRE(run.residuals.size() == 1);
  CHECK(run.residuals[0].predicted_ms == Approx(31.0).epsilon(1e-6));
  // Without decode points spanning one running sequence, the latencies alone.
  const CalibratedStepModel latencies_only =
      calibrate_to_run(prior, {alone}, {decode[0]}, "run.jsonl");
  CHECK(latencies_only.model.ms_per_sequence == 0);
  CHECK(latencies_only.origins.per_sequence.provenance == Provenance::default_value);
}

}  // namespace unit_step_calibration
