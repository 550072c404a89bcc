// AIPerf 0.10+ aggregate JSON (schema 1.x, ai-dynamo/aiperf docs/reference/json-export-schema.md):
// inter_chunk_latency read as ITL, and the warm-up its input_config states.
#include <catch2/catch.hpp>
#include <string>

#include "kspeed/io/bench_result.hpp"

namespace unit_aiperf_aggregate {

using namespace kspeed;

namespace {

// A schema 1.3 export with the fields the readers use; figures in ms.
std::string aiperf_export(const std::string& loadgen) {
  return R"({"schema_version": "1.3", "aiperf_version": "0.10.0",
    "time_to_first_token": {"unit": "ms", "avg": 245.5, "p50": 240.1, "p99": 301.7, "count": 20},
    "inter_token_latency": {"unit": "ms", "avg": 9.85, "p50": 9.81, "p99": 10.42, "count": 20},
    "inter_chunk_latency": {"unit": "ns", "avg": 9700000, "p50": 9600000, "p99": 15000000,
                            "count": 4800},
    "request_latency": {"unit": "ms", "avg": 2620.71, "p50": 2568.73, "p99": 3371.24, "count": 20},
    "input_config": {"endpoint": {"model_names": ["openai/gpt-oss-20b"], "streaming": true},
                     "loadgen": )" +
         loadgen + "}}";
}

const engine::ConditionEntry& condition(const io::BenchResult& result, const std::string& key) {
  for (const engine::ConditionEntry& entry : result.conditions.conditions) {
    if (entry.key == key) return entry;
  }
  FAIL("no condition " << key);
  throw;
}

}  // namespace

TEST_CASE("AIPerf 1.x: inter_chunk_latency is ITL, its count is not the requests",
          "[verify][aiperf]") {
  const io::BenchResult result =
      io::parse_bench_results(aiperf_export(R"({"concurrency": 4})"), "a.json").at(0);
  const auto itl = static_cast<std::size_t>(engine::LatencyMetric::itl);
  CHECK(*result.latencies.stated.at(itl).at(0) == Approx(9.7));  // 9,700,000 ns
  CHECK(*result.latencies.stated.at(itl).at(1) == Approx(9.6));
  CHECK(*result.latencies.stated.at(itl).at(2) == Approx(15.0));
  CHECK(result.latencies.requests == 20);
  CHECK(condition(result, "metric_definitions").missing ==
        "whether TTFT includes queueing; warm-up");
}

TEST_CASE("AIPerf 1.x: model, concurrency and warm-up stated", "[verify][aiperf]") {
  const io::BenchResult result =
      io::parse_bench_results(aiperf_export(R"({"concurrency": 4, "warmup_request_count": 10})"),
                              "a.json")
          .at(0);
  CHECK(condition(result, "model").status == engine::ConditionStatus::stated);
  CHECK(condition(result, "model").value == "openai/gpt-oss-20b");
  CHECK(condition(result, "concurrency").status == engine::ConditionStatus::stated);
  CHECK(condition(result, "concurrency").value == "max concurrency 4");
  CHECK(condition(result, "metric_definitions").value == "streaming true, warm-up 10 requests");
  CHECK(condition(result, "metric_definitions").missing == "whether TTFT includes queueing");
}

}  // namespace unit_aiperf_aggregate
