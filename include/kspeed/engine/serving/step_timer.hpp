#pragma once
// The step-time model the replay is given (Vidur's execution_time_predictor/): the scheduler
// forms a step and asks how long it takes; it never knows where the numbers come from. The
// deployment's StepModel with the kernel change folded in is the one kspeed uses
// (ModelStepTimer); a test or another cost model may inject its own.

#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"

namespace kspeed::engine {

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  /// A step is being formed: forget the previous one's per-request parts.
  virtual void begin_step() = 0;
  /// Whether add_request needs each request's own part (asked once, before the replay).
  virtual bool wants_requests() const = 0;
  /// One request's part of the forming step (`own`: that request's chunk or decode alone) and
  /// its own kernel speedup; called only when wants_requests().
  virtual void add_request(const BatchComposition& own, float kernel_speedup) = 0;
  /// The formed step's time (`batch`: every request's part summed).
  virtual StepTime time(const BatchComposition& batch) = 0;
  /// C of the model's chunked local attention layers (0: none): the replay then sums each
  /// step's pairs and keys within the chunks (BatchComposition's chunked_* fields).
  virtual std::int64_t attention_chunk_tokens() const { return 0; }
};

/// step_time() of the deployment's model with the side's attention speedup: scalar speedups
/// folded into the coefficients; with a per-request side, the step's attention parts are the
/// sum of each request's own attention over its own speedup (AttentionSpeedup).
class ModelStepTimer final : public StepTimer {
 public:
  ModelStepTimer(const StepModel& model, const AttentionSpeedup& speedup)
      : model_(with_attention_speedup(model, speedup)), unscaled_(model), speedup_(speedup) {}

  void begin_step() override { attention_ = {}; }
  void add_request(const BatchComposition& own, float kernel_speedup) override {
    ReplayRequest request;
    request.kernel_speedup = kernel_speedup;
    const StepTime time =
        step_time(with_attention_speedup(unscaled_, speedup_for(speedup_, request)), own);
    attention_.prefill_attention_ms += time.prefill_attention_ms;
    attention_.decode_attention_ms += time.decode_attention_ms;
  }
  StepTime time(const BatchComposition& batch) override {
    StepTime time = step_time(model_, batch);
    if (speedup_.per_request()) {
      time.prefill_attention_ms = attention_.prefill_attention_ms;
      time.decode_attention_ms = attention_.decode_attention_ms;
    }
    return time;
  }
  bool wants_requests() const override { return speedup_.per_request(); }
  std::int64_t attention_chunk_tokens() const override { return model_.attention_chunk_tokens; }

 private:
  StepModel model_;     // the side's scalar speedups folded in
  StepModel unscaled_;  // before any speedup: per-request speedups scale its attention
  AttentionSpeedup speedup_;
  StepTime attention_;  // per-request speedups: the forming step's attention parts
};

}  // namespace kspeed::engine
