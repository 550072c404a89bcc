#pragma once
// Exact order statistics for the workload level. Per-request values are kept as doubles (8 bytes
// per request per metric; floats' relative 6e-8 flipped a last printed digit of a measured log), so
// percentiles are exact over the whole log rather than a sketch's approximation; memory is linear
// in the number of requests and stated in docs/mix.md.

#include <cstdint>
#include <vector>

namespace kspeed::engine {

/// Mean and percentiles of one metric over the requests that have it.
struct Distribution {
  std::int64_t count = 0;           ///< values that entered (missing values are not counted)
  double mean = 0;                  ///< arithmetic mean; 0 when count is 0
  double min = 0;                   ///< smallest value; 0 when count is 0
  double max = 0;                   ///< largest value; 0 when count is 0
  std::vector<double> percentiles;  ///< one per requested point, same order; empty when count 0
};

/// Percentile by linear interpolation between order statistics, as numpy.percentile's default
/// ("linear") and hence vLLM's and AIPerf's benchmark reports compute them:
///   h = (N - 1) * q / 100,  v = x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor h]).
/// `points` are in [0, 100]. `values` is reordered (partially sorted); NaNs must be removed first.
Distribution distribution_of(std::vector<double>& values, const std::vector<double>& points);

/// One bar of a histogram: [lower, upper) and how many values fell into it.
struct HistogramBin {
  double lower = 0;
  double upper = 0;
  std::int64_t count = 0;
};

/// `bins` equal-width bins over [min, max] of `values` (the last bin includes max). One bin
/// when all values are equal; none when `values` is empty.
std::vector<HistogramBin> histogram_of(const std::vector<double>& values, int bins);

}  // namespace kspeed::engine
