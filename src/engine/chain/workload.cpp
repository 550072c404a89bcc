#include "kspeed/engine/chain/workload.hpp"

#include <algorithm>

namespace kspeed::engine {

std::vector<std::string> missing_conditions(const Workload& workload) {
  std::vector<std::string> missing;
  for (const char* key : kConditionKeys) {
    const bool stated = std::any_of(workload.conditions.begin(), workload.conditions.end(),
                                    [key](const auto& entry) { return entry.first == key; });
    if (!stated) {
      missing.emplace_back(key);
    }
  }
  return missing;
}

double request_latency_ms(const ProfiledStep& step, StepMeasures latency) {
  if (latency != StepMeasures::ttft) return step.time_ms;
  if (step.prefill_requests <= 0 || step.prefill_tokens <= 0) return step.time_ms;
  const double per_request =
      static_cast<double>(step.prefill_tokens) / static_cast<double>(step.prefill_requests);
  const double step_tokens =
      static_cast<double>(step.prefill_tokens) + static_cast<double>(step.decode_requests);
  return step.time_ms * per_request / step_tokens;
}

Workload request_lengths_only(const Workload& workload) {
  Workload lengths;
  lengths.name = workload.name;
  lengths.description = workload.description;
  lengths.source = workload.source;
  lengths.request.prompt_tokens = workload.request.prompt_tokens;
  lengths.request.response_tokens = workload.request.response_tokens;
  lengths.request.illustrative = true;
  return lengths;
}

}  // namespace kspeed::engine
