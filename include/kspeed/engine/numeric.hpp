#pragma once

#include <cstdint>

namespace kspeed::engine {

// Counts (tokens, layers, heads, GPUs) are integers; the physics is in doubles. One explicit
// conversion keeps -Wconversion quiet without a static_cast at every use.
constexpr double as_double(std::int64_t value) {
  return static_cast<double>(value);
}

// Unit conversions shared by the step model, the collectives and the KV capacity.
constexpr double kBytesPerGb = 1e9;
constexpr double kMsPerSecond = 1e3;

}  // namespace kspeed::engine
