// vllm bench serve --save-result JSONs as load levels (src/io/serving/vllm_bench.cpp): a file a
// level, its arrivals (all at once under a concurrency cap, or Poisson at a rate), the units of
// its statistics (vLLM's "_ms" keys, or seconds in forks that drop the suffix), and a folder's
// files grouped into runs by what they share, lightest first.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace unit_vllm_bench {

using namespace kspeed;

namespace {

// vLLM's own keys (ms), trimmed to those read plus one it does not use.
std::string vllm_ms_result(const std::string& rate, const std::string& cap, int completed) {
  return "{\"backend\": \"vllm\", \"model_id\": \"m\", \"request_rate\": " + rate +
         ", \"burstiness\": 1.0, \"max_concurrency\": " + cap +
         ", \"duration\": 20.0, \"completed\": " + std::to_string(completed) +
         ", \"total_input_tokens\": " + std::to_string(completed * 1000) +
         ", \"total_output_tokens\": " + std::to_string(completed * 100) +
         ", \"mean_ttft_ms\": 120.5, \"median_ttft_ms\": 110.0, \"p99_ttft_ms\": 300.0"
         ", \"mean_tpot_ms\": 12.0, \"median_tpot_ms\": 11.5, \"p99_tpot_ms\": 15.0"
         ", \"median_itl_ms\": 11.0, \"mean_e2el_ms\": 1300.0, \"p99_e2el_ms\": 1700.0"
         ", \"output_throughput\": 500.0}";
}

// InferenceX's benchmark_serving_random.py: the same statistics in seconds, no "_ms".
std::string vllm_seconds_result(int cap, double ttft_s, double tpot_s) {
  return "{\"model_id\": \"MiniMaxAI/MiniMax-M2.5\", \"num_prompts\": " + std::to_string(cap * 10) +
         ", \"request_rate\": \"inf\", \"burstiness\": 1.0, " +
         "\"max_concurrency\": " + std::to_string(cap) + ", \"duration\": 26.8, " +
         "\"completed\": " + std::to_string(cap * 10) +
         ", \"total_input_tokens\": " + std::to_string(cap * 10 * 1024) +
         ", \"total_output_tokens\": " + std::to_string(cap * 10 * 128) +
         ", \"median_ttft\": " + std::to_string(ttft_s) +
         ", \"p99_ttft\": 0.9763, \"median_e2el\": 2.6508, \"p99_e2el\": 2.9383, " +
         "\"median_tpot\": " + std::to_string(tpot_s) + ", \"p99_tpot\": 0.017348}";
}

}  // namespace

TEST_CASE("vllm bench serve: a result is a level, its arrivals and statistics as stated",
          "[vllm_bench]") {
  const std::string capped = vllm_ms_result("\"inf\"", "16", 160);
  REQUIRE(io::looks_like_vllm_bench_result(capped));
  const io::VllmBenchLevel level = io::parse_vllm_bench_result(capped, "c16.json");
  CHECK(level.load.arrivals == io::ArrivalPattern::all_at_once);
  CHECK(*level.load.max_inflight == 16);
  CHECK(level.load.label == "concurrency 16");
  CHECK(level.sort_value == 16);
  CHECK(level.load.requests == 160);
  CHECK(*level.load.achieved_rate_per_s == Approx(8.0));  // 160 in 20 s
  CHECK(*level.load.prompt_tokens_mean == Approx(1000));
  CHECK(*level.load.output_tokens_mean == Approx(100));
  CHECK(*level.load.ttft.mean_ms == Approx(120.5));
  CHECK(*level.load.ttft.p50_ms == Approx(110.0));
  CHECK(*level.load.ttft.p99_ms == Approx(300.0));
  CHECK_FALSE(level.load.ttft.p90_ms);
  // vLLM's TPOT is per request, the replay's statistic: not the ITL.
  CHECK_FALSE(level.load.tpot_is_itl);
  CHECK(*level.load.tpot.p50_ms == Approx(11.5));
  CHECK(*level.load.e2e.mean_ms == Approx(1300.0));
  CHECK(level.run_key == "m 1000/100 tokens, all sent at once");

  // A rate (burstiness 1): Poisson at it, under the cap when one is stated.
  const io::VllmBenchLevel poisson =
      io::parse_vllm_bench_result(vllm_ms_result("4.0", "null", 80), "r4.json");
  CHECK(poisson.load.arrivals == io::ArrivalPattern::poisson);
  CHECK(*poisson.load.rate_per_s == 4.0);
  CHECK_FALSE(poisson.load.max_inflight);
  CHECK(poisson.load.label == "Poisson 4 req/s");
  CHECK(poisson.run_key == "m 1000/100 tokens, Poisson");
  // A bare Infinity (Python's json for float('inf')) is every request at once, as "inf" is.
  const io::VllmBenchLevel infinity =
      io::parse_vllm_bench_result(vllm_ms_result("Infinity", "null", 10), "inf.json");
  CHECK(infinity.load.arrivals == io::ArrivalPattern::all_at_once);
  CHECK(infinity.load.label == "all at once");
}

