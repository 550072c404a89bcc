#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kspeed/report/chart/svg.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::report::chart {

namespace {

constexpr std::size_t kSolidColours = 7;    // palette size: later series repeat, dotted
constexpr std::size_t kLargeMarkers = 40;   // more points than this get small markers
constexpr std::size_t kSmallMarkers = 150;  // more than this: markers would merge into a band
constexpr std::size_t kMaxMarkers = 500;    // at most about this many markers per series
constexpr double kEndLabelWidth = 52;       // room right of the plot for "1.74×"
constexpr double kSweepInnerPadding = 10;   // keeps edge markers off the axes
// The ceiling joins the y domain only while it stays within this many times the series' own
// rise above 1.0×; beyond that it would squash the series, so it is clipped instead.
constexpr double kCeilingHeadroom = 2.5;

struct Extent {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double value) {
    if (!std::isfinite(value)) return;
    min = std::min(min, value);
    max = std::max(max, value);
  }
  [[nodiscard]] bool empty() const { return min > max; }
};

Scale x_scale(const SweepChart& chart, const Frame& frame) {
  Extent tokens;
  for (const auto& series : chart.series) {
    for (const auto& point : series.points) {
      if (point.x > 0) tokens.add(point.x);
    }
  }
  for (const auto& point : chart.ceiling) {
    if (point.x > 0) tokens.add(point.x);
  }
  for (const auto& point : chart.measured) {
    if (point.context_tokens > 0) tokens.add(point.context_tokens);
  }
  if (tokens.empty()) tokens = {1024, 131072};
  const bool log = chart.x_kind == SweepX::tokens || chart.x_kind == SweepX::count;
  if (tokens.min == tokens.max) {
    tokens =
        log ? Extent{tokens.min / 2, tokens.max * 2} : Extent{tokens.min * 0.9, tokens.max * 1.1};
  }
  if (!log) widen_to_nice(tokens.min, tokens.max, 6);
  return {log ? ScaleKind::log10 : ScaleKind::linear, tokens.min, tokens.max,
          frame.plot_left + kSweepInnerPadding, frame.plot_right - kSweepInnerPadding};
}

// A swept value as the text reports write it: "128K" tokens, batch "64", "2.00×", "40%".
std::string format_sweep_x(SweepX kind, double value) {
  switch (kind) {
    case SweepX::tokens:
      return format_tokens(value) + " tokens";
    case SweepX::count:
      return human_count(static_cast<std::int64_t>(std::llround(value)));
    case SweepX::speedup:
      return human_speedup(value);
    case SweepX::fraction:
      return human_percent(value);
  }
  return format_data(value);
}

std::vector<Tick> sweep_x_ticks(SweepX kind, const Scale& x) {
  switch (kind) {
    case SweepX::tokens:
      return token_ticks(x.domain_min, x.domain_max);
    case SweepX::count: {
      std::vector<Tick> ticks = token_ticks(x.domain_min, x.domain_max);
      for (Tick& tick : ticks) tick.label = format_sweep_x(kind, tick.value);
      return ticks;
    }
    case SweepX::speedup:
      return linear_ticks(x.domain_min, x.domain_max, TickFormat::speedup);
    case SweepX::fraction:
      return linear_ticks(x.domain_min, x.domain_max, TickFormat::percent);
  }
  return {};
}

// The speedup domain: 1.0× always shows (the line of no change); the ceiling joins while it
// does not dwarf the series.
Extent y_extent(const SweepChart& chart) {
  Extent speedup;
  speedup.add(1.0);
  for (const auto& series : chart.series) {
    for (const auto& point : series.points) speedup.add(point.y);
  }
  for (const auto& point : chart.measured) speedup.add(point.speedup);
  Extent ceiling;
  for (const auto& point : chart.ceiling) ceiling.add(point.y);
  const double rise = speedup.max - 1.0;
  if (!ceiling.empty() && ceiling.max - 1.0 <= kCeilingHeadroom * std::max(rise, 0.05)) {
    speedup.add(ceiling.max);
  }
  if (speedup.max - speedup.min < 0.05) speedup.max = speedup.min + 0.05;
  // A little air above the highest point, then out to whole ticks.
  speedup.max += 0.04 * (speedup.max - speedup.min);
  widen_to_nice(speedup.min, speedup.max, 6);
  return speedup;
}

std::vector<Point> sorted_by_x(std::vector<Point> points) {
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  return points;
}

