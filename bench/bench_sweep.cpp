// kspeed sweep at 100,000 points (1,000 contexts × 100 kernel speedups): the engine's loop alone,
// and the loop with its JSON output, the "< 1 s including JSON" figure.
// bench/sweep_startup.sh measures the whole command with hyperfine.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kspeed/engine/sweep.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/render.hpp"
#include "kspeed/report/reports.hpp"

namespace {

kspeed::engine::SweepAxes hundred_thousand_points() {
  kspeed::engine::SweepAxes axes;
  for (int i = 0; i < 1000; ++i) {
    // 1K..1M, log-spaced: 1024 · 1024^(i/999).
    axes.prompt_tokens.push_back(
        static_cast<std::int64_t>(1024 * std::pow(1024.0, static_cast<double>(i) / 999)));
  }
  for (int i = 0; i < 100; ++i) axes.kernel_speedup.push_back(1 + 0.03 * i);
  return axes;
}

void BM_Sweep100k(benchmark::State& state) {
  const kspeed::engine::Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const kspeed::engine::SweepAxes axes = hundred_thousand_points();
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::engine::run_sweep(workload, {}, axes));
  }
}
BENCHMARK(BM_Sweep100k)->Unit(benchmark::kMillisecond);

void BM_Sweep100kJson(benchmark::State& state) {
  const kspeed::engine::Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const kspeed::engine::SweepAxes axes = hundred_thousand_points();
  const auto json = *kspeed::report::parse_format("json");
  for (auto _ : state) {
    const kspeed::engine::Sweep sweep = kspeed::engine::run_sweep(workload, {}, axes);
    const kspeed::report::Report report{
        kspeed::report::sweep_warnings_view(sweep),
        kspeed::report::sweep_document(sweep, kspeed::report::SweepParts::tree)};
    benchmark::DoNotOptimize(kspeed::report::render(report, json, {}));
  }
}
BENCHMARK(BM_Sweep100kJson)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
