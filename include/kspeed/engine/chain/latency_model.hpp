#pragma once
// Latency as a function of context (MODEL.md section 4): TTFT with a fixed term, TPOT that
// follows the KV cache, and the time in a phase that an attention kernel does not touch.
//
// Prefill's GPU time is non-attention work a·L plus attention, whose odds over non-attention are
// odds(L) = p(L) / (1 - p(L)) from the share table; real TTFT adds a fixed part T0 (scheduling,
// tokenization, weight reads that dominate short prompts, queueing, KV transfer):
//
//     TTFT(L) = T0 + a · L · (1 + odds(L))
//
// A kernel speedup acts on the attention part only, so the share of TTFT it acts on is
// p(L) · (TTFT - T0) / TTFT: the fixed term dilutes the phase share further.

#include <cstddef>
#include <optional>
#include <vector>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/chain/share_table.hpp"

namespace kspeed::engine {

/// One measured latency at one context length.
struct LatencyPoint {
  double context_tokens = 0;  ///< prompt (TTFT) or context (TPOT) length, tokens, > 0
  double latency_ms = 0;      ///< measured TTFT or TPOT, ms, > 0
};

/// How the TTFT model's two constants were obtained.
enum class TtftFit {
  one_point,            ///< one measured point: a = TTFT / (L·(1 + odds)), T0 = 0 by assumption
  least_squares,        ///< two or more points: T0 and a by least squares, T0 >= 0 as fitted
  least_squares_no_t0,  ///< two or more points whose unconstrained T0 was negative: T0 = 0, a
                        ///< refitted by least squares through the origin
};

/// TTFT(L) = T0 + a · L · (1 + odds(L)) with the share table it was fitted with.
struct TtftModel {
  double fixed_ms = 0;      ///< T0, ms (>= 0)
  double ms_per_token = 0;  ///< a: non-attention prefill time per prompt token, ms (> 0)
  TtftFit fit = TtftFit::one_point;
  std::size_t points = 0;          ///< measured points the fit used
  double rms_residual_ms = 0;      ///< root-mean-square misfit over the points (0: exact)
  std::vector<SharePoint> shares;  ///< the prefill share table odds(L) comes from
  Extrapolation extrapolation = Extrapolation::clamp;  ///< outside the table
};

/// Fits T0 and a. With one point a = TTFT / (L·(1 + odds(L))) and T0 = 0. With two or more,
/// ordinary least squares of TTFT on x = L·(1 + odds(L)); if that makes T0 < 0, T0 = 0 and
/// a = Σ x·y / Σ x² (least squares through the origin). Throws InputError when there are no
/// points, a point is not positive, two points share a length, or the fitted a is not positive
/// (TTFT that does not grow with the prompt). `shares` must be a validated table.
TtftModel fit_ttft(const std::vector<LatencyPoint>& points, const std::vector<SharePoint>& shares,
                   Extrapolation extrapolation);

/// TTFT at one prompt length, with what it is made of.
struct TtftAt {
  double ttft_ms = 0;              ///< T0 + a·L·(1 + odds)
  double gpu_ms = 0;               ///< a·L·(1 + odds): the part a kernel can act on
  ShareLookup share;               ///< p(L) from the table, with its provenance
  double effective_share = 0;      ///< p(L) · (TTFT - T0) / TTFT: attention's share of all TTFT
  double fixed_term_fraction = 0;  ///< T0 / TTFT
};

/// x = L · (1 + odds(L)): prefill work in "non-attention token" units.
double prefill_work_units(const std::vector<SharePoint>& shares, double prompt_tokens,
                          Extrapolation extrapolation);

/// The model at `prompt_tokens` (> 0).
TtftAt ttft_at(const TtftModel& model, double prompt_tokens);

/// How the TPOT model's two constants were obtained.
enum class TpotFit {
  one_point,           ///< one measured point: the reference (TPOT0 at L0) of the scaling rules
  least_squares,       ///< two or more points: c and b by least squares, c >= 0 as fitted
  least_squares_no_c,  ///< two or more points whose unconstrained c was negative: c = 0, b
                       ///< refitted by least squares through the origin
};

/// A decode step reads the weights (a constant time c) and the KV cache, which grows with the
/// context (b per token): TPOT(L) = c + b · L. With one point, c is that point's TPOT and b = 0.
struct TpotModel {
  double fixed_ms = 0;      ///< c, ms (>= 0)
  double ms_per_token = 0;  ///< b: KV-cache read time per context token, ms (>= 0)
  TpotFit fit = TpotFit::one_point;
  std::size_t points = 0;      ///< measured points the fit used
  double rms_residual_ms = 0;  ///< root-mean-square misfit over the points (0: exact)
};

/// Fits c and b. With two or more points, ordinary least squares of TPOT on L; if that makes
/// c < 0, c = 0 and b = Σ L·TPOT / Σ L² (least squares through the origin). Throws InputError
/// when there are no points, a point is not positive, two points share a length, or b < 0 (TPOT
/// that falls as the context grows).
TpotModel fit_tpot(const std::vector<LatencyPoint>& points);

/// c + b · L at `context_tokens`.
double tpot_fitted_at(const TpotModel& model, double context_tokens);

/// How TPOT at another context was obtained.
enum class TpotRule {
  held,          ///< not scaled: the measured TPOT at its own context is used unchanged
  share_scaled,  ///< TPOT(L) = TPOT0 · ((1 - pd) + pd · L / L0), pd the decode share at L0
  decode_model,  ///< TPOT(L) = TPOT0 · step(L) / step(L0) from the platform's decode model
};

/// TPOT at a context, with how it was obtained.
struct TpotAt {
  double tpot_ms = 0;
  TpotRule rule = TpotRule::held;
  double scale = 1;  ///< TPOT(L) / TPOT0
};

/// Decode attention reads every cached token once per step, so its time grows linearly with the
/// context (full attention; sliding-window layers are the decode model's business) while the
/// rest of the step (weights) does not: TPOT(L) = TPOT0 · ((1 - pd) + pd · L / L0).
/// `decode_share` is decode attention's share of TPOT0 at `reference_context_tokens`.
TpotAt tpot_scaled_by_share(double tpot0_ms, double reference_context_tokens, double decode_share,
                            double context_tokens);

/// TPOT0 scaled by the ratio of modelled decode step times at the two contexts (attention from
/// the KV cache, sliding windows and MoE weights included as the decode model has them).
TpotAt tpot_scaled_by_decode_model(const Platform& platform, double tpot0_ms,
                                   std::int64_t reference_context_tokens,
                                   std::int64_t context_tokens);

/// TPOT0 unchanged, and says so (rule = held): when neither a decode share nor a platform is known.
TpotAt tpot_held(double tpot0_ms);

/// A phase whose time holds `overhead_ms` that the kernel does not touch (scheduling, KV
/// transfer, chunking gaps, idle GPU); `share` is attention's share of the rest (the GPU time).
struct PhaseWithOverhead {
  double phase_ms = 0;     ///< measured phase time, ms (> 0)
  double overhead_ms = 0;  ///< non-kernel time in it, ms, in [0, phase_ms)
  double share = 0;        ///< attention's share of the GPU time (phase - overhead), [0, 1]
};

/// p_eff = share · (phase - overhead) / phase.
double effective_share(const PhaseWithOverhead& phase);

/// Phase speedup S = 1 / ((1 - p_eff) + p_eff / s) for a kernel speedup s.
double phase_speedup(const PhaseWithOverhead& phase, double kernel_speedup);

/// The effective share a measured phase speedup S implies for a kernel speedup s (s != 1):
/// p_eff = (1 - 1/S) / (1 - 1/s).
double share_implied_by(double phase_speedup, double kernel_speedup);

/// The overhead that makes a phase with attention share `share` of its GPU time show the
/// measured `phase_speedup` under `kernel_speedup`: O = T · (1 - p_eff / share). nullopt when
/// no overhead >= 0 explains it (the measured speedup exceeds what `share` allows).
std::optional<double> overhead_implied_by(double phase_ms, double share, double phase_speedup,
                                          double kernel_speedup);

}  // namespace kspeed::engine
