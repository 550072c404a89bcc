// Validation of the batching replay against measured runs it did not see (docs/validation.md):
// calibrate the step model on the lightest load only, replay every other load's arrivals, and
// compare with what the benchmark measured. `kspeed_tests "[.validation]"` prints the tables
// docs/validation.md shows; the checks below hold the errors the docs state, so a change that
// moves the predictions fails here first. Skipped (with a warning) without ../shared/data.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "kspeed/engine/batch_replay.hpp"
#include "kspeed/engine/serving_replay.hpp"
#include "kspeed/engine/step_calibration.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/serving/measured_load.hpp"

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
    "[.validation]") {
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
  }
  const double saturation = saturation_rate(
      arrivals(io::ArrivalPattern::constant_rate, 100, 6000, inference_perf_lengths()), setup.step,
      {}, setup);
  std::cout << "  saturation: measured 106 req/s achieved, predicted " << saturation << "\n";
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
    "[.validation]") {
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
  }
}
