// The workload level's per-request chain, aggregates, buckets and prefix cache.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "kspeed/engine/chain/mix.hpp"

namespace unit_mix_engine {

using namespace kspeed::engine;

namespace {

// NVIDIA's DeepSeek-R1 table and the reference request of MODEL.md section 2.
MixModel reference_model() {
  MixModel model;
  model.prefill_shares = {{4096, 0.18}, {131072, 0.85}};
  model.kernel_speedup = {2.0, Provenance::given};
  model.reference = ReferenceLatency{1024, {500.0, Provenance::workload}};
  model.tpot_ms = WithProvenance<double>{50.0, Provenance::workload};
  return model;
}

Request request(std::int64_t prompt, std::int64_t response) {
  Request r;
  r.prompt_tokens = prompt;
  r.response_tokens = response;
  return r;
}

double logistic_share(double context) {
  // MODEL.md 4: logit(p) linear in ln(L) between (4096, 0.18) and (131072, 0.85)
  const double t = (std::log(context) - std::log(4096.0)) / (std::log(131072.0) - std::log(4096.0));
  const double x = (1 - t) * std::log(0.18 / 0.82) + t * std::log(0.85 / 0.15);
  return 1 / (1 + std::exp(-x));
}

}  // namespace

TEST_CASE("the reference request reproduces MODEL.md's numbers", "[mix]") {
  MixRun run(reference_model());
  const RequestOutcome& o = run.add(request(1024, 128));
  CHECK(o.ttft_source == LatencySource::reference);
  CHECK(o.ttft_before_ms == 500.0);
  CHECK(o.prefill_share == 0.18);
  CHECK(o.ttft_after_ms == Approx(455.0));   // 500 * (0.82 + 0.09)
  CHECK(o.e2e_before_ms == Approx(6850.0));  // 500 + 127 * 50
  CHECK(o.e2e_after_ms == Approx(6805.0));
  CHECK(o.e2e_before_ms / o.e2e_after_ms == Approx(1.0066).epsilon(1e-4));
  const auto warnings = run.warnings();
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].code == WarningCode::requests_share_clamped);
  CHECK(warnings[0].number("requests") == 1);
  CHECK(warnings[0].number("edge_tokens") == 4096.0);
}

TEST_CASE("a cached prefix: share at L_eff = 2c + n, non-attention work over n only", "[mix]") {
  MixModel model = reference_model();
  Request r = request(4096, 1);
  r.cached_tokens = 3072;
  MixRun run(model);
  const RequestOutcome& o = run.add(r);
  const double share = logistic_share(2 * 3072 + 1024);
  CHECK(o.prefill_share == Approx(share).epsilon(1e-6));
  CHECK(o.cached_tokens == 3072);
  // TTFT = a n / (1 - p(L_eff)), a = (1 - 0.18) * 500 / 1024
  const double ttft = 0.82 * 500.0 / 1024.0 * 1024.0 / (1 - share);
  CHECK(o.ttft_source == LatencySource::scaled);
  CHECK(o.ttft_before_ms == Approx(ttft).epsilon(1e-6));
  CHECK(o.ttft_after_ms == Approx(ttft * ((1 - share) + share / 2)).epsilon(1e-6));
  CHECK(std::isnan(o.tpot_before_ms));  // one output token: no TPOT
  CHECK(o.e2e_before_ms == o.ttft_before_ms);
  // Uncached, the same prompt has the lower share of 4096 tokens.
  MixRun uncached(model);
  CHECK(uncached.add(request(4096, 1)).prefill_share == 0.18);
}

TEST_CASE("measured latencies are used as they are; after follows Amdahl", "[mix]") {
  MixRun run(reference_model());
  Request r = request(550, 247);
  r.ttft_ms = 730.147344;
  r.e2e_ms = 8877.620132;
  const RequestOutcome& o = run.add(r);
  CHECK(o.ttft_source == LatencySource::measured);
  CHECK(o.ttft_before_ms == 730.147344);
  CHECK(o.tpot_source == LatencySource::measured);
  // TPOT = (E2E - TTFT) / (n - 1), vLLM's definition
  CHECK(o.tpot_before_ms == Approx((8877.620132 - 730.147344) / 246));
  // Only the modelled GPU time of the prefill moves (issue 27): the reference scaled to 550
  // tokens, 500 · 550 / 1024 = 268.555 ms, 18% of it halved: 24.170 ms, not 9% of 730 ms.
  const double moved = 500.0 * 550 / 1024 * 0.18 * 0.5;
  CHECK(o.ttft_after_ms == Approx(730.147344 - moved));
  CHECK(o.e2e_after_ms == Approx(8877.620132 - moved));
}

