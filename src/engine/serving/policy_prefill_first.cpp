// Prefill first, steps of one kind: whenever a prompt is waiting (or unfinished) and fits, the
// step runs prefills only and the running decodes stall; otherwise a decode-only step. SGLang's
// default (mixed chunks only with --enable-mixed-chunk: python/sglang/srt/managers/scheduler.py,
// get_next_batch_to_run) and vLLM's V0 scheduler without chunked prefill
// (vllm/core/scheduler.py, _schedule_default).
#include <memory>

#include "kspeed/engine/serving/step_policy.hpp"

namespace kspeed::engine {

namespace {

class PrefillFirstPolicy final : public StepPolicy {
 public:
  void form_step(StepForming& step) const override {
    // Unfinished prompts, then waiting ones; decodes only when no prefill can run.
    const bool preempted = step.schedule_running(StepForming::Part::prefills);
    if (!preempted) step.schedule_waiting();
    if (step.step_tokens() <= 0) step.schedule_running(StepForming::Part::decodes);
  }
  bool repeats_decode_steps() const override { return true; }
};

}  // namespace

std::unique_ptr<StepPolicy> make_prefill_first_policy() {
  return std::make_unique<PrefillFirstPolicy>();
}

}  // namespace kspeed::engine
