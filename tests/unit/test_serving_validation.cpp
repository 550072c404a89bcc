// Validation of the batching replay against measured runs it did not see (docs/validation.md):
// calibrate the step model on the lightest load only (section 1), or with the per-sequence cost
// on the two lightest (section 2: closed form; section 3: through the replay itself), replay
// every other load's arrivals, and compare with what the benchmark measured. `kspeed_tests
// "[validation][real]"` prints the tables docs/validation.md shows; the checks hold the figures the
// docs state, so a change that moves the predictions fails here first. Section 4: LLMServingSim's
// per-request vLLM runs, each request's own arrival replayed (`"[llmservingsim]"`). Skipped (with
// a warning) without ../shared/data.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>

#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/distribution.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/hf_config.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace unit_serving_validation {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kServing = KSPEED_SOURCE_DIR "/../shared/data/serving/";

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data)");
  return false;
}

Platform llama_8b_on_h100() {
  PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-8b"), Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Provenance::given};
  return make_platform(choice);
}

// Arrivals of one load level: evenly spaced (inference-perf's constant load), Poisson (a fixed
// seed), or all at 0 for a closed loop. Prompts and outputs cycle through `lengths`.
std::vector<ReplayRequest> arrivals(io::ArrivalPattern pattern, double rate, std::size_t count,
                                    const std::vector<std::pair<int, int>>& lengths) {
  std::mt19937_64 random(42);
  std::vector<ReplayRequest> out;
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (pattern == io::ArrivalPattern::constant_rate) t = static_cast<double>(i) / rate;
    if (pattern == io::ArrivalPattern::poisson) {
      t += -std::log((static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0) / rate;
    }
    const auto& [prompt, output] = lengths[i % lengths.size()];
    out.push_back({t, prompt, output, 0});
  }
  return out;
}

struct Predicted {
  BatchReplay replay;
  ReplaySide side;
};

Predicted predict(const std::vector<ReplayRequest>& requests, const ServingSetup& setup) {
  Predicted out{replay_batches(requests, setup.step, {}, setup.scheduler, setup.arrivals), {}};
  out.side = summarise_replay(requests, out.replay, setup);
  return out;
}

double error(double predicted, double measured) {
  return (predicted - measured) / measured;
}

void print_row(const std::string& name, std::optional<double> measured, double predicted) {
  if (!measured) return;
  std::cout << "    " << name << ": measured " << *measured << ", predicted " << predicted
            << ", error " << 100 * error(predicted, *measured) << "%\n";
}

// inference-perf: 204-token prompts (196..212 uniformly), 63 output tokens, constant rate.
std::vector<std::pair<int, int>> inference_perf_lengths() {
  std::vector<std::pair<int, int>> lengths;
  for (int prompt = 196; prompt <= 212; ++prompt) lengths.emplace_back(prompt, 63);
  return lengths;
}

}  // namespace

TEST_CASE(
    "inference-perf, Llama-3.1-8B on one H100: calibrated at 1 req/s, the other loads "
    "predicted",
    "[validation][real]") {
  const std::string folder = kServing + "inferenceperf-h100-llama31-8b-vllm0.11";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> loads = io::read_inference_perf_stages(folder);
  REQUIRE(loads.size() == 7);
  const io::MeasuredLoad& light = loads.front();
  // The calibration point: one request at a time, in effect (1 req/s, E2E 0.48 s).
  LatencyObservation point;
  point.label = light.label;
  point.prompt_tokens = *light.prompt_tokens_mean;
  point.response_tokens = *light.output_tokens_mean;
  point.ttft_ms = light.ttft.mean_ms;
  point.tpot_ms = light.tpot.mean_ms;
  const CalibratedStepModel calibrated =
      calibrate_to_latencies(modelled_step_model(llama_8b_on_h100()), {point}, folder);
  ServingSetup setup;
  setup.step = calibrated.model;
  // manifests.yaml: --max-num-seqs=128 --no-enable-chunked-prefill; vLLM V1 mixed steps.
  setup.scheduler.max_seqs = 128;
  setup.scheduler.chunked_prefill = false;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model: fixed " << m.fixed_ms << " weights " << m.weights_ms << " token "
            << m.ms_per_token << " pair " << m.ms_per_prefill_pair << " kv " << m.ms_per_kv_token
            << " overhead " << calibrated.request_overhead_ms << "\n";
  std::vector<ReplaySide> predicted;
  for (const io::MeasuredLoad& load : loads) {
    const auto count = static_cast<std::size_t>(*load.rate_per_s * 60.0);
    const std::vector<ReplayRequest> requests = arrivals(
        io::ArrivalPattern::constant_rate, *load.rate_per_s, count, inference_perf_lengths());
    const Predicted p = predict(requests, setup);
    const double per_token = (p.side.e2e_ms.mean - p.side.ttft_ms.mean) / (63 - 1);
    std::cout << "  " << load.label << ": achieved measured " << *load.achieved_rate_per_s
              << ", predicted " << p.side.achieved_rate_per_s << "\n";
    print_row("ttft mean", load.ttft.mean_ms, p.side.ttft_ms.mean);
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p90", load.ttft.p90_ms, p.side.ttft_ms.percentiles[1]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("per-token", load.tpot.mean_ms, per_token);
    print_row("e2e mean", load.e2e.mean_ms, p.side.e2e_ms.mean);
    print_row("e2e p50", load.e2e.p50_ms, p.side.e2e_ms.percentiles[0]);
    print_row("e2e p90", load.e2e.p90_ms, p.side.e2e_ms.percentiles[1]);
    print_row("e2e p99", load.e2e.p99_ms, p.side.e2e_ms.percentiles[2]);
    predicted.push_back(p.side);
  }
  // The figures docs/validation.md states: the calibration point reproduced, TTFT p50 within
  // 20% up to 92 req/s, and the per-sequence miss (decode time at 92 req/s half the measured).
  CHECK(predicted[0].ttft_ms.mean == Approx(*loads[0].ttft.mean_ms).epsilon(1e-4));
  for (std::size_t stage = 1; stage <= 3; ++stage) {
    CHECK(std::fabs(error(predicted[stage].ttft_ms.percentiles[0], *loads[stage].ttft.p50_ms)) <
          0.21);
  }
  const double per_token_92 = (predicted[3].e2e_ms.mean - predicted[3].ttft_ms.mean) / 62;
  CHECK(per_token_92 == Approx(7.894).epsilon(0.01));
  CHECK(error(per_token_92, *loads[3].tpot.mean_ms) < -0.45);
  // Open loop: 153 req/s is still served (the measured server saturated at 106).
  CHECK(predicted[5].achieved_rate_per_s > 150);
  CHECK(predicted[5].ttft_ms.percentiles[0] < 100);
  const double saturation = saturation_rate(
      arrivals(io::ArrivalPattern::constant_rate, 100, 6000, inference_perf_lengths()), setup.step,
      {}, setup);
  std::cout << "  saturation: measured 106 req/s achieved, predicted " << saturation << "\n";
  CHECK(saturation == Approx(115.0).epsilon(0.01));
}

namespace {

// How many requests decode alongside one request (itself included), on average over its decode,
// at a constant-rate level: the others arrive every 1/rate s and each decodes for decode_s, so
// the k-th neighbour on either side overlaps it for max(0, 1 - k / (rate · decode_s)) of its
// decode. ≈ rate · decode_s (Little's law) when that is large; 1 when requests never overlap.
double alongside_constant_rate(double rate, double decode_s) {
  const double per_decode = rate * decode_s;
  double sum = 1;
  for (int k = 1; k < per_decode; ++k) sum += 2 * (1 - k / per_decode);
  return sum;
}

// The per-token decode point of a measured level: its mean per-token time at the mean batch a
// request sees.
RunningDecodeObservation decode_point(const io::MeasuredLoad& load, double alongside) {
  return {load.label, alongside, *load.prompt_tokens_mean, *load.output_tokens_mean,
          *load.tpot.mean_ms};
}

}  // namespace

