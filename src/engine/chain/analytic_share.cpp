#include "kspeed/engine/chain/analytic_share.hpp"

#include <cmath>
#include <string>

#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

double prefill_attention_flops(const ModelArch& model, double prompt_tokens) {
  // One sequence, one GPU holding every head: the roofline's causal prefill cost.
  AttentionShape shape;
  shape.model = &model;
  shape.tensor_parallel = 1;
  shape.batch = 1;
  return prefill_attention_cost(shape, static_cast<std::int64_t>(std::llround(prompt_tokens)))
      .flops;
}

double prefill_gemm_flops(const ModelArch& model, const ModelShapes& shapes, double prompt_tokens) {
  const ParamCounts params = count_params(model, shapes);
  // G = 2 · L · (active - head): a multiply-add per active weight per token
  return 2.0 * prompt_tokens * (params.active - params.embedding);
}

double analytic_prefill_share(const ModelArch& model, const ModelShapes& shapes,
                              double prompt_tokens, double attention_time_per_flop_ratio) {
  // p = r·A / (r·A + G)
  const double attention =
      attention_time_per_flop_ratio * prefill_attention_flops(model, prompt_tokens);
  return attention / (attention + prefill_gemm_flops(model, shapes, prompt_tokens));
}

ShareCalibration calibrate_share(const ModelArch& model, const ModelShapes& shapes,
                                 const std::vector<SharePoint>& measured,
                                 double attention_time_per_flop_ratio) {
  if (measured.empty()) {
    throw InputError(
        "share calibration: no measured points: give at least one (context, share) point");
  }
  std::vector<double> gaps;
  for (const SharePoint& point : measured) {
    if (!(point.share > 0 && point.share < 1) || !(point.context_tokens > 0)) {
      throw InputError("share calibration: the point at " +
                       count_mark(static_cast<long long>(point.context_tokens)) +
                       " tokens has share " + number_mark(point.share) +
                       ": expected a positive context and a share strictly between 0 and 1");
    }
    const double model_share =
        analytic_prefill_share(model, shapes, point.context_tokens, attention_time_per_flop_ratio);
    gaps.push_back(logit(point.share) - logit(model_share));
  }
  // ln c = mean(logit(p_measured) - logit(p_model)): least squares in logit space
  double mean = 0;
  for (const double gap : gaps) {
    mean += gap / static_cast<double>(gaps.size());
  }
  double squares = 0;
  for (const double gap : gaps) {
    squares += (gap - mean) * (gap - mean);
  }
  return {std::exp(mean), measured.size(), std::sqrt(squares / static_cast<double>(gaps.size()))};
}

double calibrated_prefill_share(const ModelArch& model, const ModelShapes& shapes,
                                double prompt_tokens, const ShareCalibration& calibration,
                                double attention_time_per_flop_ratio) {
  const double model_share =
      analytic_prefill_share(model, shapes, prompt_tokens, attention_time_per_flop_ratio);
  // logit(p_cal) = logit(p_model) + ln c
  return inverse_logit(logit(model_share) + std::log(calibration.odds_factor));
}

}  // namespace kspeed::engine
