// The sweep as a few lines of braille: each character cell holds 2 × 4 dots (Unicode's Braille
// Patterns block, U+2800-U+28FF), so 60 columns × 8 rows plot 120 × 32 points.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::report::chart {

namespace {

// Braille dot bits by position in the cell: [column][row], rows from the top (ISO/TR 11548-1).
constexpr std::uint8_t kDotBit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};

std::string braille(std::uint8_t bits) {
  if (bits == 0) return " ";
  // U+2800 + bits, always three bytes in UTF-8: E2 A0|(bits>>6) 80|(bits&3F).
  const unsigned code_point = 0x2800u + bits;
  std::string out;
  out += static_cast<char>(0xE0u | (code_point >> 12u));
  out += static_cast<char>(0x80u | ((code_point >> 6u) & 0x3Fu));
  out += static_cast<char>(0x80u | (code_point & 0x3Fu));
  return out;
}

class DotGrid {
 public:
  DotGrid(int columns, int rows)
      : columns_(columns),
        rows_(rows),
        cells_(static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows), 0) {}
  [[nodiscard]] int dot_width() const { return columns_ * 2; }
  [[nodiscard]] int dot_height() const { return rows_ * 4; }

  // Sets the dot at (x, y), y counted from the bottom; dots outside are ignored.
  void set(int x, int y) {
    if (x < 0 || y < 0 || x >= dot_width() || y >= dot_height()) return;
    const int from_top = dot_height() - 1 - y;
    cells_[cell(x / 2, from_top / 4)] |= kDotBit[x % 2][from_top % 4];
  }

  // A straight run of dots from one point to the next (DDA: as many steps as the longer side).
  void line(int x0, int y0, int x1, int y1) {
    const int steps = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
    for (int i = 0; i <= steps; ++i) {
      const double t = steps == 0 ? 0.0 : static_cast<double>(i) / steps;
      set(static_cast<int>(std::lround(x0 + t * (x1 - x0))),
          static_cast<int>(std::lround(y0 + t * (y1 - y0))));
    }
  }

  [[nodiscard]] std::string row_text(int row) const {
    std::string text;
    for (int column = 0; column < columns_; ++column) text += braille(cells_[cell(column, row)]);
    return text;
  }

 private:
  [[nodiscard]] std::size_t cell(int column, int row) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) +
           static_cast<std::size_t>(column);
  }
  int columns_;
  int rows_;
  std::vector<std::uint8_t> cells_;
};