TEST_CASE(
    "inference-perf, Llama-3.1-8B on one H100: the per-sequence cost from the two lightest "
    "levels, every heavier load and the saturation predicted",
    "[validation][real][per_sequence]") {
  const std::string folder = kServing + "inferenceperf-h100-llama31-8b-vllm0.11";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> loads = io::read_inference_perf_stages(folder);
  REQUIRE(loads.size() == 7);
  // The files are aggregates (no per-request records), so one level gives one point: its mean
  // per-token time at its mean batch. A line needs two: 1 req/s (requests never overlap:
  // 1.0 running) and 31.4 req/s (16.4 running), the lightest level at which the batch grows.
  std::vector<RunningDecodeObservation> points;
  for (std::size_t stage = 0; stage < 2; ++stage) {
    const io::MeasuredLoad& load = loads[stage];
    const double decode_s = (*load.e2e.mean_ms - *load.ttft.mean_ms) / 1000.0;
    points.push_back(decode_point(load, alongside_constant_rate(*load.rate_per_s, decode_s)));
  }
  CHECK(points[0].running_sequences == Approx(1.0));
  CHECK(points[1].running_sequences == Approx(16.242).epsilon(1e-4));
  const CalibratedStepModel decode =
      calibrate_to_running_sequences(modelled_step_model(llama_8b_on_h100()), points, folder);
  // The request overhead from the 1 req/s TTFT (the prefill step of one request, then the rest).
  LatencyObservation ttft_point;
  ttft_point.label = loads[0].label;
  ttft_point.prompt_tokens = *loads[0].prompt_tokens_mean;
  ttft_point.response_tokens = *loads[0].output_tokens_mean;
  ttft_point.ttft_ms = loads[0].ttft.mean_ms;
  const CalibratedStepModel calibrated = calibrate_to_latencies(decode, {ttft_point}, folder);
  ServingSetup setup;
  setup.step = calibrated.model;
  setup.scheduler.max_seqs = 128;
  setup.scheduler.chunked_prefill = false;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model: fixed " << m.fixed_ms << " weights " << m.weights_ms << " token "
            << m.ms_per_token << " pair " << m.ms_per_prefill_pair << " kv " << m.ms_per_kv_token
            << " per sequence " << m.ms_per_sequence << " overhead "
            << calibrated.request_overhead_ms << "\n";
  // Two points, two unknowns: the line through them (python over the files, before the launch
  // floor: 0.06361 ms per sequence, weights read 7.1518 ms). The floor (0.746 ms) sits beside
  // the reads and is not scaled, so the same line splits as weights 6.4059 + 0.746 = 7.152 ms
  // and 0.06514 ms per sequence (the KV read, scaled with the weights, takes less of the slope).
  CHECK(m.weights_ms + m.launch_floor_ms == Approx(7.1518).epsilon(1e-3));
  CHECK(m.ms_per_sequence == Approx(0.06514).epsilon(1e-3));
  CHECK(m.weights_ms == Approx(6.4059).epsilon(1e-3));
  std::vector<ReplaySide> predicted;
  for (const io::MeasuredLoad& load : loads) {
    const auto count = static_cast<std::size_t>(*load.rate_per_s * 60.0);
    const std::vector<ReplayRequest> requests = arrivals(
        io::ArrivalPattern::constant_rate, *load.rate_per_s, count, inference_perf_lengths());
    const Predicted p = predict(requests, setup);
    const double per_token = (p.side.e2e_ms.mean - p.side.ttft_ms.mean) / (63 - 1);
    std::cout << "  " << load.label << ": achieved measured " << *load.achieved_rate_per_s
              << ", predicted " << p.side.achieved_rate_per_s << "\n";
    print_row("ttft mean", load.ttft.mean_ms, p.side.ttft_ms.mean);
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("per-token", load.tpot.mean_ms, per_token);
    print_row("e2e mean", load.e2e.mean_ms, p.side.e2e_ms.mean);
    print_row("e2e p99", load.e2e.p99_ms, p.side.e2e_ms.percentiles[2]);
    predicted.push_back(p.side);
  }
  const double saturation = saturation_rate(
      arrivals(io::ArrivalPattern::constant_rate, 100, 6000, inference_perf_lengths()), setup.step,
      {}, setup);
  std::cout << "  saturation (closed loop of 128): predicted " << saturation << "\n";
  // The errors docs/validation.md states, at the levels the fit never saw: each within the
  // issue's target (mean E2E and per-token 10%, TTFT p50 20%), held to half a point so that a
  // change that moves a prediction fails here.
  const auto per_token = [&](std::size_t stage) {
    return (predicted[stage].e2e_ms.mean - predicted[stage].ttft_ms.mean) / (63 - 1);
  };
  const std::pair<std::size_t, std::array<double, 3>> expected[] = {
      {2, {-0.0101, -0.0271, 0.1744}}, {3, {-0.0130, -0.0214, 0.0490}}};
  for (const auto& [stage, errors] : expected) {
    const double e2e = error(predicted[stage].e2e_ms.mean, *loads[stage].e2e.mean_ms);
    const double token = error(per_token(stage), *loads[stage].tpot.mean_ms);
    const double ttft = error(predicted[stage].ttft_ms.percentiles[0], *loads[stage].ttft.p50_ms);
    CHECK(e2e == Approx(errors[0]).margin(0.005));
    CHECK(token == Approx(errors[1]).margin(0.005));
    CHECK(ttft == Approx(errors[2]).margin(0.005));
    CHECK(std::fabs(e2e) < 0.10);
    CHECK(std::fabs(token) < 0.10);
    CHECK(std::fabs(ttft) < 0.20);
  }
  // Saturation: what the replay serves when offered 122.6 req/s, against the 106.5 measured:
  // -11%, just outside the 10% target (docs/validation.md says why).
  CHECK(error(predicted[4].achieved_rate_per_s, *loads[4].achieved_rate_per_s) ==
        Approx(-0.111).margin(0.005));
  CHECK(saturation == Approx(79.02).epsilon(0.01));
}

namespace {

// AccelMark's 500 ShareGPT prompts (input_tokens per line); outputs are not in the file: every
// request gets the mean output of the same prompts in AccelMark's sustained run (tokens_out /
// requests_completed of its first sample: 54,174 / 160 = 339), capped at the suite's 512.
std::vector<std::pair<int, int>> accelmark_lengths(const std::string& folder) {
  std::vector<std::pair<int, int>> lengths;
  const std::string text = io::read_text_file(
      folder + "/workload/sharegpt_standard_v1_requests.jsonl", "AccelMark prompts");
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) {
      const nlohmann::json line = nlohmann::json::parse(text.substr(start, end - start));
      lengths.emplace_back(line.at("input_tokens").get<int>(), 339);
    }
    start = end + 1;
  }
  return lengths;
}

}  // namespace

TEST_CASE(
    "AccelMark, Llama-3-8B on one H100 (vLLM 0.7.3): calibrated one at a time, the "
    "Poisson loads predicted",
    "[validation][real]") {
  const std::string folder = kServing + "accelmark-h100-llama3-8b-vllm0.7.3";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> interactive =
      io::read_accelmark_result(folder + "/result/interactive/result.json");
  const std::vector<io::MeasuredLoad> online =
      io::read_accelmark_result(folder + "/result/online/result.json");
  REQUIRE(interactive.size() == 1);
  REQUIRE(online.size() == 3);
  const std::vector<std::pair<int, int>> lengths = accelmark_lengths(folder);
  std::vector<int> prompts;
  for (const auto& [prompt, output] : lengths) prompts.push_back(prompt);
  std::nth_element(prompts.begin(), prompts.begin() + 250, prompts.end());
  LatencyObservation point;
  point.label = "interactive p50";
  point.prompt_tokens = prompts[250];
  point.response_tokens = 339;
  point.ttft_ms = interactive[0].ttft.p50_ms;
  point.tpot_ms = interactive[0].tpot.p50_ms;
  const CalibratedStepModel calibrated =
      calibrate_to_latencies(modelled_step_model(llama_8b_on_h100()), {point}, folder);
  ServingSetup setup;
  setup.step = calibrated.model;
  // vLLM 0.7.3's V0 engine in-process: max_num_seqs 512 (AccelMark's runner), chunked prefill
  // off (V0 enables it only beyond 32K context), so prefill-first steps of up to
  // max(max_model_len 4096, 2048) tokens.
  setup.scheduler.policy = SchedulerPolicy::prefill_first;
  setup.scheduler.max_seqs = 512;
  setup.scheduler.chunked_prefill = false;
  setup.scheduler.max_batched_tokens = 4096;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model: fixed " << m.fixed_ms << " weights " << m.weights_ms << " token "
            << m.ms_per_token << " pair " << m.ms_per_prefill_pair << " kv " << m.ms_per_kv_token
            << " overhead " << calibrated.request_overhead_ms << "\n";
  // One at a time (a closed loop of one client), then each Poisson level (300 requests).
  std::vector<std::pair<io::MeasuredLoad, std::vector<ReplayRequest>>> levels;
  levels.emplace_back(interactive[0], arrivals(io::ArrivalPattern::one_at_a_time, 1, 150, lengths));
  for (const io::MeasuredLoad& load : online) {
    levels.emplace_back(load,
                        arrivals(io::ArrivalPattern::poisson, *load.rate_per_s, 300, lengths));
  }
  for (const auto& [load, requests] : levels) {
    ServingSetup level = setup;
    level.arrivals.concurrency = load.arrivals == io::ArrivalPattern::one_at_a_time ? 1 : 0;
    const Predicted p = predict(requests, level);
    std::cout << "  " << load.label << "\n";
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p90", load.ttft.p90_ms, p.side.ttft_ms.percentiles[1]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("tpot p50", load.tpot.p50_ms, p.side.tpot_ms.percentiles[0]);
    print_row("tpot p90", load.tpot.p90_ms, p.side.tpot_ms.percentiles[1]);
    print_row("tpot p99", load.tpot.p99_ms, p.side.tpot_ms.percentiles[2]);
    if (load.label == "one at a time") {
      CHECK(p.side.ttft_ms.percentiles[0] == Approx(20.08).epsilon(1e-3));
      CHECK(p.side.tpot_ms.percentiles[0] == Approx(7.74).epsilon(1e-3));
    }
    if (load.label == "Poisson 25 req/s") {
      CHECK(p.side.tpot_ms.percentiles[0] == Approx(12.43).epsilon(0.01));  // measured 24.47
    }
  }
}

