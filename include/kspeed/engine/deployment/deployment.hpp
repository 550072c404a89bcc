#pragma once
// One deployment: the platform (model, GPU, tensor parallelism, precision, KV layout), its step
// model and where that came from, its KV capacity and its scheduler's settings, each with its
// provenance as a value. Every command that prices on a deployment (estimate, sweep, mix and its
// replay, roofline) takes this one value, decided once by resolve_deployment; the command line
// only fills in a DeploymentRequest, and the report words what the deployment holds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/deployment/scheduler_settings.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/profiled_step.hpp"
#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// Latencies measured on the deployment (a benchmark run read by io/calibration), to fit its
/// step model to.
struct CalibrationRun {
  std::string source;  ///< the file, as given
  /// What the reader left out of the fit (TTFTs that were mostly queue), for the step model's
  /// source line; empty when nothing.
  std::string note;
  std::vector<LatencyObservation> points;
  /// The prefix of each point's prompt the run's log says was cached (empty: none), so the fit
  /// prices the prompt tokens the prefill computed.
  std::vector<double> cached_tokens;
  std::vector<RunningDecodeObservation> decode_points;
  /// A step model fitted already (a deployment file `kspeed calibrate` wrote): used as it is.
  std::optional<CalibratedStepModel> fitted;
};

/// Step-model coefficients the user stated outright.
struct StatedStepModel {
  StepModel model;
  std::string source;  ///< where they were stated, for people
};

/// What the user asked for; resolve_deployment decides the rest. Empty optionals are unstated.
struct DeploymentRequest {
  /// The model on the GPU (make_platform); none when the user named no deployment.
  std::optional<Platform> platform;
  /// Latencies measured on it: the step model is fitted to them.
  std::optional<CalibrationRun> calibration;
  /// A profiler trace's steps of it (kspeed profile's workload): the step model is calibrated on
  /// them when there is no calibration run; `profiled_from` names the trace files.
  std::vector<ProfiledStep> profiled_steps;
  std::string profiled_from;
  /// Coefficients stated outright: the step model as given (no platform needed).
  std::optional<StatedStepModel> step_model;
  /// The deployment serves a replay: it then needs a step model, a KV capacity and its
  /// scheduler's settings.
  bool serves = false;
  /// The scheduler's settings as given (kv_blocks set: the KV capacity stated in blocks;
  /// request_overhead_ms is replaced by the step model's unless `request_overhead_ms` is given).
  SchedulerOptions scheduler;
  std::optional<double> request_overhead_ms;     ///< time per request outside the engine
  std::optional<double> gpu_memory_utilization;  ///< the fraction of GPU memory the engine takes
  /// The vLLM version whose memory accounting sizes the cache (kv_capacity.hpp VllmMemoryRule);
  /// none: vLLM 0.6.5-0.20's rule, kspeed's default.
  std::optional<std::string> vllm_version;
};

/// How many KV blocks a replica holds, and how that was decided.
struct KvCapacityChoice {
  /// given: stated in blocks; modelled: what the GPU memory leaves beside the weights
  /// (`modelled`); default_value: unlimited (no deployment to size it from).
  Provenance provenance = Provenance::default_value;
  /// The fraction of GPU memory the engine takes: given, or vLLM's default (modelled only).
  WithProvenance<double> memory_utilization{kDefaultGpuMemoryUtilization,
                                            Provenance::default_value};
  std::optional<KvCapacity> modelled;  ///< with provenance modelled
  /// The accounting rule: given (--vllm-version) or the default (modelled only).
  WithProvenance<VllmMemoryRule> rule{VllmMemoryRule::growth_since_start,
                                      Provenance::default_value};
};

/// One deployment, decided.
struct Deployment {
  std::optional<Platform> platform;  ///< the model on the GPU; none: a stated step model alone
  /// The step model (none without a platform or stated coefficients). Its `calibration` is the
  /// provenance: given (stated), fitted (a calibration run), measured (profiled steps) or
  /// modelled (the roofline at the cited default efficiencies); `calibration_source` where.
  std::optional<CalibratedStepModel> step;
  KvCapacityChoice kv;  ///< with `serves`
  /// The scheduler's settings, kv_blocks and request_overhead_ms decided (with `serves`).
  SchedulerOptions scheduler;
  bool serves = false;
};

/// Decides the deployment (the one place that does):
/// - the step model: the stated coefficients; else, with a platform, modelled from its roofline
///   at the cited default efficiencies (with tensor parallelism's all-reduces, except when
///   profiled steps, which hold those kernels, calibrate it), then fitted to the calibration run,
///   or else calibrated on the profiled steps;
/// - with `serves`: the request overhead (given, else the step model's), and the KV capacity
///   (the stated blocks, else what the platform's GPU memory leaves beside its weights, else
///   unlimited).
/// Throws InputError when a served deployment has neither a platform nor stated coefficients,
/// when stated coefficients meet a calibration run, and when the weights leave no KV cache
/// (its KvCapacity then has blocks 0: kv_room_error words it).
Deployment resolve_deployment(const DeploymentRequest& request);

}  // namespace kspeed::engine
