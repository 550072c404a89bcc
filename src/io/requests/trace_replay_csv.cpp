// Per-request benchmark results as CSV, as InferenceX's multi-turn trace replay writes them
// (github.com/SemiAnalysisAI/InferenceX, experimental/multiturn/vllm_benchmark,
// detailed_results.csv): `input_tokens`, `output_tokens_actual`, the cache hits in 64-token
// blocks, `ttft`, `ttlt` and `itl` in seconds, `request_start_time` (epoch seconds), `success`,
// and long quoted JSON lists (`token_timestamps`) that the CSV splitter carries over.
//
// Two hit columns, and the cached prefix is the run's own. `cache_hit_blocks` is the source
// trace's recorded hit: a user's first turn in the run claims the prefix its conversation had
// in production, which this server never computed. `theoretical_cache_hit_blocks` is the hit
// an infinite cache would give in this run: it equals `cache_hit_blocks` capped by the same
// user's previous request (prompt + output) and is 0 on a user's first turn (checked row by row
// on the 8 × B200 DeepSeek-R1 levels), and its sum is the aggregate's
// `theoretical_infinite_cache_hit_rate`, which tracks the server's own hit rate (95.5% / 95.1%
// at 1 user, 82.3% / 83.0% at 8, 58.5% / 57.7% at 12). The replay and the TTFT fit price the
// prefill the server ran, so the run's column wins where a file has it.
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
  mapping.cached = optional_column("theoretical_cache_hit_blocks", kBlockTokens);
  if (!mapping.cached) mapping.cached = optional_column("cache_hit_blocks", kBlockTokens);
  mapping.e2e = optional_column("ttlt", kTraceReplayMsPerS);
  mapping.itl = optional_column("itl", kTraceReplayMsPerS);
  mapping.arrival = optional_column("request_start_time", kNsPerS);
  mapping.success = optional_column("success", 1);
  read_mapped_csv(input, mapping, true);
  input.report->format = RequestFormat::trace_replay_csv;
  return true;
}

}  // namespace kspeed::io::requests
