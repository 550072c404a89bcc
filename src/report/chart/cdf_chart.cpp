#include "kspeed/report/chart/cdf_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kspeed/report/chart/svg.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::report::chart {

namespace {

constexpr std::size_t kEveryPointUpTo = 100;  // beyond, points at the percentile ranks
constexpr std::size_t kVisibleMarkersUpTo = 30;
constexpr double kCdfInnerPadding = 6;

std::string series_name(const CdfSeries& series) {
  return series.metric + (series.when == CdfWhen::before ? " before" : " after");
}

// Samples a chart can place: finite, and positive on a log axis; sorted ascending.
std::vector<double> plottable(const CdfSeries& series, bool log_x) {
  std::vector<double> samples;
  for (const double sample : series.samples_ms) {
    if (std::isfinite(sample) && (!log_x || sample > 0)) samples.push_back(sample);
  }
  std::sort(samples.begin(), samples.end());
  return samples;
}

// One colour per metric, in order of first appearance.
std::map<std::string, std::size_t> metric_colours(const CdfChart& chart) {
  std::map<std::string, std::size_t> colours;
  for (const auto& series : chart.series) colours.emplace(series.metric, colours.size());
  return colours;
}

Scale x_scale(const CdfChart& chart, const Frame& frame) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& series : chart.series) {
    const auto samples = plottable(series, chart.log_x);
    if (samples.empty()) continue;
    lo = std::min(lo, samples.front());
    hi = std::max(hi, samples.back());
  }
  if (!(lo <= hi)) {
    lo = 1;
    hi = 1000;
  }
  if (chart.log_x) {
    // A little room beyond the extremes, in ratio.
    lo /= 1.15;
    hi *= 1.15;
    if (hi / lo < 10) {
      const double middle = std::sqrt(lo * hi);
      lo = middle / std::sqrt(10.0);
      hi = middle * std::sqrt(10.0);
    }
    return {ScaleKind::log10, lo, hi, frame.plot_left + kCdfInnerPadding,
            frame.plot_right - kCdfInnerPadding};
  }
  lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  widen_to_nice(lo, hi, 6);
  return {ScaleKind::linear, lo, hi, frame.plot_left, frame.plot_right - kCdfInnerPadding};
}

// The ranks (1-based) that get a point: every one, or those at each percentile.
std::vector<std::size_t> marked_ranks(std::size_t count) {
  std::vector<std::size_t> ranks;
  if (count <= kEveryPointUpTo) {
    for (std::size_t rank = 1; rank <= count; ++rank) ranks.push_back(rank);
    return ranks;
  }
  for (std::size_t percent = 1; percent <= 100; ++percent) {
    // The smallest rank whose F reaches percent%: ceil(percent · n / 100).
    const std::size_t rank = (percent * count + 99) / 100;
    if (ranks.empty() || ranks.back() != rank) ranks.push_back(rank);
  }
  return ranks;
}

void draw_series(SvgDocument& svg, const CdfChart& chart, const CdfSeries& series,
                 const std::string& colour, const Scale& x, const Scale& y) {
  const std::vector<double> samples = plottable(series, chart.log_x);
  const std::string name = series_name(series);
  svg.open("g", {{"class", "series"}, {"data-series", name}});
  if (samples.empty()) {
    svg.close();
    return;
  }
  const double n = static_cast<double>(samples.size());
  // The step curve: F is 0 left of the first sample and rises by 1/n at each sample.
  std::vector<Point> steps = {{x.to_pixel(samples.front()), y.to_pixel(0)}};
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double pixel_x = x.to_pixel(samples[i]);
    steps.push_back({pixel_x, y.to_pixel(static_cast<double>(i) / n)});
    steps.push_back({pixel_x, y.to_pixel(static_cast<double>(i + 1) / n)});
  }
  steps.push_back({x.range_end, y.to_pixel(1)});
  svg.leaf("path", {{"class", "series"},
                    {"d", line_path(steps)},
                    {"stroke", colour},
                    {"stroke-dasharray", series.when == CdfWhen::before ? "6 4" : "none"},
                    {"clip-path", "url(#kspeed-plot)"}});
  const bool visible = samples.size() <= kVisibleMarkersUpTo;
  for (const std::size_t rank : marked_ranks(samples.size())) {
    const double value = samples[rank - 1];
    const double fraction = static_cast<double>(rank) / n;
    svg.open("circle", {{"class", "point"},
                        {"cx", format_coordinate(x.to_pixel(value))},
                        {"cy", format_coordinate(y.to_pixel(fraction))},
                        {"r", visible ? "2.5" : "0"},
                        {"fill", colour},
                        {"data-series", name},
                        {"data-x", format_data(value)},
                        {"data-y", format_data(fraction)}});
    svg.element("title", fmt::format("{}: {} of requests ≤ {}", name, human_percent(fraction),
                                     human_ms(value)));
    svg.close();
  }
  svg.close();
}

}  // namespace

std::string render_cdf_svg(const CdfChart& chart) {
  const auto colours = metric_colours(chart);
  std::vector<LegendEntry> legend;
  for (const auto& series : chart.series) {
    legend.push_back({series_name(series), std::string(palette_colour(colours.at(series.metric))),
                      series.when == CdfWhen::before ? LegendMark::dashed_line : LegendMark::line});
  }
  const std::vector<Tick> y_ticks = linear_ticks(0, 1, TickFormat::percent, 5);
  const Frame frame = layout_frame(chart.width, chart.height, chart.subtitle, legend,
                                   widest_label(y_ticks, kTickSize));
  const Scale x = x_scale(chart, frame);
  const Scale y{ScaleKind::linear, 0, 1, frame.plot_bottom, frame.plot_top};
  const std::vector<Tick> x_ticks =
      chart.log_x ? log10_ticks(x.domain_min, x.domain_max, TickFormat::milliseconds)
                  : linear_ticks(x.domain_min, x.domain_max, TickFormat::milliseconds);

  SvgDocument svg(chart.width, chart.height, chart.title,
                  "Empirical CDF of latency: for each metric, before dashed and after solid.");
  draw_header(svg, frame, chart.title, chart.subtitle, legend);
  define_plot_clip(svg, frame, "kspeed-plot");
  draw_x_axis(svg, frame, x, x_ticks, chart.x_title);
  draw_y_axis(svg, frame, y, y_ticks, chart.y_title);
  std::vector<Attribute> plot = {{"class", "plot"}};
  for (auto&& attribute : scale_attributes('x', x)) plot.push_back(attribute);
  for (auto&& attribute : scale_attributes('y', y)) plot.push_back(attribute);
  svg.open("g", plot);
  for (const auto& series : chart.series) {
    draw_series(svg, chart, series, std::string(palette_colour(colours.at(series.metric))), x, y);
  }
  svg.close();
  return svg.finish();
}

}  // namespace kspeed::report::chart
