// Per-request benchmark results as CSV, as InferenceX's multi-turn trace replay writes them
// (github.com/SemiAnalysisAI/InferenceX, experimental/multiturn/vllm_benchmark,
// detailed_results.csv): `input_tokens`, `output_tokens_actual`, `cache_hit_blocks` (64-token
// blocks), `ttft`, `ttlt` and `itl` in seconds, `request_start_time` (epoch seconds), `success`,
// and long quoted JSON lists (`token_timestamps`) that the CSV splitter carries over.
#include "request_readers.hpp"

namespace kspeed::io::requests {

namespace {
constexpr double kBlockTokens = 64;  // InferenceX's vLLM runs use 64-token KV-cache blocks
constexpr double kTraceReplayMsPerS = 1000;
constexpr double kNsPerS = 1e9;
}  // namespace

bool read_trace_replay_csv(LogInput& input) {
  if (!header_has(input, {"input_tokens", "output_tokens_actual", "ttft"})) return false;
  ColumnMapping mapping;
  mapping.prompt = {"input_tokens"};
  mapping.response = {"output_tokens_actual"};
  mapping.ttft = ColumnSpec{"ttft", kTraceReplayMsPerS};
  const auto optional_column = [&](const char* name, double scale) -> std::optional<ColumnSpec> {
    if (!header_has(input, {name})) return std::nullopt;
    return ColumnSpec{name, scale};
  };
  mapping.cached = optional_column("cache_hit_blocks", kBlockTokens);
  mapping.e2e = optional_column("ttlt", kTraceReplayMsPerS);
  mapping.itl = optional_column("itl", kTraceReplayMsPerS);
  mapping.arrival = optional_column("request_start_time", kNsPerS);
  mapping.success = optional_column("success", 1);
  read_mapped_csv(input, mapping, true);
  input.report->format = RequestFormat::trace_replay_csv;
  return true;
}

}  // namespace kspeed::io::requests
