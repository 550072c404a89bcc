#pragma once
// `kspeed roofline`: one attention kernel in one phase on one GPU, and what each lever is worth
// on it. The kernel comes from a model's shapes (FLOPs and bytes per step) or from a given
// arithmetic intensity alone.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/roofline/phase_roofline.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

/// kspeed roofline without --gpu: the most common datacenter GPU of the reference analyses.
inline constexpr const char* kDefaultRooflineGpu = "h100-sxm";
/// kspeed roofline without --ctx: a 4k context (4k-token prompts are the common benchmark shape).
inline constexpr std::int64_t kDefaultRooflineContext = 4096;

struct RooflineQuery {
  std::string gpu_name;                  ///< the preset or file, or "custom"
  WithProvenance<double> peak_tflops;    ///< at `precision`; given when --peak-tflops overrides
  WithProvenance<double> bandwidth_tbs;  ///< given when --bandwidth-tbs overrides
  std::string precision = std::string(kDefaultPrecision);
  std::optional<double> memory_gb;  ///< the GPU's HBM, when known
  /// Model mode: the model on the GPU, with batch, tp and KV type. Absent with --ai.
  std::optional<Platform> platform;
  Phase phase = Phase::decode;  ///< prefill or decode
  WithProvenance<std::int64_t> context_tokens{kDefaultRooflineContext,
                                              Provenance::default_value};  ///< prompt or context
  std::optional<double> given_intensity;                                   ///< --ai X, FLOP/byte
  Levers levers;
  bool levers_given = false;  ///< false: the lever table shows illustrative 2x levers
  /// The deployment file (kspeed calibrate's) the platform was taken from; empty: flags.
  std::string deployment_file;
};

/// One lever (or all together) applied to the kernel.
struct LeverRow {
  LeverKind kind = LeverKind::compute;
  Levers levers;
  LeverOutcome outcome;
};

struct RooflineResult {
  RooflineQuery query;
  std::optional<KernelCost> step_cost;  ///< per GPU, one step (model mode)
  std::optional<KernelCost>
      token_layer_cost;  ///< decode: per attended token and layer, one sequence
  double intensity_flop_per_byte = 0;
  Provenance intensity_source = Provenance::modelled;  ///< modelled, or given (--ai)
  double ridge_flop_per_byte = 0;
  double effective_ridge_flop_per_byte = 0;  ///< ridge · η_compute / η_bandwidth (bound.hpp)
  Bound bound = Bound::memory;               ///< at the levers' "before" efficiencies
  bool near_ridge = false;                   ///< within 1.5× of the effective ridge
  double attainable_fraction = 0;            ///< min(1, AI / ridge)
  double attainable_tflops = 0;              ///< min(peak, AI · bandwidth)
  std::optional<double> time_ms;  ///< roofline time of the step before the change (model mode)
  std::optional<double> memory_needed_gb;  ///< weights / tp + the batch's KV cache, per GPU
  std::vector<LeverRow> levers;
  bool levers_illustrative = false;  ///< no lever given: 2x compute and 2x bytes for comparison
  std::vector<Warning> warnings;
};

/// Validated query in, result out. Throws InputError for a query no kernel fits (phase both).
RooflineResult analyse_roofline(const RooflineQuery& query);

/// One warning per lever the roofline contradicts on the `phase` attention kernel: faster
/// arithmetic on a memory-bound kernel, fewer bytes on a compute-bound one.
std::vector<Warning> contradiction_warnings(Phase phase, const KernelCost& cost, const Roof& roof,
                                            const Levers& levers);

/// Weights and KV cache need `needed_gb` per GPU, more than `gpu` has, at `context_tokens` (the
/// end of the response for an estimate, one step for roofline).
Warning memory_warning(double needed_gb, const Gpu& gpu, std::int64_t context_tokens,
                       bool at_response_end);

}  // namespace kspeed::engine
