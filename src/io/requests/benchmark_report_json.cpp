// Benchmark reports read as request logs, where they keep each request.
//
// GuideLLM's benchmarks.json (vllm-project/guidellm: docs/guides/outputs.md,
// src/guidellm/benchmark/schemas/report.py, src/guidellm/schemas/request_stats.py): each
// benchmarks[] entry keeps its requests by status, "requests": {"successful", "errored",
// "incomplete"}, each a GenerativeRequestStats with the computed fields prompt_tokens,
// output_tokens, request_start_time (Unix s; start_time before 0.3), time_to_first_token_ms,
// inter_token_latency_ms ((last token - first token) / (output tokens - 1): vLLM's TPOT; its
// time_per_output_token_ms includes the first token and is not read) and request_latency (s).
// GuideLLM saves every request unless --sample-requests N (--output-sampling before) keeps a
// sample of N per status; the run's counts are metrics.request_totals.
//
// Results that state aggregates only give mix no request to put through the chain; each is named
// with the per-request output that would do (kspeed diff and audit read them as they are):
// - llm-d-benchmark's standard report (llm-d/llm-d-benchmark docs/benchmark_report.md,
//   llmdbenchmark/analysis/benchmark_report/schema_v0_1.py, schema_v0_2.py): statistics over the
//   requests, and in 0.2 time series of them;
// - `vllm bench serve --save-result` without --save-detailed (completed, mean_ttft_ms, ...);
// - AIPerf's profile_export_aiperf.json (records and input_config, or schema 1.3's metrics at
//   the top level) and profile_export_aiperf.csv ("Metric,avg,..."), beside the per-request
//   profile_export.jsonl in the same artifact directory;
// - SGLang bench_serving JSONL without --output-details (backend, completed, mean_e2e_latency_ms
//   a line; with it each line also holds input_lens, output_lens, ttfts and itls).
#include <cmath>

#include "kspeed/error.hpp"
#include "request_json.hpp"

