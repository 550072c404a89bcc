// AccelMark's result.json (FreedomIntelligence/AccelMark, schema_version "1.0"): the fields read
// are suite_id, model.model_id, and metrics.interactive.{ttft_ms_p50, tpot_ms_p50} (one request
// at a time); the lengths come from the suite file's request_distribution
// (input_tokens_p50, output_tokens_p50).
#include <cmath>

#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/json_document.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

double positive_at(const json& object, const char* key, const std::string& path,
                   const std::string& source) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number() ||
      !(object[key].get<double>() > 0)) {
    throw InputError(source + ": " + path + "." + key +
                     ": expected a positive number (AccelMark writes it for every run); the file "
                     "is incomplete or not an AccelMark result");
  }
  return object[key].get<double>();
}

}  // namespace

bool looks_like_accelmark_result(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text[start] != '{') return false;
  const std::string_view head = text.substr(0, 4096);
  return head.find("\"suite_id\"") != std::string_view::npos &&
         text.find("\"metrics\"") != std::string_view::npos;
}

CalibrationFile parse_accelmark_result(std::string_view text, std::string_view suite_text,
                                       const std::string& source) {
  const json result = parse_json_document(text, source);
  const std::string suite_id = result.contains("suite_id") && result["suite_id"].is_string()
                                   ? result["suite_id"].get<std::string>()
                                   : "";
  if (!result.contains("metrics") || !result["metrics"].contains("interactive")) {
    throw InputError(source +
                     ": no metrics.interactive: kspeed calibrates on AccelMark's one-request-at-"
                     "a-time run (accelmark --scenario interactive); run it, or give this "
                     "run's result/interactive/result.json");
  }
  if (suite_text.empty()) {
    throw InputError(source + ": the suite file " + suite_id +
                     ".json (its request lengths) was not found in a workload/ folder beside or "
                     "above the result: copy it there from the AccelMark repository");
  }
  const json suite = parse_json_document(suite_text, suite_id + ".json");
  const json& lengths =
      suite.contains("request_distribution") ? suite["request_distribution"] : json();
  const json& interactive = result["metrics"]["interactive"];
  CalibrationFile file;
  file.source = source;
  file.format = "accelmark-result";
  if (result.contains("model") && result["model"].contains("model_id") &&
      result["model"]["model_id"].is_string()) {
    file.stated_model = result["model"]["model_id"].get<std::string>();
  }
  file.concurrency = 1;  // the interactive scenario sends one request at a time
  const double prompt =
      positive_at(lengths, "input_tokens_p50", "request_distribution", suite_id + ".json");
  const double response =
      positive_at(lengths, "output_tokens_p50", "request_distribution", suite_id + ".json");
  engine::LatencyObservation point;
  point.label = "interactive p50";
  point.prompt_tokens = prompt;
  point.response_tokens = response;
  point.concurrency = 1;
  point.ttft_ms = positive_at(interactive, "ttft_ms_p50", "metrics.interactive", source);
  point.tpot_ms = positive_at(interactive, "tpot_ms_p50", "metrics.interactive", source);
  file.points.push_back(point);
  file.tpot_points = 1;
  file.tpot_note = "1 from the interactive scenario's TPOT p50";
  file.typical_prompt_tokens = std::llround(prompt);
  file.typical_response_tokens = std::llround(response);
  return file;
}

}  // namespace kspeed::io
