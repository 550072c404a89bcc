// The no-queue baseline in closed form (alone_replay.hpp) against the step-by-step replay it
// replaces: each request's steps summed one at a time, and the whole closed-loop replay of one
// client, on random requests, step models (either side of the max() crossover, sliding windows,
// per-sequence costs), speedups and schedulers. A fixed seed and hand-made uniforms keep the
// draws identical across standard libraries.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kspeed/engine/serving/alone_replay.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"

namespace unit_alone_replay {

using namespace kspeed::engine;

namespace {

constexpr double kRelative = 1e-12;

bool close(double a, double b, double relative = kRelative) {
  return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

class Draws {
 public:
  explicit Draws(std::uint64_t seed) : random_(seed) {}
  double uniform() { return (static_cast<double>(random_() >> 11) + 0.5) / 9007199254740992.0; }
  double between(double low, double high) { return low + (high - low) * uniform(); }
  std::int64_t integer(std::int64_t low, std::int64_t high) {  // [low, high]
    return low + static_cast<std::int64_t>(random_() % static_cast<std::uint64_t>(high - low + 1));
  }
  bool coin() { return (random_() & 1) != 0; }

 private:
  std::mt19937_64 random_;
};

// A step model whose weights floor sits anywhere from below one token's compute to above a
// whole chunk's, so decode and prefill steps fall on either side of the max().
StepModel random_model(Draws& draws, std::int64_t budget) {
  StepModel model;
  model.fixed_ms = draws.between(0, 3);
  model.ms_per_token = draws.between(1e-4, 5e-2);
  const double crossover_tokens =
      std::exp(draws.between(std::log(0.2), std::log(2.0 * static_cast<double>(budget))));
  model.weights_ms = model.ms_per_token * crossover_tokens;
  model.ms_per_prefill_pair = draws.between(0, 2e-6);
  model.ms_per_kv_token = draws.coin() ? draws.between(0, 1e-4) : 0.0;
  if (draws.coin()) {
    model.ms_per_window_prefill_token = draws.between(0, 1e-3);
    model.ms_per_window_decode_sequence = draws.between(0, 0.5);
  }
  if (draws.coin()) model.ms_per_sequence = draws.between(0, 0.3);
  return model;
}

ReplayRequest random_request(Draws& draws) {
  ReplayRequest request;
  request.prompt_tokens = static_cast<std::int32_t>(draws.integer(1, 3000));
  request.response_tokens = static_cast<std::int32_t>(draws.integer(0, 400));
  request.cached_tokens =
      draws.coin() ? static_cast<std::int32_t>(draws.integer(0, request.prompt_tokens - 1)) : 0;
  return request;
}

// The reference: the request's steps one at a time, as the replay forms them.
AloneTimes step_by_step(const ReplayRequest& request, const StepModel& model, std::int64_t budget) {
  AloneTimes out;
  const std::int64_t prompt = std::max(1, request.prompt_tokens);
  const std::int64_t response = std::max(1, request.response_tokens);
  std::int64_t computed = std::clamp<std::int64_t>(request.cached_tokens, 0, prompt - 1);
  while (computed < prompt) {
    const std::int64_t chunk = std::min(prompt - computed, budget);
    BatchComposition batch;
    batch.prefill_tokens = static_cast<double>(chunk);
    batch.prefill_pairs = causal_pairs(static_cast<double>(chunk), static_cast<double>(computed));
    const StepTime step = step_time(model, batch);
    out.ttft_ms += step.total_ms();
    out.attention_ms += step.attention_ms();
    ++out.steps;
    computed += chunk;
  }
  out.e2e_ms = out.ttft_ms;
  for (std::int64_t token = 2; token <= response; ++token, ++computed) {
    BatchComposition batch;
    batch.decode_sequences = 1;
    batch.decode_kv_tokens = static_cast<double>(computed) + 1;
    const StepTime step = step_time(model, batch);
    out.e2e_ms += step.total_ms();
    out.attention_ms += step.attention_ms();
    ++out.steps;
  }
  return out;
}

// Two floats computed from doubles that agree to 1e-12 round to the same float or neighbours.
bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <= 2.5e-7F * std::max(std::abs(a), std::abs(b));
}

}  // namespace

TEST_CASE("alone: a request's closed form equals the sum of its steps one at a time",
          "[alone_replay]") {
  Draws draws(17);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::int64_t budget = draws.integer(1, 4096);
    const StepModel model = random_model(draws, budget);
    const ReplayRequest request = random_request(draws);
    const AloneTimes closed = time_alone(request, model, budget);
    const AloneTimes steps = step_by_step(request, model, budget);
    INFO("trial " << trial);
    CHECK(closed.steps == steps.steps);
    CHECK(close(closed.ttft_ms, steps.ttft_ms));
    CHECK(close(closed.e2e_ms, steps.e2e_ms));
    CHECK(close(closed.attention_ms, steps.attention_ms));
  }
}

