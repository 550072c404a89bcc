#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace kspeed::engine {

// A uniform index in [0, n): the top 53 bits of the generator as a double in [0, 1), times n.
// Deterministic across platforms (mt19937_64's sequence is fixed by the standard), so every
// bootstrap in kspeed (diff's and the prediction interval's) draws the same indices from one seed.
inline std::size_t uniform_index(std::mt19937_64& generator, std::size_t n) {
  constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;
  const double unit = static_cast<double>(generator() >> 11U) * kTwoToMinus53;
  return std::min(n - 1, static_cast<std::size_t>(unit * static_cast<double>(n)));
}

// Percentile q in [0, 1] of ascending values, numpy's linear rule (distribution.hpp).
inline double sorted_percentile(const std::vector<double>& sorted, double q) {
  const double h = (static_cast<double>(sorted.size()) - 1) * q;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (h - std::floor(h)) * (sorted[high] - sorted[low]);
}

}  // namespace kspeed::engine