std::vector<Point> to_pixels(const std::vector<Point>& points, const Scale& x, const Scale& y) {
  std::vector<Point> pixels;
  pixels.reserve(points.size());
  for (const auto& point : points) {
    const bool drawable = point.x > 0 && std::isfinite(point.y);
    pixels.push_back(drawable ? Point{x.to_pixel(point.x), y.to_pixel(point.y)}
                              : Point{std::nan(""), std::nan("")});
  }
  return pixels;
}

bool grouped(const SweepChart& chart) {
  return !chart.styles.empty() && chart.styles.size() == chart.series.size();
}

// A series' colour: its group's (groups in order of first appearance), else its own.
std::size_t colour_index(const SweepChart& chart, std::size_t index) {
  if (!grouped(chart)) return index;
  std::vector<std::string> seen;
  for (std::size_t i = 0; i <= index; ++i) {
    const std::string& g = chart.styles[i].group;
    if (std::find(seen.begin(), seen.end(), g) == seen.end()) seen.push_back(g);
  }
  const std::string& group = chart.styles[index].group;
  return static_cast<std::size_t>(std::find(seen.begin(), seen.end(), group) - seen.begin());
}

bool dashed(const SweepChart& chart, std::size_t index) {
  return grouped(chart) ? chart.styles[index].dashed : index >= kSolidColours;
}

std::vector<LegendEntry> legend_of(const SweepChart& chart) {
  std::vector<LegendEntry> legend;
  if (grouped(chart)) {
    // Each group once in its colour, then each level once in its line style.
    std::vector<std::string> groups;
    std::vector<std::pair<std::string, bool>> levels;
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
      const SeriesStyle& s = chart.styles[i];
      if (std::find(groups.begin(), groups.end(), s.group) == groups.end()) {
        groups.push_back(s.group);
        legend.push_back(
            {s.group, std::string(palette_colour(colour_index(chart, i))), LegendMark::bar});
      }
      const std::pair<std::string, bool> level{s.level, s.dashed};
      if (std::find(levels.begin(), levels.end(), level) == levels.end()) levels.push_back(level);
    }
    for (const auto& [level, is_dashed] : levels) {
      legend.push_back({level, "#1f2328", is_dashed ? LegendMark::dashed_line : LegendMark::line});
    }
  } else {
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
      legend.push_back({chart.series[i].name, std::string(palette_colour(i)),
                        i < kSolidColours ? LegendMark::line : LegendMark::dashed_line});
    }
  }
  if (!chart.ceiling.empty())
    legend.push_back({chart.ceiling_name, "#57606a", LegendMark::dashed_line});
  if (!chart.measured.empty())
    legend.push_back({chart.measured_name, "#1f2328", LegendMark::diamond});
  if (!chart.clamped.empty()) legend.push_back({chart.clamped_name, "#d0d7de", LegendMark::bar});
  return legend;
}

void draw_series(SvgDocument& svg, const SweepSeries& series, std::size_t colour_at, bool is_dashed,
                 SweepX x_kind, const Scale& x, const Scale& y) {
  const std::string colour(palette_colour(colour_at));
  const std::vector<Point> points = sorted_by_x(series.points);
  std::vector<Point> drawable;
  for (const auto& point : points) {
    if (point.x > 0 && std::isfinite(point.y)) drawable.push_back(point);  // x > 0: log axes
  }
  // The line passes through every point; a marker (with its data and tooltip) goes on every
  // stride-th point only, so a 100,000-point sweep stays a file a browser opens. The group
  // says how many points there are and how many carry markers.
  const std::size_t stride = (drawable.size() + kMaxMarkers - 1) / kMaxMarkers;
  std::size_t marked = 0;
  for (std::size_t i = 0; i < drawable.size(); ++i) {
    if (i % std::max<std::size_t>(stride, 1) == 0 || i + 1 == drawable.size()) ++marked;
  }
  svg.open("g", {{"class", "series"},
                 {"data-series", series.name},
                 {"data-points", std::to_string(drawable.size())},
                 {"data-marked", std::to_string(marked)}});
  svg.leaf("path", {{"class", "series"},
                    {"d", line_path(to_pixels(points, x, y))},
                    {"stroke", colour},
                    {"stroke-dasharray", is_dashed ? "6 4" : "none"},
                    {"clip-path", "url(#kspeed-plot)"}});
  // Markers shrink as points crowd, and vanish (r = 0, data kept) when they would merge.
  const double radius = drawable.size() <= kLargeMarkers   ? 3.2
                        : drawable.size() <= kSmallMarkers ? 1.6
                                                           : 0.0;
  for (std::size_t i = 0; i < drawable.size(); ++i) {
    if (i % std::max<std::size_t>(stride, 1) != 0 && i + 1 != drawable.size()) continue;
    const Point& point = drawable[i];
    svg.open("circle", {{"class", "point"},
                        {"cx", format_coordinate(x.to_pixel(point.x))},
                        {"cy", format_coordinate(y.to_pixel(point.y))},
                        {"r", format_coordinate(radius)},
                        {"fill", colour},
                        {"stroke", "#ffffff"},
                        {"stroke-width", "1"},
                        {"data-series", series.name},
                        {"data-x", format_data(point.x)},
                        {"data-y", format_data(point.y)}});
    // A tooltip in browsers: the series, the context and the value as the text reports say it.
    svg.element("title", fmt::format("{} at {}: {}", series.name, format_sweep_x(x_kind, point.x),
                                     human_speedup(point.y)));
    svg.close();
  }
  svg.close();
}

