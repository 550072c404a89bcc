#include "kspeed/engine/chain/estimate.hpp"

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/denominator.hpp"

namespace kspeed::engine {

namespace {

Level make_level(double parent_time_ms, double before_ms, double after_ms,
                 std::optional<double> ceiling) {
  Level level;
  level.share_of_parent = parent_time_ms > 0 ? before_ms / parent_time_ms : 0.0;
  level.time_before_ms = before_ms;
  level.time_after_ms = after_ms;
  level.saved_ms = before_ms - after_ms;
  level.speedup = after_ms > 0 ? before_ms / after_ms : 1.0;
  level.ceiling = ceiling;
  return level;
}

PhaseEstimate estimate_phase(const PhaseInput& input, double request_time_ms) {
  const double p = input.attention_share;
  const double s = input.targeted ? input.attention_speedup : 1.0;
  // The chain's shares and times are of wall time (scenario.cpp converts a kernel-time or
  // busy-time share before it gets here): the product is typed so no other kind can reach it.
  const double attention_before =
      (Share<TimeBase::wall>{p} * Time<TimeBase::wall>{input.time_before_ms}).ms;
  const double attention_after = attention_before / s;
  // Amdahl: T' = T * ((1 - p) + p / s)
  const double phase_after = amdahl_time_after(input.time_before_ms, p, s);

  PhaseEstimate out;
  // An infinitely fast kernel removes all attention time: unbounded for the kernel itself.
  out.attention = make_level(input.time_before_ms, attention_before, attention_after,
                             input.targeted ? std::nullopt : std::optional<double>(1.0));
  out.attention.share_of_parent = p;
  out.attention.speedup = input.targeted && attention_before > 0 ? s : 1.0;
  out.phase = make_level(request_time_ms, input.time_before_ms, phase_after,
                         input.targeted ? amdahl_ceiling(p) : std::optional<double>(1.0));
  if (input.time_before_ms <= 0) {
    out.phase.speedup = 1.0;  // an empty phase (one-token response has no decode steps)
  }
  return out;
}

// TTFT = T0 + prefill's GPU time: after = T0 + GPU'; ceiling = TTFT / (T0 + GPU · (1 - p)).
Level ttft_level(const PhaseInput& prefill, const Level& gpu, double request_time_ms) {
  const double before = prefill.time_before_ms + prefill.fixed_ms;
  const double floor_ms = prefill.fixed_ms + (prefill.targeted ? prefill.time_before_ms *
                                                                     (1.0 - prefill.attention_share)
                                                               : prefill.time_before_ms);
  return make_level(request_time_ms, before, prefill.fixed_ms + gpu.time_after_ms,
                    floor_ms > 0 ? std::optional<double>(before / floor_ms) : std::nullopt);
}

// Request time with an infinitely fast kernel: the targeted phases keep only non-attention time
// (and the fixed term).
std::optional<double> request_ceiling(const PhaseInput& prefill, const PhaseInput& decode,
                                      double request_time_ms) {
  auto floor_of = [](const PhaseInput& phase) {
    return phase.fixed_ms + (phase.targeted ? phase.time_before_ms * (1.0 - phase.attention_share)
                                            : phase.time_before_ms);
  };
  const double floor_ms = floor_of(prefill) + floor_of(decode);
  if (floor_ms <= 0) {
    return std::nullopt;
  }
  return request_time_ms / floor_ms;
}

}  // namespace

double decode_time_ms(double tpot_ms, double response_tokens) {
  // T_decode = (n_out - 1) * TPOT: the first token is produced by prefill.
  return response_tokens > 1 ? (response_tokens - 1) * tpot_ms : 0.0;
}

EstimateResult estimate_chain(const PhaseInput& prefill, const PhaseInput& decode) {
  const double ttft_before = prefill.time_before_ms + prefill.fixed_ms;
  const double request_before = ttft_before + decode.time_before_ms;
  EstimateResult result;
  // With a fixed term, prefill's parent is TTFT: its share is (TTFT - T0) / TTFT.
  result.prefill = estimate_phase(prefill, prefill.fixed_ms > 0 ? ttft_before : request_before);
  result.decode = estimate_phase(decode, request_before);
  if (prefill.fixed_ms > 0) {
    result.ttft = ttft_level(prefill, result.prefill.phase, request_before);
  }
  const double request_after =
      prefill.fixed_ms + result.prefill.phase.time_after_ms + result.decode.phase.time_after_ms;
  result.request = make_level(request_before, request_before, request_after,
                              request_ceiling(prefill, decode, request_before));
  result.improvement_pct = (result.request.speedup - 1.0) * 100.0;
  result.prefill_fraction = request_before > 0 ? ttft_before / request_before : 0.0;
  return result;
}

}  // namespace kspeed::engine
