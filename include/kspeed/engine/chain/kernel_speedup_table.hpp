#pragma once
// A kernel's speedup measured at several contexts (or batch sizes): kernel PRs report speedups
// that differ by shape (16–42% across decode batch sizes in one vLLM PR), so a sweep can apply
// the measured one at each point instead of one number everywhere. Between measured points the
// speedup is interpolated like the share table: ln(speedup) linear in ln(context or batch);
// outside them it is held at the nearest point (clamped).

#include <vector>

#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// What the table's points are measured at.
enum class SpeedupKey { context, batch };

struct SpeedupPoint {
  double at = 0;       ///< context tokens or batch size, > 0
  double speedup = 1;  ///< old kernel time / new kernel time there, > 0
};

struct KernelSpeedupTable {
  SpeedupKey key = SpeedupKey::context;
  std::vector<SpeedupPoint> points;  ///< non-empty, `at` strictly increasing (the reader checks)
};

/// The speedup at `at`: given at a measured point, interpolated between two, clamped outside.
WithProvenance<double> speedup_at(const KernelSpeedupTable& table, double at);

}  // namespace kspeed::engine
