// kspeed calibrate's inputs and output: a per-token time from whatever a per-request log records
// (a TPOT, a mean ITL, an ITL array, E2E and TTFT), counted and named; the cached prefix in the
// TTFT fit; the deployment file written and read back. Expected values are computed from the
// fixtures by hand (and, for the real InferenceX file, by a short Python over its columns).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_calibrate {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

namespace fs = std::filesystem;

// The shared real data: $KSPEED_SHARED_DATA when set, else the repository's ../shared/data.
std::string shared_data() {
  if (const char* env = std::getenv("KSPEED_SHARED_DATA")) return std::string(env) + "/";
  return std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";
}

bool present(const std::string& path) {
  if (fs::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
  return false;
}

// A file in a fresh folder under the system's temporary folder, removed with it.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : folder_(fs::temp_directory_path() /
                ("kspeed-calibrate-test-" + std::to_string(std::rand()))) {
    fs::create_directories(folder_);
    std::ofstream(folder_ / name) << text;
    path_ = (folder_ / name).string();
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  fs::path folder_;
  std::string path_;
};

Platform platform_for(const std::string& model, const std::string& gpu) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  return make_platform(choice);
}

std::vector<double> tpots(const io::CalibrationFile& file) {
  std::vector<double> out;
  for (const LatencyObservation& p : file.points) {
    if (p.tpot_ms) out.push_back(*p.tpot_ms);
  }
  return out;
}

}  // namespace

TEST_CASE("vllm bench serve --save-detailed: TPOT from the ITL arrays", "[calibrate]") {
  // Three requests: 11 tokens after 10 gaps of 10 ms, 21 tokens after 20 gaps of 20 ms, one
  // token (no TPOT). vLLM's TPOT = (E2E - TTFT) / (out - 1) = sum(gaps) / (out - 1).
  std::string gaps10 = "[";
  for (int i = 0; i < 10; ++i) gaps10 += std::string(i ? "," : "") + "0.01";
  std::string gaps20 = "[";
  for (int i = 0; i < 20; ++i) gaps20 += std::string(i ? "," : "") + "0.02";
  const TempFile log("detailed.json",
                     R"({"input_lens": [100, 200, 50], "output_lens": [11, 21, 1],
                         "ttfts": [0.05, 0.08, 0.03], "errors": ["", "", ""],
                         "itls": [)" +
                         gaps10 + "], " + gaps20 + "], []]}");
  const io::CalibrationFile file = io::read_calibration_file(log.path(), 1.0);
  CHECK(file.format == "vllm");
  CHECK(file.tpot_points == 2);
  const std::vector<double> t = tpots(file);
  REQUIRE(t.size() == 2);
  CHECK(t[0] == Approx(10.0));
  CHECK(t[1] == Approx(20.0));
  CHECK_THAT(file.tpot_note, Catch::Contains("2 from the inter-token gaps"));
  CHECK_THAT(io::describe_points(file), Catch::StartsWith("3 TTFT points, 2 TPOT points"));
}

