#include "kspeed/engine/roofline_analysis.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "kspeed/engine/decode_model.hpp"
#include "kspeed/engine/wording.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// Three significant digits for sentences ("295", "29.6", "8.00"), never an exponent.
std::string short_number(double value) {
  const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                       std::chars_format::fixed, decimals);
  return ec == std::errc{} ? std::string(buffer.data(), end) : plain_number(value);
}

std::string lever_flag(LeverKind kind, double factor) {
  return std::string(kind == LeverKind::compute ? "--compute-speedup " : "--bytes-reduction ") +
         plain_number(factor);
}

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
  const std::string message =
      "weights and KV cache need " + short_number(*result.memory_needed_gb) +
      " GB per GPU, more than the " + plain_number(*query.memory_gb) + " GB of " + query.gpu_name +
      ": the deployment does not fit; raise --tp or lower --batch (the "
      "figures still follow the roofline)";
  result.warnings.push_back({"memory_exceeded", message});
}

}  // namespace

std::vector<Warning> contradiction_warnings(const std::string& code_prefix, const std::string& what,
                                            const KernelCost& cost, const Roof& roof,
                                            const Levers& levers) {
  std::vector<Warning> out;
  const std::string position = "(intensity " + short_number(intensity(cost)) + " vs ridge " +
                               short_number(ridge_flop_per_byte(roof)) + " FLOP/byte)";
  for (const LeverContradiction& c : contradicted_levers(cost, roof, levers)) {
    const bool compute = c.lever == LeverKind::compute;
    out.push_back(
        {code_prefix + (compute ? "_compute_speedup_no_gain" : "_bytes_reduction_no_gain"),
         lever_flag(c.lever, c.factor) + " on " + what + ": it is " +
             (compute ? "memory-bound " : "compute-bound ") + position + ", so " +
             (compute ? "faster arithmetic" : "moving fewer bytes") + " gains only " +
             short_number(c.speedup) + "×; " +
             (compute ? "fewer bytes (--bytes-reduction) or more of the bandwidth "
                        "(--bandwidth-efficiency) are what help"
                      : "faster arithmetic (--compute-speedup) is what helps")});
  }
  return out;
}

RooflineResult analyse_roofline(const RooflineQuery& query) {
  if (query.phase == Phase::both) {
    throw InputError("--phase: kspeed roofline looks at one kernel: choose prefill or decode");
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
  result.bound = bound_of(cost, roof, before);
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
    const std::string what = std::string(to_string(query.phase)) + " attention";
    result.warnings = contradiction_warnings(std::string(to_string(query.phase)) + "_attention",
                                             what, cost, roof, query.levers);
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
