// casys-kaist/LLMServingSim's measured vLLM runs (bench/examples/<GPU>/<model>/vllm/):
//   requests.jsonl  {"request_id", "input_toks", "output_toks", "arrival_time" (epoch s),
//                    "queued_ts", "scheduled_ts", "first_token_ts", "last_token_ts"
//                    (the engine's monotonic clock, s)}
//   meta.json       {"model", "vllm_version", "engine_kwargs": {"max_num_seqs",
//                    "max_num_batched_tokens", ...}, "kv_cache": {"num_gpu_blocks",
//                    "block_size", "enable_prefix_caching", ...} (not in every run), ...}
// Latencies are server side, from queued_ts (when the engine received the request).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

namespace {

double seconds(const nlohmann::json& record, const char* key, const std::string& where) {
  if (!record.contains(key) || !record.at(key).is_number()) {
    throw InputError(where + ": '" + key +
                     "' is missing or not a number (expected LLMServingSim's per-request "
                     "record: input_toks, output_toks, queued_ts, scheduled_ts, "
                     "first_token_ts, last_token_ts)");
  }
  return record.at(key).get<double>();
}

template <class T>
std::optional<T> optional_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || object.at(key).is_null()) return {};
  if constexpr (std::is_same_v<T, bool>) {
    if (!object.at(key).is_boolean()) return {};
  } else {
    if (!object.at(key).is_number()) return {};
  }
  return object.at(key).get<T>();
}

ServedRequest served(const nlohmann::json& record, const std::string& where) {
  ServedRequest out;
  out.prompt_tokens = static_cast<std::int32_t>(seconds(record, "input_toks", where));
  out.output_tokens = static_cast<std::int32_t>(seconds(record, "output_toks", where));
  const double queued = seconds(record, "queued_ts", where);
  const double scheduled = seconds(record, "scheduled_ts", where);
  const double first = seconds(record, "first_token_ts", where);
  const double last = seconds(record, "last_token_ts", where);
  if (out.prompt_tokens < 1 || out.output_tokens < 0 || scheduled < queued || first < queued ||
      last < first) {
    throw InputError(where +
                     ": inconsistent record (expected input_toks >= 1 and queued <= scheduled, "
                     "queued <= first token <= last token)");
  }
  out.arrival_s = queued;
  out.queue_ms = (scheduled - queued) * 1000.0;
  out.ttft_ms = (first - queued) * 1000.0;
  out.e2e_ms = (last - queued) * 1000.0;
  if (out.output_tokens >= 2) out.tpot_ms = (last - first) * 1000.0 / (out.output_tokens - 1);
  return out;
}

}  // namespace

PerRequestRun parse_llmservingsim_run(std::string_view requests_jsonl, std::string_view meta_json,
                                      const std::string& source) {
  PerRequestRun run;
  const nlohmann::json meta = parse_json_document(meta_json, source + "/meta.json");
  if (meta.is_object()) {
    if (meta.contains("model") && meta.at("model").is_string()) run.model = meta.at("model");
    if (meta.contains("vllm_version") && meta.at("vllm_version").is_string()) {
      run.engine_version = "vLLM " + meta.at("vllm_version").get<std::string>();
    }
    const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json& engine =
        meta.contains("engine_kwargs") ? meta.at("engine_kwargs") : empty;
    run.max_num_seqs = optional_at<std::int64_t>(engine, "max_num_seqs");
    run.max_num_batched_tokens = optional_at<std::int64_t>(engine, "max_num_batched_tokens");
    const nlohmann::json& kv = meta.contains("kv_cache") ? meta.at("kv_cache") : empty;
    run.kv_blocks = optional_at<std::int64_t>(kv, "num_gpu_blocks");
    run.block_tokens = optional_at<std::int64_t>(kv, "block_size");
    run.prefix_caching = optional_at<bool>(kv, "enable_prefix_caching");
  }
  std::size_t start = 0;
  std::int64_t line = 0;
  while (start < requests_jsonl.size()) {
    std::size_t end = requests_jsonl.find('\n', start);
    if (end == std::string_view::npos) end = requests_jsonl.size();
    ++line;
    const std::string_view text = requests_jsonl.substr(start, end - start);
    start = end + 1;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = source + "/requests.jsonl:" + std::to_string(line);
    run.requests.push_back(served(parse_json_document(text, where), where));
  }
  if (run.requests.empty()) {
    throw InputError(source + "/requests.jsonl: no requests (expected one JSON object a line)");
  }
  std::stable_sort(
      run.requests.begin(), run.requests.end(),
      [](const ServedRequest& a, const ServedRequest& b) { return a.arrival_s < b.arrival_s; });
  const double origin = run.requests.front().arrival_s;
  for (ServedRequest& request : run.requests) request.arrival_s -= origin;
  return run;
}

PerRequestRun read_llmservingsim_run(const std::string& folder) {
  return parse_llmservingsim_run(
      read_text_file(folder + "/requests.jsonl", "LLMServingSim requests"),
      read_text_file(folder + "/meta.json", "LLMServingSim meta"), folder);
}

}  // namespace kspeed::io