TEST_CASE("trace-replay CSV: TPOT from the mean ITL, else from E2E and TTFT; cached blocks",
          "[calibrate]") {
  SECTION("itl column") {
    const TempFile log("detailed_results.csv",
                       "input_tokens,output_tokens_actual,cache_hit_blocks,ttft,ttlt,itl,success\n"
                       "1000,101,2,0.2,1.2,0.01,True\n"
                       "500,1,0,0.1,0.1,0,True\n");
    const io::CalibrationFile file = io::read_calibration_file(log.path(), 1.0);
    CHECK(file.tpot_points == 1);
    CHECK(tpots(file) == std::vector<double>{10.0});
    CHECK_THAT(file.tpot_note, Catch::Contains("1 from the log's per-request mean inter-token"));
    REQUIRE(file.points.size() == 2);
    REQUIRE(file.cached_tokens.size() == 2);
    CHECK(file.cached_tokens[0] == 128);  // 2 blocks of 64 tokens
    CHECK(file.cached_tokens[1] == 0);
  }
  SECTION("no itl column: (E2E - TTFT) / (out - 1)") {
    const TempFile log("detailed_results.csv",
                       "input_tokens,output_tokens_actual,ttft,ttlt,success\n"
                       "1000,101,0.2,1.7,True\n");
    const io::CalibrationFile file = io::read_calibration_file(log.path(), 1.0);
    CHECK(file.tpot_points == 1);
    CHECK(tpots(file)[0] == Approx(15.0));  // 1,500 ms over 100 tokens
    CHECK_THAT(file.tpot_note, Catch::Contains("(E2E - TTFT) / (output - 1)"));
  }
  SECTION("TTFT only: no TPOT point, and the summary says the decode side stays modelled") {
    const TempFile log("detailed_results.csv",
                       "input_tokens,output_tokens_actual,ttft,success\n1000,101,0.2,True\n");
    const io::CalibrationFile file = io::read_calibration_file(log.path(), 1.0);
    CHECK(file.tpot_points == 0);
    CHECK(file.tpot_note.empty());
    CHECK_THAT(io::describe_points(file),
               Catch::Contains("0 TPOT points") && Catch::Contains("modelled prior"));
    // The fit moves the prefill side only: the decode coefficients keep the roofline's origin.
    const CalibratedStepModel fit = calibrate_to_latencies(
        modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm")), file.points, "log");
    CHECK(fit.origins.request_overhead.provenance == Provenance::fitted);
    CHECK(fit.origins.weights.provenance == Provenance::modelled);
    CHECK(fit.origins.kv_token.provenance == Provenance::modelled);
  }
}

TEST_CASE("--calibrate-warmup leaves a log's first requests by arrival out of the fit",
          "[calibrate]") {
  // Lines out of arrival order: line 3 arrived first (t = 10), then line 2 (t = 20).
  const TempFile log("detailed_results.csv",
                     "input_tokens,output_tokens_actual,ttft,ttlt,itl,success,"
                     "request_start_time\n"
                     "1000,101,18.0,19.0,0.01,True,20\n"
                     "1000,101,16.0,17.0,0.03,True,10\n"
                     "1000,101,0.2,1.2,0.01,True,30\n"
                     "1000,101,0.2,1.2,0.01,True,40\n");
  const io::CalibrationFile all = io::read_calibration_file(log.path(), 1.0);
  CHECK(all.points.size() == 4);
  CHECK(all.warmup_note.empty());
  const io::CalibrationFile one = io::read_calibration_file(log.path(), 1.0, 1);
  REQUIRE(one.points.size() == 3);
  CHECK(one.tpot_points == 3);
  CHECK(one.cached_tokens.size() == 3);
  CHECK(one.points[0].label == "line 2");  // line 3 (t = 10) left out, not line 2
  CHECK(*one.points[0].ttft_ms == Approx(18000.0));
  CHECK_THAT(one.tpot_note, Catch::Contains("3 from the log's per-request mean inter-token"));
  CHECK(one.warmup_note ==
        "the first 1 request by arrival (line 3) left out as the server's warm-up "
        "(--calibrate-warmup 1)");
  CHECK_THAT(io::describe_points(one), Catch::EndsWith("(--calibrate-warmup 1)"));
  const io::CalibrationFile two = io::read_calibration_file(log.path(), 1.0, 2);
  REQUIRE(two.points.size() == 2);
  CHECK_THAT(two.warmup_note, Catch::Contains("first 2 requests by arrival (lines 3, 2)"));
  CHECK_THROWS_WITH(
      io::read_calibration_file(log.path(), 1.0, 4),
      Catch::Contains("{flag:calibrate-warmup} 4") && Catch::Contains("leaves none to fit"));
}

TEST_CASE("InferenceX trace replay (DeepSeek-R1 FP4 on B200): 45 TPOT points", "[calibrate]") {
  const std::string path = shared_data() + "workloads/inferencex-dsr1fp4-b200-trace-replay.csv";
  if (!present(path)) return;
  const io::CalibrationFile file = io::read_calibration_file(path, 1.0);
  // Python over the file: 45 rows, every one with 2+ output tokens; mean itl 8.6703 ms, equal to
  // (ttlt - ttft) / (output_tokens_actual - 1) to 2e-15; sum of theoretical_cache_hit_blocks * 64
  // = 3,258,176 (the run's own hits; cache_hit_blocks, the source trace's, sums to 3,295,488);
  // median input 74,051 and output 2,871 tokens.
  CHECK(file.points.size() == 45);
  CHECK(file.tpot_points == 45);
  const std::vector<double> t = tpots(file);
  CHECK(std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size()) ==
        Approx(8.670349154507944).epsilon(1e-9));
  CHECK(std::accumulate(file.cached_tokens.begin(), file.cached_tokens.end(), 0.0) == 3258176);
  CHECK(file.typical_prompt_tokens == 74051);
  CHECK(file.typical_response_tokens == 2871);
  CHECK_THAT(file.tpot_note, Catch::Contains("45 from the log's per-request mean inter-token"));
}

