// The replay's load models (load_generator.hpp, ArrivalOptions): requests generated from a
// stated arrival process reproduce the queueing closed forms (M/D/1 by Pollaczek-Khinchine,
// M/M/1), an open loop with --max-inflight never has more requests in flight than its cap, and a
// closed loop with think time obeys Little's law. The generator is seeded and deterministic.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/load_generator.hpp"
#include "kspeed/engine/serving/step_timer.hpp"

namespace unit_load_models {

using namespace kspeed::engine;

namespace {

// Poisson arrivals at `rate_per_s`, every prompt 100 tokens and every output 1 token: with one
// request at a time and whole prompts, each request is exactly one step of service.
LoadSpec single_step_poisson(double rate_per_s, std::int64_t requests, std::uint64_t seed) {
  LoadSpec spec;
  spec.arrivals.process = ArrivalProcess::poisson;
  spec.arrivals.rate_per_s = rate_per_s;
  spec.prompt.first = 100;
  spec.output.first = 1;
  spec.requests = requests;
  spec.seed = seed;
  return spec;
}

// A single server: one request at a time, whole prompts (each request one step).
SchedulerOptions single_server() {
  SchedulerOptions scheduler;
  scheduler.max_seqs = 1;
  scheduler.max_batched_tokens = 1 << 30;
  scheduler.chunked_prefill = false;
  return scheduler;
}

// The mean wait (arrival to first scheduled) over `seeds` runs of `requests` generated requests
// each (Poisson at `rate`, one step each), counted as requests finish: no per-request values are
// kept. `replay(log, count, seed)` replays one run.
template <class Replay>
double mean_wait_over_seeds(Replay replay, double rate, std::int64_t requests, int seeds) {
  double sum_ms = 0;
  std::int64_t count = 0;
  const CompletionCallback add = [&sum_ms, &count](std::size_t, const RequestTiming& timing) {
    sum_ms += static_cast<double>(timing.queue_ms);
    ++count;
  };
  for (int seed = 1; seed <= seeds; ++seed) {
    const auto s = static_cast<std::uint64_t>(seed);
    replay(generate_load(single_step_poisson(rate, requests, s)), add, s);
  }
  return sum_ms / static_cast<double>(count);
}

// A test's step timer: every step an exponential draw of mean `mean_ms`, whatever it carries
// (the service of M/M/1 when each request is one step), from its own seeded stream.
class ExponentialStepTimer final : public StepTimer {
 public:
  ExponentialStepTimer(double mean_ms, std::uint64_t seed) : mean_ms_(mean_ms), random_(seed) {}
  void begin_step() override {}
  bool wants_requests() const override { return false; }
  void add_request(const BatchComposition&, float) override {}
  StepTime time(const BatchComposition&) override {
    StepTime time;
    time.fixed_ms = random_.exponential(mean_ms_);
    return time;
  }

