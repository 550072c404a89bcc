#include "kspeed/engine/chain/amdahl.hpp"

namespace kspeed::engine {

double amdahl_speedup(double share, double part_speedup) {
  // Amdahl: S = 1 / ((1 - p) + p / s)
  return 1.0 / ((1.0 - share) + share / part_speedup);
}

std::optional<double> amdahl_ceiling(double share) {
  // Amdahl ceiling: S(p, inf) = 1 / (1 - p), unbounded at p = 1.
  if (share >= 1.0) {
    return std::nullopt;
  }
  return 1.0 / (1.0 - share);
}

double amdahl_time_after(double time_before, double share, double part_speedup) {
  return time_before * ((1.0 - share) + share / part_speedup);
}

}  // namespace kspeed::engine
