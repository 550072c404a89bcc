// The readers and the workload level on the real logs in ../shared/data (skipped, with a
// warning, when that folder is absent). Expected values were computed independently with a
// short python3 script over the same files (numpy-style linear percentiles, an OrderedDict LRU).
#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <string>

#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_mix_real_logs {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

std::string shared(const char* name) {
  return std::string(KSPEED_SOURCE_DIR) + "/../shared/data/" + name;
}

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real request logs)");
  return false;
}

// The figures below were checked against python replays of the one-point reference model (the
// workload's 500 ms at 1,024 tokens scaled, no fixed term); they test the readers, the prefix
// cache and the queue. The fitted TTFT (the workload's measured points) is tested in
// test_ttft_level.cpp, so the points are set aside here.
MixModel builtin_model(PrefixCacheOptions cache = {}) {
  Workload workload = io::load_workload("deepseek-r1-fp8");
  workload.request.ttft_points.clear();
  const Scenario scenario = resolve_scenario(workload, {});
  MixModel model = make_mix_model(workload, scenario, Extrapolation::clamp);
  model.prefix_cache = cache;
  return model;
}

struct Loaded {
  io::RequestLogReport report;
  MixRun run;
};

Loaded load(const std::string& path, MixModel model) {
  MixRun run(std::move(model));
  io::RequestLogReport report =
      io::read_request_log(path, {}, [&run](const Request& request) { run.add(request); });
  return {std::move(report), std::move(run)};
}

// `epsilon` 1e-9 where the expected figures have all their digits (AIPerf's own aggregate).
void check_distribution(const Distribution& d, double mean, double p50, double p90, double p99,
                        double epsilon = 1e-6) {
  CHECK(d.mean == Approx(mean).epsilon(1e-6));
  REQUIRE(d.percentiles.size() == 3);
  CHECK(d.percentiles[0] == Approx(p50).epsilon(epsilon));
  CHECK(d.percentiles[1] == Approx(p90).epsilon(epsilon));
  CHECK(d.percentiles[2] == Approx(p99).epsilon(epsilon));
}

}  // namespace

TEST_CASE("AIPerf per-request export: before percentiles are the file's own", "[mix][real]") {
  const std::string path = shared("bench/aiperf-gptoss20b-profile_export.jsonl");
  if (!present(path)) return;
  const Loaded loaded = load(path, builtin_model());
  CHECK(loaded.report.format == io::RequestFormat::aiperf_jsonl);
  CHECK(loaded.report.records == 100);
  CHECK(loaded.report.requests == 89);
  REQUIRE(loaded.report.skipped.size() == 1);
  CHECK(loaded.report.skipped[0].reason == "error record: RequestCancellationError");
  CHECK(loaded.report.skipped[0].count == 11);
  const MixSummary s = summarise(loaded.run);
  CHECK(s.ttft_measured == 89);
  // AIPerf's own aggregate JSON says p50 2369.317693, p90 3796.931168, p99 3833.389400 ms.
  check_distribution(s.ttft_ms.before, 2343.219437, 2369.317693, 3796.9311679999996,
                     3833.3894000399996, 1e-9);
  // Floats printed the p50 as 9,097.34; AIPerf (and the last printed digit) say 9,097.35.
  check_distribution(s.e2e_ms.before, 9059.654633, 9097.345014999999, 9277.5984794,
                     9297.609933759999, 1e-9);
  check_distribution(s.tpot_ms.before, 27.763065, 27.615130, 32.872323, 33.732248);
  // 550-token prompts: only the modelled GPU time of the prefill moves (issue 27): the one-point
  // reference scaled, 500 · 550 / 1024 = 268.555 ms, at 18%, halved: 24.170 ms off the TTFT.
  CHECK(s.ttft_ms.after.percentiles[0] ==
        Approx(2369.317693 - 500.0 * 550 / 1024 * 0.18 * 0.5).epsilon(1e-6));
}

