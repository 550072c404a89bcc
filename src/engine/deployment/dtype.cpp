#include "kspeed/engine/deployment/dtype.hpp"

#include <utility>

namespace kspeed::engine {

namespace {

// (name, bytes per element). MXFP4 (OCP microscaling): 4 bits + an 8-bit E8M0 scale per 32
// values. NVFP4 (NVIDIA's Blackwell format, as TensorRT Model Optimizer exports it): 4-bit E2M1
// values + one FP8 E4M3 scale per 16 values = 4.5 bits (the per-tensor FP32 second-level scale
// is a few bytes per matrix and left out).
const std::vector<std::pair<std::string, double>>& dtype_table() {
  static const std::vector<std::pair<std::string, double>> table = {
      {"fp32", 4.0},         {"bf16", 2.0},        {"fp16", 2.0}, {"fp8", 1.0}, {"int8", 1.0},
      {"mxfp4", 4.25 / 8.0}, {"nvfp4", 4.5 / 8.0}, {"fp4", 0.5},  {"int4", 0.5}};
  return table;
}

}  // namespace

std::optional<double> dtype_bytes(std::string_view name) {
  for (const auto& [known, bytes] : dtype_table()) {
    if (known == name) {
      return bytes;
    }
  }
  return std::nullopt;
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : dtype_table()) {
      out.push_back(entry.first);
    }
    return out;
  }();
  return names;
}

}  // namespace kspeed::engine
