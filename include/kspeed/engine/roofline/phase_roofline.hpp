#pragma once
// Where a phase's attention kernel sits on the roofline, and what a kernel change described by
// levers is worth there. Prefill's intensity grows with the prompt; decode's does not depend on
// the context (every step's work is proportional to the positions it attends to).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

struct PhaseRoofline {
  double intensity_flop_per_byte = 0;        ///< attention's arithmetic intensity in this phase
  double ridge_flop_per_byte = 0;            ///< the GPU's ridge at the platform's precision
  double effective_ridge_flop_per_byte = 0;  ///< ridge · η_compute / η_bandwidth (bound.hpp)
  Bound bound = Bound::memory;     ///< at the levers' "before" efficiencies (η = 1 without levers)
  bool near_ridge = false;         ///< within 1.5× of the effective ridge: the corner misleads
  double attainable_fraction = 0;  ///< min(1, AI / ridge)
  std::optional<double> attention_speedup;  ///< the levers' effective speedup; nullopt: no levers
};

/// Prefill attention of one `prompt_tokens` prompt on the platform.
PhaseRoofline prefill_roofline(const Platform& platform, std::int64_t prompt_tokens,
                               const std::optional<Levers>& levers);

/// Decode attention on the platform (any context: the position does not depend on it).
PhaseRoofline decode_roofline(const Platform& platform, const std::optional<Levers>& levers);

/// A single lever, or all of them.
enum class LeverKind { compute, bytes, bandwidth, combined };

/// Each lever that changes something, alone, in flag order; then all of them together when more
/// than one does.
std::vector<std::pair<LeverKind, Levers>> lever_breakdown(const Levers& levers);

/// A claim the roofline contradicts: a lever that is > 1 but gains < 1% alone on this kernel
/// (a compute speedup on a memory-bound kernel, a bytes reduction on a compute-bound one).
struct LeverContradiction {
  LeverKind lever = LeverKind::compute;
  double factor = 1;   ///< the lever's value
  double speedup = 1;  ///< what it is worth alone
};
std::vector<LeverContradiction> contradicted_levers(const KernelCost& cost, const Roof& roof,
                                                    const Levers& levers);

}  // namespace kspeed::engine
