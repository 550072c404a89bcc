// What `kspeed mix`, `validate` and `--calibrate` read, audit, diff and plan read too, or refuse
// saying what the file lacks (issue 30): inference-perf lifecycle metrics, AccelMark result.json
// (one run per load level), InferenceX's per-request trace-replay CSV and LLMServingSim's
// records as per-request runs, and traffic-only request logs refused. Each expected value was
// computed from the file apart from kspeed (Python's json and csv modules).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"

namespace unit_reader_registry {

using namespace kspeed;
using engine::LatencyMetric;
using engine::LatencyStatistic;

namespace {

std::string registry_data(const std::string& name) {
  const char* env = std::getenv("KSPEED_SHARED_DATA");
  return (env ? std::string(env) : std::string(KSPEED_SOURCE_DIR) + "/../shared/data") + "/" + name;
}

bool registry_present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
  return false;
}

std::optional<double> registry_stated(const io::BenchResult& result, LatencyMetric metric,
                                      LatencyStatistic statistic) {
  return result.latencies.stated.at(static_cast<std::size_t>(metric))
      .at(static_cast<std::size_t>(statistic));
}

std::string condition_value(const io::BenchResult& result, const std::string& key) {
  for (const auto& entry : result.conditions.conditions) {
    if (entry.key == key && entry.status == engine::ConditionStatus::stated) return entry.value;
  }
  return "";
}

}  // namespace

TEST_CASE("readers: inference-perf lifecycle metrics are a run audit, diff and plan read",
          "[audit][readers]") {
  const std::string path = registry_data(
      "serving/inferenceperf-h100-llama31-8b-vllm0.11/stage_0_lifecycle_metrics.json");
  if (!registry_present(path)) return;
  const auto results = io::read_bench_results(path);
  REQUIRE(results.size() == 1);
  const io::BenchResult& r = results.front();
  CHECK(r.format == "inference-perf-lifecycle");
  CHECK(r.latencies.requests == 60);
  // seconds in the file: time_to_first_token mean 0.031127 s, p99 0.039697 s; request_latency
  // median 0.479609 s
  CHECK(*registry_stated(r, LatencyMetric::ttft, LatencyStatistic::mean) ==
        Approx(31.12733216).epsilon(1e-9));
  CHECK(*registry_stated(r, LatencyMetric::ttft, LatencyStatistic::p99) ==
        Approx(39.69692797).epsilon(1e-9));
  CHECK(*registry_stated(r, LatencyMetric::e2e, LatencyStatistic::p50) ==
        Approx(479.60949445).epsilon(1e-9));
  CHECK(condition_value(r, "concurrency").find("constant 1.0") == 0);  // requested_rate 1.0
}

TEST_CASE("readers: an AccelMark result.json is one run per load level, named so",
          "[audit][readers]") {
  const std::string path =
      registry_data("serving/accelmark-h100-llama3-8b-vllm0.7.3/result/online/result.json");
  if (!registry_present(path)) return;
  const auto results = io::read_bench_results(path);
  REQUIRE(results.size() == 3);  // metrics.online.results_by_qps: 5, ... req/s
  const io::BenchResult& first = results.front();
  CHECK(first.source == path + ":metrics.online.results_by_qps[0]");
  CHECK(first.format == "accelmark-result");
  CHECK(*registry_stated(first, LatencyMetric::ttft, LatencyStatistic::p50) == 26.79);
  CHECK(*registry_stated(first, LatencyMetric::ttft, LatencyStatistic::p99) == 42.46);
  CHECK(*registry_stated(first, LatencyMetric::tpot, LatencyStatistic::p50) == 9.52);
  CHECK_FALSE(registry_stated(first, LatencyMetric::ttft, LatencyStatistic::mean).has_value());
  CHECK(condition_value(first, "model") == "meta-llama/Meta-Llama-3-8B-Instruct");
  CHECK(condition_value(first, "hardware") == "1 × NVIDIA H100 80GB HBM3");
  CHECK(condition_value(first, "engine") == "vLLM 0.7.3");
  CHECK(condition_value(first, "concurrency").find("Poisson 5 req/s") == 0);
  // A scenario with no latency levels (burst) is refused, naming what is missing
  const std::string burst =
      registry_data("serving/accelmark-h100-llama3-8b-vllm0.7.3/result/burst/result.json");
  CHECK_THROWS_WITH(io::read_bench_results(burst),
                    Catch::Contains("neither metrics.interactive nor metrics.online"));
}

TEST_CASE("readers: per-request logs mix reads are runs when they carry latencies",
          "[audit][readers]") {
  const std::string inferencex =
      registry_data("workloads/inferencex-dsr1fp4-b200-trace-replay.csv");
  if (!registry_present(inferencex)) return;
  const auto replay = io::read_bench_results(inferencex);
  REQUIRE(replay.size() == 1);
  CHECK(replay.front().format == "trace-replay");
  CHECK(replay.front().latencies.per_request);
  CHECK(replay.front().latencies.samples[0].size() == 45);  // 45 successful requests' TTFT
  // the median of the 45 ttft values (seconds) is 0.772210598 s
  CHECK(*registry_stated(replay.front(), LatencyMetric::ttft, LatencyStatistic::p50) ==
        Approx(772.2105979919).epsilon(1e-9));

  const std::string sim = registry_data(
      "serving/llmservingsim-vllm0.19-per-request/RTX4090_Llama-3.1-8B/requests.jsonl");
  const auto simulated = io::read_bench_results(sim);
  REQUIRE(simulated.size() == 1);
  CHECK(simulated.front().latencies.requests == 300);
  CHECK(simulated.front().latencies.samples[0].size() == 300);

  // Traffic only (arrivals and token counts): refused, saying what audit, diff and plan need
  const std::string azure = registry_data("workloads/azure-2023-conv.csv");
  CHECK_THROWS_WITH(io::read_bench_results(azure),
                    Catch::Contains("no measured latency") && Catch::Contains("kspeed mix"));
}

}  // namespace unit_reader_registry
