#pragma once
// A prediction interval on the estimate's headline (the request speedup), from the spread of
// the measured inputs behind it. Method: a percentile bootstrap over the profiled engine steps
// the workload carries (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13),
// stratified by the latency each step measures. Each resample draws, with replacement, as many
// TTFT steps and as many TPOT steps as the trace measured; recomputes each phase's attention
// share (Σ attention / Σ time, time-weighted like kspeed profile) and latency (the mean
// per-request TTFT, the mean decode step); scales the estimate's measured inputs by the
// resample's ratio to the whole sample (so a share interpolated or a TTFT scaled to another
// prompt moves with its measurement); and runs the same Amdahl chain. The interval is the
// (1-c)/2 and (1+c)/2 percentiles of the resampled request speedups (numpy's linear rule).
// The generator is bench_diff's: std::mt19937_64 seeded with kBootstrapSeed, indices from its
// top 53 bits, so the interval is the same on every platform.
//
// Without profiled steps, a TTFT or TPOT the deployment's step model supplied after a fit to
// measured latencies (--calibrate FILE) carries the fit's residuals: a bootstrap over the
// calibration's points then draws one TTFT and one TPOT point per resample and moves the
// model's TTFT (TPOT) by that point's measured / predicted ratio, the shares held — where a new
// measurement at that shape would fall, as far as the points scatter around the fit.
//
// Inputs without a measured spread — typed on the command line, illustrative, modelled, a
// cited workload's table — are held fixed. When no input has a spread there is no interval,
// and the reason says why: nothing is invented.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/engine/residual.hpp"
#include "kspeed/engine/verify/bench_diff.hpp"

namespace kspeed::engine {

/// Why an estimate has no prediction interval.
enum class NoPredictionInterval {
  none,                 ///< it has one
  no_measured_spread,   ///< no input carries a spread (cited, illustrative, given, modelled)
  inputs_not_measured,  ///< the measured inputs were replaced (given, converted) or not used
  too_few_steps,        ///< every resampled input was measured on one step: no spread
  exact_fit,            ///< the fitted step model meets each calibration point: no residuals
  no_resamples,         ///< resamples set to 0
};

/// "no_measured_spread", "inputs_not_measured", "too_few_steps", "exact_fit", "no_resamples"
/// ("none").
std::string_view to_string(NoPredictionInterval reason);

/// Which of the estimate's inputs are the profiled steps' measurements (and so resampled).
struct ResampledInputs {
  bool prefill_share = false;
  bool ttft = false;
  bool decode_share = false;
  bool tpot = false;
  bool any() const { return prefill_share || ttft || decode_share || tpot; }
  /// "prefill_share", "ttft", "decode_share", "tpot": the ones set, in that order.
  std::vector<std::string> names() const;
};

struct PredictionInterval {
  std::optional<double> low;   ///< request speedup at the (1 - c)/2 percentile
  std::optional<double> high;  ///< request speedup at the (1 + c)/2 percentile
  double confidence = 0.95;
  std::int64_t resamples = 0;
  std::int64_t ttft_samples = 0;  ///< steps (or calibration points) behind TTFT, prefill share
  std::int64_t tpot_samples = 0;  ///< steps (or calibration points) behind TPOT, decode share
  ResampledInputs inputs;
  NoPredictionInterval reason = NoPredictionInterval::no_measured_spread;
  std::string_view method;  ///< kStepMethod or kResidualMethod; empty without an interval
  static constexpr std::string_view kStepMethod = "bootstrap over profiled steps";
  static constexpr std::string_view kResidualMethod = "bootstrap over calibration residuals";
};

/// The interval for the chain `prefill`, `decode` whose `inputs` are the steps' measurements.
PredictionInterval step_bootstrap_interval(const std::vector<ProfiledStep>& steps,
                                           const PhaseInput& prefill, const PhaseInput& decode,
                                           const ResampledInputs& inputs,
                                           const BootstrapOptions& options = {});

/// The interval for the chain `prefill`, `decode` whose TTFT (`ttft`) and/or TPOT (`tpot`) the
/// fitted step model supplied, from the calibration's `residuals`.
PredictionInterval residual_bootstrap_interval(const std::vector<PointResidual>& residuals,
                                               const PhaseInput& prefill, const PhaseInput& decode,
                                               bool ttft, bool tpot,
                                               const BootstrapOptions& options = {});

}  // namespace kspeed::engine
