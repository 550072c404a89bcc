// `kspeed estimate` for programs (docs/json-format.md): the JSON tree, and one flat record of it
// for csv and jsonl (nested keys joined with '_': prefill.speedup -> prefill_speedup).
#include <algorithm>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/deployment/ep_comm.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Estimate;
using engine::Level;

void put_level_figures(ordered_json& out, const Level& level) {
  out["speedup"] = level.speedup;
  out["ceiling"] = or_null(level.ceiling);  // null: unbounded, which a number cannot say
  out["time_before_ms"] = level.time_before_ms;
  out["time_after_ms"] = level.time_after_ms;
  out["saved_ms"] = level.saved_ms;
}

ordered_json inputs_json(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  ordered_json inputs;
  put_with_provenance(inputs, "prompt_tokens", s.prompt_tokens.value, s.prompt_tokens.provenance);
  put_with_provenance(inputs, "response_tokens", s.response_tokens.value,
                      s.response_tokens.provenance);
  put_with_provenance(inputs, "ttft_ms", s.ttft_ms.value, s.ttft_ms.provenance);
  put_with_provenance(inputs, "tpot_ms", s.tpot_ms.value, s.tpot_ms.provenance);
  // With levers there is no single kernel speedup: each phase has its own (*.roofline).
  put_with_provenance(inputs, "kernel_speedup",
                      s.levers ? std::nullopt : std::optional(s.kernel_speedup));
  inputs["kernel_speedup_instrument"] = s.kernel_speedup_instrument.empty()
                                            ? ordered_json(nullptr)
                                            : ordered_json(s.kernel_speedup_instrument);
  inputs["kernel_speedup_launch"] =
      s.measured_kernel.empty() ? ordered_json(nullptr) : ordered_json(s.measured_kernel);
  inputs["phase"] = to_string(s.phase);
  return inputs;
}

// The attention time the phase's answer acted on (ms per request, issue 27): the phase's saved
// time is exactly attention_ms × (1 − 1/attention_speedup) when targeted.
ordered_json phase_json(const engine::PhaseEstimate& phase,
                        const std::optional<engine::WithProvenance<double>>& share, bool targeted,
                        engine::Provenance attention_provenance) {
  ordered_json out;
  put_with_provenance(out, "attention_share", share);
  put_with_provenance(out, "attention_ms", phase.attention.time_before_ms, attention_provenance);
  out["targeted"] = targeted;
  out["attention_speedup"] = phase.attention.speedup;
  put_level_figures(out, phase.phase);
  return out;
}

// TTFT = prefill's GPU time + its fixed term T0, a level of its own when T0 > 0.
ordered_json ttft_json(const Level& ttft, const engine::WithProvenance<double>& fixed,
                       const Level& prefill) {
  ordered_json out;
  put_with_provenance(out, "fixed_ms", fixed.value, fixed.provenance);
  out["prefill_share_of_ttft"] = prefill.share_of_parent;  // (TTFT - T0) / TTFT
  put_level_figures(out, ttft);
  out["fraction_of_request"] = ttft.share_of_parent;
  return out;
}

// The figures a dashboard plots after the change, beside the speedup. TPOT is unchanged (the
// measured or workload TPOT) unless decode is targeted; "less time" is 1 − 1/speedup, which is
// not the "% faster" of improvement_pct.
void put_after_fields(ordered_json& out, const Estimate& estimate) {
  const engine::EstimateResult& r = estimate.result;
  out["ttft_after_ms"] = r.ttft ? r.ttft->time_after_ms : r.prefill.phase.time_after_ms;
  out["tpot_after_ms"] =
      estimate.tpot_after_ms ? estimate.tpot_after_ms->value : estimate.scenario.tpot_ms.value;
  out["e2e_before_ms"] = r.request.time_before_ms;  // = time_before_ms, as sweep names it
  out["e2e_after_ms"] = r.request.time_after_ms;
  out["latency_reduction_pct"] = (1 - 1 / r.request.speedup) * 100;
}

