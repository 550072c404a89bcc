// Prefill/decode disaggregation: one request's path through both pools worked out by hand
// (docs/mix.md shows the same computation), then the pools' utilisation and a queue.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "kspeed/engine/serving/disagg_replay.hpp"

namespace unit_disagg_replay {

using namespace kspeed::engine;

namespace {

// Prefill pool: 10 ms a step plus 0.01 ms a token; decode pool: 5 ms a step plus 0.01 ms a
// token. Llama-3.1-8B's KV: 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes =
// 131,072 bytes a token. The link: 1 ms and 10^9 bytes/s.
DisaggSetup hand_setup() {
  DisaggSetup setup;
  setup.prefill.step.fixed_ms = 10;
  setup.prefill.step.ms_per_token = 0.01;
  setup.decode.step.fixed_ms = 5;
  setup.decode.step.ms_per_token = 0.01;
  setup.link = {0.001, 1e9};
  setup.kv_bytes_per_token = 131072;
  return setup;
}

}  // namespace

TEST_CASE("one request's path through a prefill pool, a link and a decode pool", "[disagg]") {
  // Prompt 1,000 tokens, 4 output tokens, arriving at 0.
  //   prefill: one step of 1,000 tokens = 10 + 0.01 · 1000 = 20 ms      t_p = 20 ms
  //   KV: 1,000 · 131,072 B = 131.072 MB over 10^9 B/s = 131.072 ms, + 1 ms   t_x = 132.072 ms
  //   decode: arrives at 152.072 ms; its first step computes the prompt's last token and
  //   samples the first output token: 5 + 0.01 = 5.01 ms; three decode steps of 5.01 ms each
  //   TTFT = 20 + 132.072 + 5.01 = 157.082 ms; E2E = 157.082 + 3 · 5.01 = 172.112 ms
  const DisaggSetup setup = hand_setup();
  CHECK(kv_transfer_ms(setup, 1000) == Approx(132.072));
  const DisaggReplay replay = replay_disaggregated({{0, 1000, 4, 0}}, setup, {});
  REQUIRE(replay.timing.size() == 1);
  CHECK(replay.prefill_ms[0] == Approx(20));
  CHECK(replay.transfer_ms[0] == Approx(132.072));
  CHECK(replay.timing[0].ttft_ms == Approx(157.082));
  CHECK(replay.timing[0].e2e_ms == Approx(172.112));
  CHECK(replay.timing[0].tpot_ms == Approx(5.01));
  CHECK(replay.prefill.totals.steps == 1);
  CHECK(replay.decode.totals.steps == 4);
  // Each pool was busy for its whole span: utilisation 1.
  CHECK(replay.prefill.utilisation == Approx(1.0));
  CHECK(replay.decode.utilisation == Approx(1.0));
}

TEST_CASE("a second prompt queues at the prefill pool, not behind the decodes", "[disagg]") {
  // Two 1,000-token prompts at 0, a prefill pool of one request at a time (max_seqs 1): the
  // second waits for the first's 20 ms step and takes the next, so t_p = 20 and 40 ms. Both KV
  // transfers take 132.072 ms; the decode pool (2 replicas, round robin) takes each on its
  // own replica.
  DisaggSetup setup = hand_setup();
  setup.prefill.scheduler.max_seqs = 1;
  setup.decode.replicas = 2;
  const DisaggReplay replay = replay_disaggregated({{0, 1000, 4, 0}, {0, 1000, 4, 0}}, setup, {});
  CHECK(replay.prefill_ms[0] == Approx(20));
  CHECK(replay.prefill_ms[1] == Approx(40));
  CHECK(replay.timing[1].queue_ms == Approx(20));
  CHECK(replay.timing[1].ttft_ms == Approx(40 + 132.072 + 5.01));
  CHECK(replay.timing[0].replica != replay.timing[1].replica);
  // The decode pool: 2 replicas each busy 20.04 ms over a span of 40.04 ms (152.072 to 192.112).
  CHECK(replay.decode.utilisation == Approx(2 * 20.04 / (2 * 40.04)).epsilon(1e-6));
}

TEST_CASE("a closed loop of one client through both pools sends each request as the last ends",
          "[disagg]") {
  // One client (vllm bench serve --max-concurrency 1), three requests of the hand computation:
  // each alone, E2E 172.112 ms, so they are sent at 0, 172.112 and 344.224 ms. The fixed point
  // takes three replays: the first knows only request 0's send, the second two, the third all
  // three and reproduces its sends.
  DisaggSetup setup = hand_setup();
  setup.concurrency = 1;
  const std::vector<ReplayRequest> log = {{5, 1000, 4, 0}, {6, 1000, 4, 0}, {7, 1000, 4, 0}};
  const DisaggReplay replay = replay_disaggregated(log, setup, {});
  REQUIRE(replay.send_s.size() == 3);
  CHECK(replay.send_s[0] == 0.0);
  CHECK(replay.send_s[1] == Approx(0.172112));
  CHECK(replay.send_s[2] == Approx(0.344224));
  for (const RequestTiming& t : replay.timing) {
    CHECK(t.ttft_ms == Approx(157.082));
    CHECK(t.e2e_ms == Approx(172.112));
  }
  CHECK(replay.closed_loop_rounds == 3);
  // Think time: the client waits 1 s after each response.
  setup.think_time_s = 1.0;
  const DisaggReplay thinking = replay_disaggregated(log, setup, {});
  CHECK(thinking.send_s[2] == Approx(2 * (0.172112 + 1.0)));
}

TEST_CASE("the closed loop's answer is an open-loop replay at its own sends", "[disagg]") {
  // Two clients, eight requests that contend: a prefill pool of one request at a time and one
  // decode replica. The settled sends replayed open loop give the same latencies (the fixed
  // point), each client's sends follow its previous request's end, and two clients keep two
  // requests in flight: the sum of E2E equals 2 × the span when sends are back to back.
  DisaggSetup setup = hand_setup();
  setup.prefill.scheduler.max_seqs = 1;
  setup.concurrency = 2;
  std::vector<ReplayRequest> log;
  for (int i = 0; i < 8; ++i) log.push_back({0, 500 + 100 * i, 3 + i, 0});
  const DisaggReplay closed = replay_disaggregated(log, setup, {});
  REQUIRE(closed.send_s.size() == log.size());
  CHECK(closed.send_s[0] == 0.0);
  CHECK(closed.send_s[1] == 0.0);
  CHECK(closed.closed_loop_rounds >= 4);  // at least one round a pair of sends, and a check
  CHECK(closed.closed_loop_rounds <= disagg_closed_loop_round_cap(8, 2));
  std::vector<ReplayRequest> at_sends = log;
  for (std::size_t i = 0; i < log.size(); ++i) at_sends[i].arrival_s = closed.send_s[i];
  DisaggSetup open = setup;
  open.concurrency = 0;
  const DisaggReplay replayed = replay_disaggregated(at_sends, open, {});
  double e2e_sum_s = 0;
  double last_end_s = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    CHECK(replayed.timing[i].ttft_ms == closed.timing[i].ttft_ms);
    CHECK(replayed.timing[i].e2e_ms == closed.timing[i].e2e_ms);
    e2e_sum_s += static_cast<double>(closed.timing[i].e2e_ms) / 1000.0;
    last_end_s = std::max(last_end_s,
                          closed.send_s[i] + static_cast<double>(closed.timing[i].e2e_ms) / 1000.0);
  }
  // Request 2 is sent when the first of requests 0 and 1 ends.
  CHECK(closed.send_s[2] ==
        Approx(static_cast<double>(std::min(closed.timing[0].e2e_ms, closed.timing[1].e2e_ms)) /
               1000.0));
  // Little's law with no think time and no idle client: in flight = 2 until the last sends.
  const double first_idle_s = closed.send_s.back();
  CHECK(e2e_sum_s <= 2 * last_end_s + 1e-9);
  CHECK(e2e_sum_s >= 2 * first_idle_s);
}

}  // namespace unit_disagg_replay
