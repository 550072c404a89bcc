#include <nlohmann/json.hpp>

#include "kspeed/engine/provenance.hpp"
#include "kspeed/report/roofline_report.hpp"

namespace kspeed::report {

namespace {

using engine::RooflineResult;
using nlohmann::ordered_json;

template <class T>
ordered_json or_null(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

// "memory" / "compute": plain words for programs; people get "memory-bound".
const char* bound_name(engine::Bound bound) {
  return bound == engine::Bound::memory ? "memory" : "compute";
}

ordered_json gpu_json(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  ordered_json out;
  out["name"] = q.gpu_name;
  out["precision"] = q.precision;
  out["peak_tflops"] = q.peak_tflops.value;
  out["peak_source"] = to_string(q.peak_tflops.source);
  out["bandwidth_tbs"] = q.bandwidth_tbs.value;
  out["bandwidth_source"] = to_string(q.bandwidth_tbs.source);
  out["memory_gb"] = or_null(q.memory_gb);
  out["ridge_flop_per_byte"] = r.ridge_flop_per_byte;
  return out;
}

ordered_json kernel_json(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  const engine::Platform* p = q.platform ? &*q.platform : nullptr;
  ordered_json out;
  out["phase"] = to_string(q.phase);
  out["model"] = p ? ordered_json(p->model.value.name) : ordered_json(nullptr);
  out["attention_type"] =
      p ? ordered_json(to_string(p->model.value.attention)) : ordered_json(nullptr);
  out["context_tokens"] = p ? ordered_json(q.context_tokens.value) : ordered_json(nullptr);
  out["context_source"] =
      p ? ordered_json(to_string(q.context_tokens.source)) : ordered_json(nullptr);
  out["batch"] = p ? ordered_json(p->batch.value) : ordered_json(nullptr);
  out["batch_source"] = p ? ordered_json(to_string(p->batch.source)) : ordered_json(nullptr);
  out["tp"] = p ? ordered_json(p->tensor_parallel.value) : ordered_json(nullptr);
  out["tp_source"] = p ? ordered_json(to_string(p->tensor_parallel.source)) : ordered_json(nullptr);
  out["kv_dtype"] = p ? ordered_json(p->kv_dtype.value) : ordered_json(nullptr);
  out["kv_dtype_source"] = p ? ordered_json(to_string(p->kv_dtype.source)) : ordered_json(nullptr);
  out["flops_per_step"] = r.step_cost ? ordered_json(r.step_cost->flops) : ordered_json(nullptr);
  out["bytes_per_step"] = r.step_cost ? ordered_json(r.step_cost->bytes) : ordered_json(nullptr);
  out["flops_per_token_layer"] =
      r.token_layer_cost ? ordered_json(r.token_layer_cost->flops) : ordered_json(nullptr);
  out["bytes_per_token_layer"] =
      r.token_layer_cost ? ordered_json(r.token_layer_cost->bytes) : ordered_json(nullptr);
  out["intensity_flop_per_byte"] = r.intensity_flop_per_byte;
  out["intensity_source"] = to_string(r.intensity_source);
  return out;
}

ordered_json position_json(const RooflineResult& r) {
  ordered_json out;
  out["bound"] = bound_name(r.bound);
  out["attainable_fraction"] = r.attainable_fraction;
  out["attainable_tflops"] = r.attainable_tflops;
  out["time_ms"] = or_null(r.time_ms);
  out["memory_needed_gb"] = or_null(r.memory_needed_gb);
  return out;
}

void put_levers(ordered_json& out, const engine::Levers& levers) {
  out["compute_speedup"] = levers.compute_speedup;
  out["bytes_reduction"] = levers.bytes_reduction;
  out["bandwidth_efficiency_before"] = levers.bandwidth_efficiency_before;
  out["bandwidth_efficiency_after"] = levers.bandwidth_efficiency_after;
  out["compute_efficiency"] = levers.compute_efficiency;
}

ordered_json lever_effects_json(const RooflineResult& r) {
  ordered_json out = ordered_json::array();
  const bool absolute = r.step_cost.has_value();  // --ai gives only ratios
  for (const engine::LeverRow& row : r.levers) {
    ordered_json effect;
    effect["lever"] = lever_kind_name(row.kind);
    effect["illustrative"] = r.levers_illustrative;
    put_levers(effect, row.levers);
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

}  // namespace

nlohmann::ordered_json roofline_to_json(const RooflineResult& result) {
  ordered_json out;
  out["schema_version"] = kRooflineSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  out["gpu"] = gpu_json(result);
  out["kernel"] = kernel_json(result);
  out["position"] = position_json(result);
  ordered_json levers;
  levers["given"] = result.query.levers_given;
  put_levers(levers, result.query.levers);
  out["levers"] = levers;
  out["lever_effects"] = lever_effects_json(result);
  ordered_json warnings = ordered_json::array();
  for (const auto& warning : result.warnings) {
    warnings.push_back({{"code", warning.code}, {"message", warning.message}});
  }
  out["warnings"] = warnings;
  return out;
}

}  // namespace kspeed::report
