// kspeed validate replays each level as the engine and the client ran it (issue 29, task kvval5):
// the engine's KV capacity sized exactly as `kspeed mix --replay --model --gpu` sizes it, from the
// settings the run's files state; and the benchmark client's cap on requests in flight, read from
// inference-perf's config.yaml and held by the replay (counted here request by request).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kspeed/cli/app.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/serving/client_limits.hpp"

namespace unit_validate_replay {

using namespace kspeed;

namespace {

int run_validate_kspeed(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"kspeed"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return kspeed::cli::run(static_cast<int>(argv.size()), argv.data());
}

nlohmann::json read_validate_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The first value under `key` anywhere in `doc` (null when none).
nlohmann::json first_value_of(const nlohmann::json& doc, const std::string& key) {
  if (doc.is_object()) {
    if (doc.contains(key)) return doc.at(key);
    for (const auto& [name, value] : doc.items()) {
      nlohmann::json found = first_value_of(value, key);
      if (!found.is_null()) return found;
    }
  }
  if (doc.is_array()) {
    for (const nlohmann::json& value : doc) {
      nlohmann::json found = first_value_of(value, key);
      if (!found.is_null()) return found;
    }
  }
  return nullptr;
}

// One inference-perf stage file (stage_N_lifecycle_metrics.json, seconds), as the tool writes its
// fields: a constant rate over 10 s, 200-token prompts and 64-token outputs.
std::string validate_stage_json(double rate, double achieved, double ttft_s, double tpot_s) {
  const double e2e = ttft_s + 63 * tpot_s;
  const auto stat = [](double v) {
    return nlohmann::json{{"mean", v}, {"median", v}, {"p90", v * 1.1}, {"p99", v * 1.2}};
  };
  nlohmann::json doc = {
      {"load_summary",
       {{"count", rate * 10},
        {"requested_rate", rate},
        {"achieved_rate", achieved},
        {"send_duration", 10.0}}},
      {"successes",
       {{"count", rate * 10},
        {"latency", {{"time_to_first_token", stat(ttft_s)}, {"request_latency", stat(e2e)}}},
        {"prompt_len", {{"mean", 200.0}}},
        {"output_len", {{"mean", 64.0}}}}}};
  return doc.dump();
}

void write_validate_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// An inference-perf run of four stages, its config.yaml (3 workers × 4 in flight) and a launch
// script stating vLLM's memory and block settings, in a fresh folder.
std::filesystem::path synthetic_inference_perf_run() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "kspeed-validate-replay-run";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_validate_file(dir / "stage_0_lifecycle_metrics.json",
                      validate_stage_json(1, 1, 0.040, 0.0220));
  write_validate_file(dir / "stage_1_lifecycle_metrics.json",
                      validate_stage_json(4, 4, 0.045, 0.0235));
  write_validate_file(dir / "stage_2_lifecycle_metrics.json",
                      validate_stage_json(8, 8, 0.050, 0.0250));
  write_validate_file(dir / "stage_3_lifecycle_metrics.json",
                      validate_stage_json(40, 20, 0.300, 0.0300));
  write_validate_file(dir / "config.yaml",
                      "load:\n  type: constant\n  sweep:\n    num_workers: 99\n"
                      "  num_workers: 3\n  worker_max_concurrency: 4\nserver:\n  type: vllm\n");
  write_validate_file(dir / "serve.sh",
                      "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 64 \\\n"
                      "  --gpu-memory-utilization 0.85 --block-size 32 --max-model-len 1024\n");
  return dir;
}

}  // namespace

TEST_CASE("inference-perf's in-flight cap: num_workers x worker_max_concurrency under load:",
          "[validate_replay]") {
  // The shared run's config.yaml (kubernetes-sigs/inference-perf demos/kubecon-na-2025), load
  // block.
  const std::string shared =
      "api:\n  type: completion\n  streaming: true\nload:\n  type: constant\n  interval: 1.0\n"
      "  sweep:\n    type: linear\n    timeout: 180\n    num_stages: 7\n    stage_duration: 60\n"
      "  num_workers: 44\n  worker_max_concurrency: 10\n  worker_max_tcp_connections: 2500\n"
      "metrics:\n  type: prometheus\n";
  const io::StatedClientCap cap = io::scan_inference_perf_client_cap(shared, "config.yaml");
  REQUIRE(cap.max_inflight);
  CHECK(*cap.max_inflight == 440);
  CHECK(cap.where.find("line 12") != std::string::npos);  // num_workers' line
  // worker_max_concurrency left out: inference-perf's default 100 a worker.
  const io::StatedClientCap defaulted =
      io::scan_inference_perf_client_cap("load:\n  type: poisson\n  num_workers: 8\n", "c.yaml");
  REQUIRE(defaulted.max_inflight);
  CHECK(*defaulted.max_inflight == 800);
  CHECK(defaulted.where.find("default") != std::string::npos);
  // No num_workers (its default is the client's CPU count, not in the files): no cap, said why.
  const io::StatedClientCap unknown =
      io::scan_inference_perf_client_cap("load:\n  worker_max_concurrency: 10\n", "c.yaml");
  CHECK_FALSE(unknown.max_inflight);
  CHECK(unknown.why_not.find("num_workers") != std::string::npos);
  // A closed loop (load type concurrent) is not an open loop under a cap.
  CHECK_FALSE(
      io::scan_inference_perf_client_cap(
          "load:\n  type: concurrent\n  num_workers: 4\n  worker_max_concurrency: 2\n", "c.yaml")
          .max_inflight);
  // Keys of a nested block (sweep:) or another top-level block are not the load's own.
  CHECK_FALSE(io::scan_inference_perf_client_cap(
                  "load:\n  sweep:\n    num_workers: 4\nother:\n  num_workers: 4\n", "c.yaml")
                  .max_inflight);
}