void draw_ceiling(SvgDocument& svg, const SweepChart& chart, const Scale& x, const Scale& y) {
  if (chart.ceiling.empty()) return;
  svg.leaf("path", {{"class", "ceiling series"},
                    {"d", line_path(to_pixels(sorted_by_x(chart.ceiling), x, y))},
                    {"stroke", "#57606a"},
                    {"stroke-width", "1.75"},
                    {"stroke-dasharray", "7 5"},
                    {"clip-path", "url(#kspeed-plot)"}});
}

// Writes `text` at the first candidate place (x, baseline, anchor) the placer finds clear of
// lines and labels, else at the first; the placer keeps its box either way.
struct Candidate {
  double x;
  double baseline;
  const char* anchor;
};

void place_text(SvgDocument& svg, LabelPlacer& placer, const TextBox& bounds,
                const std::vector<Candidate>& candidates, const std::string& text) {
  const Candidate* chosen = &candidates.front();
  for (const Candidate& candidate : candidates) {
    if (placer.clear(text_box(candidate.x, candidate.baseline, text, kTickSize, candidate.anchor),
                     bounds)) {
      chosen = &candidate;
      break;
    }
  }
  placer.add_label(text_box(chosen->x, chosen->baseline, text, kTickSize, chosen->anchor));
  svg.text(chosen->x, chosen->baseline, "tick halo", text, {{"text-anchor", chosen->anchor}});
}

// Where a clipped ceiling leaves the top of the plot, say how high it goes: beside the crossing,
// on whichever side no line runs.
void draw_ceiling_exit(SvgDocument& svg, const SweepChart& chart, const Scale& x, const Scale& y,
                       LabelPlacer& placer, const TextBox& bounds) {
  const auto points = sorted_by_x(chart.ceiling);
  double highest = 0;
  for (const auto& point : points) highest = std::max(highest, point.y);
  const double top = y.domain_max;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Point& a = points[i - 1];
    const Point& b = points[i];
    if (!(a.y <= top && b.y > top) || !(a.x > 0) || !(b.x > 0)) continue;
    // The crossing, interpolated in pixels along the drawn segment.
    const double t = (top - a.y) / (b.y - a.y);
    const double pixel_x = x.to_pixel(a.x) + t * (x.to_pixel(b.x) - x.to_pixel(a.x));
    const std::string peak = std::isfinite(highest) ? human_speedup(highest) : "∞";
    std::vector<Candidate> candidates;
    for (const double down : {14.0, 28.0, 42.0, 56.0}) {
      candidates.push_back({pixel_x + 6, y.range_end + down, "start"});
      candidates.push_back({pixel_x - 6, y.range_end + down, "end"});
    }
    place_text(svg, placer, bounds, candidates, "ceiling rises to " + peak);
    return;
  }
}

// The contexts outside the share table, shaded: there the share is held at the table's edge.
void draw_clamped(SvgDocument& svg, const SweepChart& chart, const Frame& frame, const Scale& x) {
  for (const auto& [from, to] : chart.clamped) {
    if (!(from > 0) || !(to > from)) continue;
    const double left = std::max(frame.plot_left, x.to_pixel(from));
    const double right = std::min(frame.plot_right, x.to_pixel(to));
    if (!(right > left)) continue;
    svg.leaf("rect", {{"class", "clamped"},
                      {"x", format_coordinate(left)},
                      {"y", format_coordinate(frame.plot_top)},
                      {"width", format_coordinate(right - left)},
                      {"height", format_coordinate(frame.plot_bottom - frame.plot_top)},
                      {"fill", "#d0d7de"},
                      {"fill-opacity", "0.45"},
                      {"data-from", format_data(from)},
                      {"data-to", format_data(to)}});
  }
}