ordered_json request_json(const Estimate& estimate) {
  const engine::EstimateResult& result = estimate.result;
  ordered_json out;
  put_level_figures(out, result.request);
  put_after_fields(out, estimate);
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
  chain.push_back(chain_level("prefill", r.ttft ? "ttft" : "request", r.prefill.phase));
  if (r.ttft) {
    chain.push_back(chain_level("ttft", "request", *r.ttft));
  }
  if (estimate.scenario.decode_share) {
    chain.push_back(chain_level("decode_attention", "decode", r.decode.attention));
  }
  chain.push_back(chain_level("decode", "request", r.decode.phase));
  chain.push_back(chain_level("request", nullptr, r.request));
  return chain;
}

ordered_json platform_json(const engine::Platform& p) {
  ordered_json out;
  put_with_provenance(out, "model", p.model.value.name, p.model.provenance);
  put_with_provenance(out, "gpu", p.gpu.value.name, p.gpu.provenance);
  put_with_provenance(out, "batch", p.batch.value, p.batch.provenance);
  put_with_provenance(out, "tp", p.tensor_parallel.value, p.tensor_parallel.provenance);
  if (p.expert_parallel.value > 1) {
    put_with_provenance(out, "ep", p.expert_parallel.value, p.expert_parallel.provenance);
  }
  put_with_provenance(out, "kv_dtype", p.kv_dtype.value, p.kv_dtype.provenance);
  put_with_provenance(out, "precision", p.precision.value, p.precision.provenance);
  if (p.gemm_precision.value != p.precision.value) {
    put_with_provenance(out, "gemm_precision", p.gemm_precision.value, p.gemm_precision.provenance);
  }
  out["peak_tflops"] = p.peak_tflops;
  out["bandwidth_tbs"] = p.gpu.value.hbm_bandwidth_tbs;
  // Only where they apply, so outputs without them keep their columns.
  if (p.model.value.from_hf_config) {
    out["model_format"] = "config.json";
  }
  const auto& shapes = p.model.value.shapes;
  if (shapes && engine::is_moe(shapes->ffn)) {
    // U(t) + shared at t = batch · q: the expert union one decode step reads (an upper bound)
    out["experts_read_per_layer"] = engine::experts_read_per_layer(
        shapes->ffn, static_cast<double>(p.batch.value) * p.spec_tokens_per_step.value);
  }
  if (p.tensor_parallel.value > 1 || p.expert_parallel.value > 1) {
    put_with_provenance(out, "link_bandwidth_gbs", p.link_bandwidth_gbs.value,
                        p.link_bandwidth_gbs.provenance);
    put_with_provenance(out, "link_latency_us", p.link_latency_us.value,
                        p.link_latency_us.provenance);
  }
  if (p.expert_parallel.value > 1) {
    // ep_comm.hpp: all-to-alls only with data-parallel attention (ep > tp)
    out["data_parallel_attention"] = engine::data_parallel_attention(p);
    put_with_provenance(out, "all_to_all_latency_us", p.all_to_all_latency_us.value,
                        p.all_to_all_latency_us.provenance);
    if (shapes && engine::is_moe(shapes->ffn)) {
      // The decode step's busiest rank against the mean (moe.hpp): the imbalance it waits for.
      const double tokens = static_cast<double>(p.batch.value) * p.spec_tokens_per_step.value;
      const std::int64_t ep = p.expert_parallel.value;
      out["busiest_rank_experts"] =
          engine::expected_busiest_rank_experts(shapes->ffn.experts, shapes->ffn.top_k, ep, tokens);
      out["mean_rank_experts"] =
          engine::expected_distinct_experts(shapes->ffn.experts, shapes->ffn.top_k, tokens) /
          static_cast<double>(ep);
    }
  }
  if (p.spec_tokens_per_step.provenance == engine::Provenance::given) {
    out["spec_tokens_per_step"] = p.spec_tokens_per_step.value;
    out["spec_mean_accepted"] = p.spec_mean_accepted.value;
  }
  return out;
}

