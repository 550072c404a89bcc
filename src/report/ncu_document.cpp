// `kspeed roofline --ncu` for programs (docs/json-format.md): the JSON tree, and one record per
// launch for csv and jsonl (the GPU's fields as platform_<key>, as estimate names them, the
// launch's fields unprefixed, then the priced launch's combined lever speedup and the warning
// codes).
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::MeasuredRooflineResult;

ordered_json quantity_json(const engine::MeasuredQuantity& q) {
  ordered_json out;
  out["value"] = or_null(q.value);
  out["provenance"] = q.value ? "measured" : "missing";
  out["derivation"] = q.derivation;
  out["missing"] = q.missing;
  return out;
}

ordered_json launch_json(const MeasuredRooflineResult& r, std::size_t i) {
  const engine::MeasuredKernel& k = r.query.kernels[i];
  const engine::MeasuredPosition& p = r.positions[i];
  ordered_json out;
  out["id"] = k.id;
  out["name"] = k.name;
  out["class"] = engine::to_string(k.kernel_class);
  out["selected"] = static_cast<bool>(r.selected[i]);
  out["priced"] = r.priced == i;
  out["device"] = or_null(k.device);
  out["compute_capability"] = or_null(k.compute_capability);
  out["duration_s"] = quantity_json(k.duration_s);
  out["dram_bytes"] = quantity_json(k.dram_bytes);
  out["flops"] = quantity_json(k.flops);
  ordered_json tensor;
  tensor["warp_instructions"] = or_null(k.tensor.warp_instructions);
  tensor["metric"] = k.tensor.metric;
  tensor["conversion"] = to_string(k.tensor.conversion);
  tensor["flops"] = or_null(k.tensor.flops);
  out["tensor"] = tensor;
  out["flops_lower_bound"] = k.flops_miss_tensor_work;
  out["intensity_flop_per_byte"] = or_null(k.intensity_flop_per_byte);
  out["achieved_flop_per_s"] = or_null(k.achieved_flop_per_s);
  out["achieved_byte_per_s"] = or_null(k.achieved_byte_per_s);
  ordered_json sol;
  sol["compute"] = or_null(k.speed_of_light.compute);
  sol["memory"] = or_null(k.speed_of_light.memory);
  sol["dram"] = or_null(k.speed_of_light.dram);
  out["speed_of_light"] = sol;
  out["compute_fraction"] = or_null(p.compute_fraction);
  out["bandwidth_fraction"] = or_null(p.bandwidth_fraction);
  out["bound"] = p.bound ? ordered_json(bound_name(*p.bound)) : ordered_json(nullptr);
  out["roof_fraction"] = or_null(p.roof_fraction);
  out["headroom"] = or_null(p.headroom);
  out["above_roof"] = p.above_roof;
  return out;
}

// The GPU and its roof, with estimate's `platform` names.
ordered_json platform_json(const MeasuredRooflineResult& r) {
  const engine::MeasuredRooflineQuery& q = r.query;
  ordered_json out;
  out["gpu"] = q.gpu_name;
  out["precision"] = q.precision;
  put_with_provenance(out, "peak_tflops", q.peak_tflops.value, q.peak_tflops.provenance);
  put_with_provenance(out, "bandwidth_tbs", q.bandwidth_tbs.value, q.bandwidth_tbs.provenance);
  out["ridge_flop_per_byte"] = engine::ridge_flop_per_byte(r.roof);
  return out;
}