 private:
  double mean_ms_;
  LoadRandom random_;
};

// A batching deployment's step model (an 8B-class model on one GPU, illustrative).
StepModel batching_step() {
  StepModel step;
  step.fixed_ms = 2;
  step.weights_ms = 5;
  step.ms_per_token = 0.02;
  step.ms_per_kv_token = 2e-5;
  step.ms_per_prefill_pair = 1e-7;
  return step;
}

LoadSpec varied_lengths(ArrivalProcess process, double rate_per_s, std::int64_t requests) {
  LoadSpec spec;
  spec.arrivals.process = process;
  spec.arrivals.rate_per_s = rate_per_s;
  spec.prompt.kind = LengthSpec::Kind::uniform;
  spec.prompt.first = 100;
  spec.prompt.second = 2000;
  spec.output.kind = LengthSpec::Kind::lognormal;
  spec.output.first = 150;
  spec.output.second = 100;
  spec.requests = requests;
  spec.seed = 7;
  return spec;
}

// The most requests in flight at once over the replay's timeline: each is in flight from its
// send to its send + E2E. E2E is a float (about 7 digits), so an end recomputed from it may land
// microseconds after the instant the replay freed the slot: ends are counted 10 us early, far
// below any step's time, so a send at a slot's freeing is not mistaken for an overlap.
std::int64_t most_in_flight(const BatchReplay& replay) {
  std::vector<std::pair<double, int>> changes;  // (time, +1 send / -1 end), ends first at ties
  for (std::size_t i = 0; i < replay.timing.size(); ++i) {
    const double sent = replay.sent_s[i];
    changes.emplace_back(sent, +1);
    changes.emplace_back(sent + static_cast<double>(replay.timing[i].e2e_ms) / 1000 - 1e-5, -1);
  }
  std::sort(changes.begin(), changes.end());
  std::int64_t in_flight = 0;
  std::int64_t most = 0;
  for (const auto& [time, change] : changes) {
    in_flight += change;
    most = std::max(most, in_flight);
  }
  return most;
}

}  // namespace

// The closed forms hold for the mean wait over an infinite run; a finite run's mean scatters
// around it, the more the nearer rho is to 1. Measured over 12 seeds of 4,000,000 requests each
// (a standalone run of this replay, which matches the Lindley recursion W' = max(0, W + S - A)
// to 3e-5 ms a request): the relative error's standard deviation is 0.17% (M/D/1) and 0.25%
// (M/M/1) at rho 0.5, 0.31% and 0.60% at rho 0.8, the largest of the 48 runs 1.5%. So rho 0.8
// runs 4,000,000 requests (M/M/1: four seeds of them, averaged: about 0.3%) and rho 0.5 runs
// 2,000,000: the 2% asked for is five or more standard deviations away.
TEST_CASE("generated Poisson arrivals, deterministic service: M/D/1 (Pollaczek-Khinchine)",
          "[load_models][queueing]") {
  // Service D = 10 ms (the step's fixed term alone). Wq = rho D / (2 (1 - rho)).
  StepModel step;
  step.fixed_ms = 10;
  for (const auto& [rho, requests] : {std::pair{0.5, 2'000'000}, std::pair{0.8, 4'000'000}}) {
    const double rate = rho / 0.010;
    const double wait_ms = mean_wait_over_seeds(
        [&](const std::vector<ReplayRequest>& log, const CompletionCallback& count, std::uint64_t) {
          (void)replay_batches(log, step, {}, single_server(), {}, count, false);
        },
        rate, requests, 1);
    const double closed_form_ms = rho * 10 / (2 * (1 - rho));  // 5 ms at 0.5, 20 ms at 0.8
    INFO("rho " << rho << ": replay " << wait_ms << " ms, closed form " << closed_form_ms << " ms");
    CHECK(wait_ms == Approx(closed_form_ms).epsilon(0.02));
  }
}

TEST_CASE("generated Poisson arrivals, exponential service: M/M/1", "[load_models][queueing]") {
  // Service exponential with mean S = 10 ms (a test step timer). Wq = rho S / (1 - rho).
  for (const auto& [rho, seeds] : {std::pair{0.5, 1}, std::pair{0.8, 4}}) {
    const double rate = rho / 0.010;
    const double wait_ms = mean_wait_over_seeds(
        [&](const std::vector<ReplayRequest>& log, const CompletionCallback& count,
            std::uint64_t seed) {
          ExponentialStepTimer timer(10, 1000 + seed);
          (void)replay_batches(log, timer, single_server(), {}, count, false);
        },
        rate, rho < 0.6 ? 2'000'000 : 4'000'000, seeds);
    const double closed_form_ms = rho * 10 / (1 - rho);  // 10 ms at 0.5, 40 ms at 0.8
    INFO("rho " << rho << ": replay " << wait_ms << " ms, closed form " << closed_form_ms << " ms");
    CHECK(wait_ms == Approx(closed_form_ms).epsilon(0.02));
  }
}

TEST_CASE("--max-inflight caps the requests in flight exactly", "[load_models]") {
  // Offered far above what 8 in flight can serve: the cap binds all through the replay.
  const std::vector<ReplayRequest> requests =
      generate_load(varied_lengths(ArrivalProcess::poisson, 200, 5000));
  SchedulerOptions scheduler;
  scheduler.max_seqs = 256;
  ArrivalOptions capped;
  capped.max_inflight = 8;
  const BatchReplay replay =
      replay_batches(requests, batching_step(), {}, scheduler, capped, {}, true, true);
  CHECK(most_in_flight(replay) == 8);
  // Never sent before it is due, and sent in order.
  std::size_t early = 0;
  std::size_t out_of_order = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    early += replay.sent_s[i] < requests[i].arrival_s ? 1U : 0U;
    out_of_order += i > 0 && replay.sent_s[i] < replay.sent_s[i - 1] ? 1U : 0U;
  }
  CHECK(early == 0);
  CHECK(out_of_order == 0);
  // The cap binds: most requests wait for a slot.
  CHECK(replay.sent_s.back() > requests.back().arrival_s + 1);
  // Uncapped, the same arrivals pile up far beyond 8.
  const BatchReplay open =
      replay_batches(requests, batching_step(), {}, scheduler, {}, {}, true, true);
  CHECK(most_in_flight(open) > 100);
  // A cap the load never reaches changes nothing.
  const std::vector<ReplayRequest> light =
      generate_load(varied_lengths(ArrivalProcess::poisson, 0.5, 500));
  ArrivalOptions loose;
  loose.max_inflight = 1000;
  const BatchReplay light_capped = replay_batches(light, batching_step(), {}, scheduler, loose);
  const BatchReplay light_open = replay_batches(light, batching_step(), {}, scheduler, {});
  CHECK(light_capped.timing[499].e2e_ms == light_open.timing[499].e2e_ms);
}

