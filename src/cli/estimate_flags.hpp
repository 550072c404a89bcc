#pragma once
// The flags of `kspeed estimate`, shared with `kspeed sweep` (which accepts lists and ranges in
// some of them): one registration, one translation to engine options, so the two commands
// cannot drift apart.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kspeed/engine/chain/gates.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "ncu_flags.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::engine {
struct RooflineResult;
}  // namespace kspeed::engine

namespace kspeed::cli {

inline constexpr const char* kDefaultWorkload = "deepseek-r1-fp8";

// Flag values exactly as typed; parsed by kspeed's own parsers so every error names its flag.
struct EstimateFlags {
  std::string workload = kDefaultWorkload;
  std::string ctx, response_tokens, ttft, tpot, kernel_speedup, share, decode_share;
  std::vector<std::string> ttft_points;  // --ttft-point L=D, repeatable
  std::vector<std::string> tpot_points;  // --tpot-point L=D, repeatable
  std::string ttft_overhead;
  std::string phase;  // empty: prefill, or both when levers describe the change
  std::string extrapolate = "clamp";
  std::string share_model = "table";
  PlatformFlags platform;
  std::string calibrate;              ///< --calibrate FILE: measured latencies of the deployment
  std::string calibrate_concurrency;  ///< --calibrate-concurrency N: the file's, when it omits it
  std::string calibrate_warmup;       ///< --calibrate-warmup N: first requests left out of the fit
  std::string deployment_file;        ///< --deployment FILE: a deployment kspeed calibrate wrote
  /// --prefill-batch N: N prompts prefilled in one step; --max-batched-tokens: the step's budget.
  std::string prefill_batch, max_batched_tokens;
  LeverFlags levers;
  NcuFlags ncu;  ///< --ncu FILE, --kernel, --launch: the kernel speedup priced from a profile
  std::string min_request_speedup, min_prefill_speedup;
  bool strict = false;  ///< --strict: refuse illustrative, clamped, extrapolated, borrowed inputs
  std::string fail_on;  ///< --fail-on PROVENANCE[,...]
  OutputOptions output;
  /// --workload's option, set by add_estimate_flags: tells a given workload from the default.
  CLI::Option* workload_option = nullptr;

