// `kspeed roofline` for programs (docs/json-format.md): the JSON tree, and one record per lever
// effect for csv and jsonl (the platform fields as platform_<key>, as estimate names them; the
// kernel and position fields unprefixed; the effect's lever values as levers_<key>, as estimate
// names its levers, and its outcome as lever_<key>; then the warning codes).
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::RooflineResult;

// A platform field and its provenance, or two nulls with --ai (no model).
template <class T>
void put_platform_field(ordered_json& out, const std::string& name,
                        const engine::WithProvenance<T>* field) {
  out[name] = field != nullptr ? ordered_json(field->value) : ordered_json(nullptr);
  out[name + "_provenance"] =
      field != nullptr ? ordered_json(to_string(field->provenance)) : ordered_json(nullptr);
}

// The deployment, with estimate's `platform` names: the model and its layout, then the GPU.
ordered_json platform_json(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  const engine::Platform* p = q.platform ? &*q.platform : nullptr;
  ordered_json out;
  out["model"] = p ? ordered_json(p->model.value.name) : ordered_json(nullptr);
  out["gpu"] = q.gpu_name;
  put_platform_field(out, "batch", p ? &p->batch : nullptr);
  put_platform_field(out, "tp", p ? &p->tensor_parallel : nullptr);
  put_platform_field(out, "kv_dtype", p ? &p->kv_dtype : nullptr);
  out["precision"] = q.precision;
  put_with_provenance(out, "peak_tflops", q.peak_tflops.value, q.peak_tflops.provenance);
  put_with_provenance(out, "bandwidth_tbs", q.bandwidth_tbs.value, q.bandwidth_tbs.provenance);
  out["memory_gb"] = or_null(q.memory_gb);
  out["ridge_flop_per_byte"] = r.ridge_flop_per_byte;
  out["effective_ridge_flop_per_byte"] = r.effective_ridge_flop_per_byte;
  // Only when given, so the records of every other roofline keep their columns.
  if (!q.deployment_file.empty()) out["deployment_file"] = q.deployment_file;
  return out;
}

ordered_json kernel_json(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  const engine::Platform* p = q.platform ? &*q.platform : nullptr;
  ordered_json out;
  out["phase"] = to_string(q.phase);
  out["attention_type"] =
      p ? ordered_json(to_string(p->model.value.attention)) : ordered_json(nullptr);
  put_platform_field(out, "context_tokens", p ? &q.context_tokens : nullptr);
  out["flops_per_step"] = r.step_cost ? ordered_json(r.step_cost->flops) : ordered_json(nullptr);
  out["bytes_per_step"] = r.step_cost ? ordered_json(r.step_cost->bytes) : ordered_json(nullptr);
  out["flops_per_token_layer"] =
      r.token_layer_cost ? ordered_json(r.token_layer_cost->flops) : ordered_json(nullptr);
  out["bytes_per_token_layer"] =
      r.token_layer_cost ? ordered_json(r.token_layer_cost->bytes) : ordered_json(nullptr);
  put_with_provenance(out, "intensity_flop_per_byte", r.intensity_flop_per_byte,
                      r.intensity_source);
  return out;
}

ordered_json position_json(const RooflineResult& r) {
  ordered_json out;
  out["bound"] = bound_name(r.bound);
  out["near_ridge"] = r.near_ridge;
  out["attainable_fraction"] = r.attainable_fraction;
  out["attainable_tflops"] = r.attainable_tflops;
  out["time_ms"] = or_null(r.time_ms);
  out["memory_needed_gb"] = or_null(r.memory_needed_gb);
  return out;
}

ordered_json lever_effects_json(const RooflineResult& r) {
  ordered_json out = ordered_json::array();
  const bool absolute = r.step_cost.has_value();  // --ai gives only ratios
  for (const engine::LeverRow& row : r.levers) {
    ordered_json effect;
    effect["lever"] = lever_kind_name(row.kind);
    effect["illustrative"] = r.levers_illustrative;
    effect.update(levers_json(row.levers));
    effect["time_before_ms"] =
        absolute ? ordered_json(row.outcome.time_before_ms) : ordered_json(nullptr);
    effect["time_after_ms"] =
        absolute ? ordered_json(row.outcome.time_after_ms) : ordered_json(nullptr);
    effect["speedup"] = row.outcome.speedup;
    effect["bound_before"] = bound_name(row.outcome.bound_before);
    effect["bound_after"] = bound_name(row.outcome.bound_after);
    out.push_back(effect);
  }
  return out;
}

ordered_json roofline_tree(const RooflineResult& result) {
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  out["platform"] = platform_json(result);
  out["kernel"] = kernel_json(result);
  out["position"] = position_json(result);
  ordered_json levers;
  levers["given"] = result.query.levers_given;
  levers.update(levers_json(result.query.levers));
  out["levers"] = levers;
  out["lever_effects"] = lever_effects_json(result);
  out["warnings"] = warnings_json(result.warnings);
  return out;
}

// An effect's key as its record column: the lever values as estimate's `levers_<key>` columns
// name them, the outcome as `lever_<key>`.
std::string effect_column(const std::string& key) {
  static const ordered_json kLeverValues = levers_json(engine::Levers{});
  if (key == "lever") return key;
  return (kLeverValues.contains(key) ? "levers_" : "lever_") + key;
}

}  // namespace

Document roofline_document(const RooflineResult& result) {
  Document document;
  document.tree = roofline_tree(result);
  const ordered_json& tree = document.tree;
  for (const auto& effect : tree["lever_effects"]) {
    ordered_json record;
    record["schema_version"] = tree["schema_version"];
    flatten_into(record, "platform", tree["platform"]);
    flatten_into(record, "", tree["kernel"]);
    flatten_into(record, "", tree["position"]);
    for (const auto& [key, value] : effect.items()) {
      record[effect_column(key)] = value;
    }
    record["warnings"] = joined(tree["warnings"], "code");
    document.records.push_back(std::move(record));
  }
  return document;
}

}  // namespace kspeed::report
