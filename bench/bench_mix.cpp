// The workload level at scale: a million requests through the chain and summarised, a goodput
// search over a million arrivals, and reading a request log. The sample is the shared Mooncake
// log replicated in memory when ../shared/data is present, else a synthetic log of the same
// shape (log-normal prompts around 8k tokens, Poisson arrivals).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "kspeed/engine/serving/alone_replay.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace {

using namespace kspeed::engine;

constexpr std::size_t kRequests = 1000000;

std::string mooncake_path() {
  return std::string(KSPEED_SOURCE_DIR) + "/../shared/data/workloads/mooncake-conversation.jsonl";
}

// The sample log: real requests when available, block ids dropped (the cache is benchmarked on
// its own), arrival times shifted by the log's span on every copy.
const std::vector<Request>& sample() {
  static const std::vector<Request> requests = [] {
    std::vector<Request> out;
    if (std::filesystem::exists(mooncake_path())) {
      kspeed::io::read_request_log(mooncake_path(), {}, [&out](const Request& r) {
        out.push_back(r);
        out.back().block_hashes.clear();
      });
      return out;
    }
    std::mt19937_64 random(1);
    std::lognormal_distribution<double> prompt(9.0, 1.0);
    std::exponential_distribution<double> gap(3.0);
    double t = 0;
    for (int i = 0; i < 12000; ++i) {
      Request r;
      r.prompt_tokens = std::max<std::int64_t>(1, std::llround(prompt(random)));
      r.response_tokens = 400;
      t += gap(random);
      r.arrival_s = t;
      out.push_back(r);
    }
    return out;
  }();
  return requests;
}

MixModel builtin_model() {
  const Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
  return make_mix_model(workload, resolve_scenario(workload, {}), Extrapolation::clamp);
}

MixRun million_run() {
  const std::vector<Request>& log = sample();
  const double span = *log.back().arrival_s + 1.0;
  MixRun run(builtin_model());
  run.reserve(kRequests);
  Request copy;
  for (std::size_t i = 0; i < kRequests; ++i) {
    copy = log[i % log.size()];
    copy.arrival_s = *copy.arrival_s + span * static_cast<double>(i / log.size());
    run.add(copy);
  }
  return run;
}

// 1M requests through the chain (share lookup, TTFT scaling, Amdahl) and every aggregate.
void BM_MixMillionRequests(benchmark::State& state) {
  const std::vector<Request>& log = sample();
  for (auto _ : state) {
    MixRun run = million_run();
    benchmark::DoNotOptimize(summarise(run));
  }
  state.counters["requests"] = static_cast<double>(kRequests);
  state.counters["sample"] = static_cast<double>(log.size());
}
BENCHMARK(BM_MixMillionRequests)->Unit(benchmark::kMillisecond)->Iterations(3);

// Summaries only (the run is built once).
void BM_MixSummariseMillion(benchmark::State& state) {
  const MixRun run = million_run();
  for (auto _ : state) {
    benchmark::DoNotOptimize(summarise(run));
  }
}
BENCHMARK(BM_MixSummariseMillion)->Unit(benchmark::kMillisecond)->Iterations(3);

// The batching replay before and after (with each request alone and the saturation rate) over
// 1M requests, and with an SLO both capacity searches (highest rate, fewest replicas) on both
// sides.
void BM_MixReplayMillion(benchmark::State& state) {
  const MixRun run = million_run();
  ServingSetup setup;
  setup.step = StepModel{.fixed_ms = 2,
                         .weights_ms = 4.8,
                         .experts = {},
                         .ms_per_token = 0.023,
                         .ms_per_prefill_pair = 7.5e-7,
                         .ms_per_kv_token = 3.9e-5};
  setup.arrivals.replicas = state.range(0);
  if (state.range(1) != 0) setup.slo = {30000.0, 100.0, 0.9};
  setup.speedup = attention_speedup(run.model());
  int replays = 0;
  int replica_replays = 0;
  for (auto _ : state) {
    const MixReplay replay = replay_run(run, setup);
    const ServingReplay& s = replay.serving;
    replays = s.capacity_before ? s.capacity_before->replays + s.capacity_after->replays : 0;
    replica_replays =
        s.replicas_before ? s.replicas_before->replays + s.replicas_after->replays : 0;
    benchmark::DoNotOptimize(replay);
  }
  state.counters["capacity_replays"] = replays;
  state.counters["replica_replays"] = replica_replays;
}
BENCHMARK(BM_MixReplayMillion)
    ->Args({8, 0})
    ->Args({8, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The no-queue baseline alone (one side: each of the million requests alone on an idle replica):
// /0 the step-by-step replay of one client, /1 the closed form (alone_replay.hpp).
void BM_MixReplayAloneMillion(benchmark::State& state) {
  const MixRun run = million_run();
  std::vector<std::int32_t> index;
  const std::vector<ReplayRequest> requests = replay_requests(run, true, index);
  const StepModel step{.fixed_ms = 2,
                       .weights_ms = 4.8,
                       .experts = {},
                       .ms_per_token = 0.023,
                       .ms_per_prefill_pair = 7.5e-7,
                       .ms_per_kv_token = 3.9e-5};
  const SchedulerOptions scheduler;
  ArrivalOptions arrivals;
  arrivals.replicas = 8;
  arrivals.concurrency = 1;
  std::int64_t steps = 0;
  for (auto _ : state) {
    const BatchReplay replay = state.range(0) == 0
                                   ? replay_batches(requests, step, {}, scheduler, arrivals)
                                   : replay_alone(requests, step, {}, scheduler, arrivals);
    steps = replay.totals.steps;
    benchmark::DoNotOptimize(replay);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_MixReplayAloneMillion)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

// The LRU prefix cache over the Mooncake log's block ids (12,031 requests).
void BM_MixPrefixCacheMooncake(benchmark::State& state) {
  if (!std::filesystem::exists(mooncake_path())) {
    state.SkipWithError("../shared/data is not present");
    return;
  }
  std::vector<Request> log;
  kspeed::io::read_request_log(mooncake_path(), {}, [&log](const Request& r) { log.push_back(r); });
  for (auto _ : state) {
    PrefixCache cache(state.range(0));
    std::int64_t cached = 0;
    for (const Request& r : log)
      cached += cache.admit(r.block_hashes, r.prompt_tokens).cached_tokens;
    benchmark::DoNotOptimize(cached);
  }
  state.counters["requests"] = static_cast<double>(log.size());
}
BENCHMARK(BM_MixPrefixCacheMooncake)->Arg(1 << 20)->Arg(1 << 23)->Unit(benchmark::kMillisecond);

// Reading the Mooncake log (3 MB of JSONL) into the callback.
void BM_ReadMooncakeLog(benchmark::State& state) {
  if (!std::filesystem::exists(mooncake_path())) {
    state.SkipWithError("../shared/data is not present");
    return;
  }
  for (auto _ : state) {
    std::int64_t n = 0;
    kspeed::io::read_request_log(mooncake_path(), {}, [&n](const Request&) { ++n; });
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_ReadMooncakeLog)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
