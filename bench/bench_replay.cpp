// The continuous-batching replay, the product's hot loop: how its time grows with the log's
// length and with the batch (max_seqs), and the budgets of issue 17: 1M requests (≈ 1e8 tokens)
// before and after in under 5 s on one core; a capacity search over 1M requests under 60 s.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "kspeed/engine/serving/step_policy.hpp"

using namespace kspeed::engine;

namespace {

// Poisson arrivals at `rate`; prompts exponential with mean 1,000 tokens (capped at 16K) and
// outputs exponential with mean 100 (≥ 1): ≈ 1.1e8 tokens per million requests.
std::vector<ReplayRequest> synthetic_log(std::size_t n, double rate) {
  std::mt19937_64 random(7);
  auto exponential = [&random](double mean) {
    return -mean * std::log((static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0);
  };
  std::vector<ReplayRequest> log;
  log.reserve(n);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += exponential(1.0 / rate);
    log.push_back({t, static_cast<std::int32_t>(std::min(16384.0, 1 + exponential(1000))),
                   static_cast<std::int32_t>(1 + exponential(100)), 0});
  }
  return log;
}

// An 8B model on one H100, roughly (docs/mix.md).
constexpr StepModel kStep{.fixed_ms = 2,
                          .weights_ms = 4.8,
                          .experts = {},
                          .ms_per_token = 0.023,
                          .ms_per_prefill_pair = 7.5e-7,
                          .ms_per_kv_token = 3.9e-5};

// Before and after over n requests at a rate one replica sustains with batches of tens.
void BM_ReplayBeforeAfter(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<ReplayRequest> log = synthetic_log(n, 8.0);
  std::int64_t tokens = 0;
  for (const ReplayRequest& r : log) tokens += r.prompt_tokens + r.response_tokens;
  SchedulerOptions scheduler;
  scheduler.max_seqs = state.range(1);
  std::int64_t steps = 0;
  for (auto _ : state) {
    const BatchReplay before = replay_batches(log, kStep, {}, scheduler, {});
    const BatchReplay after = replay_batches(log, kStep, {2, 2}, scheduler, {});
    steps = before.totals.steps + after.totals.steps;
    benchmark::DoNotOptimize(after.timing.data());
  }
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_ReplayBeforeAfter)
    ->Args({10000, 1024})
    ->Args({100000, 1024})
    ->Args({1000000, 1024})
    ->Args({100000, 16})
    ->Args({100000, 256})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Batch size: a closed loop of N clients keeps N sequences in every step.
void BM_ReplayClosedLoop(benchmark::State& state) {
  const std::vector<ReplayRequest> log = synthetic_log(100000, 8.0);
  ArrivalOptions arrivals;
  arrivals.concurrency = state.range(0);
  for (auto _ : state) {
    const BatchReplay replay = replay_batches(log, kStep, {}, SchedulerOptions{}, arrivals);
    benchmark::DoNotOptimize(replay.timing.data());
  }
}
BENCHMARK(BM_ReplayClosedLoop)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// vLLM V1's policy, but every step formed: the simulator may not advance runs of decode steps
// together (StepPolicy::repeats_decode_steps). The reference the runs are timed against.
class EveryStepFormed final : public StepPolicy {
 public:
  explicit EveryStepFormed(const StepPolicy& inner) : inner_(inner) {}
  void form_step(StepForming& step) const override { inner_.form_step(step); }

 private:
  const StepPolicy& inner_;
};

// The whole serving answer over 1M requests with SLOs: before, after, each alone, saturation
// rates and both capacity searches. The two sides run on two threads: wall time is the figure
// (UseRealTime), with the CPU of the whole process (both threads) beside it. Argument 0: every
// step formed (the replay before decode runs); 1: as kspeed runs it.
void replay_serving_capacity(benchmark::State& state, std::size_t requests) {
  const std::vector<ReplayRequest> log = synthetic_log(requests, 8.0);
  ServingSetup setup;
  if (state.range(0) == 0) {
    register_step_policy("every_step_formed",
                         std::make_shared<EveryStepFormed>(*find_step_policy("mixed")));
    setup.scheduler.policy_name = "every_step_formed";
  }
  setup.step = kStep;
  setup.speedup = {2, 2};
  setup.slo = {1000.0, 50.0, 0.9};
  int replays = 0;
  int replica_replays = 0;
  for (auto _ : state) {
    const ServingReplay replay = replay_serving(log, setup);
    replays = replay.capacity_before->replays + replay.capacity_after->replays;
    replica_replays = replay.replicas_before->replays + replay.replicas_after->replays;
    benchmark::DoNotOptimize(replay);
  }
  state.counters["capacity_replays"] = replays;
  state.counters["replica_replays"] = replica_replays;
}
void BM_ReplayServingCapacityMillion(benchmark::State& state) {
  replay_serving_capacity(state, 1000000);
}
BENCHMARK(BM_ReplayServingCapacityMillion)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(1);

// The same over the log's first 10^5 requests: the case to profile (perf, callgrind).
void BM_ReplayServingCapacity100k(benchmark::State& state) {
  replay_serving_capacity(state, 100000);
}
BENCHMARK(BM_ReplayServingCapacity100k)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
