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
  share_clamped,            ///< a context outside the share table, held at the nearest point
  share_extrapolated,       ///< a context outside the share table, edge segment continued
  ttft_scaled,              ///< TTFT scaled from the workload's reference prompt length
  share_model_mismatch,     ///< the share table was measured on another model than --model's
  memory_exceeded,          ///< weights and KV cache do not fit in the GPU's memory
  compute_speedup_no_gain,  ///< faster arithmetic on a memory-bound kernel
  bytes_reduction_no_gain,  ///< fewer bytes on a compute-bound kernel
  // Notes from kspeed profile about one trace file:
  summary_without_timeline,  ///< a kernel summary (nsys stats CSV): one share, no phases
  no_step_annotations,       ///< no engine step annotations: one unphased share
  steps_without_phase,       ///< steps found, none states its phase
  kernels_outside_steps,     ///< kernel executions outside every step
  share_point_left_out,      ///< an emitted share table point of 0 or 1, left out
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
    case WarningCode::share_model_mismatch:
      return "share_model_mismatch";
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
    case WarningCode::share_point_left_out:
      return "share_point_left_out";
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
