#pragma once
// Amdahl's law, the one formula every level of the dilution chain uses.

#include <optional>

namespace kspeed::engine {

/// Whole-time speedup when a fraction `share` (0..1) of the time gets `part_speedup` times
/// faster: S = 1 / ((1 - p) + p / s). `part_speedup` below 1 is a slowdown and is allowed.
double amdahl_speedup(double share, double part_speedup);

/// The limit of amdahl_speedup as part_speedup -> infinity: 1 / (1 - p). Unbounded (nullopt)
/// when the share is 1, because then the whole time can vanish.
std::optional<double> amdahl_ceiling(double share);

/// Time after the change: T' = T * ((1 - p) + p / s).
double amdahl_time_after(double time_before, double share, double part_speedup);

}  // namespace kspeed::engine
