// vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py, `schedule`): one step carries running
// decodes and prefill chunks together, running requests first in admission order, then waiting
// requests first come first served, unless a running request was preempted in this step.
#include <memory>

#include "kspeed/engine/serving/step_policy.hpp"

namespace kspeed::engine {

namespace {

class VllmV1Policy final : public StepPolicy {
 public:
  void form_step(StepForming& step) const override {
    const bool preempted = step.schedule_running(StepForming::Part::all);
    if (!preempted) step.schedule_waiting();
  }
  bool repeats_decode_steps() const override { return true; }
};

}  // namespace

std::unique_ptr<StepPolicy> make_vllm_v1_policy() {
  return std::make_unique<VllmV1Policy>();
}

}  // namespace kspeed::engine
