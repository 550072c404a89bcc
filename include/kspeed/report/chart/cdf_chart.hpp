#pragma once
// The latency CDF of a request mix: for each metric (TTFT, E2E) the empirical distribution
// before and after the change, so a reader sees whether the whole distribution moved or only
// its tail.

#include <string>
#include <vector>

namespace kspeed::report::chart {

enum class CdfWhen { before, after };

/// One empirical distribution.
struct CdfSeries {
  std::string metric;              ///< "TTFT", "E2E": series of one metric share a colour
  CdfWhen when = CdfWhen::before;  ///< before: dashed; after: solid
  std::vector<double> samples_ms;  ///< one latency per request, any order; non-finite skipped
};

struct CdfChart {
  std::string title;
  std::string subtitle;
  std::vector<CdfSeries> series;
  bool log_x = true;  ///< latencies spanning decades read better on a log axis
  std::string x_title = "latency (log scale)";
  std::string y_title = "fraction of requests at or below";
  double width = 800;
  double height = 480;
};

/// A self-contained SVG 1.1 document. The CDF F(x) = (number of samples ≤ x) / n is drawn as a
/// step curve; every sample (or, past 100 samples, the sample at each percentile rank) is a
/// <circle class="point"> with data-series, data-x (ms) and data-y (F at that sample).
std::string render_cdf_svg(const CdfChart& chart);

}  // namespace kspeed::report::chart
