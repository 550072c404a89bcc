#pragma once
// The sweep chart: speedup against context length, the picture of how a kernel's gain grows
// with context (1.10× at 4K, 1.74× at 128K for a 2× kernel) under its ceiling 1/(1−p).

#include <string>
#include <utility>
#include <vector>

#include "kspeed/report/chart/axis.hpp"

namespace kspeed::report::chart {

/// One line of the sweep: a level's speedup at each context.
struct SweepSeries {
  std::string name;           ///< legend label: "prefill (TTFT)", "request, kernel 4×"
  std::vector<Point> points;  ///< x = context tokens (> 0), y = speedup (×); any order
};

/// How a series is told apart when series come in groups: the series of one group share a
/// colour ("kernel 4×": its TTFT and request lines), each level has its line style, and the
/// legend names each group once and each level once.
struct SeriesStyle {
  std::string group;    ///< "kernel 4×"
  std::string level;    ///< "TTFT", "request (E2E)"
  bool dashed = false;  ///< the level's line style
};

/// A context where the attention share was measured rather than interpolated: marked apart.
struct MeasuredPoint {
  double context_tokens = 0;  ///< where the share table has a row
  double speedup = 0;         ///< the plotted level's speedup there (×)
  std::string label;          ///< short note beside the mark ("18% measured"); may be empty
};

/// What the x axis counts: context tokens and batch sizes on a log axis with power-of-two ticks
/// ("4K", "64"), kernel or lever speedups and shares on a linear one.
enum class SweepX { tokens, count, speedup, fraction };

struct SweepChart {
  std::string title;     ///< "What a 2× attention kernel is worth, by context"
  std::string subtitle;  ///< provenance: workload, kernel speedup, where the shares come from
  std::vector<SweepSeries> series;  ///< drawn in palette order; the 7th on reuses colours dotted
  ///< x = the swept value (x_kind), y = speedup (×)
  /// Parallel to series when they come in groups; empty: one colour per series.
  std::vector<SeriesStyle> styles;
  /// The ceiling 1/(1−p) at each context (x tokens, y ×); empty draws none; an unbounded
  /// value (p = 1, +inf) breaks the curve. When it rises far above the series it is clipped
  /// at the top of the plot rather than flattening them.
  std::vector<Point> ceiling;
  std::string ceiling_name = "ceiling 1/(1−p)";
  std::vector<MeasuredPoint> measured;  ///< the share table's measured contexts
  std::string measured_name = "measured share";
  /// Context ranges (tokens) outside the share table, where the share is held at its edge:
  /// shaded, since the lines there are flat by assumption, not by measurement.
  std::vector<std::pair<double, double>> clamped;
  std::string clamped_name = "share held at the table's edge";
  SweepX x_kind = SweepX::tokens;
  std::string x_title = "context length (tokens, log scale)";
  std::string y_title = "speedup (×)";
  double width = 800;   ///< pixels
  double height = 480;  ///< pixels
};

/// A self-contained SVG 1.1 document. Each series point is a <circle class="point"> with
/// data-series, data-x (tokens) and data-y (speedup) — past 500 points in a series, every k-th
/// point and the last (the line still passes through all; the series group's data-points and
/// data-marked say how many); each measured point a <path class="measured"> with data-x and
/// data-y; the plot group states both scales in data-*.
std::string render_sweep_svg(const SweepChart& chart);

/// Options of the terminal rendering.
struct TerminalChartOptions {
  int rows = 8;      ///< character rows of the plot (4 braille dots each)
  int columns = 60;  ///< character columns of the plot (2 braille dots each)
};

/// A compact Unicode chart of the series (braille dots, no colour): y labels on the left, the
/// context axis below with token labels (4K … 128K), each series named at its right end.
/// The ceiling and measured points are left out: they belong to the full SVG.
std::string render_terminal_chart(const SweepChart& chart,
                                  const TerminalChartOptions& options = {});

}  // namespace kspeed::report::chart
