#pragma once
// The prefix a log says was cached, in the TTFT fit (step_calibration.hpp's calibrations, with the
// tokens of each point's prompt that came from the prefix cache): the prefill step then computes
// only the other tokens, each attending to the cached prefix too. Without it a cached prompt is
// priced as computed in full and the fit takes the difference out of the request overhead.

#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/step_calibration.hpp"

namespace kspeed::engine {

/// The prefill of `concurrency` identical requests after `cached_tokens` of each prompt came
/// from the prefix cache (clamped to 0..prompt - 1): prompt - cached tokens, and their causal
/// pairs after the cached prefix (with chunked local layers, `chunk_tokens` C > 0, also the pairs
/// within their chunks).
BatchComposition prefill_batch(double prompt_tokens, double concurrency, double cached_tokens,
                               std::int64_t chunk_tokens = 0);

/// calibrate_to_latencies with `cached_tokens[i]` the cached prefix of observation i (empty: none
/// cached; otherwise one per observation, each 0 <= c < its prompt).
CalibratedStepModel calibrate_to_latencies(const CalibratedStepModel& prior,
                                           const std::vector<LatencyObservation>& observations,
                                           const std::vector<double>& cached_tokens,
                                           std::string_view source);

/// calibrate_to_run with the cached prefixes of the latency points, as above.
CalibratedStepModel calibrate_to_run(const CalibratedStepModel& prior,
                                     const std::vector<LatencyObservation>& latencies,
                                     const std::vector<double>& cached_tokens,
                                     const std::vector<RunningDecodeObservation>& decode,
                                     std::string_view source);

}  // namespace kspeed::engine