std::vector<Point> drawable_sorted(const std::vector<Point>& points) {
  std::vector<Point> kept;
  for (const auto& point : points) {
    if (point.x > 0 && std::isfinite(point.x) && std::isfinite(point.y)) kept.push_back(point);
  }
  std::sort(kept.begin(), kept.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  return kept;
}

std::string pad_left(const std::string& text, std::size_t width) {
  // Labels are ASCII plus "×" (two bytes, one column): count columns, not bytes.
  std::size_t columns = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0u) != 0x80u) ++columns;
  }
  return std::string(width > columns ? width - columns : 0, ' ') + text;
}

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::string render_terminal_chart(const SweepChart& chart, const TerminalChartOptions& options) {
  const int columns = std::max(options.columns, 8);
  const int rows = std::max(options.rows, 2);
  std::vector<std::vector<Point>> series;
  double x_lo = std::numeric_limits<double>::infinity();
  double x_hi = -x_lo;
  double y_lo = 1.0;  // 1.0× always shows: the line of no change
  double y_hi = 1.0;
  for (const auto& s : chart.series) {
    series.push_back(drawable_sorted(s.points));
    for (const auto& point : series.back()) {
      x_lo = std::min(x_lo, point.x);
      x_hi = std::max(x_hi, point.x);
      y_lo = std::min(y_lo, point.y);
      y_hi = std::max(y_hi, point.y);
    }
  }
  if (!(x_lo <= x_hi)) return {};
  if (x_lo == x_hi) {
    x_lo /= 2;
    x_hi *= 2;
  }
  // About one labelled tick every other row, so labels stay evenly spaced.
  const int y_tick_count = std::max(2, rows / 2);
  widen_to_nice(y_lo, y_hi, y_tick_count);
  if (y_hi <= y_lo) y_hi = y_lo + 0.1;

  DotGrid grid(columns, rows);
  const Scale x{ScaleKind::log10, x_lo, x_hi, 0, static_cast<double>(grid.dot_width() - 1)};
  const Scale y{ScaleKind::linear, y_lo, y_hi, 0, static_cast<double>(grid.dot_height() - 1)};
  const auto dot = [](double pixel) { return static_cast<int>(std::lround(pixel)); };
  // The name and last value of each series, on the row where that value is drawn.
  std::vector<std::string> end_labels(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& points = series[i];
    for (std::size_t k = 0; k < points.size(); ++k) {
      const int px = dot(x.to_pixel(points[k].x));
      const int py = dot(y.to_pixel(points[k].y));
      if (k == 0)
        grid.set(px, py);
      else
        grid.line(dot(x.to_pixel(points[k - 1].x)), dot(y.to_pixel(points[k - 1].y)), px, py);
    }
    if (points.empty()) continue;
    const int last_row = rows - 1 - dot(y.to_pixel(points.back().y)) / 4;
    auto& label = end_labels[static_cast<std::size_t>(std::clamp(last_row, 0, rows - 1))];
    label +=
        (label.empty() ? " " : ", ") + chart.series[i].name + " " + human_speedup(points.back().y);
  }

  // Y labels on the rows their ticks fall in (the first tick wins a row).
  std::vector<std::string> y_labels(static_cast<std::size_t>(rows));
  for (const auto& tick : linear_ticks(y_lo, y_hi, TickFormat::speedup, y_tick_count)) {
    const int row = rows - 1 - dot(y.to_pixel(tick.value)) / 4;
    if (row < 0 || row >= rows) continue;
    auto& label = y_labels[static_cast<std::size_t>(row)];
    if (label.empty()) label = tick.label;
  }
  std::size_t label_width = 0;
  for (const auto& label : y_labels) label_width = std::max(label_width, pad_left(label, 0).size());

  std::string out;
  for (int row = 0; row < rows; ++row) {
    const auto& label = y_labels[static_cast<std::size_t>(row)];
    std::string line = pad_left(label, label_width) + (label.empty() ? " │" : " ┤");
    line += grid.row_text(row) + end_labels[static_cast<std::size_t>(row)];
    trim_right(line);
    out += line + "\n";
  }

  // The context axis: a tick mark under each token tick, its label centred below when it fits.
  const auto ticks = token_ticks(x_lo, x_hi, std::max(2, columns / 8));
  std::string axis = std::string(label_width, ' ') + " └";
  std::string labels(label_width + 2, ' ');
  std::vector<bool> marked(static_cast<std::size_t>(columns), false);
  std::size_t labels_end = 0;  // columns used so far on the label line
  for (const auto& tick : ticks) {
    const int column = dot(x.to_pixel(tick.value)) / 2;
    if (column < 0 || column >= columns) continue;
    marked[static_cast<std::size_t>(column)] = true;
    const std::size_t centre = label_width + 2 + static_cast<std::size_t>(column);
    const std::size_t half = tick.label.size() / 2;
    const std::size_t start = centre >= half ? centre - half : 0;
    if (start < labels_end + 1 && labels_end > 0) continue;  // would touch the previous label
    labels.resize(std::max(labels.size(), start), ' ');
    labels.resize(start, ' ');
    labels += tick.label;
    labels_end = labels.size();
  }
  for (int column = 0; column < columns; ++column) {
    axis += marked[static_cast<std::size_t>(column)] ? "┬" : "─";
  }
  out += axis + "\n";
  trim_right(labels);
  out += labels + "\n";
  return out;
}

}  // namespace kspeed::report::chart