TEST_CASE("the TTFT fit prices only the prompt tokens the cache did not hold", "[calibrate]") {
  // TTFTs made by a known model (the roofline plus a 12 ms overhead) for prompts that were
  // mostly cached: the fit must give the overhead back. Without the cached prefix it would take
  // every prompt as computed in full and the overhead would absorb none of it.
  const CalibratedStepModel truth = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  constexpr double kOverheadMs = 12;
  std::vector<LatencyObservation> points;
  std::vector<double> cached_tokens;
  for (const auto& [prompt, cached] : std::vector<std::pair<double, double>>{
           {8000, 7000}, {16000, 15000}, {4000, 0}, {32000, 31000}}) {
    LatencyObservation p;
    p.label = std::to_string(prompt);
    p.prompt_tokens = prompt;
    p.response_tokens = 10;
    cached_tokens.push_back(cached);
    p.ttft_ms = kOverheadMs + step_time(truth.model, prefill_batch(prompt, 1, cached)).total_ms();
    points.push_back(p);
  }
  const CalibratedStepModel fit = calibrate_to_latencies(truth, points, cached_tokens, "synth");
  CHECK(fit.request_overhead_ms == Approx(kOverheadMs).epsilon(1e-4));
  for (const PointResidual& r : fit.residuals) CHECK(std::abs(r.residual_ms()) < 1e-3);
  // Ignoring the cache prices 8,000 computed tokens where 1,000 ran: the fit must then move the
  // compute side or leave residuals, and cannot give the overhead back.
  const CalibratedStepModel blind = calibrate_to_latencies(truth, points, "synth");
  CHECK(std::abs(blind.request_overhead_ms - kOverheadMs) > 1.0);
  // The cached prefix changes the step: 1,000 new tokens after 7,000 cached are far fewer
  // tokens than 8,000, and more pairs than 1,000 alone.
  const BatchComposition b = prefill_batch(8000, 1, 7000);
  CHECK(b.prefill_tokens == 1000);
  CHECK(b.prefill_pairs == causal_pairs(1000, 7000));
}

TEST_CASE("deployment file: written and read back, every coefficient and origin", "[calibrate]") {
  const Platform platform = platform_for("llama-3.1-8b", "h100-sxm");
  LatencyObservation p;
  p.label = "p50";
  p.prompt_tokens = 280;
  p.response_tokens = 310;
  p.ttft_ms = 20.1;
  p.tpot_ms = 7.74;
  io::DeploymentFile file;
  file.settings = {{"model", "llama-3.1-8b", "flag --model"},
                   {"gpu", "h100-sxm", "flag --gpu"},
                   {"tp", "1", "default"},
                   {"precision", "bf16", "default"},
                   {"kv_dtype", "bf16", "default"},
                   {"max_seqs", "128", "stated in manifests.yaml:25"},
                   {"chunked_prefill", "off", "given: --chunked-prefill"}};
  file.step = calibrate_to_latencies(modelled_step_model(platform), {p}, "run.json");
  file.calibration_points = "1 TTFT point, 1 TPOT point";
  file.runs = {{"run.json", "accelmark-result", 1, 1, 1, "", "", "", "line 2 left out"}};
  file.typical_prompt_tokens = 280;
  file.typical_response_tokens = 310;
  const std::string text = io::deployment_to_json_text(file);
  const io::DeploymentFile back = io::parse_deployment_file(text, "d.json");
  CHECK(back.setting("model") == "llama-3.1-8b");
  CHECK(back.setting("tp") == "1");
  // The scheduler a fit through the replay ran, which mix --deployment --replay takes back.
  CHECK(back.setting("max_seqs") == "128");
  CHECK(back.setting("chunked_prefill") == "off");
  CHECK(back.setting("max_batched_tokens").empty());
  const StepModel& a = file.step.model;
  const StepModel& b = back.step.model;
  CHECK(b.fixed_ms == a.fixed_ms);
  CHECK(b.weights_ms == a.weights_ms);
  CHECK(b.ms_per_token == a.ms_per_token);
  CHECK(b.ms_per_prefill_pair == a.ms_per_prefill_pair);
  CHECK(b.ms_per_kv_token == a.ms_per_kv_token);
  CHECK(b.ms_per_sequence == a.ms_per_sequence);
  CHECK(back.step.request_overhead_ms == file.step.request_overhead_ms);
  CHECK(back.step.origins.weights.provenance == Provenance::fitted);
  CHECK(back.step.origins.fixed.provenance == file.step.origins.fixed.provenance);
  CHECK(back.step.calibration == Provenance::fitted);
  CHECK(back.step.residuals.size() == 2);
  REQUIRE(back.runs.size() == 1);
  CHECK(back.runs[0].warmup_note == "line 2 left out");
  CHECK(back.typical_response_tokens == 310);
  // The same request priced by both: identical to the last bit.
  CHECK(request_latency(back.step, 280, 310).tpot_ms() ==
        request_latency(file.step, 280, 310).tpot_ms());
  // Strict reading: a renamed coefficient, a negative value and another kind all fail.
  std::string renamed = text;
  renamed.replace(renamed.find("\"weights_ms\""), 12, "\"weight_ms\"");
  CHECK_THROWS_WITH(io::parse_deployment_file(renamed, "d.json"),
                    Catch::Contains("weight_ms") && Catch::Contains("d.json"));
  std::string unknown_setting = text;
  unknown_setting.replace(unknown_setting.find("\"max_seqs\""), 10, "\"max_seq\"");
  CHECK_THROWS_WITH(io::parse_deployment_file(unknown_setting, "d.json"),
                    Catch::Contains("max_seq") && Catch::Contains("d.json"));
  // A scheduler value the replay could not take is the file's error, named by its key.
  std::string bad_value = text;
  bad_value.replace(bad_value.find("\"128\""), 5, "\"12x\"");
  CHECK_THROWS_WITH(io::parse_deployment_file(bad_value, "d.json"),
                    Catch::Contains("d.json: deployment.max_seqs.value: '12x' is not a whole"));
  std::string bad_choice = text;
  bad_choice.replace(bad_choice.find("\"off\""), 5, "\"no\"");
  CHECK_THROWS_WITH(io::parse_deployment_file(bad_choice, "d.json"),
                    Catch::Contains("deployment.chunked_prefill.value: 'no' is not on or off"));
  CHECK_THROWS_WITH(io::parse_deployment_file(R"({"kind": "workload"})", "d.json"),
                    Catch::Contains("kspeed-deployment"));
}

