#pragma once
// Attention share as a function of context length: a table of measured points, interpolated
// linearly in logit(share) against ln(context) (MODEL.md section 4). Under the cost model
// "non-attention work per token is constant, causal attention per token grows with the tokens
// before it", the odds p/(1-p) grow in proportion to the context, so logit(p) is linear in ln(L).

#include <vector>

#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// One measured point of the table.
struct SharePoint {
  double context_tokens = 0;  ///< context (prompt) length, tokens, > 0
  double share = 0;           ///< attention share of the phase at that context, in (0, 1)
};

/// What to do outside the table's measured range.
enum class Extrapolation {
  clamp,  ///< hold the nearest measured share (the default; a warning says so)
  model,  ///< continue the edge segment's logit-vs-log line
};

/// A share read off the table, with how it was obtained.
struct ShareLookup {
  double share = 0;
  Provenance source =
      Provenance::workload;  ///< workload (exact point), interpolated, clamped, extrapolated
};

/// Share at `context_tokens`. `table` must be validated: non-empty, contexts positive and
/// strictly increasing, shares strictly inside (0, 1).
ShareLookup share_at(const std::vector<SharePoint>& table, double context_tokens,
                     Extrapolation extrapolation);

/// logit(x) = ln(x / (1 - x)) and its inverse.
double logit(double share);
double inverse_logit(double log_odds);

}  // namespace kspeed::engine
