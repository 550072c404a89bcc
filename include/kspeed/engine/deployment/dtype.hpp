#pragma once
// Storage data types and their size, for weights and the KV cache. Block-scaled formats count
// their scales: MXFP4 stores 32 four-bit values with one 8-bit scale, 4.25 bits per value; NVFP4
// 16 four-bit values with one FP8 scale, 4.5 bits per value.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::engine {

/// Bytes per element of a named type ("bf16" -> 2, "fp8" -> 1, "mxfp4" -> 0.53125, "nvfp4" ->
/// 0.5625); nullopt for a name kspeed does not know.
std::optional<double> dtype_bytes(std::string_view name);

/// Every name dtype_bytes knows, for help texts and did-you-mean.
const std::vector<std::string>& dtype_names();

}  // namespace kspeed::engine