TEST_CASE(
    "AccelMark, Llama-3-8B on one H100 (vLLM 0.7.3): the per-sequence cost from the two "
    "lightest levels, the heavier Poisson loads predicted",
    "[validation][real][per_sequence]") {
  const std::string folder = kServing + "accelmark-h100-llama3-8b-vllm0.7.3";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> interactive =
      io::read_accelmark_result(folder + "/result/interactive/result.json");
  const std::vector<io::MeasuredLoad> online =
      io::read_accelmark_result(folder + "/result/online/result.json");
  REQUIRE(interactive.size() == 1);
  REQUIRE(online.size() == 3);
  const std::vector<std::pair<int, int>> lengths = accelmark_lengths(folder);
  std::vector<int> prompts;
  for (const auto& [prompt, output] : lengths) prompts.push_back(prompt);
  std::nth_element(prompts.begin(), prompts.begin() + 250, prompts.end());
  const double prompt = prompts[250];
  // TPOT p50 one at a time (1 running) and at Poisson 5 req/s, where a request sees itself and
  // the 5 · 338 · 9.52 ms = 16.1 others in the system on average (Poisson arrivals see time
  // averages).
  const double poisson_alongside = 1 + *online[0].rate_per_s * 338 * *online[0].tpot.p50_ms / 1000;
  const std::vector<RunningDecodeObservation> points{
      {"one at a time, TPOT p50", 1.0, prompt, 339, *interactive[0].tpot.p50_ms},
      {"Poisson 5 req/s, TPOT p50", poisson_alongside, prompt, 339, *online[0].tpot.p50_ms}};
  const CalibratedStepModel decode =
      calibrate_to_running_sequences(modelled_step_model(llama_8b_on_h100()), points, folder);
  LatencyObservation ttft_point;
  ttft_point.label = "interactive p50";
  ttft_point.prompt_tokens = prompt;
  ttft_point.response_tokens = 339;
  ttft_point.ttft_ms = interactive[0].ttft.p50_ms;
  const CalibratedStepModel calibrated = calibrate_to_latencies(decode, {ttft_point}, folder);
  ServingSetup setup;
  setup.step = calibrated.model;
  setup.scheduler.policy = SchedulerPolicy::prefill_first;
  setup.scheduler.max_seqs = 512;
  setup.scheduler.chunked_prefill = false;
  setup.scheduler.max_batched_tokens = 4096;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model: weights " << m.weights_ms << " kv " << m.ms_per_kv_token
            << " per sequence " << m.ms_per_sequence << " overhead "
            << calibrated.request_overhead_ms << "\n";
  std::vector<std::pair<io::MeasuredLoad, std::vector<ReplayRequest>>> levels;
  levels.emplace_back(interactive[0], arrivals(io::ArrivalPattern::one_at_a_time, 1, 150, lengths));
  for (const io::MeasuredLoad& load : online) {
    levels.emplace_back(load,
                        arrivals(io::ArrivalPattern::poisson, *load.rate_per_s, 300, lengths));
  }
  for (const auto& [load, requests] : levels) {
    ServingSetup level = setup;
    level.arrivals.concurrency = load.arrivals == io::ArrivalPattern::one_at_a_time ? 1 : 0;
    const Predicted p = predict(requests, level);
    std::cout << "  " << load.label << "\n";
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p90", load.ttft.p90_ms, p.side.ttft_ms.percentiles[1]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("tpot p50", load.tpot.p50_ms, p.side.tpot_ms.percentiles[0]);
    print_row("tpot p90", load.tpot.p90_ms, p.side.tpot_ms.percentiles[1]);
    print_row("tpot p99", load.tpot.p99_ms, p.side.tpot_ms.percentiles[2]);
    // The heavier levels: the line from 1 to 17 running sequences over-states the step at
    // 100-200 (TPOT p50 +28% and +42%), docs/validation.md.
    if (load.label == "Poisson 25 req/s") {
      CHECK(error(p.side.tpot_ms.percentiles[0], *load.tpot.p50_ms) == Approx(0.283).margin(0.01));
    }
    if (load.label == "Poisson 100 req/s") {
      CHECK(error(p.side.tpot_ms.percentiles[0], *load.tpot.p50_ms) == Approx(0.423).margin(0.01));
    }
  }
}

namespace {

struct RecordFit {
  double fewest = 1e9;  ///< running sequences, over the requests
  double most = 0;
  CalibratedStepModel fitted;
};

// Replays one level of Poisson arrivals with `truth` and fits the per-sequence cost to nothing
// but the records a benchmark would write: each request's first and last token times.
RecordFit fit_own_records(const CalibratedStepModel& prior, const StepModel& truth,
                          const std::vector<std::pair<int, int>>& lengths) {
  ServingSetup setup;
  setup.step = truth;
  setup.scheduler.max_seqs = 128;
  const std::vector<ReplayRequest> requests =
      arrivals(io::ArrivalPattern::poisson, 40, 2000, lengths);
  const Predicted p = predict(requests, setup);
  std::vector<DecodeInterval> intervals;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const double arrival = requests[i].arrival_s;
    intervals.push_back({arrival + static_cast<double>(p.replay.timing[i].ttft_ms) / 1000.0,
                         arrival + static_cast<double>(p.replay.timing[i].e2e_ms) / 1000.0});
  }
  const std::vector<double> alongside = mean_decoding_alongside(intervals);
  std::vector<PrefilledPrompt> prompts;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    prompts.push_back({intervals[i].first_token_s, static_cast<double>(requests[i].prompt_tokens)});
  }
  const std::vector<std::vector<PromptStep>> prefilled =
      prompts_prefilled_during(intervals, prompts);
  RecordFit out;
  std::vector<RunningDecodeObservation> points;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    points.push_back({"request " + std::to_string(i), alongside[i],
                      static_cast<double>(requests[i].prompt_tokens),
                      static_cast<double>(requests[i].response_tokens),
                      static_cast<double>(p.replay.timing[i].tpot_ms), prefilled[i]});
    out.fewest = std::min(out.fewest, alongside[i]);
    out.most = std::max(out.most, alongside[i]);
  }
  out.fitted = calibrate_to_running_sequences(prior, points, "records");
  return out;
}

}  // namespace

