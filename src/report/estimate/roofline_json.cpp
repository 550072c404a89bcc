#include "roofline_json.hpp"

namespace kspeed::report {

namespace {

using nlohmann::ordered_json;

ordered_json platform_json(const engine::Platform& p) {
  ordered_json out;
  out["model"] = p.model.value.name;
  out["model_source"] = to_string(p.model.source);
  out["gpu"] = p.gpu.value.name;
  out["gpu_source"] = to_string(p.gpu.source);
  out["batch"] = p.batch.value;
  out["batch_source"] = to_string(p.batch.source);
  out["tp"] = p.tensor_parallel.value;
  out["tp_source"] = to_string(p.tensor_parallel.source);
  out["kv_dtype"] = p.kv_dtype.value;
  out["kv_dtype_source"] = to_string(p.kv_dtype.source);
  out["precision"] = p.precision.value;
  out["peak_tflops"] = p.peak_tflops;
  out["bandwidth_tbs"] = p.gpu.value.hbm_bandwidth_tbs;
  return out;
}

ordered_json levers_json(const engine::Levers& levers) {
  ordered_json out;
  out["compute_speedup"] = levers.compute_speedup;
  out["bytes_reduction"] = levers.bytes_reduction;
  out["bandwidth_efficiency_before"] = levers.bandwidth_efficiency_before;
  out["bandwidth_efficiency_after"] = levers.bandwidth_efficiency_after;
  out["compute_efficiency"] = levers.compute_efficiency;
  return out;
}

ordered_json position_json(const engine::PhaseRoofline& position) {
  ordered_json out;
  out["intensity_flop_per_byte"] = position.intensity_flop_per_byte;
  out["ridge_flop_per_byte"] = position.ridge_flop_per_byte;
  out["bound"] = position.bound == engine::Bound::memory ? "memory" : "compute";
  out["attainable_fraction"] = position.attainable_fraction;
  out["lever_speedup"] = position.attention_speedup ? ordered_json(*position.attention_speedup)
                                                    : ordered_json(nullptr);
  return out;
}

}  // namespace

void add_roofline_json(nlohmann::ordered_json& out, const engine::Scenario& s) {
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

}  // namespace kspeed::report
