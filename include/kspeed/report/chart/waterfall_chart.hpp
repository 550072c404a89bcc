#pragma once
// The estimate's dilution chain as a chart: one bar per level, from the kernel to the request.
// Each bar is the level's time before (100%); the solid part is the time after and the hatched
// part the time saved. The same milliseconds saved are a large part of the kernel and a small
// part of the request: the bars make that dilution visible.

#include <string>
#include <vector>

namespace kspeed::report::chart {

/// One level of the chain.
struct WaterfallLevel {
  std::string name;      ///< "attention in prefill", "prefill (TTFT)", "request"
  std::string note;      ///< a second line under the name ("18.0% of prefill"); may be empty
  double before_ms = 0;  ///< the level's time before the change
  double after_ms = 0;   ///< after it (may exceed before_ms: a slowdown is drawn as such)
};

struct WaterfallChart {
  std::string title;     ///< "Where a 2× kernel's time goes: prefill 1.10×, request 1.0066×"
  std::string subtitle;  ///< provenance of the inputs
  std::vector<WaterfallLevel> levels;  ///< top to bottom, kernel first
  std::string x_title = "time after, as a share of the level's time before (%)";
  double width = 800;  ///< pixels; the height follows from the number of levels
};

/// A self-contained SVG 1.1 document. Each level is a <g class="level"> with data-level,
/// data-before-ms, data-after-ms and data-saved-ms; its <rect class="after"> spans
/// after/before of the x scale (stated in data-* on the plot group).
std::string render_waterfall_svg(const WaterfallChart& chart);

}  // namespace kspeed::report::chart
