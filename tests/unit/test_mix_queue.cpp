// The prefill queue replay against Pollaczek-Khinchine, stability, SLO attainment and goodput.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/mix.hpp"

using namespace kspeed::engine;

namespace {

// Poisson arrivals at `rate_per_s` with service times from `service_ms`, generated with a fixed
// seed so the test is deterministic.
template <class Service>
std::vector<QueuedRequest> poisson_log(std::size_t n, double rate_per_s, Service service_ms,
                                       std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<QueuedRequest> log;
  log.reserve(n);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += -std::log(1.0 - uniform(random)) / rate_per_s;  // exponential inter-arrival time
    log.push_back({t, static_cast<double>(service_ms(random, uniform))});
  }
  return log;
}

double deterministic(std::mt19937_64&, std::uniform_real_distribution<double>&) {
  return 100.0;
}
double exponential(std::mt19937_64& random, std::uniform_real_distribution<double>& uniform) {
  return -std::log(1.0 - uniform(random)) * 100.0;  // mean 100 ms
}

}  // namespace

TEST_CASE("M/D/1: the replay's mean wait is Pollaczek-Khinchine's", "[mix][queue]") {
  for (double rho : {0.5, 0.8}) {
    const auto log = poisson_log(400000, rho / 0.1, deterministic, 42);
    const QueueReplay replay = replay_prefill_queue(log, {});
    // M/D/1: W = rho S / (2 (1 - rho))
    const double expected = rho * 100.0 / (2 * (1 - rho));
    INFO("rho " << rho << ": replay " << replay.mean_wait_ms << " ms, P-K " << expected);
    CHECK(replay.stability == QueueStability::stable);
    CHECK(replay.utilisation == Approx(rho).epsilon(0.01));
    CHECK(replay.mean_wait_ms == Approx(expected).epsilon(0.04));
  }
}

TEST_CASE("M/M/1: the replay's mean wait is Pollaczek-Khinchine's", "[mix][queue]") {
  for (double rho : {0.5, 0.8}) {
    const auto log = poisson_log(400000, rho / 0.1, exponential, 7);
    const QueueReplay replay = replay_prefill_queue(log, {});
    // M/M/1: W = rho E[S] / (1 - rho)
    const double expected = rho * 100.0 / (1 - rho);
    INFO("rho " << rho << ": replay " << replay.mean_wait_ms << " ms, P-K " << expected);
    CHECK(replay.mean_wait_ms == Approx(expected).epsilon(0.05));
  }
}

TEST_CASE("N replicas share one FCFS queue", "[mix][queue]") {
  // Three requests at t = 0 on two replicas, 100 ms each: the third waits for the first free.
  const std::vector<QueuedRequest> log{{0, 100}, {0, 100}, {0, 100}, {1.0, 100}};
  const QueueReplay replay = replay_prefill_queue(log, {2, 1.0});
  CHECK(replay.wait_ms == std::vector<double>{0, 0, 100, 0});
  // Rate scale 10: arrivals at 0, 0, 0, 0.1 s; the fourth finds a replica free at 100 ms.
  CHECK(replay_prefill_queue(log, {2, 10.0}).wait_ms == std::vector<double>{0, 0, 100, 0});
  CHECK(replay_prefill_queue(log, {2, 20.0}).wait_ms[3] == Approx(50.0));
}

TEST_CASE("utilisation at or above 1 is an unstable queue, not a number", "[mix][queue]") {
  const auto log = poisson_log(1000, 10.0, deterministic, 3);  // rho = 10/s * 0.1 s = 1
  const QueueReplay replay = replay_prefill_queue(log, {});
  CHECK(replay.utilisation == Approx(1.0).epsilon(0.1));
  const auto overloaded = poisson_log(1000, 20.0, deterministic, 3);
  CHECK(replay_prefill_queue(overloaded, {}).stability == QueueStability::unstable);
  CHECK(replay_prefill_queue(overloaded, {3, 1.0}).stability == QueueStability::stable);
  CHECK_FALSE(slo_attainment(overloaded, std::vector<double>(1000, NAN), {500.0, {}, 0.9}, {}));
  // All at once: no span, infinite rate.
  const std::vector<QueuedRequest> burst{{0, 10}, {0, 10}};
  CHECK(replay_prefill_queue(burst, {}).stability == QueueStability::unstable);
}

