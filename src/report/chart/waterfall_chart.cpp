#include "kspeed/report/chart/waterfall_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kspeed/report/chart/svg.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::report::chart {

namespace {

constexpr double kRowHeight = 50;  // one level: bar and its two lines of text
constexpr double kBarHeight = 22;
constexpr double kNumbersWidth = 225;  // the column right of the bars: speedup, saved, times
constexpr double kBottomBand = 58;     // x tick labels and the axis title below the rows
constexpr std::string_view kAfterColour = "#0072B2";
constexpr std::string_view kSavedColour = "#D55E00";

// after / before, the bar's length as a fraction; 1 when there was no time to begin with.
// A time that is not a finite number, or negative, draws no bar (the texts still say it).
double remaining_fraction(const WaterfallLevel& level) {
  const bool valid = std::isfinite(level.before_ms) && std::isfinite(level.after_ms) &&
                     level.before_ms > 0 && level.after_ms >= 0;
  return valid ? level.after_ms / level.before_ms : 1.0;
}

std::vector<LegendEntry> legend() {
  return {{"time after", std::string(kAfterColour), LegendMark::bar},
          {"time saved", std::string(kSavedColour), LegendMark::hatched_bar},
          {"time before (100%)", "#8c959f", LegendMark::line}};
}

double widest_name(const WaterfallChart& chart) {
  double widest = 0;
  for (const auto& level : chart.levels) {
    widest = std::max(widest, text_width(level.name, kLabelSize));
    widest = std::max(widest, text_width(level.note, kTickSize));
  }
  return widest;
}

// "saved 45.0 ms (9.00%)": the time saved and its share of the level; "added …" for a
// slowdown, "unchanged" when nothing moved.
std::string saved_text(const WaterfallLevel& level) {
  const double saved = level.before_ms - level.after_ms;
  if (saved == 0) return "unchanged";
  std::string text = (saved > 0 ? "saved " : "added ") + human_ms(std::fabs(saved));
  if (level.before_ms > 0) text += " (" + human_percent(std::fabs(saved) / level.before_ms) + ")";
  return text;
}

void draw_level(SvgDocument& svg, const WaterfallLevel& level, const Frame& frame, const Scale& x,
                double row_top) {
  const double bar_top = row_top + (kRowHeight - kBarHeight) / 2;
  const double centre = bar_top + kBarHeight / 2;
  svg.open("g", {{"class", "level"},
                 {"data-level", level.name},
                 {"data-before-ms", format_data(level.before_ms)},
                 {"data-after-ms", format_data(level.after_ms)},
                 {"data-saved-ms", format_data(level.before_ms - level.after_ms)}});
  // The level's name (and note) left of its bar, right-aligned against the axis.
  const double name_x = frame.plot_left - 10;
  if (level.note.empty()) {
    svg.text(name_x, centre + 4, "label-strong", level.name, {{"text-anchor", "end"}});
  } else {
    svg.text(name_x, centre - 2, "label-strong", level.name, {{"text-anchor", "end"}});
    svg.text(name_x, centre + 13, "tick", level.note, {{"text-anchor", "end"}});
  }
  const double fraction = remaining_fraction(level);
  const double zero = x.to_pixel(0);
  const double full = x.to_pixel(1);
  const double after_end = x.to_pixel(fraction);
  // The time before: an outline spanning 100%.
  svg.leaf("rect", {{"class", "before"},
                    {"x", format_coordinate(zero)},
                    {"y", format_coordinate(bar_top)},
                    {"width", format_coordinate(full - zero)},
                    {"height", format_coordinate(kBarHeight)},
                    {"fill", "#f6f8fa"},
                    {"stroke", "#8c959f"},
                    {"stroke-width", "1"}});
  if (fraction < 1) {
    svg.leaf("rect", {{"class", "saved"},
                      {"x", format_coordinate(after_end)},
                      {"y", format_coordinate(bar_top)},
                      {"width", format_coordinate(full - after_end)},
                      {"height", format_coordinate(kBarHeight)},
                      {"fill", "url(#kspeed-hatch)"},
                      {"stroke", std::string(kSavedColour)},
                      {"stroke-width", "1"}});
  }
  svg.open("rect", {{"class", "after"},
                    {"x", format_coordinate(zero)},
                    {"y", format_coordinate(bar_top)},
                    {"width", format_coordinate(after_end - zero)},
                    {"height", format_coordinate(kBarHeight)},
                    {"fill", std::string(kAfterColour)}});
  svg.element("title", fmt::format("{}: {} → {}", level.name, human_ms(level.before_ms),
                                   human_ms(level.after_ms)));
  svg.close();
  // The numbers, right of the bars: speedup and time saved, then before → after.
  const double numbers_x = frame.plot_right + 14;
  const std::string speedup =
      level.after_ms > 0 ? human_speedup(level.before_ms / level.after_ms) : std::string("∞");
  svg.open("text", {{"x", format_coordinate(numbers_x)},
                    {"y", format_coordinate(centre - 2)},
                    {"class", "label"}});
  svg.open("tspan", {{"style", "font-weight:600"}});
  svg.content(speedup);
  svg.close();
  svg.content(" · " + saved_text(level));
  svg.close();
  svg.text(numbers_x, centre + 13, "tick",
           human_ms(level.before_ms) + " → " + human_ms(level.after_ms));
  svg.close();
}

}  // namespace

std::string render_waterfall_svg(const WaterfallChart& chart) {
  const auto entries = legend();
  double longest = 1;
  for (const auto& level : chart.levels) longest = std::max(longest, remaining_fraction(level));
  double domain_max = longest;
  double domain_min = 0;
  widen_to_nice(domain_min, domain_max, 5);
  const std::vector<Tick> ticks = linear_ticks(0, domain_max, TickFormat::percent, 5);

  // The height follows the rows: lay out once to learn where the plot starts.
  const Frame probe = layout_frame(chart.width, 400, chart.subtitle, entries, widest_name(chart));
  const double rows_height =
      kRowHeight * static_cast<double>(std::max<std::size_t>(chart.levels.size(), 1));
  const double height = std::ceil(probe.plot_top + rows_height + kBottomBand);
  Frame frame = layout_frame(chart.width, height, chart.subtitle, entries, widest_name(chart));
  frame.plot_left -= 20;  // no y-axis title: the level names are the axis
  frame.plot_right -= kNumbersWidth;
  const Scale x{ScaleKind::linear, 0, domain_max, frame.plot_left, frame.plot_right};

  SvgDocument svg(chart.width, height, chart.title,
                  "The dilution chain: one bar per level, time after solid, time saved hatched, "
                  "each bar 100% of its level's time before.");
  draw_header(svg, frame, chart.title, chart.subtitle, entries);
  draw_x_axis(svg, frame, x, ticks, chart.x_title);
  std::vector<Attribute> plot = {{"class", "plot"}};
  for (auto&& attribute : scale_attributes('x', x)) plot.push_back(attribute);
  svg.open("g", plot);
  for (std::size_t i = 0; i < chart.levels.size(); ++i) {
    draw_level(svg, chart.levels[i], frame, x,
               frame.plot_top + kRowHeight * static_cast<double>(i));
  }
  svg.close();
  return svg.finish();
}

}  // namespace kspeed::report::chart