TEST_CASE("deployment file: expert parallelism and a hybrid model's linear state survive",
          "[calibrate]") {
  PlatformChoice choice;
  choice.model = {io::load_model("qwen3-next-80b-a3b"), Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Provenance::given};
  // Data-parallel attention (ep > tp): the experts' dispatch and combine are all-to-alls.
  choice.tensor_parallel = {1, Provenance::given};
  choice.expert_parallel = {4, Provenance::given};
  const Platform platform = make_platform(choice);
  io::DeploymentFile file;
  file.settings = {{"model", "qwen3-next-80b-a3b", "flag --model"},
                   {"gpu", "h100-sxm", "flag --gpu"},
                   {"tp", "1", "flag --tp"},
                   {"ep", "4", "flag --ep"}};
  file.step = modelled_step_model_with_tp_comm(platform);  // the prior kspeed calibrate starts from
  const StepModel& a = file.step.model;
  // What this test guards: terms a calibration does not move but the deployment pays.
  REQUIRE(a.ep_ms_per_token > 0);
  REQUIRE(a.ms_per_linear_state_sequence > 0);
  REQUIRE(a.launch_floor_ms > 0);
  REQUIRE(a.experts.experts == 512);  // Qwen3-Next's routed experts, 10 a token
  REQUIRE(a.experts.all_experts_ms > 0);
  file.typical_prompt_tokens = 1024;
  file.typical_response_tokens = 128;
  const std::string text = io::deployment_to_json_text(file);
  const io::DeploymentFile back = io::parse_deployment_file(text, "d.json");
  CHECK(back.setting("ep") == "4");
  const StepModel& b = back.step.model;
  CHECK(b.ep_fixed_ms == a.ep_fixed_ms);
  CHECK(b.ep_ms_per_token == a.ep_ms_per_token);
  CHECK(b.ms_per_linear_state_sequence == a.ms_per_linear_state_sequence);
  CHECK(b.launch_floor_ms == a.launch_floor_ms);
  CHECK(b.tp_fixed_ms == a.tp_fixed_ms);
  // The routed experts: without them a MoE step read back is priced at its dense weights only.
  CHECK(b.experts.experts == a.experts.experts);
  CHECK(b.experts.top_k == a.experts.top_k);
  CHECK(b.experts.expert_parallel == 4);
  CHECK(b.experts.all_experts_ms == a.experts.all_experts_ms);
  const BatchComposition one_token = [] {
    BatchComposition batch;
    batch.decode_sequences = 1;
    return batch;
  }();
  CHECK(step_time(b, one_token).total_ms() == Approx(step_time(a, one_token).total_ms()));
  CHECK(step_time(b, one_token).total_ms() > a.weights_ms + a.fixed_ms + a.tp_fixed_ms);
  // A file written before these terms were saved still reads (they are 0 there).
  nlohmann::json older = nlohmann::json::parse(text);
  for (const char* key :
       {"ep_ms_per_token", "ep_fixed_ms", "ms_per_linear_state_sequence", "launch_floor_ms"}) {
    older["step_model"]["coefficients"].erase(key);
  }
  older["deployment"].erase("ep");
  const io::DeploymentFile old = io::parse_deployment_file(older.dump(), "old.json");
  CHECK(old.step.model.ep_ms_per_token == 0);
  CHECK(old.step.model.launch_floor_ms == 0);
  CHECK(old.setting("ep").empty());
}

