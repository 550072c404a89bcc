#include "kspeed/report/chart/roofline_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "kspeed/report/chart/svg.hpp"

namespace kspeed::report::chart {

namespace {

constexpr std::string_view kRoofColour = "#1f2328";
constexpr double kRooflineInnerPadding = 6;

// A number for a label: three significant digits, thousands grouped ("295", "3.35", "1,979").
std::string short_number(double value) {
  if (value >= 100) return format_tick(std::round(value), TickFormat::plain, 1);
  if (value >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

double decade_floor(double value) {
  return std::pow(10.0, std::floor(std::log10(value)));
}
double decade_ceil(double value) {
  return std::pow(10.0, std::ceil(std::log10(value)));
}

struct Domain {
  double x_min, x_max, y_min, y_max;
};

// Whole decades around the ridge and every point, with room on both sides of the ridge so the
// slope and the flat part both show.
bool positive(double value) {
  return std::isfinite(value) && value > 0;
}

bool has_roof(const RooflineChart& chart) {
  return positive(chart.peak_flops_per_s) && positive(chart.bandwidth_bytes_per_s);
}

// The chart with every kernel and lever a log axis cannot place (zero, negative, not finite)
// left out, rather than drawn at a nonsense position.
RooflineChart plottable(const RooflineChart& chart) {
  RooflineChart kept = chart;
  kept.kernels.clear();
  for (const auto& kernel : chart.kernels) {
    if (!positive(kernel.intensity_flop_per_byte) || !positive(kernel.flops_per_s)) continue;
    RooflineKernel copy = kernel;
    copy.levers.clear();
    for (const auto& lever : kernel.levers) {
      if (positive(lever.intensity_flop_per_byte) && positive(lever.flops_per_s)) {
        copy.levers.push_back(lever);
      }
    }
    kept.kernels.push_back(copy);
  }
  return kept;
}

// Whole decades around the ridge and every point, with room on both sides of the ridge so the
// slope and the flat part both show.
Domain domain_of(const RooflineChart& chart) {
  double x_lo = 10;  // without a roof or points: 1-1,000 FLOP/byte, 1-1,000 TFLOP/s
  double x_hi = 100;
  double y_lo = 1e13;
  double y_hi = 1e14;
  if (has_roof(chart)) {
    const double ridge = chart.peak_flops_per_s / chart.bandwidth_bytes_per_s;
    x_lo = ridge / 8;
    x_hi = ridge * 8;
    y_lo = chart.peak_flops_per_s;
    // Room above the peak for its label, without a whole empty decade.
    y_hi = chart.peak_flops_per_s * 2.5;
  }
  const auto add = [&](double intensity, double flops) {
    x_lo = std::min(x_lo, intensity / 2);
    x_hi = std::max(x_hi, intensity * 2);
    y_lo = std::min(y_lo, flops / 2);
    y_hi = std::max(y_hi, flops * 2);
  };
  for (const auto& kernel : chart.kernels) {
    add(kernel.intensity_flop_per_byte, kernel.flops_per_s);
    for (const auto& lever : kernel.levers) add(lever.intensity_flop_per_byte, lever.flops_per_s);
  }
  for (const double peak : chart.raised_peaks_flops_per_s) y_hi = std::max(y_hi, peak * 2.5);
  x_lo = decade_floor(x_lo);
  x_hi = decade_ceil(x_hi);
  // The roof's lowest point must show too: the slope starts at bandwidth · x_lo.
  if (has_roof(chart)) y_lo = std::min(y_lo, chart.bandwidth_bytes_per_s * x_lo);
  return {x_lo, x_hi, decade_floor(y_lo), y_hi};
}

std::vector<LegendEntry> legend_of(const RooflineChart& chart) {
  std::vector<LegendEntry> legend;
  if (has_roof(chart)) {
    legend.push_back({"roof: " + chart.roof_name, std::string(kRoofColour), LegendMark::line});
  }
  for (std::size_t i = 0; i < chart.kernels.size(); ++i) {
    legend.push_back({chart.kernels[i].name, std::string(palette_colour(i)), LegendMark::circle});
  }
  legend.push_back({"after a lever (arrow from before)", "#57606a", LegendMark::hollow_circle});
  return legend;
}

// The boxes of the labels placed so far and the lines drawn, so the next label moves a line down
// (then up) until it is clear of them (two levers that land on one point, a bytes lever and the
// combined one on a memory-bound kernel, a lever label under the peak's, would otherwise print
// one label over the other or over the roof).
class LabelBoxes {
 public:
  // The baseline y nearest `y`, in steps of one line (down first), where the label fits.
  double clear_baseline(double x, double y, std::string_view text, bool end_anchored) {
    const char* anchor = end_anchored ? "end" : "start";
    double baseline = y;
    for (int tries = 0; tries <= 2 * kMaxTries; ++tries) {
      const double step = tries == 0 ? 0 : (tries % 2 == 1 ? 1 : -1) * ((tries + 1) / 2) * kLine;
      if (placer_.clear(text_box(x, y + step, text, kTickSize, anchor), bounds_)) {
        baseline = y + step;
        break;
      }
    }
    placer_.add_label(text_box(x, baseline, text, kTickSize, anchor));
    return baseline;
  }

  // A label placed elsewhere (the roof's own), for the next ones to keep clear of.
  void add(double x, double baseline, std::string_view text, double font_size,
           std::string_view anchor) {
    placer_.add_label(text_box(x, baseline, text, font_size, anchor));
  }
  void add_line(std::vector<Point> pixels) { placer_.add_line(std::move(pixels)); }
  void set_bounds(const TextBox& bounds) { bounds_ = bounds; }

 private:
  static constexpr double kLine = 14;
  static constexpr int kMaxTries = 8;
  LabelPlacer placer_;
  TextBox bounds_{-1e9, -1e9, 1e9, 1e9};
};

void draw_roof(SvgDocument& svg, const RooflineChart& chart, const Scale& x, const Scale& y,
               LabelBoxes& labels) {
  const double ridge = chart.peak_flops_per_s / chart.bandwidth_bytes_per_s;
  // Roof: attainable = min(peak, bandwidth · intensity).
  const std::vector<Point> roof = {
      {x.to_pixel(x.domain_min), y.to_pixel(chart.bandwidth_bytes_per_s * x.domain_min)},
      {x.to_pixel(ridge), y.to_pixel(chart.peak_flops_per_s)},
      {x.to_pixel(x.domain_max), y.to_pixel(chart.peak_flops_per_s)}};
  // The attainable region under the roof, lightly shaded.
  std::string area = line_path(roof);
  area += " L" + format_coordinate(roof.back().x) + " " + format_coordinate(y.range_start);
  area += " L" + format_coordinate(roof.front().x) + " " + format_coordinate(y.range_start) + "z";
  svg.leaf("path", {{"class", "attainable"}, {"d", area}, {"fill", "#f3f6f9"}});
  labels.add_line(roof);
  svg.leaf("path", {{"class", "roof series"},
                    {"d", line_path(roof)},
                    {"stroke", std::string(kRoofColour)},
                    {"stroke-width", "2.5"}});
  // The ridge: where the slope meets the peak.
  const double ridge_x = x.to_pixel(ridge);
  svg.leaf("line", {{"class", "ridge"},
                    {"x1", format_coordinate(ridge_x)},
                    {"y1", format_coordinate(y.to_pixel(chart.peak_flops_per_s))},
                    {"x2", format_coordinate(ridge_x)},
                    {"y2", format_coordinate(y.range_start)},
                    {"stroke", "#57606a"},
                    {"stroke-width", "1.25"},
                    {"stroke-dasharray", "3 4"},
                    {"data-x", format_data(ridge)}});
  labels.add_line({{ridge_x, y.to_pixel(chart.peak_flops_per_s)}, {ridge_x, y.range_start}});
  const std::string ridge_label = "ridge " + short_number(ridge) + " FLOP/B";
  svg.text(ridge_x + 6, y.range_start - 8, "tick halo", ridge_label);
  labels.add(ridge_x + 6, y.range_start - 8, ridge_label, kTickSize, "start");
  // A compute lever's roof: the peak times its speedup, from where its slope meets it.
  for (const double raised : chart.raised_peaks_flops_per_s) {
    if (!(raised > chart.peak_flops_per_s)) continue;
    const double raised_y = y.to_pixel(raised);
    const double from_x = x.to_pixel(std::min(x.domain_max, raised / chart.bandwidth_bytes_per_s));
    svg.leaf("line", {{"class", "raised-roof"},
                      {"x1", format_coordinate(from_x)},
                      {"y1", format_coordinate(raised_y)},
                      {"x2", format_coordinate(x.range_end)},
                      {"y2", format_coordinate(raised_y)},
                      {"stroke", std::string(kRoofColour)},
                      {"stroke-width", "1.5"},
                      {"stroke-dasharray", "6 4"},
                      {"data-y", format_data(raised)}});
    const std::string label =
        "peak after the compute lever " + short_number(raised / 1e12) + " TFLOP/s";
    svg.text(x.range_end - 4, raised_y - 7, "tick halo", label, {{"text-anchor", "end"}});
    labels.add(x.range_end - 4, raised_y - 7, label, kTickSize, "end");
    labels.add_line({{from_x, raised_y}, {x.range_end, raised_y}});
  }
  // Labels on the roof: the peak along the flat part, the bandwidth along the slope.
  const double peak_y = y.to_pixel(chart.peak_flops_per_s);
  const std::string peak_label = "peak " + short_number(chart.peak_flops_per_s / 1e12) + " TFLOP/s";
  svg.text(x.range_end - 4, peak_y - 7, "label halo", peak_label, {{"text-anchor", "end"}});
  labels.add(x.range_end - 4, peak_y - 7, peak_label, kLabelSize, "end");
  const double angle =
      std::atan2(roof[1].y - roof[0].y, roof[1].x - roof[0].x) * 180 / std::numbers::pi;
  // Along the slope where it is farthest from every kernel and lever point, so their labels,
  // placed beside the points, stay clear of it.
  double best_t = 0.5;
  double best_distance = -1;
  for (const double t : {0.5, 0.35, 0.65, 0.2, 0.8}) {
    const double px = roof[0].x + t * (roof[1].x - roof[0].x);
    const double py = roof[0].y + t * (roof[1].y - roof[0].y);
    double nearest = std::numeric_limits<double>::infinity();
    const auto consider = [&](double intensity, double flops) {
      nearest = std::min(nearest, std::hypot(x.to_pixel(intensity) - px, y.to_pixel(flops) - py));
    };
    for (const auto& kernel : chart.kernels) {
      consider(kernel.intensity_flop_per_byte, kernel.flops_per_s);
      for (const auto& lever : kernel.levers)
        consider(lever.intensity_flop_per_byte, lever.flops_per_s);
    }
    if (nearest > best_distance + 1) {
      best_distance = nearest;
      best_t = t;
    }
  }
  const double mid_x = roof[0].x + best_t * (roof[1].x - roof[0].x);
  const double mid_y = roof[0].y + best_t * (roof[1].y - roof[0].y);
  svg.text(mid_x, mid_y - 7, "label halo",
           "memory " + short_number(chart.bandwidth_bytes_per_s / 1e12) + " TB/s",
           {{"text-anchor", "middle"},
            {"transform", fmt::format("rotate({} {} {})", format_coordinate(angle),
                                      format_coordinate(mid_x), format_coordinate(mid_y))}});
}

void draw_point(SvgDocument& svg, const RooflineKernel& kernel, const std::string& lever,
                double intensity, double flops, const std::string& colour, const Scale& x,
                const Scale& y) {
  const bool after = !lever.empty();
  svg.open("circle", {{"class", "point"},
                      {"cx", format_coordinate(x.to_pixel(intensity))},
                      {"cy", format_coordinate(y.to_pixel(flops))},
                      {"r", after ? "4.5" : "5.5"},
                      {"fill", after ? "#ffffff" : colour},
                      {"stroke", after ? colour : "#ffffff"},
                      {"stroke-width", after ? "2" : "1.5"},
                      {"data-kernel", kernel.name},
                      {"data-lever", lever},
                      {"data-x", format_data(intensity)},
                      {"data-y", format_data(flops)}});
  svg.element("title", fmt::format("{}{}: {} FLOP/byte, {} TFLOP/s", kernel.name,
                                   after ? " after " + lever : std::string(),
                                   short_number(intensity), short_number(flops / 1e12)));
  svg.close();
}

// An arrow from the kernel to where a lever puts it, stopping short of both markers.
void draw_arrow(SvgDocument& svg, Point from, Point to, const std::string& colour) {
  const double dx = to.x - from.x;
  const double dy = to.y - from.y;
  const double length = std::hypot(dx, dy);
  constexpr double kGap = 8;
  if (length < 2.5 * kGap) return;  // too short to draw: the markers already touch
  const double ux = dx / length;
  const double uy = dy / length;
  const Point start{from.x + ux * kGap, from.y + uy * kGap};
  const Point tip{to.x - ux * kGap, to.y - uy * kGap};
  svg.leaf("line", {{"class", "arrow"},
                    {"x1", format_coordinate(start.x)},
                    {"y1", format_coordinate(start.y)},
                    {"x2", format_coordinate(tip.x)},
                    {"y2", format_coordinate(tip.y)},
                    {"stroke", colour},
                    {"stroke-width", "1.5"}});
  // The head: a triangle 8 px long, 6 px wide, pointing along the arrow.
  const Point base{tip.x - ux * 8, tip.y - uy * 8};
  svg.leaf(
      "path",
      {{"class", "arrow-head"},
       {"d", fmt::format("M{} {}L{} {}L{} {}z", format_coordinate(tip.x), format_coordinate(tip.y),
                         format_coordinate(base.x - uy * 3), format_coordinate(base.y + ux * 3),
                         format_coordinate(base.x + uy * 3), format_coordinate(base.y - ux * 3))},
       {"fill", colour}});
}

void draw_kernel(SvgDocument& svg, const RooflineKernel& kernel, std::size_t index, const Scale& x,
                 const Scale& y, LabelBoxes& labels) {
  const std::string colour(palette_colour(index));
  svg.open("g", {{"class", "kernel"}, {"data-kernel", kernel.name}});
  const Point from{x.to_pixel(kernel.intensity_flop_per_byte), y.to_pixel(kernel.flops_per_s)};
  for (const auto& lever : kernel.levers) {
    const Point to{x.to_pixel(lever.intensity_flop_per_byte), y.to_pixel(lever.flops_per_s)};
    draw_arrow(svg, from, to, colour);
    labels.add_line({from, to});
  }
  // The markers too (a diagonal through each): a label is not written over a point
  for (const auto& lever : kernel.levers) {
    const Point to{x.to_pixel(lever.intensity_flop_per_byte), y.to_pixel(lever.flops_per_s)};
    labels.add_line({{to.x - 5, to.y - 5}, {to.x + 5, to.y + 5}});
  }
  labels.add_line({{from.x - 5, from.y - 5}, {from.x + 5, from.y + 5}});
  // Lever labels beside their points, on the side towards the middle of the plot; a lever
  // that leaves the kernel where it is (within 0.5%) is listed under the kernel, one line each.
  const bool right_side = from.x > x.range_start + 0.7 * (x.range_end - x.range_start);
  int stacked = 0;
  for (const auto& lever : kernel.levers) {
    const Point to{x.to_pixel(lever.intensity_flop_per_byte), y.to_pixel(lever.flops_per_s)};
    draw_point(svg, kernel, lever.name, lever.intensity_flop_per_byte, lever.flops_per_s, colour, x,
               y);
    const bool unmoved =
        std::fabs(lever.intensity_flop_per_byte / kernel.intensity_flop_per_byte - 1) < 0.005 &&
        std::fabs(lever.flops_per_s / kernel.flops_per_s - 1) < 0.005;
    // A lever that only moves the kernel up (same intensity) is labelled on the left, clear
    // of arrows that leave the kernel to the right.
    const bool left = right_side || std::fabs(to.x - from.x) < 3;
    const std::vector<Attribute> anchor = {{"text-anchor", left ? "end" : "start"}};
    const double side = left ? -9 : 9;
    if (unmoved) {
      ++stacked;
      const std::string text = lever.name + ": no gain";
      const double lx = from.x + (right_side ? -9 : 9);
      svg.text(lx, labels.clear_baseline(lx, from.y + 4 + 14.0 * stacked, text, right_side),
               "tick halo", text, {{"text-anchor", right_side ? "end" : "start"}});
    } else {
      svg.text(to.x + side, labels.clear_baseline(to.x + side, to.y + 4, lever.name, left),
               "tick halo", lever.name, anchor);
    }
  }
  // The kernel as it is, drawn last so a lever without gain does not hide it.
  draw_point(svg, kernel, "", kernel.intensity_flop_per_byte, kernel.flops_per_s, colour, x, y);
  svg.close();
}

}  // namespace

std::string render_roofline_svg(const RooflineChart& input) {
  const RooflineChart chart = plottable(input);
  const Domain domain = domain_of(chart);
  const std::vector<Tick> y_ticks = log10_ticks(domain.y_min, domain.y_max, TickFormat::tera);
  const auto legend = legend_of(chart);
  const Frame frame = layout_frame(chart.width, chart.height, chart.subtitle, legend,
                                   widest_label(y_ticks, kTickSize));
  const Scale x{ScaleKind::log10, domain.x_min, domain.x_max,
                frame.plot_left + kRooflineInnerPadding, frame.plot_right - kRooflineInnerPadding};
  const Scale y{ScaleKind::log10, domain.y_min, domain.y_max, frame.plot_bottom, frame.plot_top};

  SvgDocument svg(chart.width, chart.height, chart.title,
                  "Roofline, log-log: attainable FLOP/s against FLOP per byte; the roof, the "
                  "ridge, each kernel as it is and arrows to where each lever puts it.");
  draw_header(svg, frame, chart.title, chart.subtitle, legend);
  draw_x_axis(svg, frame, x, log10_ticks(domain.x_min, domain.x_max, TickFormat::plain),
              chart.x_title);
  draw_y_axis(svg, frame, y, y_ticks, chart.y_title);
  std::vector<Attribute> plot = {{"class", "plot"}};
  for (auto&& attribute : scale_attributes('x', x)) plot.push_back(attribute);
  for (auto&& attribute : scale_attributes('y', y)) plot.push_back(attribute);
  svg.open("g", plot);
  LabelBoxes labels;
  labels.set_bounds({frame.plot_left, frame.plot_top, frame.plot_right, frame.plot_bottom});
  if (has_roof(chart)) draw_roof(svg, chart, x, y, labels);
  for (std::size_t i = 0; i < chart.kernels.size(); ++i)
    draw_kernel(svg, chart.kernels[i], i, x, y, labels);
  svg.close();
  return svg.finish();
}

}  // namespace kspeed::report::chart
