#include "kspeed/engine/roofline/bound.hpp"

namespace kspeed::engine {

double effective_ridge(double ridge_flop_per_byte, double compute_efficiency,
                       double bandwidth_efficiency) {
  // F / (P·η_c) > B / (BW·η_b)  <=>  F / B > (P / BW) · η_c / η_b
  return ridge_flop_per_byte * compute_efficiency / bandwidth_efficiency;
}

Bound bound_of(double intensity_flop_per_byte, double ridge_flop_per_byte,
               double compute_efficiency, double bandwidth_efficiency) {
  const double ridge =
      effective_ridge(ridge_flop_per_byte, compute_efficiency, bandwidth_efficiency);
  return intensity_flop_per_byte >= ridge ? Bound::compute : Bound::memory;
}

bool near_ridge(double intensity_flop_per_byte, double ridge_flop_per_byte,
                double compute_efficiency, double bandwidth_efficiency) {
  const double ridge =
      effective_ridge(ridge_flop_per_byte, compute_efficiency, bandwidth_efficiency);
  return intensity_flop_per_byte >= ridge / kNearRidgeFactor &&
         intensity_flop_per_byte <= ridge * kNearRidgeFactor;
}

}  // namespace kspeed::engine
