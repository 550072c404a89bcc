#pragma once
// Prefill attention share from the architecture alone, before any measurement.
//
// Per sequence of L prompt tokens, attention does QK^T and PV over the causal pairs
// (L²/2 with full attention, L·W - W²/2 with a window W; MLA prefill runs on decompressed heads
// of width d_nope + d_rope for QK and d_v for PV), and the GEMMs do 2 FLOPs per active weight per
// token (Q/K/V/O projections or MLA's, the dense FFN or the k routed + shared experts, the
// router; the output head runs for the last position only and is left out). FLOP counts do not
// depend on precision; what does is the time a FLOP takes, so one ratio says how much longer an
// attention FLOP takes than a GEMM FLOP (1: same precision and efficiency; BF16 attention beside
// FP8 GEMMs: about 2):
//
//     p(L) = r·A(L) / (r·A(L) + G(L))
//
// Kernels reach different fractions of peak, so this is a shape, not a measurement: calibrated
// to measured points it keeps its shape and moves by one factor on the odds, fitted in logit
// space: logit(p_cal) = logit(p_model) + ln c, ln c = mean(logit(p_measured) - logit(p_model)).

#include <cstddef>
#include <vector>

#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/chain/share_table.hpp"

namespace kspeed::engine {

/// Attention FLOPs (QK^T and PV) of one sequence's prefill of `prompt_tokens`, all layers.
double prefill_attention_flops(const ModelArch& model, double prompt_tokens);

/// GEMM FLOPs of the same prefill: 2 · L · (active parameters - output head).
double prefill_gemm_flops(const ModelArch& model, const ModelShapes& shapes, double prompt_tokens);

/// p(L) = r·A / (r·A + G), r = `attention_time_per_flop_ratio` (> 0).
double analytic_prefill_share(const ModelArch& model, const ModelShapes& shapes,
                              double prompt_tokens, double attention_time_per_flop_ratio = 1.0);

/// The odds factor that brings the analytic curve to measured points.
struct ShareCalibration {
  double odds_factor = 1;         ///< c: calibrated odds = c · analytic odds
  std::size_t points = 0;         ///< measured points it was fitted to
  double rms_logit_residual = 0;  ///< misfit left in logit units (0 with one point)
};

/// ln c = mean over the points of logit(p_measured) - logit(p_model). Throws InputError when
/// `measured` is empty or holds a share outside (0, 1).
ShareCalibration calibrate_share(const ModelArch& model, const ModelShapes& shapes,
                                 const std::vector<SharePoint>& measured,
                                 double attention_time_per_flop_ratio = 1.0);

/// p_cal(L) = inverse_logit(logit(p_model(L)) + ln c).
double calibrated_prefill_share(const ModelArch& model, const ModelShapes& shapes,
                                double prompt_tokens, const ShareCalibration& calibration,
                                double attention_time_per_flop_ratio = 1.0);

}  // namespace kspeed::engine