ordered_json comparison_json(const MeasuredRooflineResult& r) {
  if (!r.comparison) return nullptr;
  const engine::ModelComparison& c = *r.comparison;
  ordered_json out;
  out["model"] = r.query.model_name;
  out["modelled_flops"] = r.query.modelled->flops;
  out["modelled_bytes"] = r.query.modelled->bytes;
  out["modelled_intensity_flop_per_byte"] = c.modelled_intensity_flop_per_byte;
  out["measured_intensity_flop_per_byte"] = or_null(c.measured_intensity_flop_per_byte);
  out["modelled_bound"] = bound_name(c.modelled_bound);
  out["measured_bound"] =
      c.measured_bound ? ordered_json(bound_name(*c.measured_bound)) : ordered_json(nullptr);
  out["modelled_attainable_fraction"] = c.modelled_attainable_fraction;
  out["bytes_ratio"] = or_null(c.bytes_ratio);
  out["flops_ratio"] = or_null(c.flops_ratio);
  out["modelled_speedup"] = c.modelled_price.speedup;
  out["measured_speedup"] =
      c.measured_price ? ordered_json(c.measured_price->speedup) : ordered_json(nullptr);
  return out;
}

ordered_json lever_effects_json(const MeasuredRooflineResult& r) {
  ordered_json out = ordered_json::array();
  for (const engine::MeasuredLeverRow& row : r.levers) {
    ordered_json effect;
    effect["lever"] = lever_kind_name(row.kind);
    effect["illustrative"] = r.levers_illustrative;
    effect["compute_speedup"] = row.levers.compute_speedup;
    effect["bytes_reduction"] = row.levers.bytes_reduction;
    effect["bandwidth_efficiency_after"] = or_null(row.levers.bandwidth_efficiency_after);
    effect["time_before_s"] = row.outcome.time_before_s;
    effect["time_after_s"] = row.outcome.time_after_s;
    effect["exposed_s"] = row.outcome.exposed_s;
    effect["speedup"] = row.outcome.speedup;
    effect["speedup_provenance"] = to_string(row.outcome.provenance);
    effect["speedup_instrument"] = row.outcome.instrument;
    effect["ideal_speedup"] = row.outcome.ideal_speedup;
    out.push_back(effect);
  }
  return out;
}

ordered_json missing_json(const MeasuredRooflineResult& r) {
  ordered_json out = ordered_json::array();
  for (const std::string& metric : r.missing_metrics) {
    out.push_back({{"metric", metric}, {"ncu_flag", ncu_collect_flag(metric)}});
  }
  return out;
}

}  // namespace

Document ncu_document(const MeasuredRooflineResult& result) {
  Document document;
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["kspeed_version"] = KSPEED_VERSION;
  tree["file"] = result.query.file;
  tree["page"] = result.query.page;
  tree["platform"] = platform_json(result);
  tree["selection"] = {
      {"kind", to_string(result.selection)},
      {"pattern",
       result.query.pattern.empty() ? ordered_json(nullptr) : ordered_json(result.query.pattern)}};
  ordered_json launches = ordered_json::array();
  for (std::size_t i = 0; i < result.query.kernels.size(); ++i) {
    launches.push_back(launch_json(result, i));
  }
  tree["launches"] = launches;
  tree["priced_launch"] =
      result.priced ? ordered_json(result.query.kernels[*result.priced].id) : ordered_json(nullptr);
  tree["model_comparison"] = comparison_json(result);
  tree["lever_effects"] = lever_effects_json(result);
  tree["missing_metrics"] = missing_json(result);
  tree["warnings"] = warnings_json(result.warnings);
  for (const auto& launch : tree["launches"]) {
    ordered_json record;
    record["schema_version"] = kSchemaVersion;
    record["file"] = result.query.file;
    flatten_into(record, "platform", tree["platform"]);
    ordered_json flat = launch;
    for (const char* key : {"duration_s", "dram_bytes", "flops"}) {
      flat[key].erase("missing");
    }
    flatten_into(record, "", flat);
    const bool priced = launch["priced"].get<bool>() && !tree["lever_effects"].empty();
    record["priced_speedup"] =
        priced ? tree["lever_effects"].back()["speedup"] : ordered_json(nullptr);
    record["warnings"] = launch["priced"].get<bool>() ? joined(tree["warnings"], "code") : "";
    document.records.push_back(std::move(record));
  }
  return document;
}

}  // namespace kspeed::report