ordered_json position_json(const engine::PhaseRoofline& position) {
  ordered_json out;
  out["intensity_flop_per_byte"] = position.intensity_flop_per_byte;
  out["ridge_flop_per_byte"] = position.ridge_flop_per_byte;
  out["effective_ridge_flop_per_byte"] = position.effective_ridge_flop_per_byte;
  out["bound"] = bound_name(position.bound);
  out["near_ridge"] = position.near_ridge;
  out["attainable_fraction"] = position.attainable_fraction;
  out["lever_speedup"] = or_null(position.attention_speedup);
  return out;
}

// platform, levers and each phase's roofline: only when a model and a GPU are known.
void add_roofline_json(ordered_json& out, const engine::Scenario& s) {
  if (!s.platform) {
    return;
  }
  out["platform"] = platform_json(*s.platform);
  out["levers"] = s.levers ? levers_json(*s.levers) : ordered_json(nullptr);
  if (s.prefill_roofline) {
    out["prefill"]["roofline"] = position_json(*s.prefill_roofline);
  }
  if (s.decode_roofline) {
    out["decode"]["roofline"] = position_json(*s.decode_roofline);
  }
}

ordered_json conditions_json(const std::vector<engine::Condition>& conditions) {
  ordered_json out = ordered_json::object();
  for (const engine::Condition& c : conditions) {
    out[c.key] = condition_text(c);
  }
  return out;
}