TEST_CASE("InferenceX trace replay: measured percentiles, cache hits as cached prefix",
          "[mix][real]") {
  const std::string path = shared("workloads/inferencex-dsr1fp4-b200-trace-replay.csv");
  if (!present(path)) return;
  const Loaded loaded = load(path, builtin_model());
  CHECK(loaded.report.format == io::RequestFormat::trace_replay_csv);
  CHECK(loaded.report.requests == 45);
  CHECK(loaded.report.skipped.empty());
  const MixSummary s = summarise(loaded.run);
  check_distribution(s.ttft_ms.before, 1113.247797, 772.210598, 1270.004034, 10099.979000);
  check_distribution(s.e2e_ms.before, 26111.340025, 27503.414392, 34522.875071, 42976.496496);
  // Python: sum of min(theoretical_cache_hit_blocks * 64, input_tokens - 1) over the sum of
  // input_tokens; the run's own hits (the first turn is cold), not cache_hit_blocks' 3,295,488.
  CHECK(s.cache_hit_rate == Approx(3258176.0 / 3419119.0).epsilon(1e-9));
  // The example mapping reads the same file as a CSV kspeed does not know by name.
  io::ReadOptions options;
  options.columns = io::parse_column_mapping(
      "prompt=input_tokens,response=output_tokens_actual,ttft=ttft:s", "--columns");
  MixRun mapped(builtin_model());
  const io::RequestLogReport report = io::read_request_log(
      path, options, [&mapped](const Request& request) { mapped.add(request); });
  CHECK(report.format == io::RequestFormat::mapped_csv);
  CHECK(report.requests == 45);
  const MixSummary m = summarise(mapped);
  CHECK(m.ttft_ms.before.percentiles[0] == Approx(772.210598).epsilon(1e-6));
  CHECK(m.cache_hit_rate == 0.0);  // not mapped: no cached prefix
}

TEST_CASE("Mooncake: per-request prefill speedups and the LRU prefix cache at two sizes",
          "[mix][real]") {
  const std::string path = shared("workloads/mooncake-conversation.jsonl");
  if (!present(path)) return;
  const Loaded plain = load(path, builtin_model());
  CHECK(plain.report.requests == 12031);
  const MixSummary s = summarise(plain.run);
  // The figures: a 2x kernel is worth 1.15x on the median prefill and 1.65x at the p99.
  check_distribution(s.prefill_speedup, 1.205436, 1.151989, 1.394633, 1.654665);
  CHECK(s.cache_hit_rate == 0.0);

  PrefixCacheOptions cache;
  cache.mode = PrefixCacheOptions::Mode::lru;
  cache.capacity_tokens = 1 << 20;  // 1m tokens: 2,048 blocks
  const MixSummary small = summarise(load(path, builtin_model(cache)).run);
  CHECK(small.cache_hit_rate == Approx(0.055957).epsilon(1e-5));
  CHECK(small.prefill_speedup.percentiles[0] == Approx(1.161943).epsilon(1e-6));
  CHECK(small.prefill_speedup.percentiles[2] == Approx(1.659314).epsilon(1e-6));
  cache.capacity_tokens = 1 << 23;  // 8m tokens: 16,384 blocks
  const MixSummary large = summarise(load(path, builtin_model(cache)).run);
  CHECK(large.cache_hit_rate == Approx(0.270773).epsilon(1e-5));
  CHECK(large.prefill_speedup.percentiles[0] == Approx(1.179178).epsilon(1e-6));
  CHECK(large.prefill_speedup.percentiles[2] == Approx(1.704905).epsilon(1e-6));
}