TEST_CASE(
    "the per-sequence cost from ONE level's per-request records: a replay's own records "
    "give back the cost it was run with",
    "[validation][per_sequence]") {
  // One level of Poisson arrivals at 40 req/s: the batch varies from request to request (4 to
  // 60 running), which is what identifies the slope.
  const CalibratedStepModel prior = modelled_step_model(llama_8b_on_h100());
  StepModel truth = prior.model;
  truth.ms_per_sequence = 0.09;
  // Short prompts (20..59 tokens): prefill never lifts a step above the weights floor, so every
  // step is the decode line and the fit gives back the truth.
  std::vector<std::pair<int, int>> short_prompts;
  for (int i = 0; i < 40; ++i) short_prompts.emplace_back(20 + i, 20 + 3 * i);
  const RecordFit clean = fit_own_records(prior, truth, short_prompts);
  std::cout << "per-request records, short prompts: " << clean.fewest << " to " << clean.most
            << " running; per sequence " << clean.fitted.model.ms_per_sequence << " ms, weights "
            << clean.fitted.model.weights_ms << " ms (true 0.09, " << truth.weights_ms << ")\n";
  CHECK(clean.most - clean.fewest > 10);
  CHECK(clean.fitted.model.ms_per_sequence == Approx(0.09).epsilon(0.05));
  CHECK(clean.fitted.model.weights_ms == Approx(truth.weights_ms).epsilon(0.01));
  // Prompts of 150..423 tokens: a step that also carries a prompt rises above the weights floor
  // (0.021 ms a token), more often when more sequences run, so the decode line over-states the
  // per-sequence cost. The bias this check holds is the one docs/validation.md states.
  std::vector<std::pair<int, int>> long_prompts;
  for (int i = 0; i < 40; ++i) long_prompts.emplace_back(150 + 7 * i, 20 + 3 * i);
  const RecordFit biased = fit_own_records(prior, truth, long_prompts);
  std::cout << "per-request records, 150-423-token prompts: " << biased.fewest << " to "
            << biased.most << " running; per sequence " << biased.fitted.model.ms_per_sequence
            << " ms, weights " << biased.fitted.model.weights_ms << " ms\n";
  // The fit takes each prompt's mixed-step work (prompts_prefilled_during) out of the decode
  // times first: that brings the fit from 0.128 ms (+42%, the decode line alone) to 0.119
  // (+33%), not to the truth. The rest is not yet explained (a step carrying several prompts,
  // the batch varying over a decode): docs/validation.md section 2 states both numbers. (0.1216,
  // +35%, since the synthetic truth's weights are read at the HBM prior 0.56, not 0.58.)
  CHECK(biased.fitted.model.ms_per_sequence == Approx(0.1216).epsilon(0.01));
}

TEST_CASE("serving readers: inference-perf stage and AccelMark result from their documented fields",
          "[serving_readers]") {
  // inference-perf: seconds; the per-token time comes from the means, not the chunk-based field.
  const io::MeasuredLoad stage = io::parse_inference_perf_stage(
      R"({"load_summary": {"count": 60, "requested_rate": 1.0, "achieved_rate": 1.02,
          "send_duration": 58.5},
          "successes": {"count": 60, "latency": {
            "request_latency": {"mean": 0.48, "median": 0.479, "p90": 0.485, "p99": 0.489},
            "time_to_first_token": {"mean": 0.031, "median": 0.030, "p90": 0.035, "p99": 0.039},
            "time_per_output_token": {"mean": 0.0034}, "new_field": {"mean": 1}},
            "prompt_len": {"mean": 204}, "output_len": {"mean": 64}, "throughput": {}},
          "failures": {"count": 0}})",
      "stage_0_lifecycle_metrics.json");
  CHECK(*stage.rate_per_s == 1.0);
  CHECK(*stage.ttft.p50_ms == Approx(30.0));
  CHECK(*stage.e2e.mean_ms == Approx(480.0));
  CHECK(*stage.tpot.mean_ms == Approx((480.0 - 31.0) / 63));
  CHECK_FALSE(stage.tpot.p50_ms);
  CHECK(stage.requests == 60);
  CHECK_THROWS_WITH(io::parse_inference_perf_stage(R"({"load_summary": {}})", "x.json"),
                    Catch::Contains("x.json: .successes is missing"));
  // AccelMark: interactive and online levels; unknown scenarios are skipped.
  const std::vector<io::MeasuredLoad> levels = io::parse_accelmark_result(
      R"({"metrics": {"online": {"results_by_qps": [
            {"target_qps": 5, "achieved_qps": 5.0, "ttft_ms_p50": 26.79, "ttft_ms_p90": 32.86,
             "ttft_ms_p99": 42.46, "tpot_ms_p50": 9.52, "tpot_ms_p90": 10.26,
             "tpot_ms_p99": 10.98, "sla_met": true}]},
          "interactive": {"ttft_ms_p50": 20.08, "tpot_ms_p50": 7.74}, "offline": {}}})",
      "result.json");
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].label == "one at a time");
  CHECK(*levels[0].tpot.p50_ms == 7.74);
  CHECK_FALSE(levels[0].ttft.p90_ms);
  CHECK(levels[1].label == "Poisson 5 req/s");
  CHECK(levels[1].arrivals == io::ArrivalPattern::poisson);
  CHECK(*levels[1].ttft.p99_ms == 42.46);
  CHECK_THROWS_WITH(io::parse_accelmark_result(R"({"metrics": {"offline": {}}})", "r.json"),
                    Catch::Contains("neither metrics.interactive nor metrics.online"));
}

TEST_CASE("serving readers on the shared runs", "[serving_readers][real]") {
  const std::string folder = kServing + "inferenceperf-h100-llama31-8b-vllm0.11";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> stages = io::read_inference_perf_stages(folder);
  REQUIRE(stages.size() == 7);
  // The shared data's README: TTFT mean 31.1, E2E mean 480, (E2E - TTFT)/(out - 1) ≈ 7.2 ms.
  CHECK(*stages[0].ttft.mean_ms == Approx(31.127).epsilon(1e-4));
  CHECK(*stages[0].e2e.mean_ms == Approx(480.482).epsilon(1e-4));
  CHECK(*stages[0].tpot.mean_ms == Approx(7.230).epsilon(1e-3));
  CHECK(*stages[4].achieved_rate_per_s == Approx(106.49).epsilon(1e-3));
  const std::vector<io::MeasuredLoad> online = io::read_accelmark_result(
      kServing + "accelmark-h100-llama3-8b-vllm0.7.3/result/online/result.json");
  REQUIRE(online.size() == 3);
  CHECK(*online[2].ttft.p99_ms == Approx(3004.18));
}

TEST_CASE("LLMServingSim per-request runs: server-side latencies from the engine's timestamps",
          "[serving_readers]") {
  const io::PerRequestRun run = io::parse_llmservingsim_run(
      "{\"request_id\": \"b-1\", \"input_toks\": 100, \"output_toks\": 11, \"queued_ts\": 11.0, "
      "\"scheduled_ts\": 11.5, \"first_token_ts\": 12.0, \"last_token_ts\": 13.0}\n"
      "{\"request_id\": \"b-0\", \"input_toks\": 50, \"output_toks\": 1, \"queued_ts\": 10.0, "
      "\"scheduled_ts\": 10.0, \"first_token_ts\": 10.25, \"last_token_ts\": 10.25}\n",
      R"({"model": "m", "vllm_version": "0.19.0",
          "engine_kwargs": {"max_num_seqs": 128, "max_num_batched_tokens": 2048}})",
      "run");
  REQUIRE(run.requests.size() == 2);
  CHECK(run.engine_version == "vLLM 0.19.0");
  CHECK(*run.max_num_seqs == 128);
  CHECK_FALSE(run.kv_blocks);
  CHECK(run.requests[0].prompt_tokens == 50);  // sorted by arrival
  CHECK(run.requests[0].arrival_s == 0);
  CHECK(run.requests[1].arrival_s == Approx(1.0));
  CHECK(run.requests[1].queue_ms == Approx(500));
  CHECK(run.requests[1].ttft_ms == Approx(1000));
  CHECK(*run.requests[1].tpot_ms == Approx(100));
  CHECK_FALSE(run.requests[0].tpot_ms);
  CHECK_THROWS_WITH(io::parse_llmservingsim_run(R"({"input_toks": 5})", "{}", "bad"),
                    Catch::Contains("bad/requests.jsonl:1: output_toks is missing"));
}

