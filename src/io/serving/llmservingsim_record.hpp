#pragma once
// One record of LLMServingSim's per-request vLLM log (requests.jsonl), parsed in one place for
// both of its readers: the measured-run reader (llmservingsim.cpp, the validation data) and the
// request-log reader (requests/llmservingsim_jsonl.cpp, `kspeed mix` and `--calibrate`).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "../requests/request_readers.hpp"

namespace kspeed::io {

/// A record's token counts and server-side times. The latencies run from queued_ts (when the
/// engine received the request), as vLLM's own metrics do: queue = scheduled - queued,
/// TTFT = first token - queued, E2E = last token - queued, TPOT = (last - first) / (output - 1).
/// A time is absent when a timestamp it needs is (missing, null, or Infinity/NaN in the file).
struct LlmServingSimRecord {
  std::int64_t prompt_tokens = 0;          ///< input_toks, >= 1
  std::int64_t output_tokens = 0;          ///< output_toks, >= 0
  std::optional<std::int64_t> queued_ns;   ///< queued_ts (engine clock)
  std::optional<std::int64_t> arrival_ns;  ///< arrival_time (client clock, epoch)
  std::optional<double> queue_ms;
  std::optional<double> ttft_ms;
  std::optional<double> e2e_ms;
  std::optional<double> tpot_ms;  ///< 2+ output tokens
};

/// Whether a JSON object is such a record (it has input_toks and output_toks).
bool is_llmservingsim_record(const nlohmann::json& object);

/// Reads one record. Timestamps are seconds (vLLM writes floats); an integer timestamp beyond
/// 1e17 is read as nanoseconds, beyond 1e14 as microseconds and beyond 1e11 as milliseconds
/// (epoch values in those units), exactly. Returns nullopt with `problem` set when a token
/// count is missing or invalid, or the timestamps are out of order (expected queued <= scheduled,
/// queued <= first token <= last token).
std::optional<LlmServingSimRecord> parse_llmservingsim_record(const nlohmann::json& record,
                                                              requests::RowProblem& problem);

}  // namespace kspeed::io