namespace {

// A level of `count` requests at `rate` req/s (evenly spaced) whose "measured" statistics are the
// replay's own under `truth`: a fit from another prior must find `truth` again.
ReplayLevel synthetic_level(const std::string& label, double rate, int count,
                            const ServingSetup& truth) {
  ReplayLevel level;
  level.label = label;
  for (int i = 0; i < count; ++i) level.requests.push_back({i / rate, 200, 64, 0});
  const ReplaySide side = replay_level(level, truth);
  level.ttft = {side.ttft_ms.mean, side.ttft_ms.percentiles[0], side.ttft_ms.percentiles[1],
                side.ttft_ms.percentiles[2]};
  level.tpot = {side.tpot_ms.mean, std::nullopt, std::nullopt, std::nullopt};
  level.e2e = {side.e2e_ms.mean, std::nullopt, std::nullopt, side.e2e_ms.percentiles[2]};
  level.achieved_rate_per_s = side.achieved_rate_per_s;
  return level;
}

}  // namespace

TEST_CASE(
    "validate: a fit through the replay finds the model that made the levels, and never "
    "reports a fit level",
    "[validate]") {
  const CalibratedStepModel prior = modelled_step_model(platform_for("llama-3.1-8b", "h100-sxm"));
  ServingSetup truth;
  truth.scheduler.max_seqs = 128;
  truth.scheduler.chunked_prefill = false;
  truth.step = prior.model;
  truth.step.weights_ms *= 1.25;  // a slower deployment than the roofline's
  truth.step.ms_per_kv_token *= 1.25;
  truth.step.ms_per_sequence = 0.05;
  truth.scheduler.request_overhead_ms = 8;
  const std::vector<ReplayLevel> levels = {
      synthetic_level("1 req/s", 1, 60, truth), synthetic_level("30 req/s", 30, 600, truth),
      synthetic_level("60 req/s", 60, 1200, truth), synthetic_level("90 req/s", 90, 1800, truth)};
  ServingSetup setup = truth;
  setup.step = prior.model;  // the fit starts from the roofline
  setup.scheduler.request_overhead_ms = 0;
  const ValidationResult result = validate_through_replay(prior, setup, levels, {0, 1}, "synth");
  const StepModel& fitted = result.fit.model.model;
  CHECK(fitted.weights_ms == Approx(truth.step.weights_ms).epsilon(1e-3));
  CHECK(fitted.ms_per_sequence == Approx(0.05).epsilon(1e-2));
  CHECK(result.fit.model.request_overhead_ms == Approx(8).epsilon(1e-2));
  CHECK(result.fit.model.origins.per_sequence.provenance == Provenance::fitted);
  REQUIRE(result.levels.size() == 2);
  CHECK(result.levels[0].label == "60 req/s");
  CHECK(result.levels[1].label == "90 req/s");
  for (const LevelValidation& level : result.levels) {
    CHECK(level.metrics.size() >= 5);
    for (const MetricComparison& m : level.metrics) {
      INFO(level.label << " " << m.metric);
      CHECK(std::abs(m.error()) < 0.01);
    }
  }
  for (const MetricSummary& s : result.summary) {
    CHECK(s.levels == 2);
    CHECK(s.worst_abs_error >= s.median_abs_error);
  }
  // One fit level: the per-sequence cost cannot be identified and keeps its prior, labelled.
  const ValidationResult one = validate_through_replay(prior, setup, levels, {0}, "synth");
  CHECK(one.fit.model.origins.per_sequence.provenance == Provenance::default_value);
  CHECK(one.levels.size() == 3);
  CHECK(std::any_of(one.fit.notes.begin(), one.fit.notes.end(), [](const std::string& note) {
    return note.find("cannot separate") != std::string::npos;
  }));
}

}  // namespace unit_calibrate
