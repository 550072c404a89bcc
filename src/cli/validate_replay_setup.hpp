#pragma once
// What `kspeed validate` sets up around each replay so that it runs the levels as the engine and
// the client ran them (issue 29): the engine's KV capacity, sized as `kspeed mix --replay --model
// --gpu` sizes it (engine::resolve_deployment, kv_capacity.hpp) from the settings the run's files
// state, and the benchmark client's cap on requests in flight.

#include <cstdint>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/scheduler_settings.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "kspeed/report/validate_report.hpp"

namespace kspeed::cli {

/// The KV and client flags as typed (empty: not given).
struct ValidateReplayFlags {
  std::string gpu_memory_utilization;
  std::string kv_blocks;
  std::string block_size;
  std::string max_inflight;
};

/// The KV cache of the replays of the run in folder or file `run` on `platform`: --kv-blocks,
/// else modelled like vLLM's profile run exactly as `mix --replay` models it, at the
/// utilization and block size --gpu-memory-utilization / --block-size give, else the run's
/// deployment files state (io::read_engine_arguments), else vLLM's defaults. Sets
/// scheduler.kv_blocks and block_tokens; appends the settings lines (each with where it came
/// from) to `settings`. Throws InputError when the weights leave no cache, or when a file states
/// a setting twice with different values and no flag gives it.
report::ValidateContext::KvCache choose_validate_kv(const engine::Platform& platform,
                                                    const ValidateReplayFlags& flags,
                                                    const std::string& run,
                                                    engine::SchedulerOptions& scheduler,
                                                    std::vector<std::string>& settings);

/// Throws InputError when a request of `levels` cannot fit the KV cache even alone (the replay
/// would drop it, a silently wrong answer): its prompt and output need more blocks than the
/// cache holds.
void check_levels_fit_kv(const std::vector<engine::ReplayLevel>& levels,
                         const engine::SchedulerOptions& scheduler, const std::string& run);

/// The benchmark client's cap on requests in flight for the open-loop levels of `run`:
/// --max-inflight, else what the run's files state (inference-perf's config.yaml beside its
/// stages: num_workers × worker_max_concurrency; sglang.bench_serving states its own per line).
/// Sets each open-loop level's max_inflight; appends a load note saying which.
void apply_client_cap(const std::string& run, const ValidateReplayFlags& flags,
                      std::vector<io::MeasuredLoad>& loads, std::vector<std::string>& notes);

}  // namespace kspeed::cli
