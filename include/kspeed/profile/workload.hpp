#pragma once
// A workload built from measured shares, for `kspeed profile --emit-workload`: the attention
// share table per phase at the contexts the trace measured, and the conditions it reveals.

#include "kspeed/engine/workload.hpp"
#include "kspeed/profile/analysis.hpp"

namespace kspeed::profile {

struct EmittedWorkload {
  engine::Workload workload;
  std::vector<engine::Warning> notes;  ///< points left out and why (share of exactly 0 or 1)
};

/// What the emitted workload states beyond the trace.
struct EmitOptions {
  /// Keep profiler idle gaps in a wall-time denominator (profile --keep-idle-gaps); they are
  /// excluded by default (engine::ProfiledStep::profiler_gap_ms).
  bool keep_idle_gaps = false;
};

/// Every step is written (workload format 2) with its composition and times; the request is
/// recomputed from them: TTFT is a prefill request's share of its step's tokens, TPOT the
/// decode step. Steps at the same context are merged across files (time-weighted), so contexts
/// are distinct; shares of exactly 0 or 1 are left out (the share table needs them strictly
/// inside (0, 1)). A phase with no step of its own takes its table from the mixed steps.
EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope,
                                      const EmitOptions& options = {});

}  // namespace kspeed::profile
