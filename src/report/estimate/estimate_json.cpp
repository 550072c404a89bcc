#include <nlohmann/json.hpp>

#include "kspeed/engine/provenance.hpp"
#include "kspeed/report/estimate_report.hpp"
#include "roofline_json.hpp"

namespace kspeed::report {

namespace {

using engine::Estimate;
using engine::Level;
using nlohmann::ordered_json;

// An unbounded ceiling is JSON null: "no limit", which a number cannot say.
ordered_json ceiling_json(const std::optional<double>& ceiling) {
  return ceiling ? ordered_json(*ceiling) : ordered_json(nullptr);
}

void put_level_figures(ordered_json& out, const Level& level) {
  out["speedup"] = level.speedup;
  out["ceiling"] = ceiling_json(level.ceiling);
  out["time_before_ms"] = level.time_before_ms;
  out["time_after_ms"] = level.time_after_ms;
  out["saved_ms"] = level.saved_ms;
}

ordered_json inputs_json(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  ordered_json inputs;
  inputs["prompt_tokens"] = s.prompt_tokens.value;
  inputs["prompt_tokens_source"] = to_string(s.prompt_tokens.source);
  inputs["response_tokens"] = s.response_tokens.value;
  inputs["response_tokens_source"] = to_string(s.response_tokens.source);
  inputs["ttft_ms"] = s.ttft_ms.value;
  inputs["ttft_source"] = to_string(s.ttft_ms.source);
  inputs["tpot_ms"] = s.tpot_ms.value;
  inputs["tpot_source"] = to_string(s.tpot_ms.source);
  // With levers there is no single kernel speedup: each phase has its own
  // (prefill/decode.roofline).
  inputs["kernel_speedup"] =
      s.levers ? ordered_json(nullptr) : ordered_json(s.kernel_speedup.value);
  inputs["kernel_speedup_source"] =
      s.levers ? std::string("none") : std::string(to_string(s.kernel_speedup.source));
  inputs["phase"] = to_string(s.phase);
  return inputs;
}

ordered_json phase_json(const engine::PhaseEstimate& phase,
                        const std::optional<engine::Sourced<double>>& share, bool targeted) {
  ordered_json out;
  out["attention_share"] = share ? ordered_json(share->value) : ordered_json(nullptr);
  out["share_source"] = share ? std::string(to_string(share->source)) : std::string("none");
  out["targeted"] = targeted;
  out["attention_speedup"] = phase.attention.speedup;
  put_level_figures(out, phase.phase);
  out["fraction_of_request"] = phase.phase.share_of_parent;
  return out;
}

ordered_json request_json(const engine::EstimateResult& result) {
  ordered_json out;
  put_level_figures(out, result.request);
  out["improvement_pct"] = result.improvement_pct;
  out["prefill_fraction"] = result.prefill_fraction;
  return out;
}

ordered_json chain_level(const char* name, const char* parent, const Level& level) {
  ordered_json out;
  out["level"] = name;
  out["parent"] = parent == nullptr ? ordered_json(nullptr) : ordered_json(parent);
  out["share_of_parent"] = level.share_of_parent;
  put_level_figures(out, level);
  return out;
}

ordered_json chain_json(const Estimate& estimate) {
  const engine::EstimateResult& r = estimate.result;
  ordered_json chain = ordered_json::array();
  chain.push_back(chain_level("prefill_attention", "prefill", r.prefill.attention));
  chain.push_back(chain_level("prefill", "request", r.prefill.phase));
  if (estimate.scenario.decode_share) {
    chain.push_back(chain_level("decode_attention", "decode", r.decode.attention));
  }
  chain.push_back(chain_level("decode", "request", r.decode.phase));
  chain.push_back(chain_level("request", nullptr, r.request));
  return chain;
}

ordered_json conditions_json(const engine::Workload& workload) {
  ordered_json conditions = ordered_json::object();
  for (const auto& [key, value] : workload.conditions) {
    conditions[key] = value;
  }
  return conditions;
}

ordered_json warnings_json(const std::vector<engine::Warning>& warnings) {
  ordered_json out = ordered_json::array();
  for (const auto& warning : warnings) {
    out.push_back({{"code", warning.code}, {"message", warning.message}});
  }
  return out;
}

ordered_json gates_json(const std::vector<engine::GateCheck>& gates) {
  ordered_json out = ordered_json::array();
  for (const auto& gate : gates) {
    out.push_back({{"name", gate.name},
                   {"threshold", gate.threshold},
                   {"actual", gate.actual},
                   {"passed", gate.passed}});
  }
  return out;
}

}  // namespace

nlohmann::ordered_json estimate_to_json(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  ordered_json out;
  out["schema_version"] = kEstimateSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  out["workload"] = {{"name", estimate.workload.name}, {"source", estimate.workload.source}};
  out["inputs"] = inputs_json(estimate);
  out["prefill"] =
      phase_json(estimate.result.prefill,
                 engine::Sourced<double>{s.prefill_share.value, s.prefill_share.source},
                 s.phase != engine::Phase::decode);
  out["decode"] =
      phase_json(estimate.result.decode, s.decode_share, s.phase != engine::Phase::prefill);
  add_roofline_json(out, s);  // platform, levers, prefill/decode.roofline: only when known
  out["request"] = request_json(estimate.result);
  out["chain"] = chain_json(estimate);
  out["conditions"] = conditions_json(estimate.workload);
  out["conditions_missing"] = engine::missing_conditions(estimate.workload);
  out["warnings"] = warnings_json(s.warnings);
  out["gates"] = gates_json(estimate.gates);
  return out;
}

}  // namespace kspeed::report
