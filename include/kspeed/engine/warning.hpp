#pragma once
// Warnings as values: what happened (a code), the numbers involved and the input they concern.
// The engine and the trace analysis return them; the report layer (src/report/wording.cpp) turns
// them into sentences and names the flag that addresses each.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kspeed/engine/phase.hpp"

namespace kspeed::engine {

enum class WarningCode {
  share_clamped,       ///< a context outside the share table, held at the nearest point
  share_extrapolated,  ///< a context outside the share table, edge segment continued
  ttft_scaled,         ///< TTFT scaled from one measured point (no fixed term known)
  // Notes (Scenario::notes): assumptions the user made no choice about, with their reason.
  default_prompt_below_table,  ///< the workload's own prompt sits below its share table
  ttft_fitted,                 ///< TTFT fitted to measured points, with a fixed term
  tpot_fitted,                 ///< TPOT = c + b·L fitted to measured points
  tpot_held,                   ///< TPOT kept at the workload's though the context changed
  share_model_mismatch,        ///< the share table was measured on another model than --model's
  prefill_not_measured,        ///< a decode-only workload: the request's prefill is set aside
  latency_of_another_kind,     ///< a GPU-time share applied to a latency typed on the command line
  attention_exceeds_latency,   ///< measured or modelled attention longer than the given latency
  /// Prefill attention calibrated on profiled steps at other prompt lengths ("prompt_tokens",
  /// "min_tokens", "max_tokens", "steps", "scale"): extrapolated with the causal pairs.
  attention_calibration_extrapolated,
  speedup_beyond_headroom,  ///< a kernel speedup past a memory-bound phase's 1/η_bw
  memory_exceeded,          ///< weights and KV cache do not fit in the GPU's memory
  compute_speedup_no_gain,  ///< faster arithmetic on a memory-bound kernel
  bytes_reduction_no_gain,  ///< fewer bytes on a compute-bound kernel
  // Notes from kspeed profile about one trace file:
  summary_without_timeline,  ///< a kernel summary (nsys stats CSV): one share, no phases
  no_step_annotations,       ///< no engine step annotations: one unphased share
  steps_without_phase,       ///< steps found, none states its phase
  kernels_outside_steps,     ///< kernel executions outside every step
  gpu_idle_in_step,          ///< steps whose GPU sat idle for a large part of their wall time
  share_point_left_out,      ///< an emitted share table point of 0 or 1, left out
  math_path_attention,       ///< a large softmax kernel: attention run as matmul + softmax
  // The workload level (kspeed mix), each with "requests", the number of requests concerned:
  requests_share_clamped,         ///< prompts outside the table held at its edge ("edge_tokens")
  requests_share_extrapolated,    ///< prompts outside the table, edge segment continued
  requests_ttft_missing,          ///< no measured TTFT and no reference to scale
  requests_tpot_missing,          ///< responses of 2+ tokens with no TPOT: no E2E
  requests_decode_share_missing,  ///< the change applies to decode, no decode share is known
  requests_without_block_ids,     ///< an LRU prefix cache asked for, the request has no block ids
  requests_too_many_models,       ///< model names beyond 65,535 not kept
  requests_ttft_below_overhead,   ///< modelled TTFTs below --ttft-overhead: all fixed
  /// Measured TTFTs split: only the modelled GPU time of each prefill moves ("measured_ms",
  /// "fixed_ms": their sums); the rest (queue, overhead) stays (issue 27).
  requests_ttft_split,
  requests_ttft_unsplit,   ///< measured TTFTs with no model of their prefill: all of each moves
  replay_without_arrival,  ///< left out of the queue replay: no arrival time
  replay_near_saturation,  ///< the replayed load is near the saturation rate ("load")
  replay_unschedulable,    ///< requests the replayed engine can never schedule
  /// Requests whose prompt and response outrun the model's context ("context_tokens", "model",
  /// "longest_tokens"): a server refuses them, the answer prices them all the same.
  requests_beyond_context,
  /// estimate and sweep: the request's prompt and response outrun the model's context.
  context_beyond_model,
  // kspeed roofline --ncu, about the measured kernel:
  measured_above_roof,    ///< an achieved fraction above 1: the roof is not the profiled GPU's
  tensor_work_uncounted,  ///< tensor instructions ran; the SASS FLOP counters miss them
  ncu_gpu_mismatch,       ///< the export names another GPU (or compute capability) than --gpu
  measured_kernel_shape,  ///< estimate --ncu: the launch's work against the workload's attention
  // kspeed estimate with --spec-tokens/--spec-accept:
  speculation_acceptance,  ///< τ divides modelled decode time per token, not shares or speedups
};

/// "share_clamped", ...: the code's stable name, before any phase prefix.
constexpr std::string_view to_string(WarningCode code) {
  switch (code) {
    case WarningCode::share_clamped:
      return "share_clamped";
    case WarningCode::share_extrapolated:
      return "share_extrapolated";
    case WarningCode::ttft_scaled:
      return "ttft_scaled";
    case WarningCode::default_prompt_below_table:
      return "default_prompt_below_table";
    case WarningCode::ttft_fitted:
      return "ttft_fitted";
    case WarningCode::tpot_fitted:
      return "tpot_fitted";
    case WarningCode::tpot_held:
      return "tpot_held";
    case WarningCode::share_model_mismatch:
      return "share_model_mismatch";
    case WarningCode::prefill_not_measured:
      return "prefill_not_measured";
    case WarningCode::latency_of_another_kind:
      return "latency_of_another_kind";
    case WarningCode::attention_exceeds_latency:
      return "attention_exceeds_latency";
    case WarningCode::attention_calibration_extrapolated:
      return "attention_calibration_extrapolated";
    case WarningCode::speedup_beyond_headroom:
      return "speedup_beyond_headroom";
    case WarningCode::memory_exceeded:
      return "memory_exceeded";
    case WarningCode::compute_speedup_no_gain:
      return "compute_speedup_no_gain";
    case WarningCode::bytes_reduction_no_gain:
      return "bytes_reduction_no_gain";
    case WarningCode::summary_without_timeline:
      return "summary_without_timeline";
    case WarningCode::no_step_annotations:
      return "no_step_annotations";
    case WarningCode::steps_without_phase:
      return "steps_without_phase";
    case WarningCode::kernels_outside_steps:
      return "kernels_outside_steps";
    case WarningCode::gpu_idle_in_step:
      return "gpu_idle_in_step";
    case WarningCode::share_point_left_out:
      return "share_point_left_out";
    case WarningCode::requests_share_clamped:
      return "requests_share_clamped";
    case WarningCode::requests_share_extrapolated:
      return "requests_share_extrapolated";
    case WarningCode::requests_ttft_missing:
      return "requests_ttft_missing";
    case WarningCode::requests_tpot_missing:
      return "requests_tpot_missing";
    case WarningCode::requests_decode_share_missing:
      return "requests_decode_share_missing";
    case WarningCode::requests_without_block_ids:
      return "requests_without_block_ids";
    case WarningCode::requests_too_many_models:
      return "requests_too_many_models";
    case WarningCode::requests_ttft_below_overhead:
      return "requests_ttft_below_overhead";
    case WarningCode::requests_ttft_split:
      return "requests_ttft_split";
    case WarningCode::requests_ttft_unsplit:
      return "requests_ttft_unsplit";
    case WarningCode::replay_without_arrival:
      return "replay_without_arrival";
    case WarningCode::replay_near_saturation:
      return "replay_near_saturation";
    case WarningCode::replay_unschedulable:
      return "replay_unschedulable";
    case WarningCode::requests_beyond_context:
      return "requests_beyond_context";
    case WarningCode::context_beyond_model:
      return "context_beyond_model";
    case WarningCode::measured_above_roof:
      return "measured_above_roof";
    case WarningCode::tensor_work_uncounted:
      return "tensor_work_uncounted";
    case WarningCode::math_path_attention:
      return "math_path_attention";
    case WarningCode::ncu_gpu_mismatch:
      return "ncu_gpu_mismatch";
    case WarningCode::measured_kernel_shape:
      return "measured_kernel_shape";
    case WarningCode::speculation_acceptance:
      return "speculation_acceptance";
  }
  return "unknown";
}

struct Warning {
  WarningCode code = WarningCode::share_clamped;
  std::optional<Phase> phase;  ///< the phase it concerns, when it concerns one
  std::string input;           ///< the input it concerns: "prefill_share_table", "ttft", ...
  std::vector<std::pair<std::string, double>> numbers;     ///< named figures, in sentence order
  std::vector<std::pair<std::string, std::string>> names;  ///< named texts (models, GPUs)

  /// The figure called `name`; 0 when there is none.
  double number(std::string_view name) const {
    for (const auto& [key, value] : numbers) {
      if (key == name) return value;
    }
    return 0;
  }
  /// The text called `name`; empty when there is none.
  std::string text(std::string_view name) const {
    for (const auto& [key, value] : names) {
      if (key == name) return value;
    }
    return {};
  }
};

}  // namespace kspeed::engine