void draw_no_change(SvgDocument& svg, const Frame& frame, const Scale& y) {
  const double pixel = y.to_pixel(1.0);
  svg.leaf("line", {{"class", "no-change"},
                    {"x1", format_coordinate(frame.plot_left)},
                    {"y1", format_coordinate(pixel)},
                    {"x2", format_coordinate(frame.plot_right)},
                    {"y2", format_coordinate(pixel)},
                    {"stroke", "#1f2328"},
                    {"stroke-width", "1.25"}});
}

// "1.0× = no change" on its line where no other line runs: the right end, the left, then along
// it, above and below. Where lines cover it everywhere it is left out: the axis's 1.0× tick
// names it.
void draw_no_change_label(SvgDocument& svg, const Frame& frame, const Scale& y, LabelPlacer& placer,
                          const TextBox& bounds) {
  const std::string text = "1.0× = no change";
  const double pixel = y.to_pixel(1.0);
  std::vector<Candidate> candidates = {{frame.plot_right - 4, pixel - 5, "end"},
                                       {frame.plot_left + 4, pixel - 5, "start"},
                                       {frame.plot_right - 4, pixel + 13, "end"},
                                       {frame.plot_left + 4, pixel + 13, "start"}};
  for (const double at : {0.5, 0.25, 0.75}) {
    const double x = frame.plot_left + at * (frame.plot_right - frame.plot_left);
    candidates.push_back({x, pixel - 5, "middle"});
    candidates.push_back({x, pixel + 13, "middle"});
  }
  for (const Candidate& candidate : candidates) {
    if (placer.clear(text_box(candidate.x, candidate.baseline, text, kTickSize, candidate.anchor),
                     bounds)) {
      place_text(svg, placer, bounds, {candidate}, text);
      return;
    }
  }
}

void draw_measured(SvgDocument& svg, const SweepChart& chart, const Scale& x, const Scale& y,
                   LabelPlacer& placer, const TextBox& bounds) {
  if (chart.measured.empty()) return;
  svg.open("g", {{"class", "measured"}});
  for (const auto& point : chart.measured) {
    if (!(point.context_tokens > 0) || !std::isfinite(point.speedup)) continue;
    const double cx = x.to_pixel(point.context_tokens);
    const double cy = y.to_pixel(point.speedup);
    // A diamond 14 px tall, centred on the point.
    svg.open("path", {{"class", "measured"},
                      {"d", fmt::format("M{} {}l7 7l-7 7l-7 -7z", format_coordinate(cx),
                                        format_coordinate(cy - 7))},
                      {"fill", "#ffffff"},
                      {"fill-opacity", "0.6"},
                      {"stroke", "#1f2328"},
                      {"stroke-width", "1.75"},
                      {"data-x", format_data(point.context_tokens)},
                      {"data-y", format_data(point.speedup)}});
    svg.element("title",
                fmt::format("{} at {} tokens: {}", chart.measured_name,
                            format_tokens(point.context_tokens), human_speedup(point.speedup)));
    svg.close();
    // The diamond itself is kept clear of later labels
    placer.add_label({cx - 7, cy - 7, cx + 7, cy + 7});
  }
  for (const auto& point : chart.measured) {
    if (point.label.empty() || !(point.context_tokens > 0) || !std::isfinite(point.speedup))
      continue;
    const double cx = x.to_pixel(point.context_tokens);
    const double cy = y.to_pixel(point.speedup);
    // Around the mark, first on the side towards the middle of the plot (so it stays inside),
    // then farther out, until no line or label is under it.
    const bool right_half = cx > (x.range_start + x.range_end) / 2;
    const char* inward = right_half ? "end" : "start";
    const char* outward = right_half ? "start" : "end";
    const double in = right_half ? -10 : 10;
    std::vector<Candidate> candidates;
    // Nearest first: up to ten lines above or below, on either side
    for (int line = 0; line <= 10; ++line) {
      const double reach = 14.0 * line;
      candidates.push_back({cx + in, cy + 20 + reach, inward});
      candidates.push_back({cx + in, cy - 12 - reach, inward});
      candidates.push_back({cx - in, cy + 20 + reach, outward});
      candidates.push_back({cx - in, cy - 12 - reach, outward});
    }
    place_text(svg, placer, bounds, candidates, point.label);
  }
  svg.close();
}

