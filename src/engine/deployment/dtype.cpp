#include "kspeed/engine/deployment/dtype.hpp"

#include <utility>

namespace kspeed::engine {

namespace {

// (name, bytes per element). MXFP4 (OCP microscaling): 4 bits + an 8-bit scale per 32 values.
const std::vector<std::pair<std::string, double>>& dtype_table() {
  static const std::vector<std::pair<std::string, double>> table = {
      {"fp32", 4.0}, {"bf16", 2.0},         {"fp16", 2.0}, {"fp8", 1.0},
      {"int8", 1.0}, {"mxfp4", 4.25 / 8.0}, {"fp4", 0.5},  {"int4", 0.5}};
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
