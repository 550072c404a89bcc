#include "kspeed/engine/roofline/roofline_analysis.hpp"

#include <algorithm>
#include <stdexcept>

#include "kspeed/engine/roofline/bound.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

Levers illustrative_levers(LeverKind kind, const Levers& given) {
  Levers levers;
  levers.compute_efficiency = given.compute_efficiency;
  levers.bandwidth_efficiency_before = given.bandwidth_efficiency_before;
  levers.bandwidth_efficiency_after = given.bandwidth_efficiency_before;
  if (kind == LeverKind::compute) {
    levers.compute_speedup = 2.0;
  } else {
    levers.bytes_reduction = 2.0;
  }
  return levers;
}

void add_model_figures(const RooflineQuery& query, RooflineResult& result) {
  const Platform& platform = *query.platform;
  const AttentionShape shape = attention_shape(platform);
  const std::int64_t context = query.context_tokens.value;
  result.step_cost = query.phase == Phase::prefill ? prefill_attention_cost(shape, context)
                                                   : decode_attention_cost(shape, context);
  if (query.phase == Phase::decode) {
    AttentionShape one = shape;
    one.batch = 1;
    result.token_layer_cost = decode_cost_per_attended_token(one);
    result.memory_needed_gb = decode_memory_needed_gb(platform, context);
  }
  result.intensity_flop_per_byte = intensity(*result.step_cost);
  result.intensity_source = Provenance::modelled;
}

void add_memory_warning(const RooflineQuery& query, RooflineResult& result) {
  if (!result.memory_needed_gb || !query.memory_gb ||
      *result.memory_needed_gb <= *query.memory_gb) {
    return;
  }
  Gpu gpu;
  gpu.name = query.gpu_name;
  gpu.memory_gb = *query.memory_gb;
  result.warnings.push_back(
      memory_warning(*result.memory_needed_gb, gpu, query.context_tokens.value, false));
}

}  // namespace

std::vector<Warning> contradiction_warnings(Phase phase, const KernelCost& cost, const Roof& roof,
                                            const Levers& levers) {
  std::vector<Warning> out;
  for (const LeverContradiction& c : contradicted_levers(cost, roof, levers)) {
    Warning warning;
    const bool compute = c.lever == LeverKind::compute;
    warning.code =
        compute ? WarningCode::compute_speedup_no_gain : WarningCode::bytes_reduction_no_gain;
    warning.phase = phase;
    warning.input = compute ? "compute_speedup" : "bytes_reduction";
    warning.numbers = {{"factor", c.factor},
                       {"intensity_flop_per_byte", intensity(cost)},
                       {"ridge_flop_per_byte", ridge_flop_per_byte(roof)},
                       {"effective_ridge_flop_per_byte",
                        effective_ridge(ridge_flop_per_byte(roof), levers.compute_efficiency,
                                        levers.bandwidth_efficiency_before)},
                       {"speedup", c.speedup}};
    out.push_back(std::move(warning));
  }
  return out;
}

Warning memory_warning(double needed_gb, const Gpu& gpu, std::int64_t context_tokens,
                       bool at_response_end) {
  Warning warning;
  warning.code = WarningCode::memory_exceeded;
  warning.input = "deployment";
  warning.numbers = {{"needed_gb", needed_gb},
                     {"memory_gb", gpu.memory_gb},
                     {"context_tokens", static_cast<double>(context_tokens)},
                     {"at_response_end", at_response_end ? 1.0 : 0.0}};
  warning.names = {{"gpu", gpu.name}};
  return warning;
}

RooflineResult analyse_roofline(const RooflineQuery& query) {
  if (query.phase != Phase::prefill && query.phase != Phase::decode) {
    // The CLI accepts only these two (cli/roofline_command.cpp): a caller's bug, not bad input.
    throw std::invalid_argument("analyse_roofline: the kernel's phase is prefill or decode");
  }
  RooflineResult result;
  result.query = query;
  const Roof roof{query.peak_tflops.value, query.bandwidth_tbs.value};
  if (query.platform) {
    add_model_figures(query, result);
  } else {
    result.intensity_flop_per_byte = *query.given_intensity;
    result.intensity_source = Provenance::given;
  }
  const KernelCost cost =
      result.step_cost ? *result.step_cost : unit_cost_at_intensity(result.intensity_flop_per_byte);
  const Efficiency before{query.levers.compute_efficiency,
                          query.levers.bandwidth_efficiency_before};
  result.ridge_flop_per_byte = ridge_flop_per_byte(roof);
  result.effective_ridge_flop_per_byte =
      effective_ridge(result.ridge_flop_per_byte, before.compute, before.bandwidth);
  result.bound = bound_of(cost, roof, before);
  result.near_ridge = near_ridge(result.intensity_flop_per_byte, result.ridge_flop_per_byte,
                                 before.compute, before.bandwidth);
  result.attainable_fraction = attainable_fraction_of_peak(result.intensity_flop_per_byte, roof);
  // attainable FLOP/s = min(peak, AI · bandwidth)
  result.attainable_tflops =
      std::min(roof.peak_tflops, result.intensity_flop_per_byte * roof.bandwidth_tbs);
  if (result.step_cost) {
    result.time_ms = roofline_time_ms(cost, roof, before);
  }
  if (query.levers_given) {
    for (const auto& [kind, levers] : lever_breakdown(query.levers)) {
      result.levers.push_back({kind, levers, apply_levers(cost, roof, levers)});
    }
    result.warnings = contradiction_warnings(query.phase, cost, roof, query.levers);
  } else {
    result.levers_illustrative = true;
    for (LeverKind kind : {LeverKind::compute, LeverKind::bytes}) {
      const Levers levers = illustrative_levers(kind, query.levers);
      result.levers.push_back({kind, levers, apply_levers(cost, roof, levers)});
    }
  }
  add_memory_warning(query, result);
  return result;
}

}  // namespace kspeed::engine
