// The chart library's cost: an SVG sweep as the number of points grows (kspeed sweep can ask
// for 100,000), the terminal chart, and a CDF of many requests.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kspeed/report/chart/cdf_chart.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"

namespace {

namespace chart = kspeed::report::chart;

// Two series of n points from 1K to 1M tokens with a plausible speedup curve, and a ceiling.
chart::SweepChart sweep_of(std::int64_t n) {
  chart::SweepChart sweep;
  sweep.title = "bench";
  chart::SweepSeries prefill{"prefill", {}};
  chart::SweepSeries request{"request", {}};
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
    const double tokens = 1024 * std::pow(1024.0, t);
    const double share = 1 / (1 + std::exp(-(4 * t - 1.5)));
    prefill.points.push_back({tokens, 1 / ((1 - share) + share / 2)});
    request.points.push_back({tokens, 1 + 0.5 * (1 / ((1 - share) + share / 2) - 1)});
    sweep.ceiling.push_back({tokens, 1 / (1 - share)});
  }
  sweep.series = {prefill, request};
  return sweep;
}

void BM_SweepSvg(benchmark::State& state) {
  const auto sweep = sweep_of(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string svg = chart::render_sweep_svg(sweep);
    bytes = svg.size();
    benchmark::DoNotOptimize(svg.data());
  }
  state.counters["svg_bytes"] = static_cast<double>(bytes);
  state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
BENCHMARK(BM_SweepSvg)->Arg(6)->Arg(100)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);

void BM_TerminalChart(benchmark::State& state) {
  const auto sweep = sweep_of(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(chart::render_terminal_chart(sweep));
}
BENCHMARK(BM_TerminalChart)->Arg(6)->Arg(100000)->Unit(benchmark::kMicrosecond);

void BM_CdfSvg(benchmark::State& state) {
  chart::CdfChart cdf;
  chart::CdfSeries before{"E2E", chart::CdfWhen::before, {}};
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    before.samples_ms.push_back(100 + std::fmod(static_cast<double>(i) * 7919.0, 10000.0));
  }
  chart::CdfSeries after = before;
  after.when = chart::CdfWhen::after;
  for (double& sample : after.samples_ms) sample *= 0.9;
  cdf.series = {before, after};
  for (auto _ : state) benchmark::DoNotOptimize(chart::render_cdf_svg(cdf));
}
BENCHMARK(BM_CdfSvg)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
