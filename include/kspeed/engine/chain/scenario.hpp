#pragma once
// From a workload and the user's overrides to the exact inputs of the chain, with the source of
// every number: which share the table gives at this prompt, whether TTFT was measured at this
// shape or scaled to it, and what was defaulted.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/chain/gates.hpp"
#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/chain/latency_order.hpp"
#include "kspeed/engine/chain/run_conditions.hpp"
#include "kspeed/engine/chain/share_table.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/phase.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/roofline/phase_roofline.hpp"
#include "kspeed/engine/verify/prediction_interval.hpp"
#include "kspeed/engine/warning.hpp"

namespace kspeed::engine {

/// The kernel speedup kspeed assumes when none is given (the product's headline question).
inline constexpr double kDefaultKernelSpeedup = 2.0;

/// Where the prefill attention share comes from when --share does not give it.
enum class ShareModel {
  table,       ///< the workload's measured table (interpolated, clamped or extrapolated)
  analytic,    ///< the architecture's FLOPs (analytic_share.hpp), no measurement: modelled
  calibrated,  ///< the analytic curve moved by one odds factor onto the table's points
};

/// What the user overrode; an empty optional means "take it from the workload".
struct EstimateOptions {
  std::optional<std::int64_t> prompt_tokens;    ///< --ctx
  std::optional<std::int64_t> response_tokens;  ///< --response-tokens
  std::optional<double> ttft_ms;                ///< --ttft
  std::optional<double> tpot_ms;                ///< --tpot
  std::vector<LatencyPoint> ttft_points;        ///< --ttft-point L=D (repeatable)
  std::vector<LatencyPoint> tpot_points;        ///< --tpot-point L=D (repeatable)
  std::optional<double> ttft_overhead_ms;       ///< --ttft-overhead: TTFT no kernel touches
  std::optional<double> kernel_speedup;         ///< --kernel-speedup
  /// --ncu: the speedup priced from a profiled kernel's measured position (provenance measured)
  std::optional<double> measured_kernel_speedup;
  std::string kernel_speedup_instrument;           ///< what measured it: "ncu"
  std::string measured_kernel;                     ///< which launch: "7: fmha_fwd_loop_kernel<...>"
  std::vector<Warning> measured_kernel_warnings;   ///< the measured analysis's, about that launch
  std::optional<double> measured_kernel_flops;     ///< that launch's FLOPs, when measured
  bool measured_kernel_flops_lower_bound = false;  ///< its tensor-core work not counted
  std::optional<double> prefill_share;             ///< --share
  std::optional<double> decode_share;              ///< --decode-share
  Phase phase = Phase::prefill;                    ///< --phase
  /// False when `phase` is the command line's default: a decode-only workload then estimates
  /// decode (its prefill was not measured).
  bool phase_given = false;
  Extrapolation extrapolation = Extrapolation::clamp;  ///< --extrapolate
  ShareModel share_model = ShareModel::table;          ///< --share-model
  /// --model and --gpu (or the workload's): places each phase on the roofline and models the
  /// decode share when none is measured.
  std::optional<Platform> platform;
  /// --compute-speedup, --bytes-reduction, --bandwidth-efficiency: the change described by what
  /// it changes, worth what each phase's roofline position allows (instead of kernel_speedup).
  std::optional<Levers> levers;
  /// The deployment's step model (step_calibration.hpp): TTFT, TPOT and both attention shares
  /// of its steps, for every one of them the command line and the workload do not give.
  std::optional<CalibratedStepModel> step_model;
  /// --prefill-batch N: N prompts prefilled together in one step (a whole-batch prefill).
  /// Absent: the platform's batch is the decode concurrency, and a request's TTFT is its own
  /// prompt in the scheduler's chunks beside the running decodes (scheduled_prefill).
  std::optional<std::int64_t> prefill_batch;
  /// The step's token budget that chunks the prefill (--max-batched-tokens; vLLM's default).
  WithProvenance<std::int64_t> step_token_budget{kVllmMaxBatchedTokens, Provenance::default_value};
};

/// Attention's time in one step of a phase when it was measured (a profiled step's kernels) or
/// modelled (the deployment's step) apart from the latency its share is of: what a kernel
/// speedup acts on. The share is ms / latency_ms, capped at 1; saved = ms × (1 − 1/s) whatever
/// latency the user gives (issue 27: attention time is conserved).
struct StepAttention {
  double ms = 0;          ///< attention's time in one step
  double latency_ms = 0;  ///< the latency of one step it is a share of (TTFT's GPU part, a TPOT)
  Provenance provenance = Provenance::modelled;  ///< measured, modelled or fitted
};

/// The resolved inputs of one estimate, each with its source.
struct Scenario {
  WithProvenance<std::int64_t> prompt_tokens;
  WithProvenance<std::int64_t> response_tokens;
  WithProvenance<double> ttft_ms;
  /// TTFT fitted to measured points (--ttft-point, else the workload's request.ttft_points).
  std::optional<TtftModel> ttft_model;
  std::vector<LatencyPoint> ttft_points;  ///< the points ttft_model was fitted to
  /// TTFT's fixed term T0 (given by --ttft-overhead, or the fit's): TTFT = prefill GPU time +
  /// T0. Present only when > 0; it adds the TTFT level to the chain.
  std::optional<WithProvenance<double>> ttft_fixed_ms;
  WithProvenance<double> tpot_ms;
  WithProvenance<double> kernel_speedup;
  std::string kernel_speedup_instrument;  ///< with provenance measured: "ncu"
  std::string measured_kernel;            ///< with provenance measured: the launch priced
  Phase phase = Phase::prefill;
  WithProvenance<double> prefill_share;
  std::optional<WithProvenance<double>>
      decode_share;  ///< absent when not given, measured or modelled
  std::vector<Warning> warnings;
  /// Assumptions the user made no choice about, with their reason: nothing to act on.
  std::vector<Warning> notes;
  std::optional<Platform> platform;  ///< the model on the GPU, when both are known
  std::optional<Levers> levers;      ///< the change as levers; kernel_speedup is unused then
  std::optional<PhaseRoofline> prefill_roofline;  ///< with a platform: at the prompt length
  std::optional<PhaseRoofline> decode_roofline;   ///< with a platform
  std::optional<CalibratedStepModel> step_model;  ///< the deployment, when one is known
  /// The inputs the deployment's step model supplied ("ttft", "tpot", "prefill_attention_share",
  /// "decode_attention_share"), in the order they were resolved; empty when it supplied none.
  std::vector<std::string> deployment_inputs;
  /// --share-model calibrated fitted the prefill share to this workload's table, which is not the
  /// user's (Workload::borrowed_share_table): the answer stands on another deployment's share.
  std::string prefill_share_borrowed_from;
  /// Each phase's attention time when known apart from its latency (StepAttention); nullopt:
  /// the attention time is the share × the latency.
  std::optional<StepAttention> prefill_attention;
  std::optional<StepAttention> decode_attention;
  /// TTFT and TPOT read (or scaled) from the workload's request rather than the command line
  /// or the deployment: borrowed when the workload is of another model.
  bool ttft_from_workload = false;
  bool tpot_from_workload = false;
  /// The sources latency_source chose for TTFT and TPOT (latency_order.hpp): the same words
  /// mix's per-request outcomes carry, so a test can hold the two commands to one order.
  LatencySource ttft_source = LatencySource::missing;
  LatencySource tpot_source = LatencySource::missing;
  /// How the deployment priced TTFT (when it supplied TTFT or the prefill share): the request's
  /// prefill steps (scheduled_prefill), the token budget that chunked them, and --prefill-batch.
  std::optional<PrefillSteps> prefill_steps;
  WithProvenance<std::int64_t> step_token_budget{kVllmMaxBatchedTokens, Provenance::default_value};
  std::optional<std::int64_t> prefill_batch;
};

/// The provenance of the attention time a phase's answer acted on: the measured or modelled
/// StepAttention's, else the weaker of its share's and its latency's (provenance.hpp).
Provenance attention_provenance(const Scenario& scenario, Phase phase);

/// Resolves the scenario. Throws InputError when the request cannot be answered (a decode phase
/// with no decode share anywhere).
Scenario resolve_scenario(const Workload& workload, const EstimateOptions& options);

/// The chain inputs of a resolved scenario.
PhaseInput prefill_input(const Scenario& scenario);
PhaseInput decode_input(const Scenario& scenario);

/// The request's speedup had the change targeted each phase: without --phase, the headline says
/// which phase was assumed and what the others give beside it (issue 27).
struct PhaseFigures {
  double prefill_speedup = 1;  ///< the change on prefill alone
  double decode_speedup = 1;   ///< on decode alone
  double both_speedup = 1;     ///< on both
};

/// Each phase's figure, when the phase was assumed (not given) and both phases have a share
/// and a time; nullopt otherwise.
std::optional<PhaseFigures> phase_figures(const Scenario& scenario, bool phase_given);

/// Everything a reporter needs to show one estimate.
struct Estimate {
  Workload workload;
  Scenario scenario;
  EstimateResult result;
  std::vector<GateCheck> gates;  ///< one per --min-* flag given
  /// Each decode step after the change, when decode is targeted and has a share (modelled).
  std::optional<WithProvenance<double>> tpot_after_ms;
  /// The headline's prediction interval from the measured inputs' spread, or why there is none.
  PredictionInterval interval;
  /// The run's conditions, each with its provenance (run_conditions over the workload and the
  /// platform), decided here so the view and the document only word them.
  std::vector<Condition> conditions;
  /// Without --phase: the figure of every phase beside the assumed one's (phase_figures).
  std::optional<PhaseFigures> phase_figures;
};

/// Each decode step after the change (modelled), when decode is targeted and has a share.
std::optional<WithProvenance<double>> tpot_after_ms(const Scenario& scenario,
                                                    const EstimateResult& result);

/// resolve_scenario + estimate_chain + check_gates.
Estimate run_estimate(const Workload& workload, const EstimateOptions& options,
                      const GateThresholds& gates = {});

}  // namespace kspeed::engine