namespace {

// A mix run whose requests arrive as Poisson at rho on one replica: every prompt 1,024 tokens,
// so every prefill is the reference 500 ms and the kernel's worth per request is 1/(0.82+0.09).
MixRun poisson_run(double rho, std::size_t n) {
  MixModel model;
  model.prefill_shares = {{4096, 0.18}, {131072, 0.85}};
  model.kernel_speedup = {2.0, Provenance::given};
  model.reference = ReferenceLatency{1024, {500.0, Provenance::workload}};
  model.tpot_ms = WithProvenance<double>{50.0, Provenance::workload};
  model.percentiles = {50, 99};
  MixRun run(model);
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += -std::log(1.0 - uniform(random)) / (rho / 0.5);
    Request r;
    r.prompt_tokens = 1024;
    r.response_tokens = 64;
    r.arrival_s = t;
    run.add(r);
  }
  return run;
}

}  // namespace

TEST_CASE("under replay the kernel is worth more on p99 TTFT than on the mean request",
          "[mix][queue]") {
  const MixRun run = poisson_run(0.85, 50000);
  const MixSummary summary = summarise(run);
  const double without_replay = summary.time_weighted_ttft_speedup;
  CHECK(without_replay == Approx(1 / 0.91).epsilon(1e-6));  // 1.0989x on every request
  const MixReplay replay = replay_run(run, {}, {});
  REQUIRE(replay.before.ttft_ms);
  REQUIRE(replay.after.ttft_ms);
  const double p99_worth =
      replay.before.ttft_ms->percentiles[1] / replay.after.ttft_ms->percentiles[1];
  const double mean_wait_worth = replay.before.mean_wait_ms / replay.after.mean_wait_ms;
  INFO("p99 TTFT " << replay.before.ttft_ms->percentiles[1] << " -> "
                   << replay.after.ttft_ms->percentiles[1] << " ms");
  CHECK(p99_worth > 1.5 * without_replay);
  // M/D/1 at rho 0.85 and 0.85 * 0.91: the mean wait falls by about half.
  const double rho_after = 0.85 * 0.91;
  const double md1 = (0.85 / (1 - 0.85)) / (rho_after * 0.91 / (1 - rho_after));
  CHECK(mean_wait_worth == Approx(md1).epsilon(0.15));
}

TEST_CASE("goodput: the highest rate scale meeting the SLO, before and after", "[mix][queue]") {
  const MixRun run = poisson_run(0.5, 20000);
  const Slo slo{1500.0, 60.0, 0.9};
  const MixReplay replay = replay_run(run, {}, slo);
  REQUIRE(replay.goodput_before);
  REQUIRE(replay.goodput_after);
  CHECK(replay.goodput_before->status == GoodputStatus::found);
  CHECK(replay.goodput_after->status == GoodputStatus::found);
  CHECK(replay.goodput_after->rate_scale > replay.goodput_before->rate_scale * 1.0989);
  CHECK(replay.goodput_before->attainment >= 0.9);
  CHECK(replay.goodput_before->replays < 40);
  // Just above goodput the target is missed (the bisection's edge is real).
  std::vector<QueuedRequest> queued;
  std::vector<double> tpot;
  for (const RequestOutcome& o : run.outcomes()) {
    queued.push_back({o.arrival_s, o.ttft_before_ms});
    tpot.push_back(o.tpot_before_ms);
  }
  const double edge = replay.goodput_before->rate_scale;
  CHECK(*slo_attainment(queued, tpot, slo, {1, edge}) >= 0.9);
  CHECK(*slo_attainment(queued, tpot, slo, {1, edge * 1.01}) < 0.9);
  // An SLO tighter than the service time: unreachable at any rate.
  const MixReplay tight = replay_run(run, {}, {400.0, {}, 0.9});
  CHECK(tight.goodput_before->status == GoodputStatus::unreachable);
  CHECK(tight.goodput_after->status == GoodputStatus::unreachable);  // 455 ms > 400 too
  CHECK(tight.goodput_before->attainment == 0.0);
}

TEST_CASE("requests arriving at the same instant queue at any rate: goodput unreachable",
          "[mix][queue]") {
  std::vector<QueuedRequest> log;
  for (int i = 0; i < 5; ++i) log.push_back({0.0, 100});  // one burst, stamped alike
  for (int i = 1; i <= 5; ++i) log.push_back({100.0 * i, 100});
  const std::vector<double> tpot(log.size(), NAN);
  const Goodput goodput = find_goodput(log, tpot, {150.0, {}, 0.9}, 1);
  CHECK(goodput.status == GoodputStatus::unreachable);
  CHECK(goodput.attainment == Approx(0.6));  // the burst's first and the five spread requests
  CHECK(find_goodput(log, tpot, {150.0, {}, 0.5}, 1).status != GoodputStatus::unreachable);
}
