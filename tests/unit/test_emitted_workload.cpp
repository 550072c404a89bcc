// Issue 27, item 6: the workload kspeed profile --emit-workload writes carries only what the
// trace shows. No TTFT (a prefill step split by its tokens is not what a request waited), no
// response length, and a prefill attention calibrated on one profiled step is labelled
// extrapolated, with its range, at any other prompt (--strict refuses it).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kspeed/cli/app.hpp"

namespace unit_emitted_workload {

namespace {

std::string shared_trace(const char* name) {
  return std::string(KSPEED_SOURCE_DIR) + "/../shared/data/traces/" + name;
}

int run_kspeed_args(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"kspeed"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return kspeed::cli::run(static_cast<int>(argv.size()), argv.data());
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::filesystem::path emitted_scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("kspeed-emitted-" + name);
}

}  // namespace

TEST_CASE("an emitted workload invents no TTFT and no response length", "[conservation][profile]") {
  for (const char* trace : {"sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz",
                            "vllm-b200-gptoss-prefill.trace.json.gz"}) {
    const std::string path = shared_trace(trace);
    if (!std::filesystem::exists(path)) {
      WARN("skipped: " << path << " is not present");
      continue;
    }
    INFO(trace);
    const std::filesystem::path out = emitted_scratch("w.json");
    REQUIRE(run_kspeed_args({"profile", path, "--emit-workload", out.string(), "-o",
                             emitted_scratch("report.txt").string()}) == 0);
    const nlohmann::json request = read_json_file(out).at("request");
    CHECK(request.contains("prompt_tokens"));
    CHECK_FALSE(request.contains("ttft_ms"));
    CHECK_FALSE(request.contains("response_tokens"));
    std::filesystem::remove(out);
  }
}

TEST_CASE("an emitted workload keeps the model given, and estimate asks for what it lacks",
          "[conservation][profile]") {
  const std::string path = shared_trace("vllm-b200-gptoss-prefill.trace.json.gz");
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " << path << " is not present");
    return;
  }
  const std::filesystem::path out = emitted_scratch("model.json");
  REQUIRE(run_kspeed_args({"profile", path, "--model", "gpt-oss-120b", "--emit-workload",
                           out.string(), "-o", emitted_scratch("model-report.txt").string()}) == 0);
  const nlohmann::json emitted = read_json_file(out);
  CHECK(emitted.at("model") == "gpt-oss-120b");
  CHECK(emitted.at("gpu") == "b200");  // from the trace's device properties
  CHECK(emitted.at("tp") == 8);        // from the trace's distributed info
  // The trace shows one 888-token prefill step and no request's arrival: no wait to take a TTFT
  // from, so none is written, and the answer refuses to stand without one rather than invent it.
  CHECK_FALSE(emitted.at("request").contains("ttft_ms"));
  CHECK(run_kspeed_args({"estimate", "--workload", out.string(), "--phase", "both", "--strict"}) ==
        2);
  std::filesystem::remove(out);
}

TEST_CASE("a one-step attention calibration is labelled extrapolated at another prompt",
          "[conservation][profile]") {
  const std::string path = shared_trace("vllm-b200-gptoss-prefill.trace.json.gz");
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " << path << " is not present");
    return;
  }
  const std::filesystem::path workload = emitted_scratch("g.json");
  REQUIRE(run_kspeed_args({"profile", path, "--model", "gpt-oss-120b", "--emit-workload",
                           workload.string(), "-o", emitted_scratch("report.txt").string()}) == 0);
  const std::filesystem::path answer = emitted_scratch("answer.json");
  const std::vector<std::string> estimate = {
      "estimate", "--workload", workload.string(), "--ctx", "32k", "--response-tokens", "128"};
  std::vector<std::string> args = estimate;
  for (const std::string& extra :
       {std::string("--format"), std::string("json"), std::string("-o"), answer.string()}) {
    args.push_back(extra);
  }
  REQUIRE(run_kspeed_args(args) == 0);
  const nlohmann::json document = read_json_file(answer);
  // The step's 888 tokens set the attention cost; 32,768 is far outside.
  CHECK(document.at("inputs").at("ttft_ms_provenance") == "extrapolated");
  const nlohmann::json* warning = nullptr;
  for (const nlohmann::json& w : document.at("warnings")) {
    if (w.at("code") == "attention_calibration_extrapolated") warning = &w;
  }
  REQUIRE(warning != nullptr);
  CHECK(warning->at("values").at("min_tokens").get<double>() == Approx(888));
  CHECK(warning->at("values").at("max_tokens").get<double>() == Approx(888));
  CHECK(warning->at("values").at("steps").get<double>() == 1);
  std::vector<std::string> strict = estimate;
  strict.emplace_back("--strict");
  CHECK(run_kspeed_args(strict) == 2);
  // At the step's own prompt the calibration holds: no warning.
  std::vector<std::string> at_step = {"estimate", "--workload",   workload.string(),
                                      "--ctx",    "888",          "--response-tokens",
                                      "128",      "--format",     "json",
                                      "-o",       answer.string()};
  REQUIRE(run_kspeed_args(at_step) == 0);
  // Held by name: a range-for over a member of a temporary reads freed memory (C++17).
  const nlohmann::json at_step_answer = read_json_file(answer);
  for (const nlohmann::json& w : at_step_answer.at("warnings")) {
    CHECK(w.at("code") != "attention_calibration_extrapolated");
  }
  std::filesystem::remove(workload);
  std::filesystem::remove(answer);
}

}  // namespace unit_emitted_workload
