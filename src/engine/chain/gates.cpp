#include "kspeed/engine/chain/gates.hpp"

#include <algorithm>

namespace kspeed::engine {

std::vector<GateCheck> check_gates(const EstimateResult& result, const GateThresholds& gates) {
  std::vector<GateCheck> checks;
  auto add = [&checks](const char* name, const std::optional<double>& threshold, double actual) {
    if (threshold) {
      checks.push_back({name, *threshold, actual, actual >= *threshold});
    }
  };
  add("min-request-speedup", gates.min_request_speedup, result.request.speedup);
  add("min-prefill-speedup", gates.min_prefill_speedup, result.prefill.phase.speedup);
  return checks;
}

bool all_passed(const std::vector<GateCheck>& checks) {
  return std::all_of(checks.begin(), checks.end(), [](const GateCheck& c) { return c.passed; });
}

}  // namespace kspeed::engine
