// The replay's replaceable parts: a toy scheduler policy added here, in this one file, and
// registered by name, changes the replay's result exactly as worked out by hand; the event core
// orders events by time, then rank, then id; the routers place requests as documented.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/event_queue.hpp"
#include "kspeed/engine/serving/router.hpp"
#include "kspeed/engine/serving/step_policy.hpp"
#include "kspeed/engine/serving/step_timer.hpp"

namespace unit_step_policy {

using namespace kspeed::engine;

namespace {

// The toy policy: first come first served, no batching. The running request (at most one)
// takes the step; only when none runs is the first waiting request admitted. Each request runs
// alone from its prefill to its last token.
class FcfsOnePolicy final : public StepPolicy {
 public:
  void form_step(StepForming& step) const override {
    if (step.running_requests() > 0) {
      step.schedule_running(StepForming::Part::all);
    } else {
      step.schedule_waiting(1);
    }
  }
};

// A step timer that prices every step at a constant: the injected cost model.
class ConstantTimer final : public StepTimer {
 public:
  explicit ConstantTimer(double ms) : ms_(ms) {}
  bool wants_requests() const override { return false; }
  void begin_step() override {}
  void add_request(const BatchComposition&, float) override {}
  StepTime time(const BatchComposition&) override {
    StepTime time;
    time.fixed_ms = ms_;
    return time;
  }

 private:
  double ms_;
};

SchedulerOptions fcfs_one() {
  register_step_policy("fcfs_one", std::make_shared<FcfsOnePolicy>());
  SchedulerOptions scheduler;
  scheduler.policy_name = "fcfs_one";
  return scheduler;
}

}  // namespace

TEST_CASE("a toy FCFS policy registered by name serves one request at a time", "[step_policy]") {
  // Three requests at t = 0, 100-token prompts, 3 tokens each; every step takes 10 ms (the
  // fixed term alone). One at a time, request k waits for k requests of 3 steps each:
  // queue 30k ms, TTFT 30k + 10 ms, E2E 30k + 30 ms, TPOT 10 ms.
  StepModel step;
  step.fixed_ms = 10;
  const std::vector<ReplayRequest> log{{0, 100, 3, 0}, {0, 100, 3, 0}, {0, 100, 3, 0}};
  const BatchReplay toy = replay_batches(log, step, {}, fcfs_one(), {});
  for (std::size_t k = 0; k < 3; ++k) {
    const double wait_ms = 30.0 * static_cast<double>(k);
    CHECK(toy.timing[k].queue_ms == Approx(wait_ms));
    CHECK(toy.timing[k].ttft_ms == Approx(wait_ms + 10));
    CHECK(toy.timing[k].e2e_ms == Approx(wait_ms + 30));
    CHECK(toy.timing[k].tpot_ms == Approx(10));
  }
  CHECK(toy.totals.steps == 9);
  CHECK(toy.totals.max_running == 1);
  // vLLM V1 (the default) batches the three prompts into one step, then decodes them together:
  // every request's TTFT is 10 ms and its E2E 30 ms, in 3 steps.
  const BatchReplay vllm = replay_batches(log, step, {}, SchedulerOptions{}, {});
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(vllm.timing[k].ttft_ms == Approx(10));
    CHECK(vllm.timing[k].e2e_ms == Approx(30));
  }
  CHECK(vllm.totals.steps == 3);
}

TEST_CASE("the toy policy under Poisson arrivals is M/D/1", "[step_policy]") {
  // Each request is 4 steps of 5 ms alone (prefill + 3 decodes): deterministic service
  // S = 20 ms. At 35 requests/s rho = 0.7 and Pollaczek-Khinchine's mean wait is
  // rho S / (2 (1 - rho)) = 23.33 ms. The injected timer prices every step at 5 ms.
  std::mt19937_64 random(29);
  auto uniform = [&random] {
    return (static_cast<double>(random() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  };
  std::vector<ReplayRequest> log;
  double t = 0;
  for (int i = 0; i < 200000; ++i) {
    t += -std::log(uniform()) / 35.0;
    log.push_back({t, 50, 4, 0});
  }
  ConstantTimer timer(5);
  const BatchReplay replay = replay_batches(log, timer, fcfs_one(), {});
  double wait_ms = 0;
  for (const RequestTiming& timing : replay.timing) wait_ms += static_cast<double>(timing.queue_ms);
  wait_ms /= static_cast<double>(log.size());
  const double rho = 35.0 * 0.020;
  CHECK(wait_ms == Approx(rho * 20 / (2 * (1 - rho))).epsilon(0.02));
  CHECK(replay.totals.steps == 4 * static_cast<std::int64_t>(log.size()));
}

TEST_CASE("an unregistered policy name is a bug, not a silent default", "[step_policy]") {
  SchedulerOptions scheduler;
  scheduler.policy_name = "no_such_policy";
  CHECK_THROWS_AS(step_policy_for(scheduler), std::logic_error);
  CHECK(find_step_policy("mixed") != nullptr);
  CHECK(find_step_policy("prefill_first") != nullptr);
}

TEST_CASE("the event core pops by time, then rank, then id", "[step_policy][event_queue]") {
  EventQueue queue;
  queue.schedule({2.0, 0, 0});
  queue.schedule({1.0, 3, 1});
  queue.schedule({1.0, 3, 0});
  queue.schedule({1.0, 0, 7});
  queue.schedule({0.5, 9, 9});
  std::vector<std::uint32_t> ids;
  while (!queue.empty()) ids.push_back(queue.pop().id);
  CHECK(ids == std::vector<std::uint32_t>{9, 7, 0, 1, 0});
  CHECK(queue.now_s() == 2.0);
}

TEST_CASE("routers: round robin, least outstanding, shared queue", "[step_policy][router]") {
  auto rr = make_router(Routing::round_robin, 3, 1);
  CHECK(rr->route(0) == 0);
  CHECK(rr->route(4) == 1);
  auto lo = make_router(Routing::least_outstanding, 3, 1);
  CHECK(lo->route(0) == 0);  // all idle: the lowest index
  lo->outstanding_changed(0, 2);
  lo->outstanding_changed(1, 1);
  CHECK(lo->route(1) == 2);
  lo->outstanding_changed(2, 1);
  CHECK(lo->route(2) == 1);  // tie at 1: the lower index
  auto shared = make_router(Routing::shared_queue, 2, 1);
  shared->outstanding_changed(0, 1);
  CHECK(shared->route(0) == 1);
  shared->outstanding_changed(1, 1);
  CHECK(shared->route(1) == 2);  // every replica full: waits at the router
}

}  // namespace unit_step_policy