TEST_CASE("alone: the closed-form replay matches the step-by-step replay of one client",
          "[alone_replay]") {
  Draws draws(1717);
  for (int trial = 0; trial < 60; ++trial) {
    SchedulerOptions scheduler;
    scheduler.max_batched_tokens = draws.integer(16, 4096);
    scheduler.chunked_prefill = draws.coin();
    if (!scheduler.chunked_prefill) scheduler.max_batched_tokens = 1 << 20;
    scheduler.policy = draws.coin() ? SchedulerPolicy::mixed : SchedulerPolicy::prefill_first;
    scheduler.max_seqs = draws.integer(1, 64);
    if (draws.coin()) scheduler.kv_blocks = (3000 + 400) / scheduler.block_tokens + 1;
    scheduler.request_overhead_ms = draws.coin() ? draws.between(0, 20) : 0.0;
    ArrivalOptions arrivals;
    arrivals.replicas = draws.integer(1, 8);
    arrivals.routing = draws.coin() ? Routing::round_robin : Routing::least_outstanding;
    const StepModel model = random_model(draws, scheduler.max_batched_tokens);
    const AttentionSpeedup speedup{draws.between(0.5, 4), draws.between(0.5, 4)};
    std::vector<ReplayRequest> log(12);
    for (ReplayRequest& request : log) request = random_request(draws);
    INFO("trial " << trial);

    const std::optional<BatchReplay> closed =
        replay_alone_closed_form(log, model, speedup, scheduler, arrivals);
    REQUIRE(closed);
    ArrivalOptions one_client = arrivals;
    one_client.concurrency = 1;
    const BatchReplay steps = replay_batches(log, model, speedup, scheduler, one_client);

    for (std::size_t i = 0; i < log.size(); ++i) {
      const RequestTiming& c = closed->timing[i];
      const RequestTiming& s = steps.timing[i];
      INFO("request " << i);
      CHECK(c.queue_ms == s.queue_ms);
      CHECK(same_float(c.ttft_ms, s.ttft_ms));
      CHECK(same_float(c.e2e_ms, s.e2e_ms));
      CHECK(same_float(c.tpot_ms, s.tpot_ms));
      CHECK(c.preemptions == s.preemptions);
      CHECK(c.replica == s.replica);
    }
    const ReplayTotals& c = closed->totals;
    const ReplayTotals& s = steps.totals;
    CHECK(c.requests == s.requests);
    CHECK(c.steps == s.steps);
    CHECK(c.preemptions == s.preemptions);
    CHECK(c.unschedulable == s.unschedulable);
    CHECK(c.prompt_tokens_computed == s.prompt_tokens_computed);
    CHECK(c.output_tokens == s.output_tokens);
    CHECK(c.max_running == s.max_running);
    CHECK(c.mean_running == s.mean_running);
    CHECK(close(c.busy_ms, s.busy_ms));
    CHECK(close(c.attention_ms, s.attention_ms));
    CHECK(c.first_arrival_s == s.first_arrival_s);
    CHECK(close(c.last_arrival_s, s.last_arrival_s));
    CHECK(close(c.last_completion_s, s.last_completion_s));
    CHECK(c.itl.total == s.itl.total);
    CHECK(close(c.itl.sum_ms, s.itl.sum_ms));
    CHECK(c.itl.counts == s.itl.counts);
  }
}

TEST_CASE("alone: what the closed form does not model falls back to the step-by-step replay",
          "[alone_replay]") {
  const StepModel model{.fixed_ms = 1,
                        .weights_ms = 2,
                        .experts = {},
                        .ms_per_token = 0.01,
                        .ms_per_prefill_pair = 1e-6,
                        .ms_per_kv_token = 1e-5};
  const std::vector<ReplayRequest> log{{0, 100, 5, 0}, {0, 600, 3, 0}, {0, 50, 4, 0}};
  SchedulerOptions scheduler;
  ArrivalOptions arrivals;
  SECTION("a prompt over the budget without chunked prefill is dropped") {
    scheduler.chunked_prefill = false;
    scheduler.max_batched_tokens = 512;
  }
  SECTION("a request over the KV capacity") {
    scheduler.kv_blocks = 20;  // 320 tokens: the second request needs 602
  }
  CHECK_FALSE(replay_alone_closed_form(log, model, {}, scheduler, arrivals));
  const BatchReplay alone = replay_alone(log, model, {}, scheduler, arrivals);
  arrivals.concurrency = 1;
  const BatchReplay steps = replay_batches(log, model, {}, scheduler, arrivals);
  REQUIRE(alone.timing.size() == steps.timing.size());
  CHECK(std::isnan(alone.timing[1].e2e_ms) == std::isnan(steps.timing[1].e2e_ms));
  CHECK(alone.timing[2].e2e_ms == steps.timing[2].e2e_ms);
  CHECK(alone.totals.steps == steps.totals.steps);
  CHECK(alone.totals.busy_ms == steps.totals.busy_ms);
}

}  // namespace unit_alone_replay
