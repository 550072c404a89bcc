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

/// Steps at the same context are merged across files (time-weighted), so contexts are distinct;
/// shares of exactly 0 or 1 are left out (the share table needs them strictly inside (0, 1)).
EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope);

}  // namespace kspeed::profile