TEST_CASE("a closed loop with think time obeys Little's law N = X (R + Z)", "[load_models]") {
  const std::vector<ReplayRequest> requests =
      generate_load(varied_lengths(ArrivalProcess::trace, 0, 40000));
  SchedulerOptions scheduler;
  for (const double think_s : {0.0, 0.5, 3.0}) {
    ArrivalOptions loop;
    loop.concurrency = 16;
    loop.think_time_s = think_s;
    const BatchReplay replay =
        replay_batches(requests, batching_step(), {}, scheduler, loop, {}, true, true);
    double response_s = 0;
    for (const RequestTiming& t : replay.timing) response_s += static_cast<double>(t.e2e_ms) / 1000;
    response_s /= static_cast<double>(replay.timing.size());
    const double throughput =
        static_cast<double>(requests.size()) / replay.totals.last_completion_s;
    INFO("Z " << think_s << " s: R " << response_s << " s, X " << throughput << "/s");
    CHECK(throughput * (response_s + think_s) == Approx(16.0).epsilon(0.01));
    // Never more requests out than clients.
    CHECK(most_in_flight(replay) <= 16);
  }
}

TEST_CASE("the load generator is seeded and its processes have their stated moments",
          "[load_models]") {
  const std::int64_t n = 200000;
  for (const auto& [process, cv] :
       {std::pair{ArrivalProcess::poisson, 1.0}, std::pair{ArrivalProcess::gamma, 0.5},
        std::pair{ArrivalProcess::gamma, 3.0}, std::pair{ArrivalProcess::constant, 0.0}}) {
    LoadSpec spec = varied_lengths(process, 4, n);
    spec.arrivals.cv = process == ArrivalProcess::gamma ? cv : 1.0;
    const std::vector<ReplayRequest> requests = generate_load(spec);
    double sum = 0;
    double squares = 0;
    for (std::size_t i = 1; i < requests.size(); ++i) {
      const double gap = requests[i].arrival_s - requests[i - 1].arrival_s;
      sum += gap;
      squares += gap * gap;
    }
    const double gaps = static_cast<double>(n - 1);
    const double mean = sum / gaps;
    const double sd = std::sqrt(std::max(0.0, squares / gaps - mean * mean));
    CHECK(requests.front().arrival_s == 0);
    CHECK(mean == Approx(0.25).epsilon(0.01));
    CHECK(sd / mean == Approx(cv).margin(0.03 * std::max(cv, 1.0)));
    // The same seed, the same requests.
    const std::vector<ReplayRequest> again = generate_load(spec);
    CHECK(again.back().arrival_s == requests.back().arrival_s);
    CHECK(again.back().prompt_tokens == requests.back().prompt_tokens);
  }
  // Lengths: uniform 100..2000 has mean 1050 and both ends; lognormal mean 150, sd 100.
  const std::vector<ReplayRequest> requests =
      generate_load(varied_lengths(ArrivalProcess::poisson, 4, n));
  double prompt_sum = 0;
  double output_sum = 0;
  double output_squares = 0;
  std::int32_t lowest = 1 << 30;
  std::int32_t highest = 0;
  for (const ReplayRequest& r : requests) {
    prompt_sum += r.prompt_tokens;
    output_sum += r.response_tokens;
    output_squares += static_cast<double>(r.response_tokens) * r.response_tokens;
    lowest = std::min(lowest, r.prompt_tokens);
    highest = std::max(highest, r.prompt_tokens);
  }
  const double count = static_cast<double>(n);
  CHECK(prompt_sum / count == Approx(1050).epsilon(0.01));
  CHECK(lowest == 100);
  CHECK(highest == 2000);
  const double output_mean = output_sum / count;
  CHECK(output_mean == Approx(150).epsilon(0.01));
  CHECK(std::sqrt(output_squares / count - output_mean * output_mean) == Approx(100).epsilon(0.03));
  // A changed prompt distribution leaves the arrivals' draws as they were.
  LoadSpec fixed_prompts = varied_lengths(ArrivalProcess::poisson, 4, n);
  fixed_prompts.prompt = {};
  fixed_prompts.prompt.first = 512;
  const std::vector<ReplayRequest> other = generate_load(fixed_prompts);
  CHECK(other.back().arrival_s == requests.back().arrival_s);
  CHECK(other.back().response_tokens == requests.back().response_tokens);
  // A duration instead of a count: every arrival before it, none after.
  LoadSpec timed = varied_lengths(ArrivalProcess::constant, 4, 0);
  timed.duration_s = 10;
  const std::vector<ReplayRequest> ten_seconds = generate_load(timed);
  CHECK(ten_seconds.size() == 40);
  CHECK(ten_seconds.back().arrival_s == Approx(9.75));
}

