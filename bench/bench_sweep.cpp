// kspeed sweep at 100,000 points (1,000 contexts × 100 kernel speedups): the engine's loop alone,
// and the loop with its output, the "< 1 s including JSON" figure: streamed
// (write_sweep, what kspeed runs) against building the document's ordered_json tree first (the
// path it replaced). bench/sweep_output.sh measures the whole command with hyperfine.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/record_writer.hpp"
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

// The document built as an ordered_json tree, then dumped: the path before streaming.
void BM_Sweep100kJsonTree(benchmark::State& state) {
  const kspeed::engine::Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const kspeed::engine::SweepAxes axes = hundred_thousand_points();
  const auto json = *kspeed::report::parse_format("json");
  for (auto _ : state) {
    const kspeed::engine::Sweep sweep = kspeed::engine::run_sweep(workload, {}, axes);
    kspeed::report::Report report{
        kspeed::report::sweep_warnings_view(sweep),
        kspeed::report::sweep_document(sweep, kspeed::report::SweepParts::tree)};
    benchmark::DoNotOptimize(kspeed::report::render(report, json, {}));
  }
}
BENCHMARK(BM_Sweep100kJsonTree)->Unit(benchmark::kMillisecond);

// The sweep and its records streamed in one format, into a sink that counts bytes.
void BM_Sweep100kStreamed(benchmark::State& state) {
  const kspeed::engine::Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
  const kspeed::engine::SweepAxes axes = hundred_thousand_points();
  const auto format = static_cast<kspeed::report::RecordFormat>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const kspeed::engine::Sweep sweep = kspeed::engine::run_sweep(workload, {}, axes);
    kspeed::report::write_sweep(sweep, format,
                                [&bytes](std::string_view piece) { bytes += piece.size(); });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
// 0: jsonl, 1: csv, 2: json (RecordFormat's order).
BENCHMARK(BM_Sweep100kStreamed)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