TEST_CASE("validate's replay holds the level's in-flight cap exactly (counted request by request)",
          "[validate_replay]") {
  // 400 requests at 200 req/s against an engine that finishes about 20 a second: the queue forms.
  engine::ReplayLevel level;
  level.label = "overload";
  for (int i = 0; i < 400; ++i) level.requests.push_back({i / 200.0, 300, 50, 0});
  engine::ServingSetup setup;
  setup.step.fixed_ms = 5;
  setup.step.ms_per_token = 0.05;
  setup.scheduler.max_seqs = 8;
  const auto peak_in_flight = [&](std::int64_t cap) {
    level.max_inflight = cap;
    const engine::ArrivalOptions arrivals = engine::level_arrivals(level, setup);
    const engine::BatchReplay replay = engine::replay_batches(
        level.requests, setup.step, {}, setup.scheduler, arrivals, {}, true, true);
    // +1 at each send, -1 at each finish; finishes first at equal times (a freed slot is reused
    // at once). The e2e is a float: 10 µs early absorbs its rounding.
    std::vector<std::pair<double, int>> events;
    for (std::size_t i = 0; i < level.requests.size(); ++i) {
      const double sent = replay.sent_s[i];
      events.push_back({sent, +1});
      events.push_back({sent + static_cast<double>(replay.timing[i].e2e_ms) / 1000.0 - 1e-5, -1});
    }
    std::sort(events.begin(), events.end());
    int now = 0;
    int peak = 0;
    for (const auto& [time, step] : events) {
      now += step;
      peak = std::max(peak, now);
    }
    return peak;
  };
  CHECK(peak_in_flight(0) > 100);  // open loop: the whole backlog is in flight
  CHECK(peak_in_flight(12) == 12);
  CHECK(peak_in_flight(30) == 30);
}

TEST_CASE(
    "validate sizes the KV cache as mix does, from the run's own settings, and applies "
    "inference-perf's cap",
    "[validate_replay]") {
  const std::filesystem::path run = synthetic_inference_perf_run();
  const std::filesystem::path validate_out = run / "validate.json";
  REQUIRE(run_validate_kspeed({"validate", run.string(), "--model", "llama-3.1-8b", "--gpu",
                               "rtx-3090", "--format", "json", "-o", validate_out.string()}) == 0);
  const nlohmann::json validate = read_validate_json(validate_out);
  const nlohmann::json& kv = validate.at("kv_cache");
  REQUIRE(kv.at("blocks").is_number_integer());
  CHECK(kv.at("block_tokens") == 32);  // serve.sh's --block-size
  CHECK(kv.at("provenance") == "modelled");
  // mix with the same deployment typed as flags: the same cache.
  const std::filesystem::path mix_out = run / "mix.json";
  REQUIRE(run_validate_kspeed({"mix",
                               "--replay",
                               "--model",
                               "llama-3.1-8b",
                               "--gpu",
                               "rtx-3090",
                               "--max-seqs",
                               "64",
                               "--gpu-memory-utilization",
                               "0.85",
                               "--block-size",
                               "32",
                               "--arrivals",
                               "poisson",
                               "--rate",
                               "1",
                               "--prompt-tokens",
                               "200",
                               "--output-tokens",
                               "64",
                               "--requests",
                               "20",
                               "--format",
                               "json",
                               "-o",
                               mix_out.string()}) == 0);
  const nlohmann::json mix_blocks = first_value_of(read_validate_json(mix_out), "kv_blocks");
  REQUIRE(mix_blocks.is_number_integer());
  CHECK(kv.at("blocks") == mix_blocks);
  // And the engine's own sizing at those settings, called directly: the script's 0.85, not
  // vLLM's default 0.9, and its block size.
  engine::PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-8b"), engine::Provenance::given};
  choice.gpu = {io::load_gpu("rtx-3090"), engine::Provenance::given};
  const engine::Platform platform = engine::make_platform(choice);
  engine::SchedulerOptions scheduler;
  scheduler.max_seqs = 64;
  scheduler.block_tokens = 32;
  const std::int64_t at_085 =
      engine::kv_cache_capacity(platform, engine::kv_sizing_of(scheduler, 0.85)).blocks;
  const std::int64_t at_090 =
      engine::kv_cache_capacity(platform, engine::kv_sizing_of(scheduler, 0.90)).blocks;
  CHECK(kv.at("blocks").get<std::int64_t>() == at_085);
  CHECK(at_085 < at_090);
  CHECK(validate.at("settings").dump().find("serve.sh:2") != std::string::npos);
  // Every held-out stage replayed under config.yaml's 3 × 4 cap; the saturated one's latencies
  // enter the summary.
  const nlohmann::json& levels = validate.at("runs").at(0).at("levels");
  REQUIRE(levels.size() == 2);
  for (const nlohmann::json& level : levels) CHECK(level.at("max_inflight") == 12);
  CHECK(levels.at(1).at("saturated") == true);
  CHECK(levels.at(1).at("latencies_summarised") == true);
  std::filesystem::remove_all(run);
}

}  // namespace unit_validate_replay
