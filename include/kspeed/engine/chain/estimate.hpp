#pragma once
// The dilution chain: a kernel speedup applied to attention, diluted by attention's share of each
// phase, then by each phase's share of the request. Pure arithmetic over plain values.

#include <optional>

namespace kspeed::engine {

/// What the change does to one phase of the request.
struct PhaseInput {
  double time_before_ms = 0;     ///< the phase's GPU time: TTFT - fixed, or (n_out - 1) * TPOT
  double attention_share = 0;    ///< time-weighted attention share of the phase, in [0, 1]
  double attention_speedup = 1;  ///< effective speedup of this phase's attention kernels
  bool targeted = false;         ///< whether the change applies to this phase at all
  /// Time in the phase's latency no kernel touches (TTFT's fixed term T0: scheduling, weight
  /// reads, queueing, KV transfer). > 0 adds a level between the phase and the request.
  double fixed_ms = 0;
};

/// One level of the chain, with the figures every level reports.
struct Level {
  double share_of_parent = 0;     ///< fraction of the parent level's time spent here
  double time_before_ms = 0;      ///< time at this level before the change
  double time_after_ms = 0;       ///< time at this level after the change
  double saved_ms = 0;            ///< before - after (negative for a slowdown)
  double speedup = 1;             ///< before / after
  std::optional<double> ceiling;  ///< speedup with an infinitely fast kernel; nullopt: unbounded
};

/// A phase (prefill or decode): its attention kernels, then the phase as a whole.
struct PhaseEstimate {
  Level attention;  ///< the attention kernels inside the phase; share_of_parent = attention share
  Level phase;      ///< the phase; share_of_parent = its fraction of the request
};

struct EstimateResult {
  PhaseEstimate prefill;
  PhaseEstimate decode;
  /// TTFT = prefill's GPU time + the fixed term, when the fixed term is > 0: the level between
  /// prefill (pure Amdahl on its GPU time; share_of_parent = (TTFT - T0) / TTFT) and the request.
  std::optional<Level> ttft;
  Level request;                ///< share_of_parent is 1
  double improvement_pct = 0;   ///< (speedup - 1) * 100: "the request improves 0.66%"
  double prefill_fraction = 0;  ///< TTFT (fixed term included) / request time before the change
};

/// Applies Amdahl at each level. Inputs must be validated: times >= 0 with a positive total,
/// shares in [0, 1], speedups > 0.
EstimateResult estimate_chain(const PhaseInput& prefill, const PhaseInput& decode);

/// Request time: T = TTFT + (n_out - 1) * TPOT (vLLM's benchmark convention).
double decode_time_ms(double tpot_ms, double response_tokens);

}  // namespace kspeed::engine
