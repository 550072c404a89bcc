#pragma once
// The roofline: a kernel that does `flops` arithmetic and moves `bytes` through HBM takes at
// least max(flops / peak, bytes / bandwidth). Where its intensity (flops / bytes) sits against
// the GPU's ridge (peak / bandwidth) decides which kind of change can make it faster: faster
// arithmetic (compute-bound), or fewer bytes / more of the bandwidth achieved (memory-bound).
// MODEL.md section 5.

#include <cstdint>
#include <string_view>
#include "kspeed/engine/provenance.hpp"

#include "kspeed/engine/deployment/hardware.hpp"

namespace kspeed::engine {

/// The two roofs of one GPU at one precision.
struct Roof {
  double peak_tflops = 0;    ///< dense peak, TFLOP/s
  double bandwidth_tbs = 0;  ///< HBM bandwidth, TB/s
};

/// The roof of a platform: its GPU's bandwidth and the peak at its compute precision.
Roof roof_of(const Platform& platform);

/// Ridge point, FLOP/byte: ridge = peak / bandwidth (TFLOP/s over TB/s, the 10^12 cancel).
double ridge_flop_per_byte(const Roof& roof);

/// Work one kernel invocation does.
struct KernelCost {
  double flops = 0;  ///< floating-point operations (a multiply-add is 2)
  double bytes = 0;  ///< bytes moved to or from HBM
};

/// Arithmetic intensity, FLOP/byte: AI = flops / bytes.
double intensity(const KernelCost& cost);

enum class Bound { memory, compute };

constexpr std::string_view to_string(Bound bound) {
  return bound == Bound::memory ? "memory-bound" : "compute-bound";
}

/// Achieved fractions of the two roofs, each in (0, 1].
struct Efficiency {
  double compute = 1;    ///< η_compute: achieved / peak FLOP/s
  double bandwidth = 1;  ///< η_bandwidth: achieved / peak bytes/s
};

/// Roofline time, ms: t = max(FLOPs / (peak · η_compute), bytes / (bandwidth · η_bandwidth)).
double roofline_time_ms(const KernelCost& cost, const Roof& roof, const Efficiency& efficiency);

/// Memory-bound when the bytes term is the larger one (at η = 1: AI < ridge).
Bound bound_of(const KernelCost& cost, const Roof& roof, const Efficiency& efficiency);

/// Fraction of peak FLOP/s the roof allows at this intensity: min(1, AI / ridge).
double attainable_fraction_of_peak(double intensity_flop_per_byte, const Roof& roof);

/// A kernel change described by what it changes. Every factor is 1 when not changed.
struct Levers {
  double compute_speedup = 1;  ///< compute term X times faster (faster arithmetic, fewer FLOPs)
  double bytes_reduction = 1;  ///< bytes moved divided by X (FP8 KV cache: 2)
  double bandwidth_efficiency_before = 1;  ///< η_bandwidth of the old kernel, (0, 1]
  double bandwidth_efficiency_after = 1;   ///< η_bandwidth of the new kernel, (0, 1]
  double compute_efficiency = 1;           ///< η_compute of both kernels, (0, 1]

  /// True when something changes (a speedup, a reduction or an efficiency change).
  bool changes_anything() const {
    return compute_speedup != 1 || bytes_reduction != 1 ||
           bandwidth_efficiency_before != bandwidth_efficiency_after;
  }
};

/// How each lever was obtained: given when it differs from 1 (no change), else the default.
struct LeverProvenance {
  Provenance compute_speedup = Provenance::default_value;
  Provenance bytes_reduction = Provenance::default_value;
  Provenance bandwidth_efficiency = Provenance::default_value;
};

constexpr LeverProvenance lever_provenance(const Levers& levers) {
  const auto given_if = [](bool given) {
    return given ? Provenance::given : Provenance::default_value;
  };
  return {
      given_if(levers.compute_speedup != 1), given_if(levers.bytes_reduction != 1),
      given_if(levers.bandwidth_efficiency_before != 1 || levers.bandwidth_efficiency_after != 1)};
}

/// The kernel before and after a change, on the roofline.
struct LeverOutcome {
  double time_before_ms = 0;
  double time_after_ms = 0;
  double speedup = 1;  ///< time_before / time_after: the effective kernel speedup
  Bound bound_before = Bound::memory;
  Bound bound_after = Bound::memory;
};

/// before: max(F / (P·η_c), B / (BW·η_before));  after: max(F / (s_c·P·η_c), B / (r·BW·η_after)).
LeverOutcome apply_levers(const KernelCost& cost, const Roof& roof, const Levers& levers);

/// A cost with the given intensity and one byte, for --ai without a model: only ratios of the
/// resulting times mean anything.
KernelCost unit_cost_at_intensity(double intensity_flop_per_byte);

/// Attention work per GPU for one step. `tensor_parallel` splits the query heads; GQA KV heads
/// are split too (replicated once tp exceeds them) and MLA's latent is replicated on every rank.
struct AttentionShape {
  const ModelArch* model = nullptr;
  double kv_bytes_per_element = 2;          ///< KV cache type
  double activation_bytes_per_element = 2;  ///< Q, O (and MLA's decompressed K/V in prefill)
  std::int64_t tensor_parallel = 1;
  std::int64_t batch = 1;  ///< sequences in the step
  /// Queries per sequence in a decode step: 1, or q with speculative decoding / MTP (the cache
  /// is read once for the q tokens verified, so FLOPs and intensity grow q-fold).
  double decode_queries = 1;
};

/// One decode step: every sequence reads the KV cache of `context_tokens` (sliding-window
/// layers at most the window, chunked local layers their current chunk) for one new query token.
KernelCost decode_attention_cost(const AttentionShape& shape, std::int64_t context_tokens);

/// Causal prefill of `prompt_tokens` per sequence (ideal flash attention: Q, K, V read once,
/// O written once). Chunked local layers compute causal pairs within each chunk of C tokens only,
/// summed over the chunks.
KernelCost prefill_attention_cost(const AttentionShape& shape, std::int64_t prompt_tokens);

/// Decode attention work per attended token (one sequence, one layer, one KV position); every
/// decode step's cost is this times the attended positions, so decode intensity does not depend
/// on the context. GQA: 4·Hq·d FLOPs, 2·Hkv·d·b bytes (AI = 2·G/b). MLA (absorbed):
/// 2·Hq·(2r + d_rope) FLOPs, (r + d_rope)·b bytes. FLOPs × decode_queries (speculation).
KernelCost decode_cost_per_attended_token(const AttentionShape& shape);

/// Key positions one sequence's new token attends to in a decode step at `context_tokens`,
/// summed over layers: full layers the whole context, sliding-window layers min(context, W),
/// chunked local layers ((context - 1) mod C) + 1.
double attended_positions(const ModelArch& model, double context_tokens);

}  // namespace kspeed::engine