TEST_CASE("LLMServingSim shared runs: the README's mean TTFTs", "[serving_readers][real]") {
  const std::string folder = kServing + "llmservingsim-vllm0.19-per-request/";
  if (!present(folder)) return;
  // The shared data's README: RTX 4090 Llama-3.1-8B mean TTFT 65 s, RTX PRO 6000 7.1 s.
  for (const auto& [run_name, mean_s] :
       {std::pair{"RTX4090_Llama-3.1-8B", 65.457}, std::pair{"RTXPRO6000_Llama-3.1-8B", 7.097}}) {
    const io::PerRequestRun run = io::read_llmservingsim_run(folder + run_name);
    CHECK(run.requests.size() == 300);
    double sum = 0;
    for (const io::ServedRequest& r : run.requests) sum += r.ttft_ms;
    CHECK(sum / 300 / 1000 == Approx(mean_s).epsilon(1e-3));
  }
  CHECK(*io::read_llmservingsim_run(folder + "RTX4090_Llama-3.1-8B").kv_blocks == 2588);
}

// ---- section 3: the per-sequence cost fitted through the replay itself ----
//
// Sections 1 and 2 fit the step model with closed forms of a decode-only step at the level's
// mean batch. The replay then adds what those forms leave out: the prompts that share the
// decodes' steps (vLLM V1's mixed steps) or stall them (V0's prefill-first steps). At AccelMark's
// Poisson 5 req/s those stalls are ≈ 0.5 ms a token, so the closed form puts them into
// ms_per_sequence and the replay charges them twice. Here the same two levels are fitted by
// replaying them: the bandwidth side so that the lightest level's replay gives its measured
// per-token time, the per-sequence cost so that the second level's does, alternated until both
// hold. No new term: the same model, fitted the way it is used.
namespace {

// x with f(x) = target for f increasing on [low, high], by bisection (50 halvings: far below the
// measurements' 0.01 ms).
template <class F>
double solve_increasing(F f, double target, double low, double high) {
  for (int i = 0; i < 50; ++i) {
    const double mid = 0.5 * (low + high);
    (f(mid) < target ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

StepModel with_bandwidth_scale(StepModel m, double scale) {
  m.weights_ms *= scale;
  m.ms_per_kv_token *= scale;
  return m;
}

StepModel with_per_sequence(StepModel m, double per_sequence_ms) {
  m.ms_per_sequence = per_sequence_ms;
  return m;
}

using ReplayedDecode = std::function<double(const StepModel&)>;

// The lightest level pins the bandwidth side (its batch is one sequence), the second the
// per-sequence cost; each depends a little on the other, so they alternate (five rounds: the
// second round already moves neither by 10^-4).
StepModel fit_through_replay(StepModel model, const ReplayedDecode& lightest,
                             double lightest_measured, const ReplayedDecode& second,
                             double second_measured) {
  for (int round = 0; round < 5; ++round) {
    const StepModel before_scale = model;
    const double scale =
        solve_increasing([&](double s) { return lightest(with_bandwidth_scale(before_scale, s)); },
                         lightest_measured, 0.3, 3.0);
    model = with_bandwidth_scale(before_scale, scale);
    const StepModel before_slope = model;
    const double per_sequence =
        solve_increasing([&](double c) { return second(with_per_sequence(before_slope, c)); },
                         second_measured, 0.0, 1.0);
    model = with_per_sequence(before_slope, per_sequence);
  }
  return model;
}

// The request overhead from the lightest level's TTFT, on the fitted step model.
CalibratedStepModel with_ttft_overhead(const StepModel& fitted, const LatencyObservation& point,
                                       const std::string& source) {
  CalibratedStepModel prior = modelled_step_model(llama_8b_on_h100());
  prior.model = fitted;
  return calibrate_to_latencies(prior, {point}, source);
}

}  // namespace

TEST_CASE(
    "inference-perf, Llama-3.1-8B on one H100: the per-sequence cost fitted by replaying the "
    "two lightest levels, the heavier loads and the saturation predicted",
    "[validation][real][replay_fit]") {
  const std::string folder = kServing + "inferenceperf-h100-llama31-8b-vllm0.11";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> loads = io::read_inference_perf_stages(folder);
  REQUIRE(loads.size() == 7);
  ServingSetup setup;
  setup.scheduler.max_seqs = 128;
  setup.scheduler.chunked_prefill = false;
  std::vector<std::vector<ReplayRequest>> stage_requests;
  for (const io::MeasuredLoad& load : loads) {
    stage_requests.push_back(arrivals(io::ArrivalPattern::constant_rate, *load.rate_per_s,
                                      static_cast<std::size_t>(*load.rate_per_s * 60.0),
                                      inference_perf_lengths()));
  }
  const auto per_token = [](const ReplaySide& side) {
    return (side.e2e_ms.mean - side.ttft_ms.mean) / (63 - 1);
  };
  const auto replayed = [&](std::size_t stage) -> ReplayedDecode {
    return [&, stage](const StepModel& model) {
      ServingSetup with = setup;
      with.step = model;
      return per_token(predict(stage_requests[stage], with).side);
    };
  };
  const StepModel fitted =
      fit_through_replay(modelled_step_model(llama_8b_on_h100()).model, replayed(0),
                         *loads[0].tpot.mean_ms, replayed(1), *loads[1].tpot.mean_ms);
  LatencyObservation ttft_point;
  ttft_point.label = loads[0].label;
  ttft_point.prompt_tokens = *loads[0].prompt_tokens_mean;
  ttft_point.response_tokens = *loads[0].output_tokens_mean;
  ttft_point.ttft_ms = loads[0].ttft.mean_ms;
  const CalibratedStepModel calibrated = with_ttft_overhead(fitted, ttft_point, folder);
  setup.step = calibrated.model;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model (fitted through the replay): weights " << m.weights_ms << " kv "
            << m.ms_per_kv_token << " per sequence " << m.ms_per_sequence << " overhead "
            << calibrated.request_overhead_ms << "\n";
  std::vector<ReplaySide> predicted;
  for (std::size_t stage = 0; stage < loads.size(); ++stage) {
    const io::MeasuredLoad& load = loads[stage];
    const Predicted p = predict(stage_requests[stage], setup);
    std::cout << "  " << load.label << ": achieved measured " << *load.achieved_rate_per_s
              << ", predicted " << p.side.achieved_rate_per_s << "\n";
    print_row("ttft mean", load.ttft.mean_ms, p.side.ttft_ms.mean);
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("per-token", load.tpot.mean_ms, per_token(p.side));
    print_row("e2e mean", load.e2e.mean_ms, p.side.e2e_ms.mean);
    print_row("e2e p99", load.e2e.p99_ms, p.side.e2e_ms.percentiles[2]);
    predicted.push_back(p.side);
  }
  // Both calibration levels reproduced by the replay itself.
  CHECK(per_token(predicted[0]) == Approx(*loads[0].tpot.mean_ms).epsilon(1e-3));
  CHECK(per_token(predicted[1]) == Approx(*loads[1].tpot.mean_ms).epsilon(1e-3));
  // The fit (an independent python replica of the replay over the same files, before the launch
  // floor: 0.0627 ms, weights 7.153 ms, and the same held-out errors to 0.1 point; with the
  // floor beside the reads, weights + floor keep 7.153 and the per-sequence cost is 0.0642).
  CHECK(m.weights_ms + m.launch_floor_ms == Approx(7.153).epsilon(1e-3));
  CHECK(m.ms_per_sequence == Approx(0.0642).epsilon(0.01));
  CHECK(m.weights_ms == Approx(6.4069).epsilon(1e-3));
  // The held-out errors docs/validation.md states (section 3), to half a point.
  const std::pair<std::size_t, std::array<double, 3>> expected[] = {{2, {-0.015, -0.032, 0.173}},
                                                                    {3, {-0.034, -0.043, 0.041}}};
  for (const auto& [stage, errors] : expected) {
    CHECK(error(predicted[stage].e2e_ms.mean, *loads[stage].e2e.mean_ms) ==
          Approx(errors[0]).margin(0.005));
    CHECK(error(per_token(predicted[stage]), *loads[stage].tpot.mean_ms) ==
          Approx(errors[1]).margin(0.005));
    CHECK(error(predicted[stage].ttft_ms.percentiles[0], *loads[stage].ttft.p50_ms) ==
          Approx(errors[2]).margin(0.005));
  }
  CHECK(error(predicted[4].achieved_rate_per_s, *loads[4].achieved_rate_per_s) ==
        Approx(-0.106).margin(0.005));
}

namespace {

struct LevelErrors {
  double per_sequence_ms = 0;
  std::vector<double> tpot_p50;  ///< one at a time, then each Poisson level
  std::vector<double> ttft_p50;
};

// Section 3 on AccelMark with the given prompt and output lengths: fit through the replay of the
// two lightest levels, replay every level, print, and return the TPOT and TTFT p50 errors.
LevelErrors accelmark_fit_through_replay(const std::string& folder,
                                         const std::vector<io::MeasuredLoad>& interactive,
                                         const std::vector<io::MeasuredLoad>& online,
                                         const std::vector<std::pair<int, int>>& lengths) {
  std::vector<int> prompts;
  for (const auto& [prompt, output] : lengths) prompts.push_back(prompt);
  std::nth_element(prompts.begin(), prompts.begin() + 250, prompts.end());
  std::vector<std::pair<io::MeasuredLoad, std::vector<ReplayRequest>>> levels;
  levels.emplace_back(interactive[0], arrivals(io::ArrivalPattern::one_at_a_time, 1, 150, lengths));
  for (const io::MeasuredLoad& load : online) {
    levels.emplace_back(load,
                        arrivals(io::ArrivalPattern::poisson, *load.rate_per_s, 300, lengths));
  }
  ServingSetup setup;
  setup.scheduler.policy = SchedulerPolicy::prefill_first;
  setup.scheduler.max_seqs = 512;
  setup.scheduler.chunked_prefill = false;
  setup.scheduler.max_batched_tokens = 4096;
  const auto level_setup = [&](std::size_t level, const StepModel& model) {
    ServingSetup with = setup;
    with.step = model;
    with.arrivals.concurrency = level == 0 ? 1 : 0;
    return with;
  };
  const auto replayed = [&](std::size_t level) -> ReplayedDecode {
    return [&, level](const StepModel& model) {
      return predict(levels[level].second, level_setup(level, model)).side.tpot_ms.percentiles[0];
    };
  };
  const StepModel fitted =
      fit_through_replay(modelled_step_model(llama_8b_on_h100()).model, replayed(0),
                         *interactive[0].tpot.p50_ms, replayed(1), *online[0].tpot.p50_ms);
  LatencyObservation ttft_point;
  ttft_point.label = "interactive p50";
  ttft_point.prompt_tokens = prompts[250];
  ttft_point.response_tokens = 339;
  ttft_point.ttft_ms = interactive[0].ttft.p50_ms;
  const CalibratedStepModel calibrated = with_ttft_overhead(fitted, ttft_point, folder);
  setup.step = calibrated.model;
  setup.scheduler.request_overhead_ms = calibrated.request_overhead_ms;
  const StepModel& m = setup.step;
  std::cout << "step model (fitted through the replay): weights " << m.weights_ms << " kv "
            << m.ms_per_kv_token << " per sequence " << m.ms_per_sequence << " overhead "
            << calibrated.request_overhead_ms << "\n";
  LevelErrors out;
  out.per_sequence_ms = m.ms_per_sequence;
  for (std::size_t level = 0; level < levels.size(); ++level) {
    const auto& [load, requests] = levels[level];
    const Predicted p = predict(requests, level_setup(level, setup.step));
    std::cout << "  " << load.label << "\n";
    print_row("ttft p50", load.ttft.p50_ms, p.side.ttft_ms.percentiles[0]);
    print_row("ttft p90", load.ttft.p90_ms, p.side.ttft_ms.percentiles[1]);
    print_row("ttft p99", load.ttft.p99_ms, p.side.ttft_ms.percentiles[2]);
    print_row("tpot p50", load.tpot.p50_ms, p.side.tpot_ms.percentiles[0]);
    print_row("tpot p90", load.tpot.p90_ms, p.side.tpot_ms.percentiles[1]);
    print_row("tpot p99", load.tpot.p99_ms, p.side.tpot_ms.percentiles[2]);
    out.tpot_p50.push_back(error(p.side.tpot_ms.percentiles[0], *load.tpot.p50_ms));
    out.ttft_p50.push_back(error(p.side.ttft_ms.percentiles[0], *load.ttft.p50_ms));
  }
  return out;
}

}  // namespace

TEST_CASE(
    "AccelMark, Llama-3-8B on one H100 (vLLM 0.7.3): the per-sequence cost fitted by "
    "replaying the two lightest levels, the heavier Poisson loads predicted",
    "[validation][real][replay_fit]") {
  const std::string folder = kServing + "accelmark-h100-llama3-8b-vllm0.7.3";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> interactive =
      io::read_accelmark_result(folder + "/result/interactive/result.json");
  const std::vector<io::MeasuredLoad> online =
      io::read_accelmark_result(folder + "/result/online/result.json");
  REQUIRE(interactive.size() == 1);
  REQUIRE(online.size() == 3);
  const std::vector<std::pair<int, int>> lengths = accelmark_lengths(folder);
  const LevelErrors errors = accelmark_fit_through_replay(folder, interactive, online, lengths);
  // Both calibration levels reproduced by the replay itself (the closed form left +5% at 5 req/s).
  CHECK(errors.tpot_p50[0] == Approx(0).margin(1e-3));
  CHECK(errors.tpot_p50[1] == Approx(0).margin(1e-3));
  // The held-out errors docs/validation.md states (section 3), to half a point.
  // (A python replica of the prefill-first replay before the launch floor, averaged over three
  // Poisson seeds, gives 0.0656 ms, TPOT p50 +3% and +22%, TTFT p50 -25% and -47%: 300 requests'
  // sampling noise.)
  CHECK(errors.per_sequence_ms == Approx(0.0660).epsilon(0.01));
  CHECK(errors.tpot_p50[2] == Approx(0.049).margin(0.005));
  CHECK(errors.tpot_p50[3] == Approx(0.208).margin(0.005));
  CHECK(errors.ttft_p50[2] == Approx(-0.247).margin(0.005));
  CHECK(errors.ttft_p50[3] == Approx(-0.472).margin(0.005));
}

namespace {

// AccelMark's result files hold no output lengths. Its suite (workload/suite_A.json) documents
// the dataset's: p50 310 and p99 1,200 tokens, generation capped at output_tokens_max 512. A
// lognormal through those two quantiles (sigma = ln(1200/310) / 2.3263), capped at 512, drawn
// once per prompt (fixed seed; Box-Muller over the raw generator, so every standard library
// draws the same) is a *modelled* distribution: its mean, 330 tokens, is within 3% of the 339
// AccelMark's sustained run measured for the same prompts.
std::vector<std::pair<int, int>> with_modelled_outputs(std::vector<std::pair<int, int>> lengths) {
  constexpr double kMedian = 310;
  constexpr double kP99 = 1200;
  constexpr double kZ99 = 2.326348;  // the standard normal's 99th percentile
  constexpr int kCap = 512;
  const double sigma = std::log(kP99 / kMedian) / kZ99;
  std::mt19937_64 random(7);
  const auto uniform = [&] {
    return (static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0;
  };
  for (auto& [prompt, output] : lengths) {
    const double z =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    output = std::clamp(static_cast<int>(std::lround(kMedian * std::exp(sigma * z))), 2, kCap);
  }
  return lengths;
}

}  // namespace

TEST_CASE(
    "AccelMark (vLLM 0.7.3): fitted through the replay with output lengths modelled from the "
    "suite's documented distribution",
    "[validation][real][replay_fit]") {
  const std::string folder = kServing + "accelmark-h100-llama3-8b-vllm0.7.3";
  if (!present(folder)) return;
  const std::vector<io::MeasuredLoad> interactive =
      io::read_accelmark_result(folder + "/result/interactive/result.json");
  const std::vector<io::MeasuredLoad> online =
      io::read_accelmark_result(folder + "/result/online/result.json");
  REQUIRE(interactive.size() == 1);
  REQUIRE(online.size() == 3);
  const std::vector<std::pair<int, int>> lengths = with_modelled_outputs(accelmark_lengths(folder));
  double total = 0;
  int capped = 0;
  for (const auto& [prompt, output] : lengths) {
    total += output;
    capped += output == 512 ? 1 : 0;
  }
  std::cout << "modelled outputs: mean " << total / static_cast<double>(lengths.size()) << ", "
            << capped << " of " << lengths.size() << " at the 512 cap\n";
  CHECK(total / static_cast<double>(lengths.size()) == Approx(330.2).epsilon(1e-3));
  const LevelErrors errors = accelmark_fit_through_replay(folder, interactive, online, lengths);
  CHECK(errors.tpot_p50[0] == Approx(0).margin(1e-3));
  CHECK(errors.tpot_p50[1] == Approx(0).margin(1e-3));
  // The held-out errors docs/validation.md states (section 3, modelled outputs), to half a point:
  // TPOT p50 within the 10% target at both heavier levels, TTFT p50 not (a python replica over
  // three Poisson seeds, before the launch floor: TPOT -6%, +5%; TTFT -26%, -47%).
  CHECK(errors.per_sequence_ms == Approx(0.0686).epsilon(0.01));
  CHECK(errors.tpot_p50[2] == Approx(-0.017).margin(0.005));
  CHECK(errors.tpot_p50[3] == Approx(0.072).margin(0.005));
  CHECK(errors.ttft_p50[2] == Approx(-0.260).margin(0.005));
  CHECK(errors.ttft_p50[3] == Approx(-0.466).margin(0.005));
}

namespace {

// One of LLMServingSim's per-request vLLM 0.19 runs (docs/validation.md, section 4) and the
// deployment kspeed describes it with.
struct PerRequestDeployment {
  std::string run;  ///< folder under llmservingsim-vllm0.19-per-request/
  /// The model (the run's config.json is LLMServingSim's cluster description, not the model's).
  ModelArch model;
  std::string gpu;  ///< kspeed preset
  std::int64_t tp = 1;
  /// Data-parallel engines (the runs' data_parallel_size): replicas behind vLLM's balancer,
  /// which sends a request to the least loaded one.
  std::int64_t replicas = 1;
};

// The measured side, server side as the reader defines it (from queued_ts).
struct MeasuredSide {
  Distribution ttft_ms;
  Distribution tpot_ms;
  Distribution e2e_ms;
};

MeasuredSide measured_side(const io::PerRequestRun& run) {
  std::vector<double> ttft;
  std::vector<double> tpot;
  std::vector<double> e2e;
  for (const io::ServedRequest& r : run.requests) {
    ttft.push_back(r.ttft_ms);
    e2e.push_back(r.e2e_ms);
    if (r.tpot_ms) tpot.push_back(*r.tpot_ms);
  }
  const std::vector<double> points{50, 90, 99};
  return {distribution_of(ttft, points), distribution_of(tpot, points),
          distribution_of(e2e, points)};
}

// Each request's own arrival (queued_ts), prompt and output; nothing cached (ShareGPT
// conversations rarely share a prefix beyond the template; the runs had prefix caching on).
std::vector<ReplayRequest> own_arrivals(const io::PerRequestRun& run) {
  std::vector<ReplayRequest> out;
  for (const io::ServedRequest& r : run.requests) {
    out.push_back({r.arrival_s, r.prompt_tokens, r.output_tokens, 0});
  }
  return out;
}

// Each request's decode per token against the requests decoding alongside it, from the records'
// own first- and last-token times: the points of the per-sequence line. --calibrate also takes
// out the prompts prefilled during each decode (prompts_prefilled_during); section 4's figures
// predate that and leave them in.
std::vector<RunningDecodeObservation> own_decode_points(const io::PerRequestRun& run) {
  std::vector<DecodeInterval> intervals;
  std::vector<const io::ServedRequest*> decoded;
  for (const io::ServedRequest& r : run.requests) {
    if (!r.tpot_ms) continue;
    intervals.push_back({r.arrival_s + r.ttft_ms / 1000.0, r.arrival_s + r.e2e_ms / 1000.0});
    decoded.push_back(&r);
  }
  const std::vector<double> alongside = mean_decoding_alongside(intervals);
  std::vector<RunningDecodeObservation> points;
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    points.push_back({"request " + std::to_string(i), alongside[i],
                      static_cast<double>(decoded[i]->prompt_tokens),
                      static_cast<double>(decoded[i]->output_tokens), *decoded[i]->tpot_ms});
  }
  return points;
}

struct PerRequestComparison {
  MeasuredSide measured;
  ReplaySide prior;       ///< (a) roofline at the default efficiencies, nothing fitted
  ReplaySide calibrated;  ///< (b) the decode line fitted to the run's own records
  CalibratedStepModel prior_model;
  CalibratedStepModel fitted_model;
  std::int64_t kv_blocks = 0;
  bool kv_blocks_recorded = false;
};

void print_side(const char* name, const ReplaySide& side) {
  std::cout << "    " << name << ": ttft p50/p90/p99 " << side.ttft_ms.percentiles[0] << " / "
            << side.ttft_ms.percentiles[1] << " / " << side.ttft_ms.percentiles[2]
            << "  tpot p50/p90/p99 " << side.tpot_ms.percentiles[0] << " / "
            << side.tpot_ms.percentiles[1] << " / " << side.tpot_ms.percentiles[2] << "  e2e mean "
            << side.e2e_ms.mean << "  ttft mean " << side.ttft_ms.mean << "  queue mean "
            << side.queue_ms.mean << "  preemptions " << side.preemptions << " ("
            << side.requests_preempted << " requests)  mean batch " << side.mean_batch_sequences
            << "  last completion " << side.totals.last_completion_s << " s\n";
}

PerRequestComparison compare_per_request(const PerRequestDeployment& deployment) {
  const std::string folder = kServing + "llmservingsim-vllm0.19-per-request/" + deployment.run;
  const io::PerRequestRun run = io::read_llmservingsim_run(folder);
  PlatformChoice choice;
  choice.model = {deployment.model, Provenance::given};
  choice.gpu = {io::load_gpu(deployment.gpu), Provenance::given};
  choice.tensor_parallel = {deployment.tp, Provenance::given};
  // A MoE decode step reads the experts its batch activates: at the run's full batch (max_num_seqs
  // per engine), not one sequence's. Dense models read every weight whatever the batch.
  choice.batch = {*run.max_num_seqs, Provenance::given};
  const Platform platform = make_platform(choice);
  PerRequestComparison out;
  out.measured = measured_side(run);
  // meta.json's engine arguments: chunked prefill on (vLLM V1), the run's token budget and
  // sequence cap; the KV blocks vLLM logged where meta.json records them, else kspeed's sizing
  // of the GPU's memory at vLLM's default 0.9 utilization (an upper bound: kv_capacity.hpp).
  ServingSetup setup;
  setup.scheduler.max_batched_tokens = *run.max_num_batched_tokens;
  setup.scheduler.max_seqs = *run.max_num_seqs;
  setup.scheduler.chunked_prefill = true;
  setup.arrivals.replicas = deployment.replicas;
  setup.arrivals.routing = Routing::least_outstanding;
  out.kv_blocks_recorded = run.kv_blocks.has_value();
  out.kv_blocks = run.kv_blocks ? *run.kv_blocks
                                : kv_cache_capacity(platform, kv_sizing_of(setup.scheduler)).blocks;
  setup.scheduler.kv_blocks = out.kv_blocks;
  const std::vector<ReplayRequest> requests = own_arrivals(run);
  out.prior_model = modelled_step_model_with_tp_comm(platform);
  setup.step = out.prior_model.model;
  out.prior = predict(requests, setup).side;
  // (b): the decode line (bandwidth side and per-sequence cost) fitted to the run's records.
  // The TTFTs are not fitted: they are queueing (seconds), which a request overhead would absorb.
  out.fitted_model =
      calibrate_to_running_sequences(out.prior_model, own_decode_points(run), folder);
  setup.step = out.fitted_model.model;
  out.calibrated = predict(requests, setup).side;
  const StepModel& m = out.fitted_model.model;
  std::cout << deployment.run << " on " << deployment.gpu << " (tp " << deployment.tp
            << "), KV blocks " << out.kv_blocks
            << (out.kv_blocks_recorded ? " (meta.json)" : " (sized)") << "\n  prior weights "
            << out.prior_model.model.weights_ms << " ms, kv "
            << out.prior_model.model.ms_per_kv_token << ", token "
            << out.prior_model.model.ms_per_token << "\n  fitted weights " << m.weights_ms
            << " ms, kv " << m.ms_per_kv_token << ", per sequence " << m.ms_per_sequence
            << " ms, eta_bw " << out.fitted_model.efficiency.bandwidth << "\n";
  const MeasuredSide& me = out.measured;
  std::cout << "    measured: ttft p50/p90/p99 " << me.ttft_ms.percentiles[0] << " / "
            << me.ttft_ms.percentiles[1] << " / " << me.ttft_ms.percentiles[2]
            << "  tpot p50/p90/p99 " << me.tpot_ms.percentiles[0] << " / "
            << me.tpot_ms.percentiles[1] << " / " << me.tpot_ms.percentiles[2] << "  e2e mean "
            << me.e2e_ms.mean << "  ttft mean " << me.ttft_ms.mean << "\n";
  print_side("prior", out.prior);
  print_side("calibrated", out.calibrated);
  return out;
}

// Qwen/Qwen3-32B's config.json on Hugging Face (the fields kspeed reads): dense, 64 layers,
// GQA 64 query / 8 KV heads of 128, BF16.
constexpr const char* kQwen3_32bConfig = R"({
  "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120,
  "intermediate_size": 25600, "num_hidden_layers": 64, "num_attention_heads": 64,
  "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
  "tie_word_embeddings": false, "use_sliding_window": false, "torch_dtype": "bfloat16"})";

// Qwen/Qwen3-30B-A3B-Instruct-2507's config.json on Hugging Face (the fields kspeed reads): 48
// layers, GQA 32 query / 4 KV heads of 128, 128 experts of 768, 8 per token, BF16.
constexpr const char* kQwen3_30bA3bConfig = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
  "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128,
  "num_experts_per_tok": 8, "decoder_sparse_step": 1, "mlp_only_layers": [],
  "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
  "vocab_size": 151936, "tie_word_embeddings": false, "use_sliding_window": false,
  "torch_dtype": "bfloat16"})";