TEST_CASE("Azure 2023 conversation log: every request, arrivals in order", "[mix][real]") {
  const std::string path = shared("workloads/azure-2023-conv.csv");
  if (!present(path)) return;
  const Loaded loaded = load(path, builtin_model());
  CHECK(loaded.report.format == io::RequestFormat::azure_csv);
  CHECK(loaded.report.requests == 19366);
  CHECK(loaded.report.skipped.empty());
  CHECK(loaded.report.zero_response == 0);
  const MixSummary s = summarise(loaded.run);
  CHECK(s.requests == 19366);
  CHECK(s.ttft_modelled == 19366);

  // Replayed through one continuously batching replica of a Llama-3.1-8B-like step model on an
  // H100 (fixed 2 ms, weights 4.8 ms, 23 us a token): a 2x prefill kernel moves the tail of TTFT
  // more than its median, because a shorter prefill also shortens every step it shares.
  ServingSetup setup;
  setup.step = StepModel{.fixed_ms = 2,
                         .weights_ms = 4.8,
                         .experts = {},
                         .ms_per_token = 0.023,
                         .ms_per_prefill_pair = 7.5e-7,
                         .ms_per_kv_token = 3.9e-5};
  setup.slo = {500.0, 50.0, 0.9};
  setup.speedup = attention_speedup(loaded.run.model());
  const MixReplay replay = replay_run(loaded.run, setup);
  CHECK(replay.requests == 19366);
  const ReplaySide& before = replay.serving.before;
  const ReplaySide& after = replay.serving.after;
  CHECK(before.ttft_ms.count == 19366);
  CHECK(before.totals.output_tokens == after.totals.output_tokens);
  CHECK(after.ttft_ms.percentiles[2] < before.ttft_ms.percentiles[2]);
  CHECK(before.ttft_ms.percentiles[2] / after.ttft_ms.percentiles[2] >
        before.ttft_ms.percentiles[0] / after.ttft_ms.percentiles[0]);
  // Queueing and batching cost: the replayed latencies exceed each request alone.
  CHECK(before.ttft_ms.mean > replay.serving.alone_before.ttft_ms.mean);
  CHECK(before.tpot_ms.mean > replay.serving.alone_before.tpot_ms.mean);
  CHECK(before.load < 0.5);
  REQUIRE(replay.serving.capacity_before);
  REQUIRE(replay.serving.capacity_after);
  CHECK(replay.serving.capacity_before->status == CapacityStatus::found);
  CHECK(replay.serving.capacity_after->requests_per_s >=
        replay.serving.capacity_before->requests_per_s);
}

namespace {

void print_distribution(const char* name, const Distribution& d) {
  std::cout << "  " << name << ": n " << d.count << ", mean " << d.mean;
  for (double p : d.percentiles) std::cout << ", " << p;
  std::cout << "\n";
}

void print_summary(const MixSummary& s) {
  std::cout << " requests " << s.requests << " (percentiles 50, 90, 99)\n";
  print_distribution("ttft before", s.ttft_ms.before);
  print_distribution("ttft after", s.ttft_ms.after);
  print_distribution("tpot before", s.tpot_ms.before);
  print_distribution("tpot after", s.tpot_ms.after);
  print_distribution("e2e before", s.e2e_ms.before);
  print_distribution("e2e after", s.e2e_ms.after);
  print_distribution("prefill share", s.prefill_share);
  print_distribution("prefill speedup", s.prefill_speedup);
  print_distribution("e2e speedup", s.e2e_speedup);
  std::cout << "  time-weighted ttft " << s.time_weighted_ttft_speedup << ", e2e "
            << s.time_weighted_e2e_speedup << "; request-weighted e2e "
            << s.request_weighted_e2e_speedup << "; cache hit rate " << s.cache_hit_rate << "\n";
  for (const MixGroup& g : s.buckets) {
    std::cout << "  bucket [" << g.lower_tokens << ", " << g.upper_tokens << "): " << g.requests
              << " requests, share " << g.mean_prefill_share << ", ttft p50 "
              << g.ttft_p50_before_ms << " -> " << g.ttft_p50_after_ms << ", median e2e x"
              << g.median_e2e_speedup << ", time-weighted x" << g.time_weighted_e2e_speedup << "\n";
  }
  for (const HistogramBin& bin : s.e2e_speedup_histogram) {
    std::cout << "  hist [" << bin.lower << ", " << bin.upper << "): " << bin.count << "\n";
  }
}

void print_side(const char* name, const ReplaySide& side) {
  std::cout << "  " << name << ": offered " << side.offered_rate_per_s << "/s, load " << side.load
            << ", saturation " << side.saturation_rate_per_s << "/s";
  print_distribution("ttft", side.ttft_ms);
  print_distribution("tpot", side.tpot_ms);
  print_distribution("e2e", side.e2e_ms);
  if (side.attainment) std::cout << "  attainment " << *side.attainment << "\n";
}

void print_replay(const MixReplay& r) {
  std::cout << " replay: " << r.requests << " requests\n";
  print_side("before", r.serving.before);
  print_side("after", r.serving.after);
  print_side("alone before", r.serving.alone_before);
  print_side("alone after", r.serving.alone_after);
  for (const auto& capacity : {r.serving.capacity_before, r.serving.capacity_after}) {
    if (!capacity) continue;
    std::cout << "  capacity status " << static_cast<int>(capacity->status) << " scale "
              << capacity->rate_scale << " = " << capacity->requests_per_s << "/s, attainment "
              << capacity->attainment << ", replays " << capacity->replays << "\n";
  }
}

}  // namespace

