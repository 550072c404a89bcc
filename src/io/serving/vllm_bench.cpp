// vllm-project/vllm's `vllm bench serve --save-result` result JSON (vllm/benchmarks/serve.py,
// formerly benchmarks/benchmark_serving.py), one file per invocation: a load level. The fields
// read: request_rate (a number, or "inf": every request sent at once), burstiness (1: Poisson
// gaps; other values are gamma gaps, which validate does not rebuild), max_concurrency (null: no
// cap), completed, duration, total_input_tokens, total_output_tokens, model_id, and the
// statistics {mean,median,p90,p99}_{ttft,tpot,itl,e2el}_ms. Forks that keep the keys without
// "_ms" write the same statistics in seconds (SemiAnalysisAI/InferenceX,
// experimental/token_position_decode_slo/benchmark_serving_random.py: median_ttft, p99_ttft,
// median_tpot, p99_tpot, median_e2el, p99_e2el). vLLM's TPOT is per request, (E2E - TTFT) /
// (output - 1), the replay's own statistic. The file states no length distribution: the random
// dataset's default range ratio is 0 (every request at the stated lengths), so the levels are
// rebuilt at their mean lengths.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

namespace {

std::optional<double> vllm_bench_number(const nlohmann::json& root, const std::string& key) {
  if (!root.contains(key) || !root.at(key).is_number()) return {};
  return root.at(key).get<double>();
}

double vllm_bench_required(const nlohmann::json& root, const char* key, const std::string& where) {
  const std::optional<double> value = vllm_bench_number(root, key);
  if (!value || !(*value > 0)) {
    throw InputError(where + ": " + key +
                     " is missing or not positive (vllm bench serve --save-result writes it in "
                     "every result file)");
  }
  return *value;
}

std::string vllm_bench_text(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Python's json writes float('inf') as the bare word Infinity, which JSON does not have; vLLM
// writes the string "inf" instead, but forks differ.
std::string vllm_bench_without_infinity(std::string_view text) {
  std::string out(text);
  const std::string word = "Infinity";
  for (std::size_t at = out.find(word); at != std::string::npos; at = out.find(word, at)) {
    out.replace(at, word.size(), "null");
  }
  return out;
}

// True when the file writes its statistics in ms (vLLM's "_ms" keys), false when in seconds.
bool vllm_bench_keys_in_ms(const nlohmann::json& root) {
  for (const char* key : {"median_ttft_ms", "mean_ttft_ms", "p99_ttft_ms"}) {
    if (root.contains(key)) return true;
  }
  return false;
}

MeasuredStat vllm_bench_stat(const nlohmann::json& root, const std::string& metric, bool in_ms) {
  const auto value = [&](const char* stat) -> std::optional<double> {
    const std::string key = std::string(stat) + "_" + metric + (in_ms ? "_ms" : "");
    const std::optional<double> number = vllm_bench_number(root, key);
    if (!number) return {};
    return in_ms ? *number : *number * 1000.0;
  };
  return {value("mean"), value("median"), value("p90"), value("p99")};
}

bool vllm_bench_stat_empty(const MeasuredStat& stat) {
  return !stat.mean_ms && !stat.p50_ms && !stat.p90_ms && !stat.p99_ms;
}

// request_rate: a number, "inf" (vLLM's own), or null (a bare Infinity, read above); absent is
// vLLM's default, inf.
std::optional<double> vllm_bench_rate(const nlohmann::json& root, const std::string& where) {
  if (!root.contains("request_rate") || root.at("request_rate").is_null()) return {};
  const nlohmann::json& rate = root.at("request_rate");
  if (rate.is_string()) {
    const std::string text = rate.get<std::string>();
    if (text == "inf" || text == "Infinity") return {};
    throw InputError(where + ": request_rate \"" + text +
                     "\": expected requests per second or \"inf\"");
  }
  if (!rate.is_number() || !(rate.get<double>() > 0)) {
    throw InputError(where +
                     ": request_rate: expected a positive number of requests per second "
                     "or \"inf\"");
  }
  if (std::isinf(rate.get<double>())) return {};
  return rate.get<double>();
}

}  // namespace

bool looks_like_vllm_bench_result(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text[start] != '{') return false;
  return text.find("\"completed\"") != std::string_view::npos &&
         text.find("\"total_input_tokens\"") != std::string_view::npos &&
         (text.find("\"median_ttft_ms\"") != std::string_view::npos ||
          text.find("\"median_ttft\"") != std::string_view::npos ||
          text.find("\"mean_ttft_ms\"") != std::string_view::npos);
}