TEST_CASE("vllm bench serve: statistics without _ms are seconds (InferenceX's fork)",
          "[vllm_bench]") {
  const std::string text = vllm_seconds_result(4, 0.7375490078702569, 0.01580887369254208);
  REQUIRE(io::looks_like_vllm_bench_result(text));
  const io::VllmBenchLevel level = io::parse_vllm_bench_result(text, "conc4.json");
  CHECK(*level.load.ttft.p50_ms == Approx(737.549));
  CHECK(*level.load.ttft.p99_ms == Approx(976.3));
  CHECK(*level.load.tpot.p50_ms == Approx(15.80887));
  CHECK(*level.load.tpot.p99_ms == Approx(17.348));
  CHECK(*level.load.e2e.p50_ms == Approx(2650.8));
  CHECK_FALSE(level.load.e2e.mean_ms);
  CHECK(level.load.requests == 40);
  CHECK(*level.load.prompt_tokens_mean == Approx(1024));
  CHECK(*level.load.output_tokens_mean == Approx(128));
  CHECK(level.run_key == "MiniMaxAI/MiniMax-M2.5 1024/128 tokens, all sent at once");
}

TEST_CASE("vllm bench serve: what it cannot rebuild or read is an input error naming it",
          "[vllm_bench]") {
  std::string gamma = vllm_ms_result("2.0", "null", 10);
  gamma.replace(gamma.find("\"burstiness\": 1.0"), 17, "\"burstiness\": 0.5");
  CHECK_THROWS_WITH(io::parse_vllm_bench_result(gamma, "g.json"),
                    Catch::Contains("g.json: burstiness 0.5") && Catch::Contains("gamma"));
  std::string no_completed = vllm_ms_result("\"inf\"", "4", 10);
  no_completed.replace(no_completed.find("\"completed\""), 11, "\"done\"");
  CHECK_THROWS_WITH(io::parse_vllm_bench_result(no_completed, "n.json"),
                    Catch::Contains("n.json: completed is missing"));
  CHECK_THROWS_WITH(io::parse_vllm_bench_result(vllm_ms_result("\"fast\"", "4", 10), "f.json"),
                    Catch::Contains("request_rate \"fast\""));
  CHECK_THROWS_WITH(io::parse_vllm_bench_result(vllm_ms_result("\"inf\"", "2.5", 10), "h.json"),
                    Catch::Contains("max_concurrency 2.5"));
  CHECK_FALSE(io::looks_like_vllm_bench_result("{\"load_summary\": {}}"));
  CHECK_FALSE(io::looks_like_vllm_bench_result("[1, 2]"));
}

TEST_CASE("vllm bench serve: a folder's results are runs by what they share, lightest first",
          "[vllm_bench]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / "kspeed_unit_vllm_bench";
  fs::remove_all(folder);
  fs::create_directories(folder);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / name) << text;
  };
  CHECK_THROWS_WITH(io::read_vllm_bench_folder(folder.string()),
                    Catch::Contains("no vllm bench serve result"));
  write("conc16.json", vllm_seconds_result(16, 0.45, 0.0285));
  write("conc4.json", vllm_seconds_result(4, 0.48, 0.0136));
  write("conc8.json", vllm_seconds_result(8, 0.36, 0.0162));
  write("rate2.json", vllm_ms_result("2.0", "null", 40));
  write("notes.json", "{\"what\": \"not a result\"}");
  CHECK(io::folder_has_vllm_bench_results(folder.string()));
  const std::vector<io::MeasuredRun> runs = io::read_vllm_bench_folder(folder.string());
  REQUIRE(runs.size() == 2);
  // File names sort conc16 < conc4 < conc8; the levels sort by their concurrency.
  CHECK(runs[0].name == "MiniMaxAI/MiniMax-M2.5 1024/128 tokens, all sent at once");
  REQUIRE(runs[0].loads.size() == 3);
  CHECK(runs[0].loads[0].label == "concurrency 4");
  CHECK(runs[0].loads[1].label == "concurrency 8");
  CHECK(runs[0].loads[2].label == "concurrency 16");
  CHECK(*runs[0].loads[2].tpot.p50_ms == Approx(28.5));
  CHECK(runs[1].name == "m 1000/100 tokens, Poisson");
  CHECK(runs[1].loads.size() == 1);
  fs::remove_all(folder);
}

}  // namespace unit_vllm_bench
