// Request logs (kspeed mix): format detection and every reader, then each delivered request
// through the workload engine's chain (share lookup, prefix cache, Amdahl), so a value a reader
// lets through that the engine cannot take is a finding too. The first byte picks the options:
// bit 0 strict mode, bit 1 an LRU prefix cache, bit 2 a column mapping (for CSVs no reader knows).
#include <string>

#include "fuzz_common.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace {

const kspeed::engine::MixModel& base_model() {
  static const kspeed::engine::MixModel model = [] {
    const kspeed::engine::Workload workload = kspeed::io::load_workload("deepseek-r1-fp8");
    return kspeed::engine::make_mix_model(workload, kspeed::engine::resolve_scenario(workload, {}),
                                          kspeed::engine::Extrapolation::clamp);
  }();
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  kspeed::io::ReadOptions options;
  options.strict = (flags & 1U) != 0;
  kspeed::engine::MixModel model = base_model();
  if ((flags & 2U) != 0) {
    model.prefix_cache.mode = kspeed::engine::PrefixCacheOptions::Mode::lru;
    model.prefix_cache.capacity_tokens = 4096;
  }
  kspeed::fuzz::expect_input_error_at_most([&] {
    if ((flags & 4U) != 0) {
      options.columns = kspeed::io::parse_column_mapping(
          "arrival=a:ms,prompt=p,response=r,cached=c:64,ttft=t:s,e2e=e,model=m,success=ok", "fuzz");
    }
    kspeed::engine::MixRun run(model);
    (void)kspeed::io::read_request_log_text(
        kspeed::fuzz::as_text(data + 1, size - 1), "fuzz.log", options,
        [&run](const kspeed::engine::Request& request) { run.add(request); });
    const kspeed::engine::MixSummary summary = kspeed::engine::summarise(run);
    kspeed::engine::ServingSetup setup;
    setup.step.fixed_ms = 1;
    setup.step.weights_ms = 1;
    setup.step.ms_per_token = 0.01;
    setup.step.ms_per_prefill_pair = 1e-6;
    setup.step.ms_per_kv_token = 1e-5;
    setup.arrivals.replicas = 2;
    (void)kspeed::engine::replay_run(run, setup);
    (void)summary;
  });
  return 0;
}
