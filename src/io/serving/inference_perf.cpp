// kubernetes-sigs/inference-perf's per-stage lifecycle report (stage_N_lifecycle_metrics.json):
//   load_summary: {count, requested_rate, achieved_rate, send_duration, schedule_delay{...}}
//   successes: {count, latency: {request_latency, time_to_first_token, time_per_output_token,
//               inter_token_latency, normalized_time_per_output_token: {mean, min, p0.1, p1, p5,
//               p10, p25, median, p75, p90, p95, p99, p99.9, max}}, prompt_len{...},
//               output_len{...}, throughput{...}}
//   failures: {count, ...}
// Times are in seconds. Its time_per_output_token is per streamed chunk, not per token (the
// shared data's README shows it below the physical floor), so the per-token decode time is
// derived from the means: (E2E - TTFT) / (output - 1).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

namespace {

const nlohmann::json& field(const nlohmann::json& object, const char* key,
                            const std::string& source, const std::string& path) {
  if (!object.is_object() || !object.contains(key)) {
    throw InputError(source + ": " + path + "." + key +
                     " is missing (expected an inference-perf lifecycle metrics report, "
                     "stage_N_lifecycle_metrics.json)");
  }
  return object.at(key);
}

std::optional<double> seconds_to_ms(const nlohmann::json& stats, const char* key) {
  if (!stats.is_object() || !stats.contains(key) || !stats.at(key).is_number()) return {};
  return stats.at(key).get<double>() * 1000.0;
}

MeasuredStat stat_of(const nlohmann::json& stats) {
  return {seconds_to_ms(stats, "mean"), seconds_to_ms(stats, "median"), seconds_to_ms(stats, "p90"),
          seconds_to_ms(stats, "p99")};
}

std::optional<double> number_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) return {};
  return object.at(key).get<double>();
}

}  // namespace

MeasuredLoad parse_inference_perf_stage(std::string_view text, const std::string& source) {
  const nlohmann::json root = parse_json_document(text, source);
  const nlohmann::json& load = field(root, "load_summary", source, "");
  const nlohmann::json& successes = field(root, "successes", source, "");
  const nlohmann::json& latency = field(successes, "latency", source, "successes");
  MeasuredLoad out;
  out.arrivals = ArrivalPattern::constant_rate;
  out.rate_per_s = number_at(load, "requested_rate");
  out.achieved_rate_per_s = number_at(load, "achieved_rate");
  out.duration_s = number_at(load, "send_duration");
  out.requests = static_cast<std::int64_t>(number_at(successes, "count").value_or(0));
  if (successes.contains("prompt_len")) {
    out.prompt_tokens_mean = number_at(successes.at("prompt_len"), "mean");
  }
  if (successes.contains("output_len")) {
    out.output_tokens_mean = number_at(successes.at("output_len"), "mean");
  }
  out.ttft = stat_of(field(latency, "time_to_first_token", source, "successes.latency"));
  out.e2e = stat_of(field(latency, "request_latency", source, "successes.latency"));
  // Per token from the means: the tool's own per-"token" figure counts streamed chunks.
  if (out.e2e.mean_ms && out.ttft.mean_ms && out.output_tokens_mean &&
      *out.output_tokens_mean > 1) {
    out.tpot.mean_ms = (*out.e2e.mean_ms - *out.ttft.mean_ms) / (*out.output_tokens_mean - 1);
    out.tpot_basis = "(E2E - TTFT) / (output - 1) from the means";
  }
  out.label = out.rate_per_s ? "constant " + std::to_string(*out.rate_per_s).substr(0, 5) + " req/s"
                             : source;
  return out;
}

std::vector<MeasuredLoad> read_inference_perf_stages(const std::string& folder) {
  namespace fs = std::filesystem;
  std::map<int, std::string> stages;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const std::string prefix = "stage_";
    const std::string suffix = "_lifecycle_metrics.json";
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string number =
        name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    stages[std::stoi(number)] = entry.path().string();
  }
  if (error || stages.empty()) {
    throw InputError(folder +
                     ": no stage_N_lifecycle_metrics.json here (expected an inference-perf "
                     "report folder written with report.request_lifecycle.per_stage: true)");
  }
  std::vector<MeasuredLoad> loads;
  for (const auto& [index, path] : stages) {
    MeasuredLoad load =
        parse_inference_perf_stage(read_text_file(path, "inference-perf stage"), path);
    load.label = "stage " + std::to_string(index) + " (" + load.label + ")";
    loads.push_back(std::move(load));
  }
  return loads;
}

}  // namespace kspeed::io