// The figures docs/mix.md quotes: `kspeed_tests "[.mixdocs]"` prints them.
TEST_CASE("figures for docs/mix.md", "[.mixdocs]") {
  const std::string azure = shared("workloads/azure-2023-conv.csv");
  const std::string mooncake = shared("workloads/mooncake-conversation.jsonl");
  if (!present(azure) || !present(mooncake)) return;
  std::cout << "== azure-2023-conv, built-in workload\n";
  const Loaded a = load(azure, builtin_model());
  print_summary(summarise(a.run));
  ServingSetup setup;
  setup.step = StepModel{.fixed_ms = 2,
                         .weights_ms = 4.8,
                         .experts = {},
                         .ms_per_token = 0.023,
                         .ms_per_prefill_pair = 7.5e-7,
                         .ms_per_kv_token = 3.9e-5};
  setup.slo = {500.0, 50.0, 0.9};
  setup.speedup = attention_speedup(a.run.model());
  for (double scale : {1.0, 2.5}) {
    std::cout << " rate scale " << scale << ", SLO TTFT 500 ms, TPOT 50 ms\n";
    setup.arrivals.rate_scale = scale;
    print_replay(replay_run(a.run, setup));
  }
  std::cout << "== mooncake-conversation, built-in workload\n";
  print_summary(summarise(load(mooncake, builtin_model()).run));
  for (std::int64_t capacity : {std::int64_t{1} << 20, std::int64_t{1} << 23}) {
    PrefixCacheOptions cache;
    cache.mode = PrefixCacheOptions::Mode::lru;
    cache.capacity_tokens = capacity;
    std::cout << "== mooncake, LRU cache " << capacity << " tokens\n";
    print_summary(summarise(load(mooncake, builtin_model(cache)).run));
  }
  for (const char* name : {"bench/aiperf-gptoss20b-profile_export.jsonl",
                           "workloads/inferencex-dsr1fp4-b200-trace-replay.csv"}) {
    const std::string path = shared(name);
    if (!present(path)) continue;
    std::cout << "== " << name << "\n";
    print_summary(summarise(load(path, builtin_model()).run));
  }
}

TEST_CASE("real results with aggregates only: mix names the per-request output it needs",
          "[mix][real]") {
  const std::pair<const char*, const char*> cases[] = {
      {"bench/aiperf-gptoss20b-profile_export_aiperf.json",
       "AIPerf's aggregate export (profile_export_aiperf.json): aggregates only"},
      {"bench/aiperf-gptoss20b-profile_export_aiperf.csv",
       "AIPerf's aggregate export (profile_export_aiperf.csv): aggregates only"},
      {"bench/sglang-bench-h200-llama-405b-online-output.jsonl",
       "an SGLang bench_serving result: aggregates only"},
      {"bench/vllm-bench-gptoss120b-disagg-conc4.json",
       "a vllm bench serve result saved without --save-detailed: aggregates only"},
  };
  for (const auto& [name, expected] : cases) {
    const std::string path = shared(name);
    if (!present(path)) continue;
    CAPTURE(name);
    CHECK_THROWS_WITH(io::read_request_log(path, {}, [](const Request&) {}),
                      Catch::Contains(path + ":1: " + expected) &&
                          Catch::Contains("kspeed diff, plan and audit read this file"));
  }
}

}  // namespace unit_mix_real_logs
