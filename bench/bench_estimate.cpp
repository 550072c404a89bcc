// The engine's cost per estimate, apart from process start (which bench/estimate_startup.sh
// measures with hyperfine).
#include <benchmark/benchmark.h>

#include <sstream>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/reports.hpp"

namespace {

void BM_ShareLookup(benchmark::State& state) {
  const std::vector<kspeed::engine::SharePoint> table = {{4096, 0.18}, {131072, 0.85}};
  double context = 8192;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        kspeed::engine::share_at(table, context, kspeed::engine::Extrapolation::clamp));
    context = context < 100000 ? context + 1 : 8192;
  }
}
BENCHMARK(BM_ShareLookup);

void BM_LoadBuiltinWorkload(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::io::load_workload("deepseek-r1-fp8"));
  }
}
BENCHMARK(BM_LoadBuiltinWorkload);

void BM_RunEstimate(benchmark::State& state) {
  const auto workload = kspeed::io::load_workload("deepseek-r1-fp8");
  kspeed::engine::EstimateOptions options;
  options.prompt_tokens = 131072;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::engine::run_estimate(workload, options));
  }
}
BENCHMARK(BM_RunEstimate);

void BM_DecodeTableOverLongResponse(benchmark::State& state) {
  auto workload = kspeed::io::load_workload("deepseek-r1-fp8");
  workload.decode_shares = {{1024, 0.1}, {131072, 0.5}};
  kspeed::engine::EstimateOptions options;
  options.response_tokens = state.range(0);
  options.phase = kspeed::engine::Phase::both;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::engine::run_estimate(workload, options));
  }
}
BENCHMARK(BM_DecodeTableOverLongResponse)->Arg(128)->Arg(32768);

void BM_RenderEstimate(benchmark::State& state) {
  const auto estimate =
      kspeed::engine::run_estimate(kspeed::io::load_workload("deepseek-r1-fp8"), {});
  const auto names = kspeed::report::format_names();
  const auto format =
      *kspeed::report::parse_format(names.at(static_cast<std::size_t>(state.range(0))));
  state.SetLabel(std::string(format.name()));
  for (auto _ : state) {
    // The view and the document are built each time: that is what a run of kspeed pays.
    const auto report = kspeed::report::make_report(estimate, kspeed::report::estimate_view,
                                                    kspeed::report::estimate_document);
    benchmark::DoNotOptimize(kspeed::report::render(report, format, {}));
  }
}
BENCHMARK(BM_RenderEstimate)->DenseRange(0, 4)->ArgName("format");

}  // namespace

BENCHMARK_MAIN();
