#pragma once
// Measured runs of one deployment at several loads, as serving benchmarks report them: the
// validation data of the batching replay (docs/validation.md). One reader per format, each
// written from the tool's documented fields and tolerant of the fields it does not use:
//   inference_perf.cpp  kubernetes-sigs/inference-perf stage_N_lifecycle_metrics.json
//   accelmark.cpp       FreedomIntelligence/AccelMark result.json (interactive, online)
//   llmservingsim.cpp   casys-kaist/LLMServingSim per-request vLLM records (requests.jsonl +
//                       meta.json)
//   sglang_bench.cpp    sgl-project/sglang `python -m sglang.bench_serving --output-file` JSONL
//                       (one line per benchmark invocation: a load level)
//   vllm_bench.cpp      vllm-project/vllm `vllm bench serve --save-result` result JSON, a folder
//                       of them (one file per benchmark invocation: a load level)

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kspeed::io {

/// One metric's summary as the tool reports it, in ms (absent: the tool does not report it).
struct MeasuredStat {
  std::optional<double> mean_ms;
  std::optional<double> p50_ms;
  std::optional<double> p90_ms;
  std::optional<double> p99_ms;
};

/// How the requests of a load level arrived.
enum class ArrivalPattern {
  one_at_a_time,  ///< each request sent when the last returned (concurrency 1)
  constant_rate,  ///< evenly spaced at rate_per_s (inference-perf's "constant" load type)
  poisson,        ///< exponential gaps at rate_per_s
  all_at_once,    ///< every request sent at the start (sglang.bench_serving --request-rate inf)
};

/// Whole-number token counts drawn uniformly from low..high (both included).
struct UniformLengths {
  std::int32_t low = 1;
  std::int32_t high = 1;
};

/// One load level of a measured run.
struct MeasuredLoad {
  std::string label;  ///< "stage 3 (92.2 req/s)", "online 25 req/s"
  ArrivalPattern arrivals = ArrivalPattern::one_at_a_time;
  std::optional<double> rate_per_s;           ///< requested (open loop)
  std::optional<double> achieved_rate_per_s;  ///< as the tool measured it
  std::optional<double> duration_s;           ///< how long arrivals were sent
  std::optional<std::int64_t> max_inflight;   ///< the client's cap on requests in flight
  std::int64_t requests = 0;                  ///< completed (0: not reported)
  std::optional<double> prompt_tokens_mean;
  std::optional<double> output_tokens_mean;
  /// The lengths' distribution where the file states it (sglang.bench_serving's random dataset:
  /// uniform from max(1, floor(len × range_ratio)) to len); absent: only the means are known.
  std::optional<UniformLengths> prompt_uniform;
  std::optional<UniformLengths> output_uniform;
  /// Prompt lengths to draw from (AccelMark's request file), empty when not known.
  std::vector<std::int32_t> prompt_lengths;
  MeasuredStat ttft;
  /// Decode time per output token. Where the tool's own figure is not per token (inference-perf
  /// divides by streamed chunks), the mean is (E2E - TTFT) / (output - 1) from the means and the
  /// percentiles are left out; `tpot_basis` says which.
  MeasuredStat tpot;
  std::string tpot_basis;
  MeasuredStat e2e;
  /// Per-token figure the tool reports as inter-token latency (sglang's median_itl_ms) rather
  /// than per request: compared with the replay's TPOT p50 (its steps are the tokens' gaps).
  bool tpot_is_itl = false;
};

/// One run of a multi-run file: the levels that share every stated setting but the load.
struct MeasuredRun {
  std::string name;                 ///< "random 1024/1024 range 0", what the levels share
  std::vector<MeasuredLoad> loads;  ///< lightest first
};

/// sglang.bench_serving's --output-file JSONL: one object a line (backend, dataset_name,
/// request_rate, max_concurrency, random_input_len, random_output_len, random_range_ratio,
/// completed, duration, total_input_tokens, total_output_tokens, median_ttft_ms, median_itl_ms,
/// mean_e2e_latency_ms, median_e2e_latency_ms, ...). Lines that state the same dataset, lengths
/// and concurrency cap are one run; a run's levels are its lines by request rate (the file
/// appends one line per invocation, so runs can interleave). request_rate Infinity (Python's
/// json writes it) is every request at once. Throws InputError naming the line and field.
std::vector<MeasuredRun> parse_sglang_bench_serving(std::string_view text,
                                                    const std::string& source);
std::vector<MeasuredRun> read_sglang_bench_serving(const std::string& path);

/// True when `text` looks like sglang.bench_serving JSONL (its first line has "backend" and
/// "request_rate").
bool looks_like_sglang_bench_serving(std::string_view text);

/// One `vllm bench serve --save-result` result JSON (vllm/benchmarks/serve.py; before that
/// benchmarks/benchmark_serving.py and its forks) as a load level: request_rate ("inf": every
/// request at once), burstiness (1: Poisson), max_concurrency (null: no cap), completed,
/// duration, total_input_tokens, total_output_tokens, and {mean,median,p90,p99}_{ttft,tpot,itl,
/// e2el}_ms; forks that write the same statistics without "_ms" write them in seconds
/// (InferenceX's benchmark_serving_random.py). `run_key` names what the levels of one run share
/// (model, mean lengths, the arrival kind). Throws InputError naming the file and field.
struct VllmBenchLevel {
  std::string run_key;
  double sort_value = 0;  ///< max_concurrency (all at once) or request_rate (Poisson)
  MeasuredLoad load;
};
VllmBenchLevel parse_vllm_bench_result(std::string_view text, const std::string& source);

/// True when `text` looks like a vllm bench serve result (an object with "completed",
/// "total_input_tokens" and a TTFT statistic).
bool looks_like_vllm_bench_result(std::string_view text);

/// Every *.json in `folder` that looks like a vllm bench serve result, grouped into runs by what
/// they share (one file a level, lightest first); files that do not look like one are skipped.
/// Throws InputError when none does.
std::vector<MeasuredRun> read_vllm_bench_folder(const std::string& folder);

/// True when `folder` holds at least one *.json that looks like a vllm bench serve result.
bool folder_has_vllm_bench_results(const std::string& folder);

/// inference-perf's lifecycle metrics of one stage (seconds in the file, ms here). `label` names
/// the level. Throws InputError naming the file and field when a field it needs is missing.
MeasuredLoad parse_inference_perf_stage(std::string_view text, const std::string& source);

/// Every stage_N_lifecycle_metrics.json in `folder`, by N.
std::vector<MeasuredLoad> read_inference_perf_stages(const std::string& folder);

/// AccelMark's result.json of one scenario: "interactive" gives one level (one at a time),
/// "online" one level per target QPS (Poisson arrivals). p50/p90/p99 only, no means.
std::vector<MeasuredLoad> parse_accelmark_result(std::string_view text, const std::string& source);

std::vector<MeasuredLoad> read_accelmark_result(const std::string& path);

/// One request of a per-request record, server side (ms from the engine's own timestamps).
struct ServedRequest {
  double arrival_s = 0;  ///< queued_ts, from the first request's
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  double queue_ms = 0;            ///< scheduled - queued
  double ttft_ms = 0;             ///< first token - queued
  double e2e_ms = 0;              ///< last token - queued
  std::optional<double> tpot_ms;  ///< (last - first token) / (output - 1), 2+ tokens
};

/// A per-request run of one engine configuration.
struct PerRequestRun {
  std::string model;
  std::string engine_version;  ///< "vLLM 0.19.0"
  std::optional<std::int64_t> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<std::int64_t> kv_blocks;     ///< kv_cache.num_gpu_blocks, when recorded
  std::optional<std::int64_t> block_tokens;  ///< kv_cache.block_size, when recorded
  std::optional<bool> prefix_caching;
  std::vector<ServedRequest> requests;  ///< by arrival
};

/// LLMServingSim's bench/examples/<GPU>/<model>/vllm/ folder: requests.jsonl (one object a line:
/// request_id, input_toks, output_toks, arrival_time, queued_ts, scheduled_ts, first_token_ts,
/// last_token_ts; seconds) and meta.json (model, vllm_version, engine_kwargs, kv_cache).
PerRequestRun read_llmservingsim_run(const std::string& folder);
PerRequestRun parse_llmservingsim_run(std::string_view requests_jsonl, std::string_view meta_json,
                                      const std::string& source);

}  // namespace kspeed::io
