#pragma once
// The SVG writer every chart draws with: escaping (names may hold <, &, quotes and bytes that are
// not UTF-8), a document that opens and closes elements in order, and the pieces every chart
// shares — the header, the plot frame, axes with ticks, the legend and the palette.

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/report/chart/axis.hpp"

namespace kspeed::report::chart {

/// Text made safe for an XML 1.0 document: bytes that are not valid UTF-8 and characters XML
/// forbids (controls other than tab, LF and CR; U+FFFE, U+FFFF) become U+FFFD "�".
std::string to_valid_utf8(std::string_view text);

/// Escapes &, <, > for element content (after to_valid_utf8).
std::string escape_xml_text(std::string_view text);

/// Escapes &, <, >, " and ' for an attribute value in double quotes (after to_valid_utf8); tab,
/// LF and CR become character references so attribute normalisation keeps them.
std::string escape_xml_attribute(std::string_view text);

/// A coordinate for the page: two decimals without trailing zeros ("12.5", "300").
std::string format_coordinate(double pixel);

/// A number a program reads back (data-* attributes): the shortest text that round-trips.
std::string format_data(double value);

/// One attribute, its value already text (numbers via format_coordinate or format_data).
struct Attribute {
  std::string_view name;
  std::string value;
};

/// A document written front to back: open/close pair up, leaf() is a self-closed element.
class SvgDocument {
 public:
  /// Starts <svg> with width, height and viewBox, an accessible <title> and <desc>, the
  /// embedded style sheet and an opaque white background (readable on dark pages too).
  SvgDocument(double width, double height, std::string_view title, std::string_view description);

  void open(std::string_view tag, const std::vector<Attribute>& attributes = {});
  void close();
  void leaf(std::string_view tag, const std::vector<Attribute>& attributes);
  /// Escaped character content inside the element opened last.
  void content(std::string_view text);
  /// An element holding only escaped text: <title>…</title> tooltips and the like.
  void element(std::string_view tag, std::string_view text);
  /// <text> at (x, y) with a class, extra attributes and escaped content.
  void text(double x, double y, std::string_view css_class, std::string_view label,
            const std::vector<Attribute>& attributes = {});

  /// Closes every open element and returns the document.
  std::string finish();

 private:
  void write_start(std::string_view tag, const std::vector<Attribute>& attributes);
  std::string out_;
  std::vector<std::string> open_;
};

/// Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008), in drawing order.
/// Yellow is left out: it does not read on white.
std::string_view palette_colour(std::size_t index);

/// How a legend entry draws its sample.
enum class LegendMark { line, dashed_line, circle, hollow_circle, diamond, bar, hatched_bar };

struct LegendEntry {
  std::string label;
  std::string colour;
  LegendMark mark = LegendMark::line;
};

/// An approximate width of text in the chart's font, for layout (labels that must not collide).
double text_width(std::string_view text, double font_size);

/// A text label's box on the page as the layout estimates it: text_width across, 0.8 em above
/// the baseline and 0.25 em below (tests/unit/test_chart_labels.cpp measures labels the same way).
struct TextBox {
  double left = 0;
  double top = 0;
  double right = 0;
  double bottom = 0;
};

/// The box of `text` at (x, baseline) in `font_size`, anchored "start", "middle" or "end".
TextBox text_box(double x, double baseline, std::string_view text, double font_size,
                 std::string_view anchor);
/// Whether two boxes overlap by more than half a pixel.
bool boxes_overlap(const TextBox& a, const TextBox& b);
/// Whether a line through pixel points (a non-finite point breaks it) passes through the box.
bool polyline_crosses(const std::vector<Point>& pixels, const TextBox& box);

/// Labels placed in a plot so far and the lines drawn there: a new label takes the first of its
/// candidate places that crosses neither (issue 30: labels never over lines or other labels).
class LabelPlacer {
 public:
  void add_line(std::vector<Point> pixels);
  void add_label(const TextBox& box);
  /// Whether the box is clear of every line and label placed, and inside `bounds`.
  [[nodiscard]] bool clear(const TextBox& box, const TextBox& bounds) const;

 private:
  std::vector<std::vector<Point>> lines_;
  std::vector<TextBox> labels_;
};

/// The page: margins around a plot area, worked out from what sits above and beside it.
struct Frame {
  double width = 800;
  double height = 480;
  double plot_left = 0;
  double plot_top = 0;
  double plot_right = 0;
  double plot_bottom = 0;
};

/// Room for the title, subtitle and legend rows (wrapped to the width), then the plot area below
/// them with room on the left for y tick labels of `y_label_width` pixels and the axis titles.
Frame layout_frame(double width, double height, const std::string& subtitle,
                   const std::vector<LegendEntry>& legend, double y_label_width);

/// Writes the title, subtitle and legend where layout_frame reserved room for them.
void draw_header(SvgDocument& svg, const Frame& frame, const std::string& title,
                 const std::string& subtitle, const std::vector<LegendEntry>& legend);

/// Grid lines, ticks, labels and the title of the x axis (below the plot) and the y axis (left).
/// The plot group also records each scale in data-* attributes so tests and tools can map any
/// point back to its value.
void draw_x_axis(SvgDocument& svg, const Frame& frame, const Scale& scale,
                 const std::vector<Tick>& ticks, std::string_view title);
void draw_y_axis(SvgDocument& svg, const Frame& frame, const Scale& scale,
                 const std::vector<Tick>& ticks, std::string_view title);

/// data-* attributes describing a scale: data-<axis>-scale, -domain, -range.
std::vector<Attribute> scale_attributes(char axis, const Scale& scale);

/// Path data through pixel points: "M x y L x y …"; a non-finite point breaks the line; a
/// point within a quarter pixel of the previous vertex is skipped (a run's last never is).
std::string line_path(const std::vector<Point>& pixels);

/// Starts a clip path named `id` around the plot area (for curves that may leave it).
void define_plot_clip(SvgDocument& svg, const Frame& frame, std::string_view id);

/// The widest tick label, for layout_frame's y_label_width.
double widest_label(const std::vector<Tick>& ticks, double font_size);

/// Font sizes shared by the style sheet and the layout.
inline constexpr double kTitleSize = 17;
inline constexpr double kSubtitleSize = 12.5;
inline constexpr double kLabelSize = 12;
inline constexpr double kTickSize = 11.5;

}  // namespace kspeed::report::chart
