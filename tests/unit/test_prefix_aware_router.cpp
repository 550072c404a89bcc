// Per-replica prefix caches and the prefix-aware router (issue 26): the router's rule on caches
// filled by hand, then a four-request replay where round robin and least outstanding send each
// conversation's second turn to the replica that never saw its first, and prefix-aware does not.
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"
#include "kspeed/engine/serving/prefix_aware_router.hpp"
#include "kspeed/engine/serving/replica_caches.hpp"

namespace unit_prefix_aware_router {

using namespace kspeed::engine;

namespace {

// Blocks 1..n of conversation `base` (ids base+1 .. base+n).
std::vector<std::uint64_t> conversation_blocks(std::uint64_t base, std::uint64_t n) {
  std::vector<std::uint64_t> ids;
  for (std::uint64_t i = 1; i <= n; ++i) ids.push_back(base + i);
  return ids;
}

// One step: 1 ms plus 0.01 ms a token computed; nothing else costs.
StepModel token_priced_step() {
  StepModel step;
  step.fixed_ms = 1;
  step.weights_ms = 0;
  step.ms_per_token = 0.01;
  step.ms_per_prefill_pair = 0;
  step.ms_per_kv_token = 0;
  return step;
}

}  // namespace

TEST_CASE("block ids: a side store that holds nothing for requests without ids",
          "[prefix_aware_router]") {
  RequestBlockIds none;
  none.add({});
  none.add({});
  CHECK_FALSE(none.any());
  CHECK(none.requests() == 2);
  CHECK(none.bytes() == 0);
  CHECK(none.of(1).empty());

  RequestBlockIds some;
  some.add({});
  const std::vector<std::uint64_t> ids{7, 8, 9};
  some.add(ids);
  some.add({});
  CHECK(some.any());
  CHECK(some.requests() == 3);
  CHECK(some.of(0).empty());
  REQUIRE(some.of(1).size() == 3);
  CHECK(some.of(1)[2] == 9);
  CHECK(some.of(2).empty());
}

TEST_CASE("prefix-aware router: the longest cached prefix, unless it is short or loads diverge",
          "[prefix_aware_router]") {
  ReplayPrefixCaching caching;
  caching.capacity_tokens = 1 << 20;
  caching.blocks.add(conversation_blocks(100, 4));   // 0: conversation 100, first turn
  caching.blocks.add(conversation_blocks(200, 2));   // 1: conversation 200, first turn
  caching.blocks.add(conversation_blocks(100, 6));   // 2: conversation 100, next turn
  caching.blocks.add(conversation_blocks(300, 3));   // 3: nobody has it
  caching.blocks.add({});                            // 4: no ids
  caching.blocks.add(conversation_blocks(100, 20));  // 5: conversation 100, much later
  ReplicaPrefixCaches caches(caching, 3);
  (void)caches.admit(1, 0, 2048);  // replica 1 holds conversation 100's 4 blocks
  (void)caches.admit(2, 1, 1024);  // replica 2 holds conversation 200's 2 blocks
  CHECK(caches.cached_blocks(1, 2) == 4);
  CHECK(caches.cached_blocks(0, 2) == 0);

  PrefixAwareRouter router(3, &caches, &caching.blocks);
  router.outstanding_changed(0, 0);
  router.outstanding_changed(1, 9);  // the busiest holds the prefix: it still wins
  router.outstanding_changed(2, 3);
  CHECK(router.route(2) == 1);  // 4 of its 6 blocks: a match of 0.67 >= 0.3
  // 4 of 20 blocks (0.2) is below the cache threshold: the least outstanding instead.
  CHECK(router.route(5) == 0);
  // No replica holds any of request 3's blocks: the least outstanding, replica 0.
  CHECK(router.route(3) == 0);
  CHECK(router.route(4) == 0);
  // Equal load and no hit: the lowest index.
  router.outstanding_changed(0, 3);
  CHECK(router.route(3) == 0);
  router.outstanding_changed(0, 4);
  CHECK(router.route(3) == 2);

  // Loads 4, 100, 3: 100 - 3 > 64 and 100 > 1.5 × 3, imbalanced: the least outstanding.
  router.outstanding_changed(1, 100);
  CHECK(router.route(2) == 2);
  // 60 - 3 is within 64: balanced again, the cache wins.
  router.outstanding_changed(1, 60);
  CHECK(router.route(2) == 1);

  // Placing request 2 on replica 1 reuses its 4 blocks (2048 tokens) and adds 2 more.
  const CacheSplit split = caches.admit(1, 2, 3000);
  CHECK(split.cached_tokens == 2048);
  CHECK(caches.cached_blocks(1, 2) == 6);

  // Without caches it is least outstanding.
  PrefixAwareRouter blind(2, nullptr, nullptr);
  blind.outstanding_changed(0, 2);
  CHECK(blind.route(0) == 1);
}

TEST_CASE("per-replica caches: prefix-aware keeps each conversation on its replica",
          "[prefix_aware_router][batch_replay]") {
  // Two conversations of 4 blocks (2,048 tokens) at 0 s, then each one's next turn at 1 s with
  // a fifth block (2,560 tokens), conversation B's first. Every request is done long before 1 s.
  const std::vector<ReplayRequest> log{
      {0.0, 2048, 1, 0}, {0.0, 2048, 1, 0}, {1.0, 2560, 1, 0}, {1.0, 2560, 1, 0}};
  auto caching = std::make_shared<ReplayPrefixCaching>();
  caching->capacity_tokens = 1 << 20;
  caching->blocks.add(conversation_blocks(100, 4));  // A
  caching->blocks.add(conversation_blocks(200, 4));  // B
  caching->blocks.add(conversation_blocks(200, 5));  // B, next turn
  caching->blocks.add(conversation_blocks(100, 5));  // A, next turn
  ArrivalOptions arrivals;
  arrivals.replicas = 2;
  arrivals.prefix_caching = caching;
  const StepModel step = token_priced_step();
  const SchedulerOptions scheduler;

  // Round robin: 0, 1, 0, 1 — B's turn lands on A's replica and A's on B's: nothing cached.
  arrivals.routing = Routing::round_robin;
  const BatchReplay rr = replay_batches(log, step, {}, scheduler, arrivals);
  CHECK(rr.totals.per_replica_caches);
  CHECK(rr.totals.placed_cached_tokens == 0);
  CHECK(rr.totals.cache_hit_rate() == 0.0);
  // The whole prompt computed: 1 + 0.01 × 2,560 = 26.6 ms.
  CHECK(rr.timing[2].ttft_ms == Approx(26.6));

  // Least outstanding: both replicas idle at 1 s, so B's turn goes to replica 0 (A's) and A's
  // to replica 1 (B's): nothing cached either.
  arrivals.routing = Routing::least_outstanding;
  const BatchReplay lo = replay_batches(log, step, {}, scheduler, arrivals);
  CHECK(lo.totals.placed_cached_tokens == 0);

  // Prefix-aware: each turn on the replica holding its conversation, 4 blocks cached each:
  // hit rate (2,048 + 2,048) / (2,048 + 2,048 + 2,560 + 2,560) = 4,096 / 9,216.
  arrivals.routing = Routing::prefix_aware;
  const BatchReplay pa = replay_batches(log, step, {}, scheduler, arrivals);
  CHECK(pa.timing[0].replica == 0);
  CHECK(pa.timing[1].replica == 1);
  CHECK(pa.timing[2].replica == 1);
  CHECK(pa.timing[3].replica == 0);
  CHECK(pa.totals.placed_cached_tokens == 4096);
  CHECK(pa.totals.cache_hit_rate() == Approx(4096.0 / 9216.0));
  // Only the 512 new tokens computed: 1 + 0.01 × 512 = 6.12 ms.
  CHECK(pa.timing[2].ttft_ms == Approx(6.12));
  CHECK(pa.timing[3].ttft_ms == Approx(6.12));
}

TEST_CASE("one replica keeps the requests' own cached prefix (the one cache, as before)",
          "[prefix_aware_router][batch_replay]") {
  const std::vector<ReplayRequest> log{{0.0, 2048, 1, 0}, {1.0, 2560, 1, 1000}};
  auto caching = std::make_shared<ReplayPrefixCaching>();
  caching->capacity_tokens = 1 << 20;
  caching->blocks.add(conversation_blocks(100, 4));
  caching->blocks.add(conversation_blocks(100, 5));
  ArrivalOptions arrivals;
  arrivals.prefix_caching = caching;
  const BatchReplay one =
      replay_batches(log, token_priced_step(), {}, SchedulerOptions{}, arrivals);
  CHECK_FALSE(one.totals.per_replica_caches);
  // 1,000 cached (the request's own), not 2,048: 1 + 0.01 × 1,560 = 16.6 ms.
  CHECK(one.timing[1].ttft_ms == Approx(16.6));
}

}  // namespace unit_prefix_aware_router
