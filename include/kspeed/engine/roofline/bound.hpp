#pragma once
// One definition of "memory-bound" and "compute-bound", with the efficiencies in it.
//
// Roofline time is max(F / (P·η_c), B / (BW·η_b)). The compute term wins when
// F / B > (P / BW) · (η_c / η_b): the ridge a kernel has to beat is the efficiency-adjusted
// ridge, not the datasheet one. With η_c = 0.7 on an A100 (ridge 153 FLOP/byte) the effective
// ridge is 107, so a kernel at 121 FLOP/byte is compute-bound although it sits below 153.
//
// Near the ridge the roofline's hard corner is a poor guide: both roofs are within reach, real
// kernels sit below the corner (FlashMLA gained 5-15% from faster arithmetic in MLA decode that
// the roofline puts at the ridge), so a lever the label says cannot help may help a little.

#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

/// Within this factor of the effective ridge a kernel is "near the ridge".
inline constexpr double kNearRidgeFactor = 1.5;

/// Effective ridge, FLOP/byte: ridge · η_compute / η_bandwidth.
double effective_ridge(double ridge_flop_per_byte, double compute_efficiency,
                       double bandwidth_efficiency);

/// Compute-bound when intensity >= the effective ridge, memory-bound below it.
Bound bound_of(double intensity_flop_per_byte, double ridge_flop_per_byte,
               double compute_efficiency, double bandwidth_efficiency);

/// True when effective_ridge / 1.5 <= intensity <= effective_ridge · 1.5.
bool near_ridge(double intensity_flop_per_byte, double ridge_flop_per_byte,
                double compute_efficiency, double bandwidth_efficiency);

}  // namespace kspeed::engine
