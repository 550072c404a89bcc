#pragma once
// Measured latencies to calibrate a deployment's step model on
// (engine/deployment/step_calibration.hpp), read from the files serving benchmarks write. One
// reader per format (src/io/calibration/), picked by content:
// - AccelMark result.json (FreedomIntelligence/AccelMark): its one-request-at-a-time
//   ("interactive") TTFT and TPOT p50, at the suite's p50 prompt and response lengths (the
//   suite file, <suite_id>.json, sits in a workload/ folder beside or above the result);
// - any per-request log kspeed reads (io/requests: AIPerf profile_export.jsonl, vLLM
//   --save-detailed JSON, trace-replay CSV, ...): one point per request with a measured TTFT or
//   TPOT, at the run's concurrency (the flag, else AIPerf's aggregate file beside the log);
//   with arrival times, also each request's decode against the requests decoding alongside it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/step_calibration.hpp"

namespace kspeed::io {

struct CalibrationFile {
  std::string source;        ///< the file name, as given
  std::string format;        ///< "accelmark-result", or the request log's format name
  std::string stated_model;  ///< the model the file says it measured; empty when it does not
  double concurrency = 1;    ///< requests in flight while it measured
  /// Latency points; a request whose log measured its queue wait (LLMServingSim) and waited for
  /// more than 10% of its TTFT gives its TPOT only: its TTFT is queue, not the prefill step or
  /// the request overhead, which the fit would otherwise absorb it into.
  std::vector<engine::LatencyObservation> points;
  /// The prefix of each point's prompt the log says was cached, one per point (0 when the log
  /// does not say): the TTFT fit prices the other tokens only (prefix_calibration.hpp).
  std::vector<double> cached_tokens;
  /// How many TTFTs that left out, for the step model's source line; empty when none.
  std::string ttft_note;
  /// The requests --calibrate-warmup left out (which, and why); empty when none.
  std::string warmup_note;
  /// The points with a per-token (TPOT) time: without one the decode side is not fitted.
  std::int64_t tpot_points = 0;
  /// Where the per-token times came from, with counts ("45 from (E2E - TTFT) / (output - 1)");
  /// empty when there is none.
  std::string tpot_note;
  /// A per-request log whose records have an arrival time, a TTFT and an E2E (or TPOT), 2+
  /// output tokens: each request's decode time per token against the requests decoding
  /// alongside it (engine::mean_decoding_alongside), for the per-sequence cost. Empty otherwise.
  std::vector<engine::RunningDecodeObservation> decode_points;
  /// The run's typical request (the p50 or median lengths), for an estimate that gives none.
  std::int64_t typical_prompt_tokens = 0;
  std::int64_t typical_response_tokens = 0;
  /// A step model already fitted (a deployment file kspeed calibrate wrote): used as it is.
  std::optional<engine::CalibratedStepModel> fitted;
  /// The token budget a step that deployment file's fit replayed, when a flag or the run's files
  /// stated it (not when it was vLLM's default): estimate and sweep chunk prefill by it.
  std::optional<std::int64_t> step_token_budget;
};

/// For people: the file's TTFT and TPOT point counts and where its per-token times came from;
/// with no TPOT point, that the decode side keeps its modelled prior and what would fit it.
std::string describe_points(const CalibrationFile& file);

/// Reads AccelMark's result JSON from its text; `suite_text` is its suite file's text (empty when
/// not found: the error then says where it was looked for).
CalibrationFile parse_accelmark_result(std::string_view text, std::string_view suite_text,
                                       const std::string& source);

/// True when `text` is an AccelMark result (a JSON object with suite_id and metrics).
bool looks_like_accelmark_result(std::string_view text);

/// Reads the file at `path`; `concurrency` (the flag) overrides what the file states;
/// `warmup` first requests of a per-request log (by arrival) are left out of the points. Throws
/// InputError naming the file when it is no known format, holds no measured latency, or a
/// per-request log states no concurrency and none is given.
CalibrationFile read_calibration_file(const std::string& path,
                                      std::optional<double> concurrency = std::nullopt,
                                      std::int64_t warmup = 0);

}  // namespace kspeed::io