TEST_CASE("the change on decode uses the decode share at the request's own context", "[mix]") {
  MixModel model = reference_model();
  model.phase = Phase::decode;
  model.decode_share = 0.5;
  MixRun run(model);
  const RequestOutcome& o = run.add(request(1024, 11));
  CHECK(o.ttft_after_ms == o.ttft_before_ms);
  CHECK(o.tpot_after_ms == Approx(50.0 * 0.75));
  CHECK(o.e2e_after_ms == Approx(500 + 10 * 37.5));
  model.decode_share.reset();
  MixRun without(model);
  without.add(request(1024, 11));
  const auto warnings = without.warnings();
  CHECK(std::any_of(warnings.begin(), warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::requests_decode_share_missing && w.number("requests") == 1;
  }));
}

TEST_CASE("percentiles interpolate between order statistics like numpy", "[mix]") {
  std::vector<double> values{4, 1, 3, 2};
  const Distribution d = distribution_of(values, {50, 90, 99, 0, 100});
  CHECK(d.count == 4);
  CHECK(d.mean == 2.5);
  CHECK(d.percentiles[0] == Approx(2.5));
  CHECK(d.percentiles[1] == Approx(3.7));
  CHECK(d.percentiles[2] == Approx(3.97));
  CHECK(d.percentiles[3] == 1.0);
  CHECK(d.percentiles[4] == 4.0);
  std::vector<double> one{7};
  CHECK(distribution_of(one, {99}).percentiles[0] == 7.0);
  std::vector<double> none;
  CHECK(distribution_of(none, {50}).percentiles.empty());
}

TEST_CASE("time-weighted and request-weighted speedups answer different questions", "[mix]") {
  MixRun run(reference_model());
  Request long_prompt = request(131072, 1);
  long_prompt.ttft_ms = 10000;
  Request short_prompt = request(1024, 1);
  short_prompt.ttft_ms = 100;
  run.add(long_prompt);
  run.add(short_prompt);
  const MixSummary s = summarise(run);
  const double long_after = 10000 * (0.15 + 0.425);
  const double short_after = 100 * 0.91;
  CHECK(s.time_weighted_e2e_speedup == Approx(10100 / (long_after + short_after)).epsilon(1e-6));
  CHECK(s.request_weighted_e2e_speedup == Approx((1 / 0.575 + 1 / 0.91) / 2).epsilon(1e-6));
  CHECK(s.time_weighted_e2e_speedup == Approx(1.7292).epsilon(1e-4));
  CHECK(s.request_weighted_e2e_speedup == Approx(1.4190).epsilon(1e-4));
  CHECK(s.ttft_measured == 2);
}

TEST_CASE("prompt-length buckets are log-spaced and hold only what they contain", "[mix]") {
  const std::vector<std::int64_t> edges = prompt_bucket_edges();
  CHECK(edges.front() == 0);
  CHECK(edges[1] == 1024);
  CHECK(edges.back() == 1048576);
  MixRun run(reference_model());
  for (std::int64_t prompt : {100, 1023, 1024, 5000, 5000, 200000}) run.add(request(prompt, 2));
  const MixSummary s = summarise(run);
  REQUIRE(s.buckets.size() == 4);
  CHECK(s.buckets[0].lower_tokens == 0);
  CHECK(s.buckets[0].upper_tokens == 1024);
  CHECK(s.buckets[0].requests == 2);
  CHECK(s.buckets[1].requests == 1);
  CHECK(s.buckets[2].lower_tokens == 4096);
  CHECK(s.buckets[2].requests == 2);
  CHECK(s.buckets[3].lower_tokens == 131072);
  CHECK(s.buckets[3].mean_prefill_share == Approx(0.85));
  CHECK(s.by_model.empty());
}

TEST_CASE("grouping by model when the log names models", "[mix]") {
  MixRun run(reference_model());
  Request a = request(1024, 2);
  a.model = "ChatGPT";
  Request b = request(8192, 2);
  b.model = "GPT-4";
  run.add(a);
  run.add(b);
  run.add(a);
  const MixSummary s = summarise(run);
  REQUIRE(s.by_model.size() == 2);
  CHECK(s.by_model[0].label == "ChatGPT");
  CHECK(s.by_model[0].requests == 2);
  CHECK(s.by_model[1].label == "GPT-4");
}

TEST_CASE("the LRU prefix cache reuses leading blocks and evicts the least recent", "[mix]") {
  PrefixCache cache(3 * 512);  // three blocks
  CHECK(cache.admit({1, 2}, 1024).cached_tokens == 0);
  CHECK(cache.admit({1, 2, 3}, 1500).cached_tokens == 1024);
  // A fully cached prompt still computes its last token.
  CHECK(cache.admit({1, 2, 3}, 1536).cached_tokens == 1535);
  // A different first block: no prefix reuse even though 2 and 3 are cached.
  CHECK(cache.admit({9, 2, 3}, 1536).cached_tokens == 0);
  // 9 pushed 1 out (1 was least recently used).
  CHECK(cache.admit({1}, 512).cached_tokens == 0);
  CHECK(split_prompt_by_fraction(1000, 0.5).cached_tokens == 500);
  CHECK(split_prompt_by_fraction(1000, 1.0).cached_tokens == 999);
}

