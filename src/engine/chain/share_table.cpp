#include "kspeed/engine/chain/share_table.hpp"

#include <cmath>
#include <cstddef>

namespace kspeed::engine {

double logit(double share) {
  return std::log(share / (1.0 - share));
}

double inverse_logit(double log_odds) {
  return 1.0 / (1.0 + std::exp(-log_odds));
}

namespace {

// t = (ln L - ln L_i) / (ln L_{i+1} - ln L_i);  logit(p) = (1 - t) logit(p_i) + t logit(p_{i+1})
double interpolate_segment(const SharePoint& lo, const SharePoint& hi, double context_tokens) {
  const double t = (std::log(context_tokens) - std::log(lo.context_tokens)) /
                   (std::log(hi.context_tokens) - std::log(lo.context_tokens));
  return inverse_logit((1.0 - t) * logit(lo.share) + t * logit(hi.share));
}

ShareLookup outside_table(const std::vector<SharePoint>& table, double context_tokens,
                          Extrapolation extrapolation) {
  const bool below = context_tokens < table.front().context_tokens;
  const SharePoint& edge = below ? table.front() : table.back();
  if (extrapolation == Extrapolation::clamp || table.size() < 2) {
    return {edge.share, Provenance::clamped};
  }
  const std::size_t n = table.size();
  const SharePoint& lo = below ? table[0] : table[n - 2];
  const SharePoint& hi = below ? table[1] : table[n - 1];
  return {interpolate_segment(lo, hi, context_tokens), Provenance::extrapolated};
}

}  // namespace

ShareLookup share_at(const std::vector<SharePoint>& table, double context_tokens,
                     Extrapolation extrapolation) {
  if (context_tokens < table.front().context_tokens ||
      context_tokens > table.back().context_tokens) {
    return outside_table(table, context_tokens, extrapolation);
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (context_tokens == table[i].context_tokens) {
      return {table[i].share, Provenance::workload};
    }
    if (i + 1 < table.size() && context_tokens < table[i + 1].context_tokens) {
      return {interpolate_segment(table[i], table[i + 1], context_tokens),
              Provenance::interpolated};
    }
  }
  return {table.back().share, Provenance::workload};
}

}  // namespace kspeed::engine
