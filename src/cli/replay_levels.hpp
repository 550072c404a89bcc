#pragma once
// The measured load levels `kspeed validate` and `kspeed calibrate` fit the step model on through
// the batching replay (engine/serving/replay_validation.hpp): the multi-level runs validate reads
// (inference-perf report folders, AccelMark result folders, sglang.bench_serving --output-file
// JSONL) or levels typed by hand, each rebuilt as the requests of its stated load, with the
// engine settings the run's files state. Defined in validate_command.cpp beside validate's
// readers, so both commands take one code path.

#include <cstddef>
#include <string>
#include <vector>

#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "validate_replay_setup.hpp"

namespace kspeed::cli {

/// The replay's engine settings as typed (empty: what the run's files state, else vLLM's
/// defaults) and the AccelMark suite file of runs with no workload/ folder above them.
struct ReplayLevelFlags {
  std::string max_seqs, max_batched_tokens, chunked_prefill, scheduler;
  std::string accelmark_suite;
};

/// One run's levels, lightest first.
struct ReplayLevelRun {
  std::string name;
  std::string format;  ///< "inference-perf", "accelmark", "sglang.bench_serving", "typed"
  std::vector<engine::ReplayLevel> levels;
  /// Where each level's per-token figure came from ("(E2E - TTFT) / (output - 1) from the
  /// means"); empty where the tool reports it as such.
  std::vector<std::string> per_token_basis;
};

/// The runs read, the replay's settings and, for the answer, each setting with where it came
/// from and how each level's load was rebuilt.
struct ReplayLevelsRead {
  engine::ServingSetup setup;
  std::vector<std::string> settings;
  /// The scheduler settings as a deployment file records them (max_seqs, max_batched_tokens,
  /// chunked_prefill, scheduler), each with where it came from.
  std::vector<io::DeploymentSetting> scheduler_settings;
  std::vector<std::string> load_notes;
  std::vector<ReplayLevelRun> runs;
};

/// Reads every run in `paths` (a run with no more than `fit_count` levels in a multi-run
/// sglang.bench_serving file is named in load_notes and left out). Settings: the flag, else the
/// run's deployment files, else vLLM's default; runs whose settings differ are refused. With no
/// path, the settings are the flags' and vLLM's defaults (levels typed by hand).
/// What validate adds to the replays' set-up (validate_replay_setup.hpp): the KV cache `mix
/// --replay` would size for `platform` at the settings the flags or the run's files give, and the
/// client's in-flight cap. Without it (calibrate) the cache is unlimited and no cap is read.
struct ReplayCapacityRequest {
  const engine::Platform* platform = nullptr;
  ValidateReplayFlags flags;
  report::ValidateContext::KvCache kv;  ///< set by read_replay_levels: the cache chosen
};

ReplayLevelsRead read_replay_levels(const std::vector<std::string>& paths,
                                    const ReplayLevelFlags& flags, std::size_t fit_count,
                                    ReplayCapacityRequest* capacity = nullptr);

/// One measured level as the replay's requests (validate's rebuild of each level's load).
engine::ReplayLevel replay_level_of(const io::MeasuredLoad& load, const std::string& run);

/// --fit-levels "L1[,L2]": one or two distinct levels from 1 (the lightest) to `levels`, as
/// indices, lightest first. Throws InputError naming `run`.
std::vector<std::size_t> parse_fit_levels(const std::string& text, std::size_t levels,
                                          const std::string& run);

/// True when `path` is a run of several load levels validate reads: a folder of inference-perf
/// stage reports or AccelMark scenarios, or sglang.bench_serving aggregate JSONL (not its
/// --output-details per-request lines, which calibrate reads request by request).
bool is_multi_level_run(const std::string& path);

}  // namespace kspeed::cli