namespace kspeed::io::requests {

namespace {

constexpr double kBenchmarkReportMsPerS = 1000;

bool is_guidellm_report(const nlohmann::json& document) {
  const nlohmann::json* benchmarks = member(document, {"benchmarks"});
  if (benchmarks == nullptr || !benchmarks->is_array()) return false;
  if (benchmarks->empty()) return member(document, {"metadata", "config", "args"}) != nullptr;
  const nlohmann::json& first = benchmarks->front();
  return first.is_object() && member(first, {"metrics", "requests"}) != nullptr;
}

std::string where(const LogInput& input) {
  return input.source + ":" + std::to_string(input.head_line);
}

// A latency GuideLLM may leave null (a request with one output token has no inter-token
// latency): absent stays absent; a value that is there must be a duration.
bool read_latency(const nlohmann::json& stats, const char* field, double scale,
                  std::optional<double>& out, RowProblem& problem) {
  const nlohmann::json* value = member(stats, {field});
  if (value == nullptr || value->is_null()) return true;
  out = json_duration(value, field, scale, problem);
  return out.has_value();
}

// One successful request's stats; false with `problem` set when a field is unusable.
bool read_request_stats(const nlohmann::json& stats, engine::Request& request,
                        RowProblem& problem) {
  if (!stats.is_object()) {
    problem = {"not a request object", json_excerpt(stats) + " is not a request's stats object"};
    return false;
  }
  const std::optional<std::int64_t> prompt =
      json_tokens(member(stats, {"prompt_tokens"}), "prompt_tokens", 1, problem);
  const std::optional<std::int64_t> output =
      prompt ? json_tokens(member(stats, {"output_tokens"}), "output_tokens", 0, problem)
             : std::nullopt;
  if (!prompt || !output) return false;
  request.prompt_tokens = *prompt;
  request.response_tokens = *output;
  if (const nlohmann::json* id = member(stats, {"request_id"}); id && id->is_string()) {
    // A fresh UUID per request in every run: it names the request, it pairs nothing.
    request.id = id->get<std::string>();
  }
  return read_latency(stats, "time_to_first_token_ms", 1, request.ttft_ms, problem) &&
         read_latency(stats, "inter_token_latency_ms", 1, request.tpot_ms, problem) &&
         read_latency(stats, "request_latency", kBenchmarkReportMsPerS, request.e2e_ms, problem);
}

const nlohmann::json* request_list(const nlohmann::json& benchmark, const char* status) {
  const nlohmann::json* requests = member(benchmark, {"requests"});
  const nlohmann::json* list = requests != nullptr ? member(*requests, {status}) : nullptr;
  return list != nullptr && list->is_array() ? list : nullptr;
}

// metrics.request_totals.<status>: how many requests of the run had that status.
std::optional<std::int64_t> run_total(const nlohmann::json& benchmark, const char* status) {
  const nlohmann::json* metrics = member(benchmark, {"metrics"});
  const nlohmann::json* totals =
      metrics != nullptr ? member(*metrics, {"request_totals"}) : nullptr;
  const nlohmann::json* count = totals != nullptr ? member(*totals, {status}) : nullptr;
  RowProblem ignored;
  return count != nullptr ? json_tokens(count, status, 0, ignored) : std::nullopt;
}

// "synchronous, constant 2.5/s": the strategies of a sweep, for the error that refuses it.
std::string strategies(const nlohmann::json& benchmarks) {
  std::string list;
  for (const nlohmann::json& benchmark : benchmarks) {
    const nlohmann::json* config = member(benchmark, {"config", "args"});
    const nlohmann::json* strategy =
        config != nullptr ? member(*config, {"strategy"}) : member(benchmark, {"strategy"});
    const nlohmann::json* type =
        strategy != nullptr ? member(*strategy, {"type_", "type"}) : nullptr;
    list += (list.empty() ? "" : ", ") +
            (type != nullptr && type->is_string() ? type->get<std::string>() : std::string("?"));
  }
  return list;
}

[[noreturn]] void refuse_without_requests(const LogInput& input, const nlohmann::json& benchmark) {
  const std::optional<std::int64_t> successful = run_total(benchmark, "successful");
  throw InputError(
      where(input) + ": a GuideLLM report that keeps no successful request's stats (" +
      (successful ? "metrics.request_totals.successful is " + std::to_string(*successful) +
                        ", benchmarks[0].requests.successful is empty or absent"
                  : std::string("benchmarks[0].requests.successful is empty or absent")) +
      "): mix needs each request's prompt_tokens and output_tokens, which GuideLLM saves there "
      "unless told not to (--sample-requests 0; --output-sampling 0 in older versions); rerun "
      "guidellm without it, or compare the report's aggregates with kspeed diff or kspeed audit");
}

}  // namespace

bool read_guidellm_json(LogInput& input, const nlohmann::json& document) {
  if (!is_guidellm_report(document)) return false;
  input.report->format = RequestFormat::guidellm_json;
  const nlohmann::json& benchmarks = document["benchmarks"];
  if (benchmarks.empty()) {
    throw InputError(where(input) +
                     ": a GuideLLM report with no benchmarks (\"benchmarks\": []): the run ended "
                     "before a benchmark completed; mix needs one benchmark's requests");
  }
  if (benchmarks.size() > 1) {
    throw InputError(where(input) + ": a GuideLLM report with " +
                     std::to_string(benchmarks.size()) +
                     " benchmarks (a sweep: " + strategies(benchmarks) +
                     "), each at its own load: mix reads one run's requests; keep one, e.g. jq "
                     "'.benchmarks |= [.[0]]' " +
                     input.source + " > run0.json (kspeed diff and audit read every benchmark)");
  }
  const nlohmann::json& benchmark = benchmarks.front();
  const nlohmann::json* successful = request_list(benchmark, "successful");
  if (successful == nullptr || successful->empty()) refuse_without_requests(input, benchmark);
  for (std::size_t i = 0; i < successful->size(); ++i) {
    ++input.report->records;
    engine::Request request;
    request.line = input.head_line;
    RowProblem problem;
    if (!read_request_stats((*successful)[i], request, problem)) {
      problem.detail = "requests.successful[" + std::to_string(i) + "]: " + problem.detail;
      input.skip(input.head_line, problem);
      continue;
    }
    const nlohmann::json* start = member((*successful)[i], {"request_start_time", "start_time"});
    request.arrival_s = input.arrival_from_ns(json_timestamp_ns(start, 1e9), input.head_line);
    input.deliver(request);
  }
  // Errored and incomplete requests are counted, as failed rows are in every log.
  for (const char* status : {"errored", "incomplete"}) {
    const nlohmann::json* list = request_list(benchmark, status);
    const std::size_t count = list != nullptr ? list->size() : 0;
    for (std::size_t i = 0; i < count; ++i) {
      ++input.report->records;
      input.skip(input.head_line,
                 {std::string(status) + " request",
                  "requests." + std::string(status) + "[" + std::to_string(i) +
                      "]: GuideLLM reports the request " + status + ": it has no usable latency"});
    }
  }
  // A sample: the successful requests the report left out are counted, not silently absent.
  const std::optional<std::int64_t> total = run_total(benchmark, "successful");
  const auto kept = static_cast<std::int64_t>(successful->size());
  if (total && *total > kept) {
    const std::int64_t left_out = *total - kept;
    input.skip(
        input.head_line,
        {"successful request not kept in the report (a sample)",
         "GuideLLM kept " + std::to_string(kept) + " of the run's " + std::to_string(*total) +
             " successful requests (metrics.request_totals.successful; --sample-requests): "
             "the others' lengths and latencies are not in the file"});
    // One entry counted by skip; the rest of the left-out requests join it.
    input.report->skipped.back().count += left_out - 1;
    input.report->records += left_out;
  }
  return true;
}

namespace {

[[noreturn]] void refuse_aggregates(const LogInput& input, const std::string& what,
                                    const std::string& instead) {
  throw InputError(where(input) + ": " + what +
                   ": aggregates only, no request's prompt and response lengths, and this "
                   "command reads each request; " +
                   instead + " (kspeed diff, plan and audit read this file as it is)");
}

bool is_aiperf_aggregate(const nlohmann::json& document) {
  if (member(document, {"records"}) != nullptr) {
    return member(document, {"input_config"}) != nullptr;
  }
  const nlohmann::json* latency =
      member(document, {"request_latency", "time_to_first_token", "ttft"});
  return latency != nullptr && member(*latency, {"unit"}) != nullptr &&
         member(document, {"schema_version", "aiperf_version", "input_config"}) != nullptr;
}

bool is_sglang_run(const nlohmann::json& object) {
  return member(object, {"backend"}) != nullptr && member(object, {"completed"}) != nullptr &&
         member(object, {"mean_e2e_latency_ms", "median_e2e_latency_ms", "dataset_name"}) !=
             nullptr;
}

}  // namespace

bool refuse_aggregate_result(const LogInput& input, const nlohmann::json& document) {
  if (member(document, {"input_lens"}) != nullptr) return false;  // per-request lists: not here
  if (is_aiperf_aggregate(document)) {
    refuse_aggregates(input, "AIPerf's aggregate export (profile_export_aiperf.json)",
                      "give profile_export.jsonl from the same artifact directory, or the "
                      "directory itself");
  }
  if (is_sglang_run(document)) {
    refuse_aggregates(input, "an SGLang bench_serving result",
                      "rerun bench_serving with --output-details, which adds input_lens, "
                      "output_lens, ttfts and itls to each line");
  }
  if (member(document, {"completed"}) != nullptr &&
      member(document, {"mean_ttft_ms", "median_ttft_ms"}) != nullptr) {
    refuse_aggregates(input, "a vllm bench serve result saved without --save-detailed",
                      "rerun with --save-result --save-detailed, which keeps input_lens, "
                      "output_lens, ttfts and itls per request");
  }
  return false;
}

bool refuse_aggregate_line(const LogInput& input) {
  const std::optional<nlohmann::json> head = json_object_or_none(input.head);
  return head && refuse_aggregate_result(input, *head);
}

bool refuse_aggregate_csv(const LogInput& input) {
  // TextLines has dropped a UTF-8 BOM already.
  if (input.head.starts_with("Metric,avg,") || input.head.starts_with("Metric,Value")) {
    refuse_aggregates(input, "AIPerf's aggregate export (profile_export_aiperf.csv)",
                      "give profile_export.jsonl from the same artifact directory, or the "
                      "directory itself");
  }
  return false;
}

bool refuse_llmd_report(const LogInput& input, const nlohmann::json& document) {
  const nlohmann::json* version = member(document, {"version"});
  if (version == nullptr || !version->is_string() || member(document, {"scenario"}) == nullptr ||
      member(document, {"metrics", "results"}) == nullptr) {
    return false;
  }
  throw InputError(
      where(input) + ": an llm-d benchmark report (version " + version->get<std::string>() +
      ") states aggregates only (" +
      (member(document, {"results"}) != nullptr
           ? "results.request_performance.aggregate and time_series"
           : "metrics.requests and metrics.latency") +
      "), no request's prompt and output lengths: mix replays requests one by one, so it needs "
      "the harness's per-request output from the same run (vllm bench serve --save-detailed "
      "JSON, GuideLLM benchmarks.json, AIPerf profile_export.jsonl, or any per-request CSV with "
      "--columns); kspeed diff and kspeed audit read the report itself");
}

}  // namespace kspeed::io::requests