TEST_CASE(
    "sessions of turns: each turn after the last one's answer and a think time, prefixes "
    "reused, Little's law",
    "[load_models][sessions]") {
  // Sessions of 4 turns: turn k's prompt is the whole context so far (the earlier turns' prompts
  // and answers) plus a new message, and that context is its cached prefix.
  constexpr std::size_t kTurns = 4;
  const std::vector<ReplayRequest> messages =
      generate_load(varied_lengths(ArrivalProcess::trace, 0, 8000));
  std::vector<ReplayRequest> chats = messages;
  std::vector<ReplayRequest> uncached = messages;
  for (std::size_t i = 0; i < chats.size(); ++i) {
    chats[i].arrival_s = 0;
    if (i % kTurns == 0) continue;
    const std::int32_t context = chats[i - 1].prompt_tokens + chats[i - 1].response_tokens;
    chats[i].prompt_tokens = context + messages[i].prompt_tokens;
    chats[i].cached_tokens = context;
    uncached[i] = chats[i];
    uncached[i].cached_tokens = 0;
  }
  SchedulerOptions scheduler;
  for (const double think_s : {0.5, 3.0}) {
    ArrivalOptions loop;
    loop.concurrency = 16;
    loop.think_time_s = think_s;
    loop.session_turns = kTurns;
    const BatchReplay replay =
        replay_batches(chats, batching_step(), {}, scheduler, loop, {}, true, true);
    double response_s = 0;
    for (const RequestTiming& t : replay.timing) response_s += static_cast<double>(t.e2e_ms) / 1000;
    response_s /= static_cast<double>(replay.timing.size());
    const double throughput = static_cast<double>(chats.size()) / replay.totals.last_completion_s;
    INFO("Z " << think_s << " s: R " << response_s << " s, X " << throughput << "/s");
    CHECK(throughput * (response_s + think_s) == Approx(16.0).epsilon(0.01));
    CHECK(most_in_flight(replay) <= 16);
    // Each turn is sent one think time after the previous turn's answer, never sooner.
    std::size_t off_schedule = 0;
    std::size_t out_of_log_order = 0;
    for (std::size_t i = 1; i < chats.size(); ++i) {
      out_of_log_order += replay.sent_s[i] < replay.sent_s[i - 1] ? 1U : 0U;
      if (i % kTurns == 0) continue;
      const double answered_s =
          replay.sent_s[i - 1] + static_cast<double>(replay.timing[i - 1].e2e_ms) / 1000;
      off_schedule += std::abs(replay.sent_s[i] - (answered_s + think_s)) > 1e-4 ? 1U : 0U;
    }
    CHECK(off_schedule == 0);
    CHECK(out_of_log_order > 0);  // sessions interleave: the log's order is not the send order
  }
  // The cached context is not recomputed: later turns' TTFT is shorter with it.
  ArrivalOptions loop;
  loop.concurrency = 16;
  loop.think_time_s = 0.5;
  loop.session_turns = kTurns;
  const BatchReplay reused = replay_batches(chats, batching_step(), {}, scheduler, loop);
  const BatchReplay recomputed = replay_batches(uncached, batching_step(), {}, scheduler, loop);
  double reused_ttft = 0;
  double recomputed_ttft = 0;
  for (std::size_t i = 0; i < chats.size(); ++i) {
    if (i % kTurns == 0) continue;
    reused_ttft += static_cast<double>(reused.timing[i].ttft_ms);
    recomputed_ttft += static_cast<double>(recomputed.timing[i].ttft_ms);
  }
  CHECK(reused_ttft < 0.8 * recomputed_ttft);
  CHECK(reused.totals.prompt_tokens_computed < recomputed.totals.prompt_tokens_computed);
}

}  // namespace unit_load_models