// The seven compared statistics, predicted against measured: TTFT p50/p90/p99, TPOT
// p50/p90/p99, mean E2E.
std::array<double, 7> errors_of(const ReplaySide& predicted, const MeasuredSide& measured) {
  std::array<double, 7> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    out[i] = error(predicted.ttft_ms.percentiles[i], measured.ttft_ms.percentiles[i]);
    out[3 + i] = error(predicted.tpot_ms.percentiles[i], measured.tpot_ms.percentiles[i]);
  }
  out[6] = error(predicted.e2e_ms.mean, measured.e2e_ms.mean);
  return out;
}

// The measured side against a second computation: python over requests.jsonl, numpy's linear
// percentile written out by hand (docs/validation.md), to its printed 0.01 ms.
void check_measured(const MeasuredSide& measured, double ttft_p50, double tpot_p99,
                    double e2e_mean) {
  CHECK(measured.ttft_ms.percentiles[0] == Approx(ttft_p50).margin(0.01));
  CHECK(measured.tpot_ms.percentiles[2] == Approx(tpot_p99).margin(0.01));
  CHECK(measured.e2e_ms.mean == Approx(e2e_mean).margin(0.01));
}

// Holds each error to one point of what docs/validation.md states, so a change that moves a
// prediction fails here.
void check_errors(const char* side, const std::array<double, 7>& errors,
                  const std::array<double, 7>& expected) {
  std::cout << "    " << side << " errors (ttft p50 p90 p99, tpot p50 p90 p99, e2e mean):";
  for (const double e : errors) std::cout << " " << 100 * e << "%";
  std::cout << "\n";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    INFO(side << " statistic " << i);
    CHECK(errors[i] == Approx(expected[i]).margin(0.01));
  }
}

}  // namespace