// Where each condition came from: "workload", "given" (--model, --gpu, --tp, --kv-dtype,
// --precision) or "preset" (the workload's own model / gpu), "+config.json" when read from one.
ordered_json conditions_provenance_json(const std::vector<engine::Condition>& conditions) {
  ordered_json out = ordered_json::object();
  for (const engine::Condition& c : conditions) {
    out[c.key] = std::string(to_string(c.provenance)) + (c.origin.empty() ? "" : "+" + c.origin);
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

// The headline's interval: the request speedup's bounds with how they were computed, or
// null bounds and the reason there are none.
ordered_json interval_json(const engine::PredictionInterval& interval) {
  ordered_json out;
  const bool has = interval.low && interval.high;
  out["request_speedup_low"] = has ? ordered_json(*interval.low) : ordered_json(nullptr);
  out["request_speedup_high"] = has ? ordered_json(*interval.high) : ordered_json(nullptr);
  out["confidence"] = has ? ordered_json(interval.confidence) : ordered_json(nullptr);
  out["method"] = has ? ordered_json(interval.method) : ordered_json(nullptr);
  out["resamples"] = interval.resamples;
  out["ttft_samples"] = interval.ttft_samples;
  out["tpot_samples"] = interval.tpot_samples;
  out["inputs"] = interval.inputs.names();
  out["no_interval_reason"] =
      has ? ordered_json(nullptr) : ordered_json(engine::to_string(interval.reason));
  return out;
}

ordered_json estimate_tree(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  // Computed from what reached the answer, not set: an illustrative or borrowed input anywhere.
  const std::vector<engine::AnswerInput> inputs = engine::answer_inputs(s);
  const bool illustrative =
      std::any_of(inputs.begin(), inputs.end(), [](const engine::AnswerInput& input) {
        return input.provenance == engine::Provenance::illustrative;
      });
  const bool borrowed =
      std::any_of(inputs.begin(), inputs.end(),
                  [](const engine::AnswerInput& input) { return input.borrowed; });
  out["workload"] = {{"name", estimate.workload.name},
                     {"citation", estimate.workload.source},
                     {"illustrative", illustrative},
                     {"borrowed", borrowed}};
  out["inputs"] = inputs_json(estimate);
  out["prefill"] = phase_json(estimate.result.prefill, std::optional(s.prefill_share),
                              s.phase != engine::Phase::decode,
                              engine::attention_provenance(s, engine::Phase::prefill));
  // The phase's time over the request's (with a fixed term, prefill's GPU time over it)
  const double request_ms = estimate.result.request.time_before_ms;
  out["prefill"]["fraction_of_request"] =
      request_ms > 0 ? estimate.result.prefill.phase.time_before_ms / request_ms : 0.0;
  if (estimate.result.ttft && s.ttft_fixed_ms) {
    out["ttft"] = ttft_json(*estimate.result.ttft, *s.ttft_fixed_ms, estimate.result.prefill.phase);
  }
  out["decode"] =
      phase_json(estimate.result.decode, s.decode_share, s.phase != engine::Phase::prefill,
                 engine::attention_provenance(s, engine::Phase::decode));
  out["decode"]["fraction_of_request"] = estimate.result.decode.phase.share_of_parent;
  put_with_provenance(out["decode"], "tpot_after_ms", estimate.tpot_after_ms);
  add_roofline_json(out, s);
  out["deployment"] = s.step_model && !s.deployment_inputs.empty()
                          ? deployment_json(*s.step_model, s.deployment_inputs)
                          : ordered_json(nullptr);
  if (!out["deployment"].is_null() && s.prefill_steps) {
    // The request's prefill steps behind the deployment's TTFT (issue 27: --batch is the decode
    // concurrency; a whole-batch prefill only with --prefill-batch).
    const engine::PrefillSteps& p = *s.prefill_steps;
    out["deployment"]["prefill_steps"] = {
        {"steps", p.steps},
        {"chunk_tokens", p.chunk_tokens},
        {"decodes_beside", p.decodes_beside},
        {"queued_prompt_tokens", p.queued_prompt_tokens},
        {"step_token_budget", s.step_token_budget.value},
        {"step_token_budget_provenance", to_string(s.step_token_budget.provenance)},
        {"prefill_batch", s.prefill_batch ? ordered_json(*s.prefill_batch) : ordered_json(nullptr)},
        {"prefill_ms", p.time.total_ms()},
        {"prefill_attention_ms", p.time.prefill_attention_ms}};
  }
  out["request"] = request_json(estimate);
  // Without --phase: the request's speedup on each phase, beside the assumed one's (issue 27)
  if (estimate.phase_figures) {
    out["phase_figures"] = {{"assumed", to_string(s.phase)},
                            {"prefill_speedup", estimate.phase_figures->prefill_speedup},
                            {"decode_speedup", estimate.phase_figures->decode_speedup},
                            {"both_speedup", estimate.phase_figures->both_speedup}};
  } else {
    out["phase_figures"] = nullptr;
  }
  out["prediction_interval"] = interval_json(estimate.interval);
  out["chain"] = chain_json(estimate);
  const std::vector<engine::Condition>& conditions = estimate.conditions;
  out["conditions"] = conditions_json(conditions);
  out["conditions_provenance"] = conditions_provenance_json(conditions);
  out["conditions_missing"] = missing_conditions(conditions);
  out["notes"] = warnings_json(s.notes);  // assumptions made for the user, with their reason
  out["warnings"] = warnings_json(s.warnings);
  out["gates"] = gates_json(estimate.gates);
  return out;
}

// One record: the scalars of these objects, in the tree's order; inputs unprefixed.
ordered_json estimate_record(const ordered_json& tree) {
  ordered_json record;
  record["schema_version"] = tree["schema_version"];
  record["workload_name"] = tree["workload"]["name"];
  for (const char* object :
       {"inputs", "prefill", "ttft", "decode", "platform", "levers", "request"}) {
    if (tree.contains(object) && tree[object].is_object()) {
      flatten_into(record, std::string(object) == "inputs" ? "" : object, tree[object]);
    }
  }
  const ordered_json& interval = tree["prediction_interval"];
  record["request_speedup_low"] = interval["request_speedup_low"];
  record["request_speedup_high"] = interval["request_speedup_high"];
  record["prediction_interval_reason"] = interval["no_interval_reason"];
  record["conditions_missing"] = joined(tree["conditions_missing"]);
  record["notes"] = joined(tree["notes"], "code");
  record["warnings"] = joined(tree["warnings"], "code");
  return record;
}

}  // namespace

Document estimate_document(const Estimate& estimate) {
  Document document;
  document.tree = estimate_tree(estimate);
  document.records.push_back(estimate_record(document.tree));
  return document;
}

}  // namespace kspeed::report
