#pragma once
// Scales and ticks shared by every chart: a value's place on the page and back, "nice" tick
// values and their labels. Plain values only, so any chart (SVG or terminal) can use them.

#include <string>
#include <vector>

namespace kspeed::report::chart {

/// A plotted value pair, in the chart's units (not pixels).
struct Point {
  double x = 0;
  double y = 0;
};

/// How values map to pixels along one axis.
enum class ScaleKind {
  linear,  ///< equal steps of value are equal steps of pixels
  log10,   ///< equal ratios of value are equal steps of pixels (values must be > 0)
};

/// A map from a domain of values to a range of pixels (the range may run backwards: an SVG y
/// axis grows downwards, so its range is [bottom, top]).
struct Scale {
  ScaleKind kind = ScaleKind::linear;
  double domain_min = 0;   ///< value at range_start
  double domain_max = 1;   ///< value at range_end
  double range_start = 0;  ///< pixel of domain_min
  double range_end = 1;    ///< pixel of domain_max

  /// The pixel of a value; values outside the domain map outside the range (not clamped).
  [[nodiscard]] double to_pixel(double value) const;
  /// The value at a pixel: the inverse of to_pixel.
  [[nodiscard]] double to_value(double pixel) const;
};

/// How a tick's value is written.
enum class TickFormat {
  plain,         ///< "0.5", "10", "1,000"
  speedup,       ///< "1.5×"
  percent,       ///< a fraction as "20%"
  milliseconds,  ///< "500 ms", "1.5 s"
  tokens,        ///< binary k and m as kspeed reads them: "4K" (4,096), "1M" (1,048,576)
  tera,          ///< value / 10^12, plain: FLOP/s ticks on a TFLOP/s axis
};

/// One tick: where it goes and what it says (an empty label is an unlabelled minor tick).
struct Tick {
  double value = 0;
  std::string label;
  bool major = true;  ///< majors get a grid line and a label; minors a lighter line
};

/// The 1-2-5 step that puts about `target_count` ticks over [min, max].
double nice_step(double min, double max, int target_count);

/// [min, max] widened outwards to multiples of nice_step, so the axis starts and ends on a tick.
void widen_to_nice(double& min, double& max, int target_count);

/// Linear ticks every nice_step over [min, max] (inclusive, within rounding).
std::vector<Tick> linear_ticks(double min, double max, TickFormat format, int target_count = 6);

/// Log ticks: every decade inside [min, max] as a major tick; 2× and 5× each decade as minors,
/// labelled when the domain spans at most two decades (else there is no room for them); when
/// the domain holds fewer than two decades, 2× … 9× minors are all drawn.
std::vector<Tick> log10_ticks(double min, double max, TickFormat format);

/// Token ticks: powers of two inside [min, max], every 2^k-th so at most `max_count` remain
/// (4K 8K 16K … or 1K 4K 16K … 1M).
std::vector<Tick> token_ticks(double min, double max, int max_count = 8);

/// A tick label. `step` is the distance to the next tick (0 for log axes), which decides how
/// many decimals the label needs: ticks 1.0 1.2 1.4 need one, 1.05 1.10 two.
std::string format_tick(double value, TickFormat format, double step = 0);

/// A token count with binary suffixes: 4096 -> "4K", 131072 -> "128K", 1048576 -> "1M",
/// 6144 -> "6K", 1000 -> "1000" (not a multiple of 1,024: written out).
std::string format_tokens(double tokens);

}  // namespace kspeed::report::chart
