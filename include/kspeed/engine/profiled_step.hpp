#pragma once
// One engine step a profiler trace measured: vocabulary of the chain (a workload carries its
// steps, their shares and latencies) and of the deployment (its step model is calibrated on
// them), so it lives below both.

#include <cstdint>
#include <string>

#include "kspeed/engine/phase.hpp"

namespace kspeed::engine {

/// One engine step of a profiler trace, as kspeed profile writes it (workload format 2): its
/// batch composition and its times, so the request and the shares can be recomputed from it and
/// the spread over steps carried to the estimate's prediction interval.
struct ProfiledStep {
  std::string label;                  ///< the step's annotation
  Phase phase = Phase::prefill;       ///< prefill, decode or mixed (chunked prefill)
  std::int64_t prefill_requests = 0;  ///< requests computing prompt tokens in the step
  std::int64_t prefill_tokens = 0;    ///< prompt tokens computed (all requests)
  std::int64_t decode_requests = 0;   ///< sequences producing a token
  std::int64_t decode_kv_tokens = 0;  ///< keys those sequences read, summed (0: unstated)
  double kernel_ms = 0;               ///< sum of kernel durations
  double busy_ms = 0;                 ///< union of kernel intervals
  double wall_ms = 0;                 ///< first kernel start to last kernel end
  /// The step's largest idle stretch when it alone exceeds the step's GPU-busy time: the GPU
  /// waited longer than all the step's work, which its own launches cannot explain (the host
  /// held by the profiler). 0 when there is none, or when the user kept the gaps.
  double profiler_gap_ms = 0;
  /// The step's time and its attention time under the workload's share_denominator (wall time
  /// less profiler_gap_ms for wall-time): attention_ms / time_ms is the step's share.
  double time_ms = 0;
  double attention_ms = 0;
  double attention_kernel_ms = 0;  ///< attention kernels' summed durations (for a calibration)
  /// Whether the step is averaged into request.ttft_ms / request.tpot_ms (the steps at the
  /// request's context); a mixed step can be both.
  bool measures_ttft = false;
  bool measures_tpot = false;
};

}  // namespace kspeed::engine
