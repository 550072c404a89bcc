#include "kspeed/engine/roofline/phase_roofline.hpp"

#include "kspeed/engine/roofline/bound.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"

namespace kspeed::engine {

namespace {

// A lever "gains nothing" below this speedup alone (1%).
constexpr double kNoGainSpeedup = 1.01;

PhaseRoofline position(const KernelCost& cost, const Roof& roof,
                       const std::optional<Levers>& levers) {
  PhaseRoofline out;
  out.intensity_flop_per_byte = intensity(cost);
  out.ridge_flop_per_byte = ridge_flop_per_byte(roof);
  // The same efficiencies as the levers' "before" kernel, so the label, the warnings and
  // kspeed roofline agree (one definition: bound.hpp).
  const Efficiency before =
      levers ? Efficiency{levers->compute_efficiency, levers->bandwidth_efficiency_before}
             : Efficiency{};
  out.effective_ridge_flop_per_byte =
      effective_ridge(out.ridge_flop_per_byte, before.compute, before.bandwidth);
  out.bound = bound_of(cost, roof, before);
  out.near_ridge = near_ridge(out.intensity_flop_per_byte, out.ridge_flop_per_byte, before.compute,
                              before.bandwidth);
  out.attainable_fraction = attainable_fraction_of_peak(out.intensity_flop_per_byte, roof);
  if (levers) {
    out.attention_speedup = apply_levers(cost, roof, *levers).speedup;
  }
  return out;
}

}  // namespace

PhaseRoofline prefill_roofline(const Platform& platform, std::int64_t prompt_tokens,
                               const std::optional<Levers>& levers) {
  return position(prefill_attention_cost(attention_shape(platform), prompt_tokens),
                  roof_of(platform), levers);
}

PhaseRoofline decode_roofline(const Platform& platform, const std::optional<Levers>& levers) {
  return position(decode_cost_per_attended_token(attention_shape(platform)), roof_of(platform),
                  levers);
}

std::vector<std::pair<LeverKind, Levers>> lever_breakdown(const Levers& levers) {
  std::vector<std::pair<LeverKind, Levers>> out;
  Levers base;
  base.compute_efficiency = levers.compute_efficiency;
  base.bandwidth_efficiency_before = levers.bandwidth_efficiency_before;
  base.bandwidth_efficiency_after = levers.bandwidth_efficiency_before;
  if (levers.compute_speedup != 1) {
    Levers alone = base;
    alone.compute_speedup = levers.compute_speedup;
    out.emplace_back(LeverKind::compute, alone);
  }
  if (levers.bytes_reduction != 1) {
    Levers alone = base;
    alone.bytes_reduction = levers.bytes_reduction;
    out.emplace_back(LeverKind::bytes, alone);
  }
  if (levers.bandwidth_efficiency_before != levers.bandwidth_efficiency_after) {
    Levers alone = base;
    alone.bandwidth_efficiency_after = levers.bandwidth_efficiency_after;
    out.emplace_back(LeverKind::bandwidth, alone);
  }
  if (out.size() > 1) {
    out.emplace_back(LeverKind::combined, levers);
  }
  return out;
}

std::vector<LeverContradiction> contradicted_levers(const KernelCost& cost, const Roof& roof,
                                                    const Levers& levers) {
  std::vector<LeverContradiction> out;
  for (const auto& [kind, alone] : lever_breakdown(levers)) {
    const double factor = kind == LeverKind::compute ? alone.compute_speedup
                          : kind == LeverKind::bytes ? alone.bytes_reduction
                                                     : 1.0;
    if (factor < kNoGainSpeedup) {
      continue;  // only speedups and reductions make a claim; efficiency changes are measured
    }
    const double speedup = apply_levers(cost, roof, alone).speedup;
    if (speedup < kNoGainSpeedup) {
      out.push_back({kind, factor, speedup});
    }
  }
  return out;
}

}  // namespace kspeed::engine