TEST_CASE(
    "LLMServingSim per-request runs (vLLM 0.19): each request's own arrival replayed, TTFT and "
    "TPOT distributions against the measured",
    "[validation][real][llmservingsim]") {
  const std::string root = kServing + "llmservingsim-vllm0.19-per-request/";
  if (!present(root)) return;
  SECTION("Llama-3.1-8B on an RTX 4090") {
    const PerRequestComparison c = compare_per_request(
        {"RTX4090_Llama-3.1-8B", io::load_model("llama-3.1-8b"), "rtx-4090", 1, 1});
    CHECK(c.kv_blocks == 2588);
    check_measured(c.measured, 60110.94, 56.00, 86578.25);
    check_errors("prior", errors_of(c.prior, c.measured),
                 {0.158, 0.193, 0.194, 0.134, 0.155, 0.109, 0.168});
    check_errors("calibrated", errors_of(c.calibrated, c.measured),
                 {0.391, 0.427, 0.429, 0.343, 0.388, 0.329, 0.390});
    // The replay's batch is the KV cache's, as the server's was: vLLM's log averaged 32.3
    // running (timeseries.csv), KV cache 100% full.
    CHECK(c.prior.mean_batch_sequences == Approx(31.79).epsilon(0.01));
  }
  SECTION("Llama-3.1-8B on an RTX PRO 6000") {
    const PerRequestComparison c = compare_per_request(
        {"RTXPRO6000_Llama-3.1-8B", io::load_model("llama-3.1-8b"), "rtx-pro-6000", 1, 1});
    CHECK_FALSE(c.kv_blocks_recorded);
    check_measured(c.measured, 9442.66, 37.34, 28200.75);
    check_errors("prior", errors_of(c.prior, c.measured),
                 {-0.397, -0.379, -0.316, -0.138, -0.138, -0.139, -0.197});
    check_errors("calibrated", errors_of(c.calibrated, c.measured),
                 {0.241, 0.333, 0.323, 0.175, 0.163, 0.157, 0.186});
  }
  SECTION("Qwen3-32B on two RTX PRO 6000, TP2") {
    const PerRequestComparison c = compare_per_request(
        {"RTXPRO6000_Qwen3-32B",
         io::parse_hf_config(kQwen3_32bConfig, "Qwen/Qwen3-32B config.json", "Qwen3-32B").arch,
         "rtx-pro-6000", 2, 1});
    check_measured(c.measured, 40701.78, 97.08, 90408.06);
    // The step model's two all-reduces per layer over PCIe Gen5 (0.02048 ms per token) close
    // about 9 points of the prior's gap (it was −40% TTFT, −30% to −34% TPOT without them); it
    // is still a quarter fast: the link's peak is a lower bound on NCCL's time.
    check_errors("prior", errors_of(c.prior, c.measured),
                 {-0.473, -0.484, -0.486, -0.370, -0.375, -0.376, -0.421});
    // The records' decode line absorbed the all-reduces before (+9.4% mean E2E); with them
    // modelled the line gives them back (0.451 → 0.431 ms per sequence), but the prompt chunks
    // it already double-counted now cost their all-reduces too.
    check_errors("calibrated", errors_of(c.calibrated, c.measured),
                 {0.176, 0.157, 0.155, 0.181, 0.118, 0.106, 0.138});
  }
  SECTION("Qwen3-30B-A3B on two RTX PRO 6000, DP2 with expert parallelism") {
    // Two data-parallel engines; kspeed has no expert parallelism, so each replica is described
    // as the whole model on one GPU (it fits: 61 GB of 96), reading the experts its own batch
    // activates.
    const PerRequestComparison c = compare_per_request(
        {"RTXPRO6000_Qwen3-30B-A3B-Instruct-2507",
         io::parse_hf_config(kQwen3_30bA3bConfig, "Qwen/Qwen3-30B-A3B-Instruct-2507 config.json",
                             "Qwen3-30B-A3B")
             .arch,
         "rtx-pro-6000", 1, 2});
    check_measured(c.measured, 138.77, 53.27, 32344.62);
    // Each replica reads nearly all 128 experts' weights a step (the union a batch of ~59
    // sequences chooses, top-8 each), where expert parallelism splits them over the two GPUs:
    // the prior is slow; the decode line fitted to the records is fast and empties the queue.
    // Since the experts are priced per step as that union (issue 28) the errors moved by 1-16
    // points (docs/validation.md section 4 gives before and after).
    check_errors("prior", errors_of(c.prior, c.measured),
                 {-0.440, -0.174, -0.034, 0.049, 0.010, -0.003, 0.052});
    check_errors("calibrated", errors_of(c.calibrated, c.measured),
                 {-0.575, -0.983, -0.796, -0.150, -0.183, -0.195, -0.166});
  }
}

}  // namespace unit_serving_validation
