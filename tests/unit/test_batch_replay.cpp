// The continuous-batching replay: the queueing limits against their closed forms (M/D/1 by
// Pollaczek-Khinchine, M/M/1, M/M/c by Erlang C), then the scheduler's rules one at a time on
// logs small enough to work out by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/serving/alone_replay.hpp"
#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/capacity_search.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"

namespace unit_batch_replay {

using namespace kspeed::engine;

namespace {

// Poisson arrivals at `rate_per_s`; each request's prompt from `prompt_of` (one step each when
// the scheduler runs one request at a time without chunking). A fixed seed and hand-made
// exponentials keep the test identical across standard libraries.
template <class Prompt>
std::vector<ReplayRequest> poisson_log(std::size_t n, double rate_per_s, Prompt prompt_of,
                                       std::uint64_t seed) {
  std::mt19937_64 random(seed);
  auto uniform = [&random] {
    return (static_cast<double>(random() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  };
  std::vector<ReplayRequest> log;
  log.reserve(n);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += -std::log(uniform()) / rate_per_s;  // exponential inter-arrival time
    log.push_back({t, prompt_of(uniform), 1, 0});
  }
  return log;
}

// One request at a time per replica, whole prompts: each request is one step of service.
SchedulerOptions one_at_a_time() {
  SchedulerOptions scheduler;
  scheduler.max_seqs = 1;
  scheduler.max_batched_tokens = 1 << 30;
  scheduler.chunked_prefill = false;
  return scheduler;
}

double mean_queue_ms(const BatchReplay& replay) {
  double sum = 0;
  for (const RequestTiming& t : replay.timing) sum += static_cast<double>(t.queue_ms);
  return sum / static_cast<double>(replay.timing.size());
}

// Erlang C: the probability that an arrival waits in M/M/c with offered load a = lambda/mu.
double erlang_c(int servers, double offered) {
  double term = 1;  // a^k / k!
  double sum = 0;
  for (int k = 0; k < servers; ++k) {
    sum += term;
    term *= offered / (k + 1);
  }
  const double rho = offered / servers;
  const double top = term / (1 - rho);
  return top / (sum + top);
}

}  // namespace

TEST_CASE("batch size 1 with deterministic service is M/D/1 (Pollaczek-Khinchine)",
          "[batch_replay][queueing]") {
  // Service S = 10 ms (the fixed term alone), rho = 0.7: Wq = rho S / (2 (1 - rho)) = 11.667 ms.
  const StepModel step{.fixed_ms = 10,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const double rate = 70;  // per second
  const auto log = poisson_log(
      200000, rate, [](auto&) { return 100; }, 17);
  const BatchReplay replay = replay_batches(log, step, {}, one_at_a_time(), {});
  const double rho = rate * 0.010;
  CHECK(mean_queue_ms(replay) == Approx(rho * 10 / (2 * (1 - rho))).epsilon(0.01));  // 11.662
  CHECK(replay.timing[0].ttft_ms == Approx(10.0));  // the first arrival finds the server idle
}

TEST_CASE("batch size 1 with exponential service is M/M/1", "[batch_replay][queueing]") {
  // Service = 0.01 ms per prompt token, prompts geometric with mean 1000: exponential with mean
  // S = 10 ms to within the 0.05% of rounding to whole tokens. Wq = rho S / (1 - rho).
  const StepModel step{.fixed_ms = 0,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0.01,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const double rate = 60;
  const auto prompt = [](auto& uniform) {
    return static_cast<std::int32_t>(std::ceil(-1000.0 * std::log(uniform())));
  };
  const auto log = poisson_log(300000, rate, prompt, 23);
  const BatchReplay replay = replay_batches(log, step, {}, one_at_a_time(), {});
  double service = 0;
  for (const ReplayRequest& r : log) service += r.prompt_tokens * 0.01;
  service /= static_cast<double>(log.size());
  const double rho = rate * service / 1000;
  CHECK(mean_queue_ms(replay) == Approx(rho * service / (1 - rho)).epsilon(0.02));  // 14.839
}

TEST_CASE("c replicas behind one queue, batch size 1, exponential service is M/M/c (Erlang C)",
          "[batch_replay][queueing]") {
  // c = 4, S = 10 ms, lambda = 320/s: a = 3.2, rho = 0.8; Wq = C(c, a) / (c mu - lambda).
  const StepModel step{.fixed_ms = 0,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0.01,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const double rate = 320;
  const auto prompt = [](auto& uniform) {
    return static_cast<std::int32_t>(std::ceil(-1000.0 * std::log(uniform())));
  };
  const auto log = poisson_log(400000, rate, prompt, 29);
  ArrivalOptions arrivals;
  arrivals.replicas = 4;
  arrivals.routing = Routing::shared_queue;
  const BatchReplay replay = replay_batches(log, step, {}, one_at_a_time(), arrivals);
  const double mu = 1000.0 / 10.005;  // mean of ceil(exponential(1000)) ≈ 1000.5 tokens
  const double wait_s = erlang_c(4, rate / mu) / (4 * mu - rate);
  CHECK(mean_queue_ms(replay) == Approx(wait_s * 1000).epsilon(0.02));  // 7.437
  // Routing at arrival instead (each replica its own queue) waits longer than one shared queue.
  arrivals.routing = Routing::round_robin;
  const BatchReplay split = replay_batches(log, step, {}, one_at_a_time(), arrivals);
  CHECK(mean_queue_ms(split) > 1.5 * mean_queue_ms(replay));
}

TEST_CASE("decodes share steps: two requests arriving together batch", "[batch_replay]") {
  // Each step costs 1 ms + 0.1 ms per sequence decoding (weights floor 0, per token 0.1 ms).
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0.1,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const std::vector<ReplayRequest> log{{0, 10, 5, 0}, {0, 10, 5, 0}};
  const BatchReplay replay = replay_batches(log, step, {}, SchedulerOptions{}, {});
  // Step 1: both prompts, 20 tokens: 3 ms, first tokens out. Steps 2-5: 2 decodes: 1.2 ms each.
  for (const RequestTiming& t : replay.timing) {
    CHECK(t.ttft_ms == Approx(3.0));
    CHECK(t.e2e_ms == Approx(3.0 + 4 * 1.2));
    CHECK(t.tpot_ms == Approx(1.2));
    CHECK(t.queue_ms == Approx(0.0));
  }
  CHECK(replay.totals.steps == 5);
  CHECK(replay.totals.output_tokens == 10);
  CHECK(replay.totals.max_running == 2);
  CHECK(replay.totals.itl.total == 8);
  CHECK(replay.totals.itl.percentile(50) == Approx(1.2).epsilon(0.003));
}

TEST_CASE("decode attention reads the growing context; prefill attention counts causal pairs",
          "[batch_replay]") {
  // One request, prompt 4, 3 tokens: prefill pairs 4·5/2 = 10; decodes read 5 then 6 tokens.
  const StepModel step{.fixed_ms = 0,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 1,
                       .ms_per_kv_token = 0.5};
  const BatchReplay replay = replay_batches({{0, 4, 3, 0}}, step, {}, SchedulerOptions{}, {});
  CHECK(replay.timing[0].ttft_ms == Approx(10.0));
  CHECK(replay.timing[0].e2e_ms == Approx(10.0 + 2.5 + 3.0));
  // A 2× kernel on both parts halves all of it; on prefill only, the decode part stays.
  const BatchReplay both = replay_batches({{0, 4, 3, 0}}, step, {2, 2}, SchedulerOptions{}, {});
  CHECK(both.timing[0].e2e_ms == Approx(15.5 / 2));
  const BatchReplay prefill = replay_batches({{0, 4, 3, 0}}, step, {2, 1}, SchedulerOptions{}, {});
  CHECK(prefill.timing[0].e2e_ms == Approx(5.0 + 5.5));
  // A cached prefix of 2: the prefill computes 2 tokens after 2 cached: 2·2 + 2·3/2 = 7 pairs.
  const BatchReplay cached = replay_batches({{0, 4, 3, 2}}, step, {}, SchedulerOptions{}, {});
  CHECK(cached.timing[0].ttft_ms == Approx(7.0));
}

TEST_CASE("per-request speedups: each request's attention work in a shared step over its own",
          "[batch_replay][alone]") {
  // 1 ms fixed + 2 ms weights, 0.001 ms a prefill pair, 0.01 ms a KV token read. A (100 tokens,
  // speedup 2) and B (200 tokens, speedup 4) arrive together and share every step.
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 2,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 1e-3,
                       .ms_per_kv_token = 1e-2};
  ReplayRequest a{0, 100, 2, 0};
  a.kernel_speedup = 2;
  ReplayRequest b{0, 200, 2, 0};
  b.kernel_speedup = 4;
  const std::vector<ReplayRequest> log{a, b};
  AttentionSpeedup own;
  own.prefill_per_request = true;
  own.decode_per_request = true;
  // By hand: prefill step 3 + 5,050 pairs · 0.001 / 2 + 20,100 · 0.001 / 4 = 3 + 2.525 + 5.025 =
  // 10.55 ms (before 3 + 25.15 = 28.15; the step's speedup 25.15 / 7.55 = 3.331, between 2 and
  // 4, weighted by attention time); decode step reads 101 and 201 tokens: 3 + 1.01 / 2 + 2.01 /
  // 4 = 4.0075 ms.
  const BatchReplay after = replay_batches(log, step, own, SchedulerOptions{}, {});
  for (const RequestTiming& t : after.timing) {
    CHECK(t.ttft_ms == Approx(10.55));
    CHECK(t.tpot_ms == Approx(4.0075));
    CHECK(t.e2e_ms == Approx(14.5575));
  }
  CHECK(after.totals.attention_ms == Approx(7.55 + 1.0075));
  CHECK(replay_batches(log, step, {}, SchedulerOptions{}, {}).timing[0].ttft_ms == Approx(28.15));
  // On prefill only: the decode step stays 3 + 3.02 ms.
  AttentionSpeedup prefill_only;
  prefill_only.prefill_per_request = true;
  const BatchReplay prefill = replay_batches(log, step, prefill_only, SchedulerOptions{}, {});
  CHECK(prefill.timing[1].ttft_ms == Approx(10.55));
  CHECK(prefill.timing[1].tpot_ms == Approx(6.02));
  // Every request at the same speedup is that one scalar speedup.
  std::vector<ReplayRequest> same = log;
  same[0].kernel_speedup = same[1].kernel_speedup = 2;
  const BatchReplay scalar = replay_batches(log, step, {2, 2}, SchedulerOptions{}, {});
  const BatchReplay per_request = replay_batches(same, step, own, SchedulerOptions{}, {});
  CHECK(per_request.timing[1].e2e_ms == Approx(scalar.timing[1].e2e_ms));
  // Alone (closed form): A takes 3 + 2.525 then 3 + 0.505 ms; B after it 3 + 5.025 then 3 +
  // 0.5025 ms; the step-by-step replay of one client agrees.
  const BatchReplay alone = replay_alone(log, step, own, SchedulerOptions{}, {});
  CHECK(alone.timing[0].e2e_ms == Approx(5.525 + 3.505));
  CHECK(alone.timing[1].ttft_ms == Approx(8.025));
  CHECK(alone.timing[1].e2e_ms == Approx(8.025 + 3.5025));
  ArrivalOptions one_client;
  one_client.concurrency = 1;
  const BatchReplay stepwise = replay_batches(log, step, own, SchedulerOptions{}, one_client);
  CHECK(stepwise.timing[1].e2e_ms == Approx(alone.timing[1].e2e_ms));
}

TEST_CASE("chunked prefill splits a long prompt over steps; without it the prompt waits whole",
          "[batch_replay]") {
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0.01,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  SchedulerOptions scheduler;
  scheduler.max_batched_tokens = 40;
  // 100 tokens in chunks of 40, 40, 20: three steps of 1.4, 1.4, 1.2 ms.
  const BatchReplay chunked = replay_batches({{0, 100, 1, 0}}, step, {}, scheduler, {});
  CHECK(chunked.timing[0].ttft_ms == Approx(4.0));
  CHECK(chunked.totals.steps == 3);
  // A running decode takes its token first: the prompt arriving beside it gets 39 per step.
  const BatchReplay beside =
      replay_batches({{0, 10, 10, 0}, {0.0001, 100, 1, 0}}, step, {}, scheduler, {});
  // Step 1 (0-1.1 ms) runs the first prompt; the second (arrived at 0.1 ms) gets 39 + 39 + 22
  // tokens beside one decode in steps of 1.4, 1.4 and 1.23 ms.
  CHECK(beside.timing[1].ttft_ms == Approx(1.1 + 1.4 + 1.4 + 1.23 - 0.1));
  // Without chunking a prompt over the budget can never run: dropped and counted, not a hang.
  scheduler.chunked_prefill = false;
  const BatchReplay whole =
      replay_batches({{0, 100, 1, 0}, {0, 10, 2, 0}}, step, {}, scheduler, {});
  CHECK(whole.totals.unschedulable == 1);
  CHECK(std::isnan(whole.timing[0].ttft_ms));
  CHECK(whole.timing[1].e2e_ms > 0);
}

TEST_CASE("prefill first: a new prompt stalls the running decodes for a step", "[batch_replay]") {
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0.01,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const std::vector<ReplayRequest> log{{0, 10, 4, 0}, {0.0015, 100, 2, 0}};
  SchedulerOptions scheduler;
  const BatchReplay mixed = replay_batches(log, step, {}, scheduler, {});
  scheduler.policy = SchedulerPolicy::prefill_first;
  const BatchReplay first = replay_batches(log, step, {}, scheduler, {});
  // Mixed: step 1 (1.1 ms), step 2 decode (1.01), step 3 decode + 100-token prompt (2.01): the
  // second prompt's first token at 4.12 ms. Prefill first: step 3 is the prompt alone (2.0 ms)
  // and the first request's decodes wait for it.
  CHECK(mixed.timing[1].ttft_ms == Approx(4.12 - 1.5));
  CHECK(first.timing[1].ttft_ms == Approx(4.11 - 1.5));
  CHECK(first.timing[0].e2e_ms > mixed.timing[0].e2e_ms);
  CHECK(first.totals.steps > mixed.totals.steps);
}

TEST_CASE("max_seqs caps the batch; later requests queue", "[batch_replay]") {
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  SchedulerOptions scheduler;
  scheduler.max_seqs = 2;
  const std::vector<ReplayRequest> log(3, ReplayRequest{0, 8, 4, 0});
  const BatchReplay replay = replay_batches(log, step, {}, scheduler, {});
  CHECK(replay.timing[0].e2e_ms == Approx(4.0));
  CHECK(replay.timing[1].e2e_ms == Approx(4.0));
  CHECK(replay.timing[2].queue_ms == Approx(4.0));
  CHECK(replay.timing[2].e2e_ms == Approx(8.0));
  CHECK(replay.totals.max_running == 2);
}

TEST_CASE("a full KV cache preempts the latest request, which recomputes", "[batch_replay]") {
  // Blocks of 16, 6 blocks: two requests of 16 prompt + 40 tokens each need 4 blocks at the end.
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  SchedulerOptions scheduler;
  scheduler.kv_blocks = 6;
  const std::vector<ReplayRequest> log{{0, 16, 40, 0}, {0, 16, 40, 0}};
  const BatchReplay replay = replay_batches(log, step, {}, scheduler, {});
  CHECK(replay.totals.preemptions >= 1);
  CHECK(replay.timing[1].preemptions >= 1);
  CHECK(replay.timing[0].preemptions == 0);
  CHECK(replay.totals.output_tokens == 80);
  // The recomputation shows: more prompt tokens run than the log's 32.
  CHECK(replay.totals.prompt_tokens_computed > 32);
  // With room for both, nobody is preempted and both finish together.
  scheduler.kv_blocks = 8;
  const BatchReplay roomy = replay_batches(log, step, {}, scheduler, {});
  CHECK(roomy.totals.preemptions == 0);
  CHECK(roomy.timing[1].e2e_ms == Approx(40.0));
}

TEST_CASE("replicas: round robin alternates, least outstanding balances", "[batch_replay]") {
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  const std::vector<ReplayRequest> log{{0, 8, 10, 0}, {0, 8, 1, 0}, {0.0015, 8, 1, 0}};
  ArrivalOptions arrivals;
  arrivals.replicas = 2;
  const BatchReplay rr = replay_batches(log, step, {}, SchedulerOptions{}, arrivals);
  CHECK(rr.timing[0].replica == 0);
  CHECK(rr.timing[1].replica == 1);
  CHECK(rr.timing[2].replica == 0);
  arrivals.routing = Routing::least_outstanding;
  const BatchReplay lo = replay_batches(log, step, {}, SchedulerOptions{}, arrivals);
  CHECK(lo.timing[2].replica == 1);  // replica 1 finished its one-token request at 1 ms
}

TEST_CASE("closed loop: one client sends each request when the previous returns",
          "[batch_replay]") {
  const StepModel step{.fixed_ms = 1,
                       .weights_ms = 0,
                       .experts = {},
                       .ms_per_token = 0,
                       .ms_per_prefill_pair = 0,
                       .ms_per_kv_token = 0};
  std::vector<ReplayRequest> log(4, ReplayRequest{100.0, 8, 3, 0});  // arrival times ignored
  ArrivalOptions arrivals;
  arrivals.concurrency = 1;
  SchedulerOptions scheduler;
  scheduler.request_overhead_ms = 2;  // outside the engine: delays the next send, never queued
  const BatchReplay replay = replay_batches(log, step, {}, scheduler, arrivals);
  for (const RequestTiming& t : replay.timing) CHECK(t.e2e_ms == Approx(5.0));
  CHECK(replay.totals.last_completion_s == Approx((3 * 5.0 + 3.0) / 1000));
  arrivals.concurrency = 4;
  const BatchReplay four = replay_batches(log, step, {}, scheduler, arrivals);
  CHECK(four.totals.steps == 3);
}

TEST_CASE("serving replay: after is no slower, capacity grows, alone is the no-queue answer",
          "[batch_replay][serving]") {
  // An 8B-class model on one H100, roughly: 5 ms weights floor, 2 ms fixed.
  ServingSetup setup;
  setup.step = StepModel{.fixed_ms = 2,
                         .weights_ms = 5,
                         .experts = {},
                         .ms_per_token = 0.023,
                         .ms_per_prefill_pair = 7.5e-7,
                         .ms_per_kv_token = 3.9e-5};
  setup.speedup = {2, 2};
  setup.slo.ttft_ms = 200;
  setup.slo.tpot_ms = 30;
  std::vector<ReplayRequest> log;
  std::mt19937_64 random(5);
  double t = 0;
  for (int i = 0; i < 3000; ++i) {
    t += -std::log((static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0) / 20.0;
    log.push_back({t, 200 + static_cast<std::int32_t>(random() % 2000),
                   1 + static_cast<std::int32_t>(random() % 300), 0});
  }
  const ServingReplay replay = replay_serving(log, setup);
  CHECK(replay.after.ttft_ms.mean <= replay.before.ttft_ms.mean);
  CHECK(replay.after.e2e_ms.percentiles[2] <= replay.before.e2e_ms.percentiles[2]);
  CHECK(replay.alone_before.ttft_ms.mean <= replay.before.ttft_ms.mean);
  CHECK(replay.alone_before.queue_ms.max == 0);
  REQUIRE(replay.capacity_before);
  REQUIRE(replay.capacity_after);
  CHECK(replay.capacity_before->status == CapacityStatus::found);
  CHECK(replay.capacity_after->requests_per_s >= replay.capacity_before->requests_per_s);
  CHECK(replay.capacity_before->attainment >= 0.9);
  CHECK(replay.before.saturation_rate_per_s > 0);
  CHECK(replay.before.load ==
        Approx(replay.before.offered_rate_per_s / replay.before.saturation_rate_per_s));
  // Just above capacity the target is missed.
  ServingSetup above = setup;
  above.arrivals.rate_scale = replay.capacity_before->rate_scale * 1.01;
  const BatchReplay over = replay_batches(log, setup.step, {}, above.scheduler, above.arrivals);
  CHECK(*slo_attainment(over.timing, setup.slo) < 0.9);
}

TEST_CASE("serving replay: the fewest replicas meeting the SLO at the log's rate",
          "[batch_replay][serving][replicas]") {
  ServingSetup setup;
  setup.step = StepModel{.fixed_ms = 2,
                         .weights_ms = 5,
                         .experts = {},
                         .ms_per_token = 0.023,
                         .ms_per_prefill_pair = 7.5e-7,
                         .ms_per_kv_token = 3.9e-5};
  setup.speedup = {2, 2};
  setup.slo.ttft_ms = 200;
  setup.slo.tpot_ms = 30;
  setup.arrivals.routing = Routing::least_outstanding;
  std::vector<ReplayRequest> log;
  std::mt19937_64 random(7);
  double t = 0;
  for (int i = 0; i < 3000; ++i) {  // 150 req/s: several replicas' worth
    t += -std::log((static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0) / 150.0;
    log.push_back({t, 200 + static_cast<std::int32_t>(random() % 2000),
                   1 + static_cast<std::int32_t>(random() % 300), 0});
  }
  const ServingReplay replay = replay_serving(log, setup);
  REQUIRE(replay.replicas_before);
  REQUIRE(replay.replicas_after);
  REQUIRE(replay.replicas_before->status == ReplicaStatus::found);
  REQUIRE(replay.replicas_after->status == ReplicaStatus::found);
  const std::int64_t fewest = replay.replicas_before->replicas;
  CHECK(fewest > 1);
  CHECK(replay.replicas_after->replicas <= fewest);
  CHECK(replay.replicas_before->attainment >= 0.9);
  // The answer, checked by replaying at it and one fewer.
  for (const std::int64_t replicas : {fewest - 1, fewest}) {
    ServingSetup with = setup;
    with.arrivals.replicas = replicas;
    const BatchReplay at = replay_batches(log, setup.step, {}, with.scheduler, with.arrivals);
    CHECK((*slo_attainment(at.timing, setup.slo) >= 0.9) == (replicas == fewest));
  }
  // A TTFT below what any request reaches alone: no number of replicas meets it, and the
  // search does not try.
  ServingSetup strict = setup;
  strict.slo.ttft_ms = 1;
  const ReplicaCapacity none = find_fewest_replicas(log, strict.step, {}, strict, 0.0);
  CHECK(none.status == ReplicaStatus::unreachable);
  CHECK(none.replays == 0);
}

TEST_CASE("a kernel speedup divides the sliding-window layers' attention too",
          "[batch_replay][alone]") {
  // Only a fixed cost and sliding-window attention: 1 ms a step, 0.01 ms a prefill token, 0.5 ms
  // a decode sequence. One 100-token prompt and 11 output tokens: a 2 ms prefill step (1 ms of it
  // attention) and 10 decode steps of 1.5 ms (0.5 ms attention each): 6 ms of attention in all.
  StepModel step;
  step.fixed_ms = 1;
  step.ms_per_window_prefill_token = 0.01;
  step.ms_per_window_decode_sequence = 0.5;
  ReplayRequest request;
  request.prompt_tokens = 100;
  request.response_tokens = 11;
  const std::vector<ReplayRequest> log{request};
  const AttentionSpeedup twice{2, 2};
  for (const bool alone : {false, true}) {
    INFO((alone ? "each request alone (closed form)" : "the batched replay"));
    const auto replay = [&](const AttentionSpeedup& speedup) {
      return alone ? replay_alone(log, step, speedup, one_at_a_time(), {})
                   : replay_batches(log, step, speedup, one_at_a_time(), {});
    };
    const BatchReplay before = replay({});
    const BatchReplay after = replay(twice);
    CHECK(before.totals.attention_ms == Approx(6.0));
    CHECK(after.totals.attention_ms == Approx(3.0));
    CHECK(before.totals.busy_ms - after.totals.busy_ms == Approx(3.0));
    CHECK(after.timing[0].ttft_ms == Approx(1.5));
  }
}

TEST_CASE("without per-request values the replay reports each request as it finishes",
          "[batch_replay]") {
  // keep_timing false: the capacity searches' replays keep no 20-byte value a request; the
  // completion callback sees exactly the values a kept replay stores, so attainment counted as
  // requests finish equals attainment over the kept values.
  StepModel step;
  step.fixed_ms = 2;
  step.weights_ms = 4.8;
  step.ms_per_token = 0.023;
  step.ms_per_prefill_pair = 7.5e-7;
  step.ms_per_kv_token = 3.9e-5;
  std::vector<ReplayRequest> log;
  for (int i = 0; i < 400; ++i) {
    log.push_back({0.01 * i, 100 + 37 * (i % 13), 1 + (i % 7) * 20, 0});
  }
  SchedulerOptions scheduler;
  scheduler.kv_blocks = 60;  // preemptions too
  ArrivalOptions arrivals;
  arrivals.replicas = 2;
  arrivals.routing = Routing::least_outstanding;
  const BatchReplay kept = replay_batches(log, step, {}, scheduler, arrivals);
  std::vector<RequestTiming> seen(log.size());
  const CompletionCallback record = [&seen](std::size_t i, const RequestTiming& t) { seen[i] = t; };
  const BatchReplay lean = replay_batches(log, step, {}, scheduler, arrivals, record, false);
  CHECK(lean.timing.empty());
  CHECK(kept.totals.preemptions > 0);
  CHECK(lean.totals.steps == kept.totals.steps);
  for (std::size_t i = 0; i < log.size(); ++i) {
    CHECK(seen[i].ttft_ms == kept.timing[i].ttft_ms);
    CHECK(seen[i].e2e_ms == kept.timing[i].e2e_ms);
    CHECK(seen[i].queue_ms == kept.timing[i].queue_ms);
    CHECK(seen[i].preemptions == kept.timing[i].preemptions);
    CHECK(seen[i].replica == kept.timing[i].replica);
  }
  Slo slo;
  slo.ttft_ms = 200;
  slo.tpot_ms = 30;
  std::int64_t met = 0;
  for (const RequestTiming& t : seen) met += meets_slo(t, slo) ? 1 : 0;
  CHECK(static_cast<double>(met) / static_cast<double>(log.size()) ==
        *slo_attainment(kept.timing, slo));
}

TEST_CASE("bisect_capacity narrows a bracket in log rate scale to the tolerance", "[replay]") {
  // Both capacity searches (colocated and disaggregated) end here. A capacity of exactly 3: the
  // bracket [1, 8) closes on it from below, each probe at the geometric midpoint, and the
  // attainment returned is the one measured at the final low.
  std::vector<double> probes;
  const auto meets = [&probes](double x, double& attained) {
    probes.push_back(x);
    attained = x <= 3 ? 1.0 - x / 100 : 0.5;
    return x <= 3;
  };
  const RateBracket found = bisect_capacity(meets, {1, 8, 0.99}, 1e-3);
  CHECK(found.low <= 3);
  CHECK(found.high > 3);
  CHECK(found.high / found.low - 1 <= 1e-3);
  CHECK(found.low_attained == Approx(1.0 - found.low / 100));
  REQUIRE(!probes.empty());
  CHECK(probes.front() == Approx(std::sqrt(8.0)));
  // Each probe halves ln(high / low): from ln 8 to ln 1.001 takes 12 (ln 8 / ln 1.001 = 2,080.5).
  CHECK(probes.size() == 12);
  // A bracket already within the tolerance probes nothing and keeps its low's attainment.
  probes.clear();
  const RateBracket narrow = bisect_capacity(meets, {2, 2.001, 0.98}, 1e-3);
  CHECK(probes.empty());
  CHECK(narrow.low == 2);
  CHECK(narrow.low_attained == 0.98);
}

TEST_CASE("a search's replay: no ITLs kept, and it stops when told", "[batch_replay][serving]") {
  // replay_until is the capacity search's replay: the same replay as replay_batches (same steps,
  // same per-request values) without the ITL histogram, and it ends at the completion whose
  // verdict is false, so a rate that has already failed its SLO target is not replayed further.
  StepModel step;
  step.fixed_ms = 2;
  step.weights_ms = 4.8;
  step.ms_per_token = 0.023;
  step.ms_per_prefill_pair = 7.5e-7;
  step.ms_per_kv_token = 3.9e-5;
  std::vector<ReplayRequest> log;
  for (int i = 0; i < 400; ++i) {
    log.push_back({0.01 * i, 100 + 37 * (i % 13), 1 + (i % 7) * 20, 0});
  }
  const SchedulerOptions scheduler;
  const ArrivalOptions arrivals;
  const BatchReplay kept = replay_batches(log, step, {}, scheduler, arrivals);
  std::vector<RequestTiming> seen(log.size());
  std::size_t completions = 0;
  const CompletionVerdict all = [&](std::size_t i, const RequestTiming& t) {
    seen[i] = t;
    ++completions;
    return true;
  };
  const ReplayTotals whole = replay_until(log, step, {}, scheduler, arrivals, all);
  CHECK(completions == log.size());
  CHECK(whole.steps == kept.totals.steps);
  CHECK(whole.last_completion_s == kept.totals.last_completion_s);
  CHECK(whole.output_tokens == kept.totals.output_tokens);
  CHECK(kept.totals.itl.total > 0);
  CHECK(whole.itl.total == 0);
  for (std::size_t i = 0; i < log.size(); ++i) CHECK(seen[i].e2e_ms == kept.timing[i].e2e_ms);
  std::size_t before_stop = 0;
  const CompletionVerdict ten = [&before_stop](std::size_t, const RequestTiming&) {
    return ++before_stop < 10;
  };
  const ReplayTotals stopped = replay_until(log, step, {}, scheduler, arrivals, ten);
  CHECK(before_stop == 10);
  CHECK(stopped.steps < whole.steps / 4);
  CHECK(stopped.output_tokens < whole.output_tokens / 4);
}

TEST_CASE("capacity: the attainment reported is the full replay's at that rate",
          "[batch_replay][serving]") {
  // Failing rates stop early (their attainment is only a bound); the rate reported ran whole.
  ServingSetup setup;
  setup.step.fixed_ms = 2;
  setup.step.weights_ms = 5;
  setup.step.ms_per_token = 0.023;
  setup.step.ms_per_prefill_pair = 7.5e-7;
  setup.step.ms_per_kv_token = 3.9e-5;
  setup.slo.ttft_ms = 200;
  setup.slo.tpot_ms = 30;
  std::vector<ReplayRequest> log;
  std::mt19937_64 random(11);
  double t = 0;
  for (int i = 0; i < 2000; ++i) {
    t += -std::log((static_cast<double>(random() >> 11) + 0.5) / 9007199254740992.0) / 20.0;
    log.push_back({t, 200 + static_cast<std::int32_t>(random() % 2000),
                   1 + static_cast<std::int32_t>(random() % 300), 0});
  }
  const double saturation = saturation_rate(log, setup.step, {}, setup);
  const Capacity capacity = find_capacity(log, setup.step, {}, setup, saturation);
  REQUIRE(capacity.status == CapacityStatus::found);
  ArrivalOptions at = setup.arrivals;
  at.rate_scale = capacity.rate_scale;
  const BatchReplay full = replay_batches(log, setup.step, {}, setup.scheduler, at);
  CHECK(capacity.attainment == *slo_attainment(full.timing, setup.slo));
  CHECK(capacity.attainment >= 0.9);
  // replay_serving runs the after side on a second thread: its answers are the ones one thread
  // finds for that side alone.
  setup.speedup = {2, 2};
  const ServingReplay both = replay_serving(log, setup);
  const double saturation_after = saturation_rate(log, setup.step, setup.speedup, setup);
  const Capacity after = find_capacity(log, setup.step, setup.speedup, setup, saturation_after);
  REQUIRE(both.capacity_before);
  REQUIRE(both.capacity_after);
  CHECK(both.capacity_before->rate_scale == capacity.rate_scale);
  CHECK(both.capacity_before->replays == capacity.replays);
  CHECK(both.capacity_after->rate_scale == after.rate_scale);
  CHECK(both.capacity_after->attainment == after.attainment);
  CHECK(both.after.saturation_rate_per_s == saturation_after);
  CHECK(both.capacity_after->rate_scale > capacity.rate_scale);
}

}  // namespace unit_batch_replay
