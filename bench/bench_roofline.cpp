// The decode model's cost: the full sum over a 32K-token response (32,767 decode steps whose
// context grows by one each), in closed form and step by step, and a whole modelled estimate.
#include <benchmark/benchmark.h>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace {

using namespace kspeed;

constexpr std::int64_t kPrompt = 8192;
constexpr std::int64_t kResponse = 32768;

engine::Platform platform(const char* model) {
  engine::PlatformChoice choice;
  choice.model = {io::load_model(model), engine::Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), engine::Provenance::given};
  choice.batch = {16, engine::Provenance::given};
  choice.tensor_parallel = {8, engine::Provenance::given};
  return engine::make_platform(choice);
}

// gpt-oss-120b has sliding-window layers, the closed form's most involved case.
void BM_DecodeSum32kClosedForm(benchmark::State& state) {
  const engine::Platform p = platform("gpt-oss-120b");
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::decode_over_response(p, kPrompt, kResponse));
  }
}
BENCHMARK(BM_DecodeSum32kClosedForm);

void BM_DecodeSum32kStepwise(benchmark::State& state) {
  const engine::Platform p = platform("gpt-oss-120b");
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::decode_over_response_stepwise(p, kPrompt, kResponse));
  }
  state.SetItemsProcessed(state.iterations() * (kResponse - 1));
}
BENCHMARK(BM_DecodeSum32kStepwise)->Unit(benchmark::kMicrosecond);

// resolve_scenario with a modelled decode share and levers, through the chain and the gates.
void BM_EstimateWithDecodeModel(benchmark::State& state) {
  const engine::Workload workload = io::load_workload("deepseek-r1-fp8");
  engine::EstimateOptions options;
  options.prompt_tokens = kPrompt;
  options.response_tokens = kResponse;
  options.ttft_ms = 900;
  options.tpot_ms = 25;
  options.platform = platform("llama-3.1-70b");
  options.levers = engine::Levers{};
  options.levers->bytes_reduction = 2;
  options.phase = engine::Phase::both;
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::run_estimate(workload, options));
  }
}
BENCHMARK(BM_EstimateWithDecodeModel);

void BM_LoadModelAndGpuPresets(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(io::load_model("deepseek-r1"));
    benchmark::DoNotOptimize(io::load_gpu("h100-sxm"));
  }
}
BENCHMARK(BM_LoadModelAndGpuPresets);

}  // namespace

BENCHMARK_MAIN();