VllmBenchLevel parse_vllm_bench_result(std::string_view text, const std::string& source) {
  const nlohmann::json root = parse_json_document(vllm_bench_without_infinity(text), source);
  if (!root.is_object()) throw InputError(source + ": expected a JSON object (a result file)");
  VllmBenchLevel out;
  MeasuredLoad& load = out.load;
  const std::optional<double> rate = vllm_bench_rate(root, source);
  const std::optional<double> cap = vllm_bench_number(root, "max_concurrency");
  if (cap && (*cap < 1 || *cap != std::floor(*cap))) {
    throw InputError(source + ": max_concurrency " + vllm_bench_text(*cap) +
                     ": expected a whole number of requests in flight, or null");
  }
  const std::string cap_text = cap ? vllm_bench_text(*cap) : "";
  std::string arrival_kind;
  if (rate) {
    const double burstiness = vllm_bench_number(root, "burstiness").value_or(1.0);
    if (burstiness != 1.0) {
      throw InputError(source + ": burstiness " + vllm_bench_text(burstiness) +
                       ": gamma-distributed gaps, which kspeed validate does not rebuild yet "
                       "(it rebuilds burstiness 1, Poisson, and request_rate inf)");
    }
    load.arrivals = ArrivalPattern::poisson;
    load.rate_per_s = rate;
    out.sort_value = *rate;
    load.label = "Poisson " + vllm_bench_text(*rate) + " req/s";
    arrival_kind = cap ? "Poisson, at most " + cap_text + " in flight" : "Poisson";
    if (cap) load.label += ", at most " + cap_text + " in flight";
  } else {
    load.arrivals = ArrivalPattern::all_at_once;
    out.sort_value = cap ? *cap : HUGE_VAL;
    load.label = cap ? "concurrency " + cap_text : "all at once";
    arrival_kind = "all sent at once";
  }
  if (cap) load.max_inflight = static_cast<std::int64_t>(*cap);
  const double completed = vllm_bench_required(root, "completed", source);
  load.requests = static_cast<std::int64_t>(completed);
  load.duration_s = vllm_bench_required(root, "duration", source);
  load.achieved_rate_per_s = completed / *load.duration_s;
  load.prompt_tokens_mean = vllm_bench_required(root, "total_input_tokens", source) / completed;
  load.output_tokens_mean = vllm_bench_required(root, "total_output_tokens", source) / completed;
  const bool in_ms = vllm_bench_keys_in_ms(root);
  load.ttft = vllm_bench_stat(root, "ttft", in_ms);
  load.e2e = vllm_bench_stat(root, "e2el", in_ms);
  load.tpot = vllm_bench_stat(root, "tpot", in_ms);
  load.tpot_basis = "vLLM's TPOT ((E2E - TTFT) / (output - 1) a request)";
  if (vllm_bench_stat_empty(load.tpot)) {
    load.tpot = vllm_bench_stat(root, "itl", in_ms);
    load.tpot_is_itl = true;
    load.tpot_basis = "vLLM's ITL (gaps between streamed tokens, over all tokens)";
  }
  if (!load.ttft.p50_ms && !load.ttft.mean_ms) {
    throw InputError(source + ": neither median_ttft" + (in_ms ? "_ms" : "") + " nor mean_ttft" +
                     (in_ms ? "_ms" : "") + " (a TTFT statistic is needed to compare)");
  }
  const std::string model = root.contains("model_id") && root.at("model_id").is_string()
                                ? root.at("model_id").get<std::string>() + " "
                                : "";
  out.run_key = model + vllm_bench_text(std::round(*load.prompt_tokens_mean)) + "/" +
                vllm_bench_text(std::round(*load.output_tokens_mean)) + " tokens, " + arrival_kind;
  return out;
}

bool folder_has_vllm_bench_results(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() != ".json" || !entry.is_regular_file(error)) continue;
    if (looks_like_vllm_bench_result(read_text_file(entry.path().string(), "result"))) return true;
  }
  return false;
}

std::vector<MeasuredRun> read_vllm_bench_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file(error)) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<MeasuredRun> runs;
  std::map<std::string, std::vector<VllmBenchLevel>> levels_of;
  for (const fs::path& file : files) {
    const std::string text = read_text_file(file.string(), "vllm bench serve result");
    if (!looks_like_vllm_bench_result(text)) continue;
    VllmBenchLevel level = parse_vllm_bench_result(text, file.string());
    if (!levels_of.count(level.run_key)) runs.push_back({level.run_key, {}});
    levels_of[level.run_key].push_back(std::move(level));
  }
  if (runs.empty()) {
    throw InputError(folder +
                     ": no vllm bench serve result in the folder (*.json with completed, "
                     "total_input_tokens and a TTFT statistic; vllm bench serve --save-result "
                     "writes one a run)");
  }
  for (MeasuredRun& run : runs) {
    std::vector<VllmBenchLevel>& levels = levels_of[run.name];
    std::stable_sort(levels.begin(), levels.end(),
                     [](const VllmBenchLevel& a, const VllmBenchLevel& b) {
                       return a.sort_value < b.sort_value;
                     });
    for (VllmBenchLevel& level : levels) run.loads.push_back(std::move(level.load));
  }
  return runs;
}

}  // namespace kspeed::io
