#include "kspeed/engine/serving/step_policy.hpp"

#include <map>
#include <stdexcept>
#include <utility>

#include "kspeed/engine/serving/batch_replay.hpp"

namespace kspeed::engine {

namespace {

using Registry = std::map<std::string, std::shared_ptr<const StepPolicy>, std::less<>>;

// The built-in policies, one row each, under the names of SchedulerPolicy's values.
Registry& registry() {
  static Registry policies{
      {std::string(scheduler_policy_name(SchedulerPolicy::mixed)), make_vllm_v1_policy()},
      {std::string(scheduler_policy_name(SchedulerPolicy::prefill_first)),
       make_prefill_first_policy()},
  };
  return policies;
}

}  // namespace

void register_step_policy(std::string name, std::shared_ptr<const StepPolicy> policy) {
  registry()[std::move(name)] = std::move(policy);
}

const StepPolicy* find_step_policy(std::string_view name) {
  const Registry& policies = registry();
  const auto it = policies.find(name);
  return it == policies.end() ? nullptr : it->second.get();
}

const StepPolicy& step_policy_for(const SchedulerOptions& scheduler) {
  const std::string_view name = scheduler.policy_name.empty()
                                    ? scheduler_policy_name(scheduler.policy)
                                    : std::string_view(scheduler.policy_name);
  const StepPolicy* policy = find_step_policy(name);
  // The caller names a registered policy (the built-ins always are): anything else is a bug.
  if (policy == nullptr) throw std::logic_error("unregistered scheduler policy");
  return *policy;
}

}  // namespace kspeed::engine
