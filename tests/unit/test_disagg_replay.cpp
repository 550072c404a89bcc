// Prefill/decode disaggregation: one request's path through both pools worked out by hand
// (docs/mix.md shows the same computation), then the pools' utilisation and a queue.
#include <catch2/catch.hpp>
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

}  // namespace unit_disagg_replay
