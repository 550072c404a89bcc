// Load levels typed by hand (src/io/serving/typed_levels.cpp, kspeed calibrate --level and
// --levels): each key read into the level the replay rebuilds, the per-token time derived from the
// means as an inference-perf stage's is, and every malformed level refused with its key named.
#include <catch2/catch.hpp>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/serving/typed_levels.hpp"

namespace unit_typed_levels {

using namespace kspeed;
using Catch::Matchers::Contains;

TEST_CASE("typed level: an inference-perf stage's figures as typed", "[typed_levels]") {
  const io::TypedLevel level = io::parse_typed_level(
      "rate=1, arrivals=constant, requests=60, prompt=204.1, output=63.15, ttft_mean_ms=31.13, "
      "e2e_mean_ms=480.5",
      "--level 1", 1);
  const io::MeasuredLoad& load = level.load;
  CHECK(load.arrivals == io::ArrivalPattern::constant_rate);
  CHECK(*load.rate_per_s == 1.0);
  CHECK(load.requests == 60);
  CHECK(!load.duration_s);
  CHECK(*load.prompt_tokens_mean == 204.1);
  CHECK(*load.output_tokens_mean == 63.15);
  CHECK(*load.ttft.mean_ms == 31.13);
  // (480.5 - 31.13) / (63.15 - 1) = 7.2304 ms, as the inference-perf reader derives it.
  CHECK(*load.tpot.mean_ms == Approx((480.5 - 31.13) / 62.15));
  CHECK(load.tpot_basis == "(E2E - TTFT) / (output - 1) from the typed means");
  CHECK(!load.tpot_is_itl);
  CHECK(level.concurrency == 0);
  CHECK(load.label == "level 1 (constant 1 req/s)");
}

TEST_CASE("typed level: Poisson, a closed loop, ITL, a label", "[typed_levels]") {
  const io::TypedLevel poisson = io::parse_typed_level(
      "label=online 4,rate=4,arrivals=poisson,duration_s=50,prompt=500,output=400,"
      "ttft_p50_ms=90,itl_p50_ms=16,itl_p99_ms=40,max_inflight=64,achieved_rate=3.9",
      "--level 2", 2);
  CHECK(poisson.load.label == "online 4");
  CHECK(poisson.load.arrivals == io::ArrivalPattern::poisson);
  CHECK(poisson.load.requests == 200);  // 4 req/s over 50 s
  CHECK(*poisson.load.max_inflight == 64);
  CHECK(poisson.load.tpot_is_itl);
  CHECK(*poisson.load.tpot.p50_ms == 16);
  CHECK(*poisson.load.tpot.p99_ms == 40);
  CHECK(*poisson.load.achieved_rate_per_s == 3.9);
  const io::TypedLevel closed = io::parse_typed_level(
      "concurrency=8,requests=400,prompt=1024,output=128,tpot_mean_ms=9.5,ttft_p50_ms=40",
      "--level 3", 3);
  CHECK(closed.concurrency == 8);
  CHECK(closed.load.arrivals == io::ArrivalPattern::one_at_a_time);
  CHECK(closed.load.requests == 400);
  CHECK(*closed.load.tpot.mean_ms == 9.5);
  CHECK(closed.load.label == "level 3 (concurrency 8)");
}

TEST_CASE("typed level: each malformed level names its key and the fix", "[typed_levels]") {
  const auto error = [](const std::string& text) {
    try {
      (void)io::parse_typed_level(text, "--level 1", 1);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string base = "prompt=200,output=64,ttft_mean_ms=30,tpot_mean_ms=7";
  CHECK_THAT(error("rate=1,arrivals=constant,requests=60,prompt=200,output=64,ttft_man_ms=30"),
             Contains("'ttft_man_ms' is not a level key") && Contains("ttft_mean_ms"));
  CHECK_THAT(error("rate=1,rate=2,arrivals=constant,requests=6," + base),
             Contains("rate is given twice"));
  CHECK_THAT(error("rate=1,requests=60," + base), Contains("without arrivals"));
  CHECK_THAT(error("rate=1,arrivals=gamma,requests=60," + base),
             Contains("expected constant or poisson"));
  CHECK_THAT(error("rate=1,arrivals=constant," + base), Contains("without requests=N"));
  CHECK_THAT(error("rate=1,concurrency=4,requests=60," + base), Contains("give one"));
  CHECK_THAT(error("requests=60," + base), Contains("no load"));
  CHECK_THAT(error("concurrency=4,max_inflight=8,requests=60," + base),
             Contains("max_inflight is an open loop's"));
  CHECK_THAT(error("concurrency=2.5,requests=60," + base), Contains("not a whole number"));
  CHECK_THAT(error("rate=-1,arrivals=constant,requests=60," + base), Contains("--level 1 rate"));
  CHECK_THAT(error("rate=1,arrivals=constant,requests=60,output=64,ttft_mean_ms=30"),
             Contains("prompt=TOKENS and output=TOKENS"));
  CHECK_THAT(error("rate=1,arrivals=constant,requests=60,prompt=200,output=64"),
             Contains("no measured figure"));
  CHECK_THAT(
      error("rate=1,arrivals=constant,requests=60," + base + ",ttft_p50_ms=40,ttft_p99_ms=35"),
      Contains("ttft_p50_ms 40 is above ttft_p99_ms 35"));
  CHECK_THAT(error("rate=1,arrivals=constant,requests=60," + base + ",itl_p50_ms=7"),
             Contains("tpot_ and itl_ figures are both given"));
  CHECK_THAT(error("rate=1,arrivals=constant,requests=60,prompt=200,output=64,ttft_mean_ms=30,"
                   "e2e_mean_ms=20"),
             Contains("e2e_mean_ms is not above ttft_mean_ms"));
  CHECK_THAT(error("rate 1"), Contains("'rate 1' is not KEY=VALUE"));
  CHECK_THAT(error(""), Contains("empty"));
}

TEST_CASE("typed levels CSV: a header of keys, one level a row", "[typed_levels]") {
  const std::vector<io::TypedLevel> levels = io::parse_typed_levels_csv(
      "# two constant-rate stages\n"
      "rate,arrivals,requests,prompt,output,ttft_mean_ms,e2e_mean_ms,label\n"
      "1,constant,60,204.1,63.15,31.13,480.5,\n"
      "31.4,constant,1884,204.1,62.36,29.84,546.7,stage 1\n",
      "levels.csv");
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].load.label == "level 1 (constant 1 req/s)");
  CHECK(levels[1].load.label == "stage 1");
  CHECK(*levels[1].load.rate_per_s == 31.4);
  CHECK(levels[1].load.requests == 1884);
  CHECK_THROWS_WITH(io::parse_typed_levels_csv("rate,arrivls\n1,constant\n", "l.csv"),
                    Contains("l.csv:1: 'arrivls' is not a level key"));
  CHECK_THROWS_WITH(io::parse_typed_levels_csv("rate,arrivals\n1\n", "l.csv"),
                    Contains("l.csv:2: 1 cells, the header has 2"));
  CHECK_THROWS_WITH(io::parse_typed_levels_csv("rate,arrivals\n", "l.csv"), Contains("no level"));
}

TEST_CASE("deployment file: a fit through the replay written and read back", "[typed_levels]") {
  io::DeploymentFile file;
  file.settings = {{"model", "llama-3.1-8b", "flag --model"}, {"gpu", "h100-sxm", "flag --gpu"}};
  file.typical_prompt_tokens = 204;
  file.typical_response_tokens = 63;
  io::CalibrationRun level;
  level.file = "run";
  level.format = "inference-perf";
  level.level = "stage 0 (constant 1.000 req/s)";
  level.tpot_points = 1;
  file.runs.push_back(level);
  io::ReplayFitRecord fit;
  fit.run = "run";
  fit.fit_levels = {"stage 0 (constant 1.000 req/s)"};
  fit.levels_in_run = 3;
  fit.replays = 44;
  fit.settings = {"max running requests 128 (stated in manifests.yaml:25)"};
  fit.notes = {"one fit level cannot separate the per-sequence cost"};
  file.replay_fit = fit;
  const std::string text = io::deployment_to_json_text(file);
  const io::DeploymentFile back = io::parse_deployment_file(text, "d.json");
  REQUIRE(back.replay_fit);
  CHECK(back.replay_fit->fit_levels == fit.fit_levels);
  CHECK(back.replay_fit->levels_in_run == 3);
  CHECK(back.replay_fit->replays == 44);
  CHECK(back.replay_fit->settings == fit.settings);
  CHECK(back.replay_fit->notes == fit.notes);
  CHECK(back.runs.at(0).level == level.level);
  // A per-request calibration writes neither key.
  file.replay_fit.reset();
  file.runs[0].level.clear();
  const std::string plain = io::deployment_to_json_text(file);
  CHECK(plain.find("replay_fit") == std::string::npos);
  CHECK(plain.find("\"level\"") == std::string::npos);
  std::string misspelt = text;
  misspelt.replace(misspelt.find("\"replays\""), 9, "\"replay\"");
  CHECK_THROWS_WITH(io::parse_deployment_file(misspelt, "d.json"), Contains("replay"));
}

}  // namespace unit_typed_levels
