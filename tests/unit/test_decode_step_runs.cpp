// Runs of decode-only steps advanced together (batch_replay.cpp, advance_decode_steps): the
// replay must be bit-identical to forming every step. A wrapper of each built-in policy that
// forms the same steps but says its decode steps do not repeat makes the simulator form every
// step, the reference; every per-request value, total and ITL bin is compared for equality
// (not within a tolerance) over open and closed loops, replicas, finite KV with preemptions,
// both policies, a kernel speedup and a replay that stops early.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/step_policy.hpp"

namespace unit_decode_step_runs {

using namespace kspeed::engine;

namespace {

// Forms each step as `inner` does; `repeats` chooses whether the simulator may advance runs of
// decode steps without it. Counts the steps it formed.
class CountingPolicy final : public StepPolicy {
 public:
  CountingPolicy(const StepPolicy& inner, bool repeats) : inner_(inner), repeats_(repeats) {}
  void form_step(StepForming& step) const override {
    ++formed;
    inner_.form_step(step);
  }
  bool repeats_decode_steps() const override { return repeats_; }
  mutable std::int64_t formed = 0;

 private:
  const StepPolicy& inner_;
  bool repeats_;
};

struct PolicyPair {
  std::shared_ptr<CountingPolicy> runs;          // may advance decode runs
  std::shared_ptr<CountingPolicy> step_by_step;  // forms every step
};

// Registers both wrappers of the built-in `base` ("mixed" or "prefill_first").
PolicyPair register_wrappers(const std::string& base) {
  const StepPolicy* inner = find_step_policy(base);
  REQUIRE(inner != nullptr);
  PolicyPair pair{std::make_shared<CountingPolicy>(*inner, true),
                  std::make_shared<CountingPolicy>(*inner, false)};
  register_step_policy(base + "_decode_runs_test", pair.runs);
  register_step_policy(base + "_step_by_step_test", pair.step_by_step);
  return pair;
}

// Poisson arrivals at `rate`, prompts exponential (mean 600, capped), outputs exponential (mean
// 120): long decodes between events, the case the runs are for.
std::vector<ReplayRequest> decode_heavy_log(std::size_t n, double rate, unsigned seed) {
  std::mt19937_64 random(seed);
  std::exponential_distribution<double> gap(rate);
  std::exponential_distribution<double> prompt(1.0 / 600);
  std::exponential_distribution<double> output(1.0 / 120);
  std::vector<ReplayRequest> log;
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += gap(random);
    ReplayRequest request;
    request.arrival_s = t;
    request.prompt_tokens = static_cast<std::int32_t>(std::min(6000.0, 1 + prompt(random)));
    request.response_tokens = static_cast<std::int32_t>(1 + output(random));
    request.cached_tokens = (i % 3 == 0) ? request.prompt_tokens / 2 : 0;
    log.push_back(request);
  }
  return log;
}

StepModel eight_b_model() {
  StepModel step;
  step.fixed_ms = 2;
  step.weights_ms = 4.8;
  step.ms_per_token = 0.023;
  step.ms_per_prefill_pair = 7.5e-7;
  step.ms_per_kv_token = 3.9e-5;
  step.ms_per_sequence = 0.01;
  return step;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void require_identical_totals(const ReplayTotals& a, const ReplayTotals& b) {
  CHECK(a.requests == b.requests);
  CHECK(a.steps == b.steps);
  CHECK(a.preemptions == b.preemptions);
  CHECK(a.unschedulable == b.unschedulable);
  CHECK(a.prompt_tokens_computed == b.prompt_tokens_computed);
  CHECK(a.output_tokens == b.output_tokens);
  CHECK(a.max_running == b.max_running);
  CHECK(same_bits(a.mean_running, b.mean_running));
  CHECK(same_bits(a.busy_ms, b.busy_ms));
  CHECK(same_bits(a.attention_ms, b.attention_ms));
  CHECK(same_bits(a.first_arrival_s, b.first_arrival_s));
  CHECK(same_bits(a.last_arrival_s, b.last_arrival_s));
  CHECK(same_bits(a.last_completion_s, b.last_completion_s));
  CHECK(a.itl.counts == b.itl.counts);
  CHECK(a.itl.total == b.itl.total);
  CHECK(same_bits(a.itl.sum_ms, b.itl.sum_ms));
}

void require_identical(const BatchReplay& a, const BatchReplay& b) {
  require_identical_totals(a.totals, b.totals);
  REQUIRE(a.timing.size() == b.timing.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.timing.size(); ++i) {
    const RequestTiming& x = a.timing[i];
    const RequestTiming& y = b.timing[i];
    const bool same = same_bits(x.queue_ms, y.queue_ms) && same_bits(x.ttft_ms, y.ttft_ms) &&
                      same_bits(x.tpot_ms, y.tpot_ms) && same_bits(x.e2e_ms, y.e2e_ms) &&
                      x.preemptions == y.preemptions && x.replica == y.replica;
    differing += same ? 0 : 1;
  }
  CHECK(differing == 0);
  REQUIRE(a.sent_s.size() == b.sent_s.size());
  for (std::size_t i = 0; i < a.sent_s.size(); ++i) {
    // NaN for a request never sent: compare bits.
    if (!same_bits(a.sent_s[i], b.sent_s[i])) FAIL("send time " << i << " differs");
  }
}

struct Case {
  std::string name;
  std::string policy = "mixed";
  SchedulerOptions scheduler;
  ArrivalOptions arrivals;
  AttentionSpeedup speedup;
  double rate = 2.0;
  bool preempts = false;  // the case must preempt (KV tight enough): checked
};

Case named(std::string name) {
  Case out;
  out.name = std::move(name);
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back(named("open loop, defaults"));
  Case faster = named("open loop, a kernel 2x faster");
  faster.speedup = {2, 2};
  out.push_back(faster);
  Case loaded = named("open loop near saturation, max_seqs 48");
  loaded.scheduler.max_seqs = 48;
  loaded.rate = 9;
  out.push_back(loaded);
  Case tight = named("finite KV: preemptions");
  tight.scheduler.kv_blocks = 600;
  tight.rate = 9;
  tight.preempts = true;
  out.push_back(tight);
  Case replicas = named("3 replicas, least outstanding");
  replicas.arrivals.replicas = 3;
  replicas.arrivals.routing = Routing::least_outstanding;
  replicas.rate = 12;
  out.push_back(replicas);
  Case shared = named("2 replicas, shared queue, max_seqs 8");
  shared.arrivals.replicas = 2;
  shared.arrivals.routing = Routing::shared_queue;
  shared.scheduler.max_seqs = 8;
  shared.rate = 6;
  out.push_back(shared);
  Case closed = named("closed loop of 24 clients with think time");
  closed.arrivals.concurrency = 24;
  closed.arrivals.think_time_s = 0.5;
  out.push_back(closed);
  Case capped = named("open loop, at most 10 in flight");
  capped.arrivals.max_inflight = 10;
  capped.rate = 8;
  out.push_back(capped);
  Case prefill_first = named("prefill first, finite KV");
  prefill_first.policy = "prefill_first";
  prefill_first.scheduler.kv_blocks = 1500;
  prefill_first.rate = 5;
  out.push_back(prefill_first);
  Case no_chunks = named("no chunked prefill, small budget");
  no_chunks.scheduler.chunked_prefill = false;
  no_chunks.scheduler.max_batched_tokens = 7000;
  no_chunks.scheduler.request_overhead_ms = 3;
  out.push_back(no_chunks);
  // The decoding pool's fallback (batch_replay.cpp, DecodingPool): a round that needs more KV
  // blocks than are free is formed request by request (it preempts), with KV blocks of one token
  // (a new block every step for every sequence) and of 5 tokens under prefill-first.
  Case one_token_blocks = named("finite KV in blocks of one token: preemptions");
  one_token_blocks.scheduler.block_tokens = 1;
  one_token_blocks.scheduler.kv_blocks = 8000;
  one_token_blocks.rate = 8;
  one_token_blocks.preempts = true;
  out.push_back(one_token_blocks);
  Case odd_blocks =
      named("prefill first, KV in blocks of 5 tokens: preemptions, a kernel 2x faster");
  odd_blocks.policy = "prefill_first";
  odd_blocks.scheduler.block_tokens = 5;
  odd_blocks.scheduler.kv_blocks = 1400;
  odd_blocks.speedup = {2, 2};
  odd_blocks.rate = 7;
  odd_blocks.preempts = true;
  out.push_back(odd_blocks);
  return out;
}

}  // namespace

TEST_CASE("decode steps advanced in runs replay bit-identically to forming every step",
          "[batch_replay][decode_runs]") {
  const PolicyPair mixed = register_wrappers("mixed");
  const PolicyPair prefill_first = register_wrappers("prefill_first");
  const StepModel step = eight_b_model();
  for (const Case& c : cases()) {
    INFO(c.name);
    const std::vector<ReplayRequest> log = decode_heavy_log(1500, c.rate, 11);
    const PolicyPair& pair = c.policy == "mixed" ? mixed : prefill_first;
    SchedulerOptions runs = c.scheduler;
    runs.policy_name = c.policy + "_decode_runs_test";
    SchedulerOptions step_by_step = c.scheduler;
    step_by_step.policy_name = c.policy + "_step_by_step_test";
    pair.runs->formed = 0;
    pair.step_by_step->formed = 0;
    // The order requests complete in (what a streaming caller sees) is compared too.
    std::vector<std::size_t> fast_order;
    std::vector<std::size_t> reference_order;
    const CompletionCallback fast_seen = [&](std::size_t i, const RequestTiming&) {
      fast_order.push_back(i);
    };
    const CompletionCallback reference_seen = [&](std::size_t i, const RequestTiming&) {
      reference_order.push_back(i);
    };
    const BatchReplay fast =
        replay_batches(log, step, c.speedup, runs, c.arrivals, fast_seen, true, true);
    const BatchReplay reference =
        replay_batches(log, step, c.speedup, step_by_step, c.arrivals, reference_seen, true, true);
    require_identical(fast, reference);
    CHECK(fast_order == reference_order);
    CHECK(fast_order.size() == log.size() - static_cast<std::size_t>(fast.totals.unschedulable));
    // The reference formed every step it ran; the runs formed fewer (the path under test ran):
    // far fewer on one replica, while with several each replica's steps interleave with the
    // others' events and a run stops at the first of them.
    CHECK(pair.step_by_step->formed == reference.totals.steps);
    if (c.arrivals.replicas == 1) {
      CHECK(pair.runs->formed < reference.totals.steps / 2);
    } else {
      CHECK(pair.runs->formed < reference.totals.steps);
    }
    CHECK(reference.totals.output_tokens > 100000);
    if (c.preempts) CHECK(reference.totals.preemptions > 0);
  }
}

TEST_CASE("a replay stopped early advances decode runs to the same stop",
          "[batch_replay][decode_runs]") {
  const PolicyPair mixed = register_wrappers("mixed");
  const std::vector<ReplayRequest> log = decode_heavy_log(2000, 3.0, 5);
  SchedulerOptions runs;
  runs.policy_name = "mixed_decode_runs_test";
  SchedulerOptions step_by_step;
  step_by_step.policy_name = "mixed_step_by_step_test";
  // Stops at the 700th completion: the totals cover only what ran, the same in both.
  for (const int stop_after : {1, 700, 5000}) {
    INFO("stop after " << stop_after);
    const auto verdict = [stop_after](int& seen) {
      return [&seen, stop_after](std::size_t, const RequestTiming&) { return ++seen < stop_after; };
    };
    int seen_fast = 0;
    int seen_reference = 0;
    const ReplayTotals fast = replay_until(log, eight_b_model(), {}, runs, {}, verdict(seen_fast));
    const ReplayTotals reference =
        replay_until(log, eight_b_model(), {}, step_by_step, {}, verdict(seen_reference));
    CHECK(seen_fast == seen_reference);
    require_identical_totals(fast, reference);
    CHECK(fast.itl.total == 0);  // replay_until keeps no ITLs
  }
}

}  // namespace unit_decode_step_runs
