#pragma once
// The bisection every capacity search ends with (issue 26, D3): the colocated replay's
// (find_capacity, serving_replay.cpp) and the disaggregated replay's (mix_disagg.cpp) each
// bracket the capacity their own way, then narrow the bracket here, so both stop at the same
// tolerance by the same rule.

#include <cmath>
#include <functional>

namespace kspeed::engine {

/// Rate scales around a capacity: `low` meets the SLOs (its attainment `low_attained`), `high`
/// does not.
struct RateBracket {
  double low = 0;
  double high = 0;
  double low_attained = 0;
};

/// Narrows `bracket` at geometric midpoints (bisection in log rate scale: a capacity is as
/// likely a tenth as ten times the log's rate) until high / low - 1 is at most `tolerance`.
/// `meets(x, attained)` replays at rate scale x, sets `attained` to its SLO attainment and says
/// whether that meets the target. Needs 0 < low < high.
inline RateBracket bisect_capacity(const std::function<bool(double, double&)>& meets,
                                   RateBracket bracket, double tolerance) {
  while (bracket.high / bracket.low - 1 > tolerance) {
    const double mid = std::sqrt(bracket.low * bracket.high);
    double attained = 0;
    if (meets(mid, attained)) {
      bracket.low = mid;
      bracket.low_attained = attained;
    } else {
      bracket.high = mid;
    }
  }
  return bracket;
}

}  // namespace kspeed::engine
