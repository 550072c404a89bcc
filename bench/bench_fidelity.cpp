// The fidelity pieces' cost: fitting the TTFT and TPOT models, reading a config.json, one MoE
// decode step with the expert union, and calibrating the analytic share. Each runs once per
// command, so they must stay far below process start (about a millisecond).
#include <benchmark/benchmark.h>

#include "../tests/unit/hf_configs.hpp"
#include "kspeed/engine/chain/analytic_share.hpp"
#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/hf_config.hpp"

namespace {

using namespace kspeed;

const std::vector<engine::SharePoint> kShares = {{4096, 0.18}, {131072, 0.85}};

void BM_FitTtftTwoPoints(benchmark::State& state) {
  const std::vector<engine::LatencyPoint> points = {{1024, 267}, {8192, 474}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::fit_ttft(points, kShares, engine::Extrapolation::clamp));
  }
}
BENCHMARK(BM_FitTtftTwoPoints);

void BM_FitTpotThreePoints(benchmark::State& state) {
  const std::vector<engine::LatencyPoint> points = {{1024, 50}, {32768, 62}, {131072, 95}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::fit_tpot(points));
  }
}
BENCHMARK(BM_FitTpotThreePoints);

void BM_ParseHfConfigDeepSeekR1(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(io::parse_hf_config(test::kDeepSeekR1Config, "config.json", "r1"));
  }
}
BENCHMARK(BM_ParseHfConfigDeepSeekR1);

void BM_ParseHfConfigGptOss(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(io::parse_hf_config(test::kGptOss120bConfig, "config.json", "g"));
  }
}
BENCHMARK(BM_ParseHfConfigGptOss);

void BM_MoeDecodeStepGptOss(benchmark::State& state) {
  const io::HfModel model = io::parse_hf_config(test::kGptOss120bConfig, "config.json", "g");
  engine::PlatformChoice choice;
  choice.model = {model.arch, engine::Source::given};
  choice.gpu = {io::load_gpu("b200"), engine::Source::given};
  choice.batch = {64, engine::Source::given};
  const engine::Platform platform = engine::make_platform(choice);
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::moe_decode_step_time(platform, model.shapes, 8192));
  }
}
BENCHMARK(BM_MoeDecodeStepGptOss);

void BM_CalibrateShareDeepSeekR1(benchmark::State& state) {
  const io::HfModel model = io::parse_hf_config(test::kDeepSeekR1Config, "config.json", "r1");
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::calibrate_share(model.arch, model.shapes, kShares));
  }
}
BENCHMARK(BM_CalibrateShareDeepSeekR1);

}  // namespace

BENCHMARK_MAIN();
