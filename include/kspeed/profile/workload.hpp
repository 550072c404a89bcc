#pragma once
// A workload built from measured shares, for `kspeed profile --emit-workload`: the attention
// share table per phase at the contexts the trace measured, and the conditions it reveals.

#include "kspeed/engine/denominator.hpp"
#include "kspeed/engine/chain/workload.hpp"
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

/// The kind of time a profile denominator measures (engine/denominator.hpp).
constexpr engine::TimeBase time_base(Denominator denominator) {
  switch (denominator) {
    case Denominator::kernel_time:
      return engine::TimeBase::kernel;
    case Denominator::busy_time:
      return engine::TimeBase::busy;
    case Denominator::wall_time:
      return engine::TimeBase::wall;
  }
  return engine::TimeBase::kernel;
}

/// A profiled step's times under the workload's denominator, typed by its kind: the shares
/// and the request latencies the workload records are both taken from these, so a share of
/// one kind of time cannot be written beside (or applied to) a latency of another.
template <engine::TimeBase Base>
struct StepTimes {
  engine::Time<Base> step;       ///< ProfiledStep::time_ms
  engine::Time<Base> attention;  ///< ProfiledStep::attention_ms
};

template <engine::TimeBase Base>
StepTimes<Base> step_times(const engine::ProfiledStep& step) {
  return {{step.time_ms}, {step.attention_ms}};
}

/// The step's attention share, of its own time.
template <engine::TimeBase Base>
engine::Share<Base> step_share(const engine::ProfiledStep& step) {
  const StepTimes<Base> times = step_times<Base>(step);
  return engine::share_of(times.attention, times.step);
}

/// What one request sees of the step (engine::request_latency_ms), as time of the step's kind.
template <engine::TimeBase Base>
engine::Time<Base> request_latency(const engine::ProfiledStep& step, engine::StepMeasures latency) {
  return {engine::request_latency_ms(step, latency)};
}

/// Every step is written (workload format 2) with its composition and times; the request is
/// recomputed from them: TTFT is a prefill request's share of its step's tokens, TPOT the
/// decode step. Steps at the same context are merged across files (time-weighted), so contexts
/// are distinct; shares of exactly 0 or 1 are left out (the share table needs them strictly
/// inside (0, 1)). A phase with no step of its own takes its table from the mixed steps.
EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope,
                                      const EmitOptions& options = {});

}  // namespace kspeed::profile