  bool workload_given() const { return workload_option != nullptr && workload_option->count() > 0; }
};

/// Registers the change flags: --kernel-speedup, --share, --decode-share, --phase, --extrapolate
/// and (unless `share_model` is false) --share-model. estimate, sweep and mix register them here
/// and parse them with to_options, once.
void add_change_flags(CLI::App& app, EstimateFlags& flags, bool share_model = true);
/// Registers the workload, request, change, platform and lever flags.
void add_estimate_flags(CLI::App& app, EstimateFlags& flags);
/// Registers --min-request-speedup, --min-prefill-speedup, --strict and --fail-on.
void add_gate_flags(CLI::App& app, EstimateFlags& flags);

/// The engine's options from the typed flags (every error names its flag); no platform yet.
engine::EstimateOptions to_options(const EstimateFlags& flags);
engine::GateThresholds to_gates(const EstimateFlags& flags);

/// The workload an estimate or a sweep starts from: --workload, else the built-in illustrative
/// one. With --model and --gpu and no --workload, only that request's lengths
/// (engine::request_lengths_only): the deployment answers, and no latency or share measured on
/// another deployment reaches the answer.
/// With --calibrate and no --workload, the request is the calibration run's typical one (its
/// median lengths, provenance measured).
engine::Workload load_estimate_workload(const EstimateFlags& flags,
                                        const std::optional<io::CalibrationFile>& calibration);

/// The workload of an answer the deployment gives alone (load_estimate_workload's lengths-only
/// workload, which comes back unnamed): named after the deployment (report::deployment_name), its
/// citation saying what answers, so no other model's workload is named in the answer. Any other
/// workload is kept.
void name_after_deployment(engine::Workload& workload,
                           const std::optional<engine::Platform>& platform);

/// --calibrate's file, read (nullopt without the flag).
std::optional<io::CalibrationFile> read_calibration(EstimateFlags& flags);

/// --calibrate-warmup N: how many of a per-request log's first requests a fit leaves out ("0" or
/// nothing: none). Throws InputError on anything but a whole number.
std::int64_t parse_calibrate_warmup(const std::string& text);

/// The help text of --calibrate-warmup, one for every command that takes it.
extern const char* const kCalibrateWarmupHelp;
/// --deployment's file as a calibration already fitted; fills the platform flags the user left
/// out from it (deployment_flag.cpp). Throws InputError on a flag that contradicts the file.
io::CalibrationFile read_deployment_flag(EstimateFlags& flags);
/// The platform of a deployment file kspeed calibrate wrote (model, GPU, tp, ep, precision, KV
/// type) into the flags the user left out; a flag that names another deployment is refused.
io::DeploymentFile take_deployment_platform(PlatformFlags& platform, const std::string& path);

/// The replay's scheduler flags, as the command holds them.
struct ReplaySchedulerFlags {
  std::string* max_seqs;
  std::string* max_batched_tokens;
  std::string* chunked_prefill;
  std::string* scheduler;
};

/// The scheduler a deployment file's fit replayed (max_seqs, max_batched_tokens, chunked_prefill,
/// scheduler; recorded when kspeed calibrate fitted through the replay) for each flag left empty:
/// the replay then forms steps as the calibration did. A flag given keeps its value (a what-if on
/// the calibrated step model). Nothing when `path` is empty or the file records none.
void take_deployment_scheduler(const std::string& path, ReplaySchedulerFlags flags);

/// The deployment the flags ask for (engine::resolve_deployment decides it): the platform from
/// the flags, `defaults` where they say nothing; --calibrate's run; the profiled steps
/// `workload` carries (kspeed profile --emit-workload).
engine::DeploymentRequest deployment_request(const PlatformFlags& flags,
                                             const std::optional<io::CalibrationFile>& calibration,
                                             const engine::Workload& workload,
                                             const PlatformDefaults& defaults);

/// estimate's and sweep's deployment, resolved: the platform from the flags, the workload's where
/// they say nothing (with --ncu and no --model, --gpu and --precision give only the profiled
/// GPU's roof, so no platform); the workload named after it and `options` priced on it.
engine::Deployment deploy(const EstimateFlags& flags,
                          const std::optional<io::CalibrationFile>& calibration,
                          engine::Workload& workload, engine::EstimateOptions& options);

/// --strict and --fail-on: throws InputError (exit 2) naming the refused inputs of `scenario`.
void check_input_provenance(const EstimateFlags& flags, const engine::Scenario& scenario);
/// The same over every point of a sweep.
void check_input_provenance(const EstimateFlags& flags, const engine::Sweep& sweep);
/// --ncu: the levers priced on the profiled kernel's measured position become the attention
/// kernel speedup (provenance measured, by ncu), at every point of the run; the levers no longer
/// go through each phase's modelled roofline. InputError with --kernel-speedup.
void price_measured_kernel(const EstimateFlags& flags, engine::EstimateOptions& options);
/// The same over the inputs of a roofline (engine::answer_inputs).
void check_input_provenance(const EstimateFlags& flags, const engine::RooflineResult& result);
/// Registers --strict and --fail-on (estimate registers them with its gates).
void add_provenance_flags(CLI::App& app, EstimateFlags& flags);
/// Registers --fail-on alone (mix's --strict also stops at a log's first bad row).
void add_fail_on_flag(CLI::App& app, EstimateFlags& flags);
/// Registers --calibrate and --calibrate-concurrency (part of add_estimate_flags).
void add_calibration_flags(CLI::App& app, EstimateFlags& flags);

}  // namespace kspeed::cli
