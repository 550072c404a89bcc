#include "kspeed/engine/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kspeed::engine {

Distribution distribution_of(std::vector<double>& values, const std::vector<double>& points) {
  Distribution out;
  out.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) {
    return out;
  }
  double sum = 0;
  for (double value : values) {
    sum += static_cast<double>(value);
  }
  out.mean = sum / static_cast<double>(values.size());
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  out.min = static_cast<double>(*lowest);
  out.max = static_cast<double>(*highest);

  // Each percentile needs the order statistics at floor(h) and floor(h) + 1. nth_element places
  // the first; the second is the smallest value above it. Points are visited in increasing
  // order so each nth_element only works on the part not yet partitioned: O(N) per point.
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
  out.percentiles.assign(points.size(), 0.0);
  const std::size_t n = values.size();
  auto first = values.begin();
  for (std::size_t index : order) {
    const double q = std::clamp(points[index], 0.0, 100.0);
    // h = (N - 1) q / 100;  v = x[lo] + (h - lo) (x[lo + 1] - x[lo])
    const double h = static_cast<double>(n - 1) * q / 100.0;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(lo);
    if (nth >= first) {
      std::nth_element(first, nth, values.end());
      first = nth;
    }
    const double x_lo = static_cast<double>(*nth);
    double x_hi = x_lo;
    if (lo + 1 < n) {
      x_hi = static_cast<double>(*std::min_element(nth + 1, values.end()));
    }
    out.percentiles[index] = x_lo + (h - static_cast<double>(lo)) * (x_hi - x_lo);
  }
  return out;
}

std::vector<HistogramBin> histogram_of(const std::vector<double>& values, int bins) {
  std::vector<HistogramBin> out;
  if (values.empty() || bins < 1) {
    return out;
  }
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  const auto lower = static_cast<double>(*lowest);
  const auto upper = static_cast<double>(*highest);
  if (upper <= lower) {
    out.push_back({lower, upper, static_cast<std::int64_t>(values.size())});
    return out;
  }
  const double width = (upper - lower) / bins;
  for (int i = 0; i < bins; ++i) {
    out.push_back({lower + width * i, i + 1 == bins ? upper : lower + width * (i + 1), 0});
  }
  for (double value : values) {
    auto bin = static_cast<std::size_t>((static_cast<double>(value) - lower) / width);
    bin = std::min(bin, out.size() - 1);
    ++out[bin].count;
  }
  return out;
}

}  // namespace kspeed::engine
