// sglang.bench_serving --output-file JSONL as load levels (src/io/serving/sglang_bench.cpp): the
// rate and arrivals each line states, its length ranges, and the split of one file into runs by
// the settings its lines share.
#include <catch2/catch.hpp>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace unit_sglang_bench {

using namespace kspeed;

namespace {

// One line as bench_serving writes it (fields trimmed to those read, plus one it does not use).
std::string sglang_line(const std::string& dataset, const std::string& rate, int input, int output,
                        double ratio, int completed, double ttft, double itl) {
  return "{\"backend\": \"sglang\", \"dataset_name\": \"" + dataset +
         "\", \"request_rate\": " + rate +
         ", \"max_concurrency\": null, \"random_input_len\": " + std::to_string(input) +
         ", \"random_output_len\": " + std::to_string(output) +
         ", \"random_range_ratio\": " + std::to_string(ratio) +
         ", \"completed\": " + std::to_string(completed) +
         ", \"duration\": 300.0, \"total_input_tokens\": " + std::to_string(completed * 500) +
         ", \"total_output_tokens\": " + std::to_string(completed * 400) +
         ", \"median_ttft_ms\": " + std::to_string(ttft) +
         ", \"median_itl_ms\": " + std::to_string(itl) +
         ", \"mean_e2e_latency_ms\": 7840.6, \"output_throughput\": 537.4}\n";
}

}  // namespace

TEST_CASE("sglang.bench_serving: a level a line, Poisson at its rate, random lengths' range",
          "[sglang_bench]") {
  const std::string text = sglang_line("random", "1.0", 1024, 1024, 0.0, 300, 85.7, 13.6);
  REQUIRE(io::looks_like_sglang_bench_serving(text));
  const std::vector<io::MeasuredRun> runs = io::parse_sglang_bench_serving(text, "a.jsonl");
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].loads.size() == 1);
  const io::MeasuredLoad& level = runs[0].loads[0];
  CHECK(level.label == "Poisson 1 req/s");
  CHECK(level.arrivals == io::ArrivalPattern::poisson);
  CHECK(*level.rate_per_s == 1.0);
  CHECK(level.requests == 300);
  CHECK(*level.achieved_rate_per_s == Approx(1.0));  // 300 completed in 300 s
  CHECK(*level.prompt_tokens_mean == Approx(500));
  CHECK(*level.output_tokens_mean == Approx(400));
  // range ratio 0: numpy's randint(max(int(1024 * 0), 1), 1024 + 1)
  REQUIRE(level.prompt_uniform);
  CHECK(level.prompt_uniform->low == 1);
  CHECK(level.prompt_uniform->high == 1024);
  CHECK(*level.ttft.p50_ms == Approx(85.7));
  CHECK(*level.e2e.mean_ms == Approx(7840.6));
  // No per-request TPOT in the line: the per-token figure is the ITL median, said so.
  CHECK(level.tpot_is_itl);
  CHECK(*level.tpot.p50_ms == Approx(13.6));
  // range ratio 0.5 of 4096: 2048..4096
  const std::vector<io::MeasuredRun> half = io::parse_sglang_bench_serving(
      sglang_line("random", "2", 4096, 256, 0.5, 10, 1, 1), "b.jsonl");
  CHECK(half[0].loads[0].prompt_uniform->low == 2048);
  CHECK(half[0].loads[0].output_uniform->low == 128);
  CHECK(half[0].loads[0].output_uniform->high == 256);
  CHECK_FALSE(level.max_inflight);  // max_concurrency null: no cap
  // --max-concurrency 64 with a rate: an open loop capped at 64 in flight, its own run.
  std::string capped = sglang_line("random", "8", 1024, 1024, 0, 100, 1, 1);
  const std::string no_cap = "\"max_concurrency\": null";
  capped.replace(capped.find(no_cap), no_cap.size(), "\"max_concurrency\": 64");
  const std::vector<io::MeasuredRun> cap_runs =
      io::parse_sglang_bench_serving(text + capped, "g.jsonl");
  REQUIRE(cap_runs.size() == 2);
  CHECK(cap_runs[1].name == "random 1024/1024 range ratio 0, at most 64 in flight");
  CHECK(*cap_runs[1].loads[0].max_inflight == 64);
  CHECK(cap_runs[1].loads[0].label == "Poisson 8 req/s, at most 64 in flight");
}

TEST_CASE("sglang.bench_serving: lines split into runs by the settings they share, by rate",
          "[sglang_bench]") {
  // Appended as run: random at 4, 1, 2 req/s, then ShareGPT at 4 and 8, then an offline line
  // (request_rate Infinity, as Python's json writes it).
  const std::string text = sglang_line("random", "4.0", 1024, 1024, 0, 1200, 106, 19.4) +
                           sglang_line("random", "1.0", 1024, 1024, 0, 300, 85.7, 13.6) +
                           sglang_line("random", "2.0", 1024, 1024, 0, 600, 87.6, 14.8) +
                           sglang_line("sharegpt", "4.0", 1024, 1024, 0, 1200, 68, 13.8) +
                           sglang_line("sharegpt", "8.0", 1024, 1024, 0, 2400, 83, 17.7) +
                           sglang_line("random", "Infinity", 256, 512, 0, 6000, 33223, 187);
  const std::vector<io::MeasuredRun> runs = io::parse_sglang_bench_serving(text, "c.jsonl");
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].name == "random 1024/1024 range ratio 0");
  REQUIRE(runs[0].loads.size() == 3);
  CHECK(*runs[0].loads[0].rate_per_s == 1.0);  // the lightest first, whatever the file's order
  CHECK(*runs[0].loads[1].rate_per_s == 2.0);
  CHECK(*runs[0].loads[2].rate_per_s == 4.0);
  CHECK(runs[1].name == "sharegpt lengths as sent (means from the totals)");
  REQUIRE(runs[1].loads.size() == 2);
  CHECK_FALSE(runs[1].loads[0].prompt_uniform);  // ShareGPT's lengths are not in the file
  CHECK(runs[2].name == "random 256/512 range ratio 0");
  CHECK(runs[2].loads[0].arrivals == io::ArrivalPattern::all_at_once);
  CHECK_FALSE(runs[2].loads[0].rate_per_s);
  CHECK(runs[2].loads[0].label == "all at once");
}

TEST_CASE("sglang.bench_serving: a line without what the replay needs is named", "[sglang_bench]") {
  CHECK_THROWS_WITH(
      io::parse_sglang_bench_serving("{\"backend\": \"sglang\", \"dataset_name\": \"random\", "
                                     "\"request_rate\": 1.0, \"duration\": 3}\n",
                                     "d.jsonl"),
      Catch::Contains("d.jsonl:1: completed is missing"));
  CHECK_THROWS_WITH(io::parse_sglang_bench_serving("\n{\"backend\": \"sglang\", "
                                                   "\"dataset_name\": \"random\", "
                                                   "\"request_rate\": 0, \"completed\": 3}\n",
                                                   "e.jsonl"),
                    Catch::Contains("e.jsonl:2: request_rate is missing or not positive"));
  CHECK_THROWS_AS(io::parse_sglang_bench_serving("not json\n", "f.jsonl"), InputError);
  CHECK_FALSE(io::looks_like_sglang_bench_serving("{\"load_summary\": {}}"));
}

}  // namespace unit_sglang_bench
