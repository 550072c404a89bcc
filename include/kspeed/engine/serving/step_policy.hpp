#pragma once
// Scheduler policies of the serving replay: which requests share a replica's next step (Vidur's
// scheduler/, apart from its execution_time_predictor/). A policy forms the step from the
// replica's primitives (StepForming) and never times it: the step model does (step_timer.hpp).
//
// A new policy is one file with a StepPolicy subclass and one registration: a row in the
// built-in table of step_policy.cpp, or register_step_policy(name, policy) at run time (the
// toy policy of tests/unit/test_step_policy.cpp does that); SchedulerOptions::policy_name then
// chooses it.

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace kspeed::engine {

struct SchedulerOptions;

/// What a policy may do to form one step of one replica. Every primitive respects the step's
/// token budget, max_seqs and the KV blocks; the simulator implements it.
class StepForming {
 public:
  /// Which running requests a call schedules.
  enum class Part : std::uint8_t { all, prefills, decodes };

  /// Running requests (only `part` of them) in admission order, each its next prefill chunk or
  /// one decode token; when blocks run out the most recently admitted running request is
  /// preempted (recompute). Returns whether any request was preempted.
  virtual bool schedule_running(Part part) = 0;
  /// Waiting requests, preempted ones first then in arrival order, each its first chunk (or its
  /// whole prompt without chunked prefill), while budget, max_seqs and blocks allow and at most
  /// `admit_at_most` of them. Stops at the first that does not fit (first come, first served).
  virtual void schedule_waiting(
      std::int64_t admit_at_most = std::numeric_limits<std::int64_t>::max()) = 0;
  /// Tokens in the step so far.
  virtual double step_tokens() const = 0;
  /// Requests running on the replica (admitted, not finished, not preempted).
  virtual std::size_t running_requests() const = 0;

 protected:
  ~StepForming() = default;
};

/// One scheduling policy: forms each step of a replica. Stateless: the replica's state is the
/// StepForming's.
class StepPolicy {
 public:
  virtual ~StepPolicy() = default;
  virtual void form_step(StepForming& step) const = 0;
  /// Whether a step of decodes only (every running request one token, nothing admitted, nothing
  /// preempted) is formed again the same way while the only change is those decodes' tokens and
  /// the blocks they take: true lets the simulator advance such steps without forming each one
  /// (the built-in policies, whose choices depend only on the budget, max_seqs, the free blocks
  /// and which requests are decoding). False, the safe default, forms every step.
  virtual bool repeats_decode_steps() const { return false; }
};

/// vLLM V1: running requests first (decodes and unfinished prompts together, in admission
/// order), then waiting ones when none was preempted (vllm/v1/core/sched/scheduler.py).
std::unique_ptr<StepPolicy> make_vllm_v1_policy();
/// Prefill first, steps of one kind (SGLang's default; vLLM V0 without chunked prefill).
std::unique_ptr<StepPolicy> make_prefill_first_policy();

/// Registers `policy` under `name` (replacing one of that name). Not thread-safe: register
/// before replaying.
void register_step_policy(std::string name, std::shared_ptr<const StepPolicy> policy);
/// The policy registered as `name`; nullptr when none is.
const StepPolicy* find_step_policy(std::string_view name);
/// The policy `scheduler` asks for: its policy_name when set (it must be registered), else its
/// SchedulerPolicy.
const StepPolicy& step_policy_for(const SchedulerOptions& scheduler);

}  // namespace kspeed::engine
