#pragma once
// CI gates: "fail the build unless this change is worth at least X end to end".

#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/estimate.hpp"

namespace kspeed::engine {

struct GateThresholds {
  std::optional<double> min_request_speedup;  ///< --min-request-speedup
  std::optional<double> min_prefill_speedup;  ///< --min-prefill-speedup
};

struct GateCheck {
  std::string name;      ///< the flag without dashes, e.g. "min-request-speedup"
  double threshold = 0;  ///< the required speedup
  double actual = 0;     ///< the estimated speedup
  bool passed = false;   ///< actual >= threshold
};

/// One check per threshold that was set, in flag order.
std::vector<GateCheck> check_gates(const EstimateResult& result, const GateThresholds& gates);

/// True when every check passed (also when there are none).
bool all_passed(const std::vector<GateCheck>& checks);

}  // namespace kspeed::engine