TEST_CASE("a run with an LRU cache reports the hit rate and counts logs without ids", "[mix]") {
  MixModel model = reference_model();
  model.prefix_cache.mode = PrefixCacheOptions::Mode::lru;
  model.prefix_cache.capacity_tokens = 1 << 20;
  MixRun run(model);
  Request first = request(1024, 2);
  first.block_hashes = {7, 8};
  run.add(first);
  run.add(first);
  run.add(request(1024, 2));  // no ids
  const MixSummary s = summarise(run);
  CHECK(s.cache_hit_rate == Approx(1023.0 / 3072.0));
  const auto warnings = run.warnings();
  CHECK(std::any_of(warnings.begin(), warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::requests_without_block_ids && w.number("requests") == 1;
  }));
}

TEST_CASE("the histogram covers every speedup", "[mix]") {
  const std::vector<double> values{1.0, 1.1, 1.2, 2.0};
  const auto bins = histogram_of(values, 10);
  REQUIRE(bins.size() == 10);
  std::int64_t total = 0;
  for (const auto& bin : bins) total += bin.count;
  CHECK(total == 4);
  CHECK(bins.front().count == 1);
  CHECK(bins.back().count == 1);
  CHECK(histogram_of({3.0, 3.0}, 10).size() == 1);
}

TEST_CASE("a request outcome costs 80 bytes", "[mix]") {
  CHECK(sizeof(RequestOutcome) == 80);
}

TEST_CASE("a run's outcomes grow in chunks: an outcome held never moves (issue 26)", "[mix]") {
  // A vector that doubles copies every outcome at each reallocation, holding old and new at
  // once: the peak of a 10^6-request run. Chunks never move what they hold.
  MixRun run(reference_model());
  run.add(request(1024, 2));
  const RequestOutcome* first = &run.outcomes()[0];
  const std::size_t n = 3 * RequestOutcomes::kChunkOutcomes + 5;
  for (std::size_t i = 1; i < n; ++i) run.add(request(1000 + static_cast<std::int64_t>(i), 2));
  CHECK(&run.outcomes()[0] == first);
  REQUIRE(run.outcomes().size() == n);
  // Indexing and iteration agree across chunk boundaries.
  std::size_t i = 0;
  for (const RequestOutcome& outcome : run.outcomes()) {
    if (outcome.prompt_tokens != (i == 0 ? 1024 : 1000 + static_cast<std::int32_t>(i))) break;
    ++i;
  }
  CHECK(i == n);
  CHECK(run.outcomes()[RequestOutcomes::kChunkOutcomes].prompt_tokens ==
        1000 + static_cast<std::int32_t>(RequestOutcomes::kChunkOutcomes));
  CHECK(summarise(run).requests == static_cast<std::int64_t>(n));
}

TEST_CASE("the replay that frees the outcomes as it reads them replays the same requests",
          "[mix]") {
  // replay_run_releasing frees each chunk of outcomes once its requests are built (issue 26):
  // its answer must be replay_run's on a run of several chunks.
  MixModel model = reference_model();
  const std::size_t n = 2 * RequestOutcomes::kChunkOutcomes + 100;
  const auto build = [&model] {  // n: a constant, read without a capture
    MixRun run(model);
    for (std::size_t i = 0; i < n; ++i) {
      Request r = request(200 + static_cast<std::int64_t>(i % 13) * 50,
                          3 + static_cast<std::int64_t>(i % 5));
      r.arrival_s = 0.01 * static_cast<double>(i);
      run.add(r);
    }
    return run;
  };
  ServingSetup setup;
  setup.step.fixed_ms = 2;
  setup.step.weights_ms = 1;
  setup.step.ms_per_token = 0.01;
  setup.speedup = attention_speedup(model);
  const MixRun kept = build();
  MixRun released = build();
  const MixReplay a = replay_run(kept, setup);
  const MixReplay b = replay_run_releasing(released, setup);
  CHECK(released.outcomes().empty());
  REQUIRE(a.requests == static_cast<std::int64_t>(n));
  CHECK(b.requests == a.requests);
  CHECK(b.serving.before.ttft_ms.mean == a.serving.before.ttft_ms.mean);
  CHECK(b.serving.after.ttft_ms.percentiles == a.serving.after.ttft_ms.percentiles);
  CHECK(b.serving.after.e2e_ms.percentiles == a.serving.after.e2e_ms.percentiles);
  CHECK(b.serving.before.achieved_rate_per_s == a.serving.before.achieved_rate_per_s);
}

TEST_CASE("clamped shares are warned about per side of the table", "[mix]") {
  MixRun run(reference_model());
  run.add(request(1024, 2));
  run.add(request(200000, 2));
  run.add(request(300000, 2));
  run.add(request(8192, 2));  // interpolated: no warning
  const auto warnings = run.warnings();
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].number("requests") == 1);
  CHECK(warnings[0].number("edge_tokens") == 4096.0);
  CHECK(warnings[1].number("requests") == 2);
  CHECK(warnings[1].number("edge_tokens") == 131072.0);
}

}  // namespace unit_mix_engine