// The last value of each series, written right of the plot; labels closer than a line apart
// are pushed apart (the values stay exact, only the text moves).
void draw_end_labels(SvgDocument& svg, const SweepChart& chart, const Frame& frame,
                     const Scale& y) {
  struct EndLabel {
    double pixel_y;
    std::string text;
    std::string colour;
  };
  std::vector<EndLabel> labels;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto points = sorted_by_x(chart.series[i].points);
    const auto last = std::find_if(points.rbegin(), points.rend(),
                                   [](const Point& p) { return p.x > 0 && std::isfinite(p.y); });
    if (last == points.rend()) continue;
    labels.push_back({y.to_pixel(last->y), human_speedup(last->y),
                      std::string(palette_colour(colour_index(chart, i)))});
  }
  std::sort(labels.begin(), labels.end(),
            [](const EndLabel& a, const EndLabel& b) { return a.pixel_y < b.pixel_y; });
  // Lines that end on one value (four kernels' TTFT at 1.0× when only decode changes) share
  // one label, in neutral grey: the same number four times in four colours says nothing more.
  std::vector<EndLabel> merged;
  for (const EndLabel& label : labels) {
    if (!merged.empty() && merged.back().text == label.text &&
        std::fabs(merged.back().pixel_y - label.pixel_y) < 1) {
      merged.back().colour = "#57606a";
      continue;
    }
    merged.push_back(label);
  }
  labels = std::move(merged);
  // Pushed apart downwards, then back up from the bottom of the plot so none leaves the page.
  constexpr double kLineHeight = 14;
  for (std::size_t i = 1; i < labels.size(); ++i) {
    labels[i].pixel_y = std::max(labels[i].pixel_y, labels[i - 1].pixel_y + kLineHeight);
  }
  if (!labels.empty() && labels.back().pixel_y > frame.plot_bottom) {
    labels.back().pixel_y = frame.plot_bottom;
    for (std::size_t i = labels.size() - 1; i-- > 0;) {
      labels[i].pixel_y = std::min(labels[i].pixel_y, labels[i + 1].pixel_y - kLineHeight);
    }
  }
  for (const auto& label : labels) {
    svg.text(frame.plot_right + 6, label.pixel_y + 4, "label-strong", label.text,
             {{"style", "fill:" + label.colour}});
  }
}

}  // namespace

std::string render_sweep_svg(const SweepChart& chart) {
  const std::vector<LegendEntry> legend = legend_of(chart);
  const Extent speedup = y_extent(chart);
  const std::vector<Tick> y_ticks = linear_ticks(speedup.min, speedup.max, TickFormat::speedup);
  Frame frame = layout_frame(chart.width, chart.height, chart.subtitle, legend,
                             widest_label(y_ticks, kTickSize));
  frame.plot_right -= kEndLabelWidth;
  const Scale x = x_scale(chart, frame);
  const Scale y{ScaleKind::linear, speedup.min, speedup.max, frame.plot_bottom, frame.plot_top};

  SvgDocument svg(chart.width, chart.height, chart.title,
                  "Speedup against context length (log scale): one line per series, the ceiling "
                  "1/(1-p) dashed, measured shares marked with diamonds.");
  draw_header(svg, frame, chart.title, chart.subtitle, legend);
  define_plot_clip(svg, frame, "kspeed-plot");
  draw_x_axis(svg, frame, x, sweep_x_ticks(chart.x_kind, x), chart.x_title);
  draw_y_axis(svg, frame, y, y_ticks, chart.y_title);
  std::vector<Attribute> plot = {{"class", "plot"}};
  for (auto&& attribute : scale_attributes('x', x)) plot.push_back(attribute);
  for (auto&& attribute : scale_attributes('y', y)) plot.push_back(attribute);
  svg.open("g", plot);
  draw_clamped(svg, chart, frame, x);
  draw_no_change(svg, frame, y);
  draw_ceiling(svg, chart, x, y);
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    draw_series(svg, chart.series[i], colour_index(chart, i), dashed(chart, i), chart.x_kind, x, y);
  }
  // The labels in the plot go where no line runs: every series, the ceiling, the 1.0× line.
  LabelPlacer placer;
  for (const auto& series : chart.series)
    placer.add_line(to_pixels(sorted_by_x(series.points), x, y));
  placer.add_line(to_pixels(sorted_by_x(chart.ceiling), x, y));
  placer.add_line({{frame.plot_left, y.to_pixel(1.0)}, {frame.plot_right, y.to_pixel(1.0)}});
  const TextBox bounds{frame.plot_left, frame.plot_top, frame.plot_right, frame.plot_bottom};
  draw_no_change_label(svg, frame, y, placer, bounds);
  draw_ceiling_exit(svg, chart, x, y, placer, bounds);
  draw_measured(svg, chart, x, y, placer, bounds);
  svg.close();
  draw_end_labels(svg, chart, frame, y);
  return svg.finish();
}

}  // namespace kspeed::report::chart
