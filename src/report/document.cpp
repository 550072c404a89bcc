#include "kspeed/report/document.hpp"

#include "kspeed/engine/deployment/step_calibration.hpp"

namespace kspeed::report {

namespace {

ordered_json coefficient_json(double value, const engine::CoefficientOrigin& origin) {
  ordered_json out;
  out["value"] = value;
  out["provenance"] = engine::to_string(origin.provenance);
  out["source"] = origin.source;
  return out;
}

}  // namespace

ordered_json deployment_json(const engine::CalibratedStepModel& model,
                             const std::vector<std::string>& inputs) {
  ordered_json out;
  out["calibration"] = engine::to_string(model.calibration);
  out["calibration_source"] = model.calibration_source;
  out["inputs"] = inputs;
  out["efficiency"] = {{"bandwidth", model.efficiency.bandwidth},
                       {"gemm_compute", model.efficiency.gemm_compute},
                       {"attention_compute", model.efficiency.attention_compute}};
  const engine::StepModelOrigins& o = model.origins;
  ordered_json& step = out["step_model"];
  step["fixed_ms"] = coefficient_json(model.model.fixed_ms, o.fixed);
  step["weights_ms"] = coefficient_json(model.model.weights_ms, o.weights);
  // A MoE model's routed experts: the step reads routed_expert_fraction(tokens) of all_experts_ms.
  if (model.model.experts.experts > 0) {
    const engine::StepExperts& e = model.model.experts;
    step["routed_experts"] = {{"experts", e.experts},
                              {"top_k", e.top_k},
                              {"expert_parallel", e.expert_parallel},
                              {"all_experts_ms", coefficient_json(e.all_experts_ms, o.weights)}};
  }
  step["launch_floor_ms"] = coefficient_json(
      model.model.launch_floor_ms,
      {engine::Provenance::modelled,
       "the layers' kernels the roofline does not price, at the shortest kernel of two public "
       "traces (docs/validation.md section 7); beside the reads, inside the max"});
  step["ms_per_token"] = coefficient_json(model.model.ms_per_token, o.per_token);
  step["ms_per_prefill_pair"] = coefficient_json(model.model.ms_per_prefill_pair, o.prefill_pair);
  step["ms_per_kv_token"] = coefficient_json(model.model.ms_per_kv_token, o.kv_token);
  step["ms_per_window_prefill_token"] =
      coefficient_json(model.model.ms_per_window_prefill_token, o.prefill_pair);
  step["ms_per_window_decode_sequence"] =
      coefficient_json(model.model.ms_per_window_decode_sequence, o.kv_token);
  // Chunked local layers (Llama 4), only where the model has them.
  if (model.model.attention_chunk_tokens > 0) {
    step["attention_chunk_tokens"] = model.model.attention_chunk_tokens;
    step["ms_per_chunked_prefill_pair"] =
        coefficient_json(model.model.ms_per_chunked_prefill_pair, o.prefill_pair);
    step["ms_per_chunked_kv_token"] =
        coefficient_json(model.model.ms_per_chunked_kv_token, o.kv_token);
  }
  step["ms_per_sequence"] = coefficient_json(model.model.ms_per_sequence, o.per_sequence);
  step["request_overhead_ms"] = coefficient_json(model.request_overhead_ms, o.request_overhead);
  // Tensor parallelism's all-reduces (tp_comm.hpp), only where they apply (tp > 1).
  if (model.model.tp_ms_per_token > 0 || model.model.tp_fixed_ms > 0) {
    const engine::CoefficientOrigin comm{engine::Provenance::modelled,
                                         "2 ring all-reduces per layer over the TP link "
                                         "(platform.link_bandwidth_gbs, link_latency_us)"};
    step["tp_ms_per_token"] = coefficient_json(model.model.tp_ms_per_token, comm);
    step["tp_fixed_ms"] = coefficient_json(model.model.tp_fixed_ms, comm);
  }
  // Expert parallelism's all-to-alls (ep_comm.hpp), only where they apply (ep > 1).
  if (model.model.ep_ms_per_token > 0 || model.model.ep_fixed_ms > 0) {
    const engine::CoefficientOrigin comm{engine::Provenance::modelled,
                                         "a dispatch and a combine all-to-all per MoE layer over "
                                         "the link, with data-parallel attention only "
                                         "(platform.link_bandwidth_gbs, all_to_all_latency_us)"};
    step["ep_ms_per_token"] = coefficient_json(model.model.ep_ms_per_token, comm);
    step["ep_fixed_ms"] = coefficient_json(model.model.ep_fixed_ms, comm);
  }
  out["residuals"] = ordered_json::array();
  for (const engine::PointResidual& r : model.residuals) {
    out["residuals"].push_back({{"label", r.label},
                                {"kind", engine::to_string(r.kind)},
                                {"measured_ms", r.measured_ms},
                                {"predicted_ms", r.predicted_ms},
                                {"residual_ms", r.residual_ms()},
                                {"relative_residual", r.relative_residual()}});
  }
  return out;
}

void flatten_into(ordered_json& record, const std::string& prefix, const ordered_json& object) {
  for (const auto& [key, value] : object.items()) {
    const std::string column = prefix.empty() ? key : prefix + "_" + key;
    if (value.is_object()) {
      flatten_into(record, column, value);
    } else if (!value.is_array()) {
      record[column] = value;
    }
  }
}

std::string joined(const ordered_json& array, const char* key) {
  std::string out;
  for (const auto& item : array) {
    out += (out.empty() ? "" : ";") + (key == nullptr ? item : item[key]).get<std::string>();
  }
  return out;
}

}  // namespace kspeed::report
