// casys-kaist/LLMServingSim's measured vLLM runs (bench/examples/<GPU>/<model>/vllm/):
//   requests.jsonl  {"request_id", "input_toks", "output_toks", "arrival_time" (epoch s),
//                    "queued_ts", "scheduled_ts", "first_token_ts", "last_token_ts"
//                    (the engine's monotonic clock, s)}
//   meta.json       {"model", "vllm_version", "engine_kwargs": {"max_num_seqs",
//                    "max_num_batched_tokens", ...}, "kv_cache": {"num_gpu_blocks",
//                    "block_size", "enable_prefix_caching", ...} (not in every run), ...}
// Latencies are server side, from queued_ts (when the engine received the request).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "../requests/request_json.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "llmservingsim_record.hpp"

namespace kspeed::io {

namespace {

constexpr double kMsPerNs = 1e-6;

// A timestamp in integer nanoseconds: seconds as vLLM writes them, or an integer epoch value in
// ns, µs or ms by its magnitude (no engine clock in seconds reaches 1e11).
std::optional<std::int64_t> timestamp_ns(const nlohmann::json* value) {
  if (value == nullptr || !value->is_number()) return std::nullopt;
  double unit_ns = 1e9;
  if (value->is_number_integer()) {
    const double magnitude = std::abs(value->get<double>());
    if (magnitude >= 1e17) {
      unit_ns = 1;
    } else if (magnitude >= 1e14) {
      unit_ns = 1e3;
    } else if (magnitude >= 1e11) {
      unit_ns = 1e6;
    }
  }
  return requests::json_timestamp_ns(value, unit_ns);
}

std::optional<double> span_ms(std::optional<std::int64_t> from, std::optional<std::int64_t> to) {
  if (!from || !to) return std::nullopt;
  return static_cast<double>(*to - *from) * kMsPerNs;
}

std::string ms_text(std::optional<double> ms) {
  if (!ms) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", *ms);
  return text;
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
  requests::RowProblem problem;
  const std::optional<LlmServingSimRecord> parsed = parse_llmservingsim_record(record, problem);
  if (!parsed) throw InputError(where + ": " + problem.detail);
  if (!parsed->queued_ns || !parsed->queue_ms || !parsed->ttft_ms || !parsed->e2e_ms) {
    throw InputError(where +
                     ": a timestamp is missing or not a number (expected LLMServingSim's "
                     "per-request record: input_toks, output_toks, queued_ts, scheduled_ts, "
                     "first_token_ts, last_token_ts)");
  }
  ServedRequest out;
  out.prompt_tokens = static_cast<std::int32_t>(parsed->prompt_tokens);
  out.output_tokens = static_cast<std::int32_t>(parsed->output_tokens);
  out.arrival_s = static_cast<double>(*parsed->queued_ns) * 1e-9;
  out.queue_ms = *parsed->queue_ms;
  out.ttft_ms = *parsed->ttft_ms;
  out.e2e_ms = *parsed->e2e_ms;
  out.tpot_ms = parsed->tpot_ms;
  return out;
}

}  // namespace

bool is_llmservingsim_record(const nlohmann::json& object) {
  return requests::member(object, {"input_toks"}) != nullptr &&
         requests::member(object, {"output_toks"}) != nullptr;
}

std::optional<LlmServingSimRecord> parse_llmservingsim_record(const nlohmann::json& record,
                                                              requests::RowProblem& problem) {
  using requests::json_tokens;
  using requests::member;
  const std::optional<std::int64_t> prompt =
      json_tokens(member(record, {"input_toks"}), "input_toks", 1, problem);
  const std::optional<std::int64_t> output =
      prompt ? json_tokens(member(record, {"output_toks"}), "output_toks", 0, problem)
             : std::nullopt;
  if (!prompt || !output) return std::nullopt;
  LlmServingSimRecord out;
  out.prompt_tokens = *prompt;
  out.output_tokens = *output;
  out.queued_ns = timestamp_ns(member(record, {"queued_ts"}));
  out.arrival_ns = timestamp_ns(member(record, {"arrival_time"}));
  const std::optional<std::int64_t> scheduled = timestamp_ns(member(record, {"scheduled_ts"}));
  const std::optional<std::int64_t> first = timestamp_ns(member(record, {"first_token_ts"}));
  const std::optional<std::int64_t> last = timestamp_ns(member(record, {"last_token_ts"}));
  out.queue_ms = span_ms(out.queued_ns, scheduled);
  out.ttft_ms = span_ms(out.queued_ns, first);
  out.e2e_ms = span_ms(out.queued_ns, last);
  const std::optional<double> decode_ms = span_ms(first, last);
  if ((out.queue_ms && *out.queue_ms < 0) || (out.ttft_ms && *out.ttft_ms < 0) ||
      (decode_ms && *decode_ms < 0)) {
    problem = {"timestamps out of order",
               "the timestamps are out of order (scheduled " + ms_text(out.queue_ms) +
                   ", first token " + ms_text(out.ttft_ms) + " after queued_ts; last token " +
                   ms_text(decode_ms) +
                   " after the first): expected queued_ts <= scheduled_ts and queued_ts <= "
                   "first_token_ts <= last_token_ts"};
    return std::nullopt;
  }
  if (decode_ms && out.output_tokens >= 2) {
    out.tpot_ms = *decode_ms / static_cast<double>(out.output_tokens - 1);
  }
  return out;
}

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
