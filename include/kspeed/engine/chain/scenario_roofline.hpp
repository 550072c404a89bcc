#pragma once
// The roofline inside `kspeed estimate`: a decode attention share modelled from the platform
// when nothing measured is given, each phase's position on the roofline, the effective attention
// speedup of a change described by levers, and warnings where a claim contradicts the roofline.

#include <optional>

#include "kspeed/engine/chain/scenario.hpp"

namespace kspeed::engine {

/// Decode attention's time-weighted share over the response's steps (step k attends to
/// prompt + k tokens), from the decode model; nullopt without a platform.
std::optional<WithProvenance<double>> modelled_decode_share(const EstimateOptions& options,
                                                            double prompt_tokens,
                                                            double response_tokens);

/// Fills scenario.platform, levers, prefill_roofline and decode_roofline, and adds the roofline's
/// warnings. Throws InputError for levers without a platform, or levers with --kernel-speedup.
void resolve_roofline(const EstimateOptions& options, Scenario& scenario);

/// The attention speedup a phase gets: the levers' effective speedup at that phase's roofline
/// position, else the kernel speedup (whether the phase is targeted is decided by the caller).
double phase_attention_speedup(const Scenario& scenario, Phase phase);

}  // namespace kspeed::engine
