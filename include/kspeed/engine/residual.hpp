#pragma once
// How far a model's prediction is from one measured point: the step calibration returns one per
// point it was fitted to, and the prediction interval resamples them. Vocabulary of the
// deployment (which fits) and the verification statistics (which resample), below both.

#include <string>
#include <string_view>

namespace kspeed::engine {

/// Which time a measured point is: a request's TTFT or TPOT, or one engine step's wall time.
enum class LatencyKind { ttft, tpot, step };

constexpr std::string_view to_string(LatencyKind kind) {
  switch (kind) {
    case LatencyKind::ttft:
      return "ttft";
    case LatencyKind::tpot:
      return "tpot";
    case LatencyKind::step:
      return "step";
  }
  return "unknown";
}

/// One calibration point, measured against what the model predicts for it.
struct PointResidual {
  std::string label;  ///< which point: "ttft p50 (result/interactive/result.json)"
  LatencyKind kind = LatencyKind::ttft;
  double measured_ms = 0;
  double predicted_ms = 0;  ///< by the calibrated model
  double residual_ms() const { return measured_ms - predicted_ms; }
  double relative_residual() const { return residual_ms() / measured_ms; }
};

}  // namespace kspeed::engine
