#include "kspeed/report/chart/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace kspeed::report::chart {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The one style sheet: a system font stack (no web fonts, no external references) and the
// colours of text, grid and axes. Series colours are inline, from the palette.
constexpr std::string_view kStyle =
    "text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
    "'Noto Sans','Liberation Sans','DejaVu Sans',sans-serif;fill:#1f2328}"
    ".title{font-size:17px;font-weight:600}"
    ".subtitle{font-size:12.5px;fill:#57606a}"
    ".label{font-size:12px}"
    ".label-strong{font-size:12px;font-weight:600}"
    ".tick{font-size:11.5px;fill:#57606a}"
    ".axis-title{font-size:12px;font-weight:600}"
    ".grid{stroke:#d8dee4;stroke-width:1}"
    ".grid-minor{stroke:#eef1f4;stroke-width:1}"
    ".axis{stroke:#57606a;stroke-width:1}"
    ".halo{paint-order:stroke;stroke:#ffffff;stroke-width:3px;stroke-linejoin:round}"
    ".series{fill:none;stroke-width:2.25;stroke-linejoin:round;stroke-linecap:round}";

// Layout constants, in pixels.
constexpr double kMargin = 20;
constexpr double kLegendRow = 20;
constexpr double kLegendSample = 22;
constexpr double kLegendGap = 18;
constexpr double kAxisTitleBand = 20;
constexpr double kTickLabelGap = 8;

// The length of a UTF-8 sequence from its lead byte, 0 when the byte cannot lead one.
int sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Whether XML 1.0 allows the code point in a document (its production `Char`).
bool xml_allows(std::uint32_t code_point) {
  if (code_point < 0x20) return code_point == 0x9 || code_point == 0xA || code_point == 0xD;
  return code_point != 0xFFFE && code_point != 0xFFFF;
}

// Decodes the sequence of `length` bytes at text[i]; 0xFFFFFFFF when it is malformed
// (a bad continuation byte, an overlong form, a surrogate, beyond U+10FFFF).
std::uint32_t decode(std::string_view text, std::size_t i, int length) {
  constexpr std::uint32_t kInvalid = 0xFFFFFFFF;
  if (i + static_cast<std::size_t>(length) > text.size()) return kInvalid;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  if (length == 1) return byte(0);
  std::uint32_t code_point = byte(0) & (0x7Fu >> static_cast<unsigned>(length));
  for (std::size_t k = 1; k < static_cast<std::size_t>(length); ++k) {
    if ((byte(k) & 0xC0u) != 0x80u) return kInvalid;
    code_point = (code_point << 6u) | (byte(k) & 0x3Fu);
  }
  static constexpr std::array<std::uint32_t, 5> kSmallest = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[static_cast<std::size_t>(length)]) return kInvalid;
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return kInvalid;
  if (code_point > 0x10FFFF) return kInvalid;
  return code_point;
}

std::string escape(std::string_view text, bool attribute) {
  const std::string valid = to_valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (const char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      case '\'':
        out += attribute ? "&apos;" : "'";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += "&#13;";
        break;  // a raw CR would be normalised away even in text
      default:
        out += c;
    }
  }
  return out;
}

std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

void draw_legend_sample(SvgDocument& svg, double x, double y, const LegendEntry& entry) {
  const std::string colour = entry.colour;
  const double mid = x + kLegendSample / 2;
  switch (entry.mark) {
    case LegendMark::line:
    case LegendMark::dashed_line:
      svg.leaf("line",
               {{"x1", format_coordinate(x)},
                {"y1", format_coordinate(y)},
                {"x2", format_coordinate(x + kLegendSample)},
                {"y2", format_coordinate(y)},
                {"stroke", colour},
                {"stroke-width", "2.25"},
                {"stroke-dasharray", entry.mark == LegendMark::dashed_line ? "6 4" : "none"}});
      break;
    case LegendMark::circle:
      svg.leaf("circle", {{"cx", format_coordinate(mid)},
                          {"cy", format_coordinate(y)},
                          {"r", "4"},
                          {"fill", colour},
                          {"stroke", "#ffffff"},
                          {"stroke-width", "1"}});
      break;
    case LegendMark::hollow_circle:
      svg.leaf("circle", {{"cx", format_coordinate(mid)},
                          {"cy", format_coordinate(y)},
                          {"r", "4"},
                          {"fill", "#ffffff"},
                          {"stroke", colour},
                          {"stroke-width", "2"}});
      break;
    case LegendMark::diamond:
      svg.leaf("path", {{"d", fmt::format("M{} {}l6 6l-6 6l-6 -6z", format_coordinate(mid),
                                          format_coordinate(y - 6))},
                        {"fill", "#ffffff"},
                        {"stroke", colour},
                        {"stroke-width", "2"}});
      break;
    case LegendMark::bar:
    case LegendMark::hatched_bar:
      svg.leaf("rect",
               {{"x", format_coordinate(x + 2)},
                {"y", format_coordinate(y - 6)},
                {"width", format_coordinate(kLegendSample - 4)},
                {"height", "12"},
                {"fill", entry.mark == LegendMark::hatched_bar ? "url(#kspeed-hatch)" : colour},
                {"stroke", colour},
                {"stroke-width", "1"}});
      break;
  }
}

// The legend's entries placed in rows: x of each entry and the row it lands on.
struct LegendPlacement {
  std::vector<double> x;
  std::vector<int> row;
  int rows = 0;
};

LegendPlacement place_legend(const std::vector<LegendEntry>& legend, double width) {
  LegendPlacement placement;
  double x = kMargin;
  int row = 0;
  for (const auto& entry : legend) {
    const double entry_width = kLegendSample + 6 + text_width(entry.label, kLabelSize);
    if (x > kMargin && x + entry_width > width - kMargin) {
      x = kMargin;
      ++row;
    }
    placement.x.push_back(x);
    placement.row.push_back(row);
    x += entry_width + kLegendGap;
  }
  placement.rows = legend.empty() ? 0 : row + 1;
  return placement;
}

// Baselines of the header's lines, from the top of the page.
constexpr double kTitleBaseline = 30;
constexpr double kSubtitleBaseline = 50;

constexpr double kSubtitleLine = 17;

// The subtitle in lines that fit the page: a subtitle too wide for one line breaks before a
// " · " separator (a word, for one part too wide by itself), never clipped at the right edge.
std::vector<std::string> subtitle_lines(const std::string& subtitle, double width) {
  const double room = width - 2 * kMargin;
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < subtitle.size()) {
    std::size_t next = subtitle.find(" · ", start);
    std::string part = subtitle.substr(start, next == std::string::npos ? next : next - start);
    start = next == std::string::npos ? subtitle.size() : next + std::string(" · ").size();
    const std::string joined = line.empty() ? part : line + " · " + part;
    if (line.empty() || text_width(joined, kSubtitleSize) <= room) {
      line = joined;
    } else {
      lines.push_back(line);
      line = part;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

double legend_top(const std::string& subtitle, double width) {
  if (subtitle.empty()) return kTitleBaseline + 14;
  const auto extra = static_cast<double>(subtitle_lines(subtitle, width).size() - 1);
  return kSubtitleBaseline + extra * kSubtitleLine + 14;
}

}  // namespace

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const int length = sequence_length(static_cast<unsigned char>(text[i]));
    const std::uint32_t code_point = length == 0 ? 0xFFFFFFFF : decode(text, i, length);
    if (code_point == 0xFFFFFFFF) {
      out += kReplacement;  // one replacement per byte of a malformed sequence
      ++i;
      continue;
    }
    // A well-formed character XML forbids (a control, U+FFFF) is one replacement.
    out.append(xml_allows(code_point) ? text.substr(i, static_cast<std::size_t>(length))
                                      : kReplacement);
    i += static_cast<std::size_t>(length);
  }
  return out;
}

std::string escape_xml_text(std::string_view text) {
  return escape(text, false);
}

std::string escape_xml_attribute(std::string_view text) {
  return escape(text, true);
}

std::string format_coordinate(double pixel) {
  return trim_zeros(fmt::format("{:.2f}", pixel));
}

std::string format_data(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  return fmt::format("{}", value);
}

SvgDocument::SvgDocument(double width, double height, std::string_view title,
                         std::string_view description) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string w = format_coordinate(width);
  const std::string h = format_coordinate(height);
  open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
               {"version", "1.1"},
               {"width", w},
               {"height", h},
               {"viewBox", "0 0 " + w + " " + h},
               {"role", "img"}});
  element("title", title);
  element("desc", description);
  open("style");
  out_ += kStyle;
  close();
  // A diagonal hatch for "saved" areas; defined once, used by url(#kspeed-hatch).
  open("defs");
  open("pattern", {{"id", "kspeed-hatch"},
                   {"width", "6"},
                   {"height", "6"},
                   {"patternUnits", "userSpaceOnUse"},
                   {"patternTransform", "rotate(45)"}});
  leaf("rect", {{"width", "6"}, {"height", "6"}, {"fill", "#ffffff"}});
  leaf("line", {{"x1", "0"},
                {"y1", "0"},
                {"x2", "0"},
                {"y2", "6"},
                {"stroke", "#D55E00"},
                {"stroke-width", "2.5"}});
  close();
  close();
  leaf("rect", {{"width", w}, {"height", h}, {"fill", "#ffffff"}});
}

void SvgDocument::write_start(std::string_view tag, const std::vector<Attribute>& attributes) {
  out_ += '<';
  out_ += tag;
  for (const auto& attribute : attributes) {
    out_ += ' ';
    out_ += attribute.name;
    out_ += "=\"";
    out_ += escape_xml_attribute(attribute.value);
    out_ += '"';
  }
}

void SvgDocument::open(std::string_view tag, const std::vector<Attribute>& attributes) {
  write_start(tag, attributes);
  out_ += '>';
  open_.emplace_back(tag);
}

void SvgDocument::close() {
  if (open_.empty()) return;
  out_ += "</" + open_.back() + ">";
  // A line break after each closed element keeps the file readable and diffable; not after a
  // <tspan>, where it would be rendered as a space.
  if (open_.back() != "tspan") out_ += '\n';
  open_.pop_back();
}

void SvgDocument::leaf(std::string_view tag, const std::vector<Attribute>& attributes) {
  write_start(tag, attributes);
  out_ += "/>\n";
}

void SvgDocument::content(std::string_view text) {
  out_ += escape_xml_text(text);
}

void SvgDocument::element(std::string_view tag, std::string_view text) {
  write_start(tag, {});
  out_ += '>';
  out_ += escape_xml_text(text);
  out_ += "</";
  out_ += tag;
  out_ += '>';
}

void SvgDocument::text(double x, double y, std::string_view css_class, std::string_view label,
                       const std::vector<Attribute>& attributes) {
  std::vector<Attribute> all = {
      {"x", format_coordinate(x)}, {"y", format_coordinate(y)}, {"class", std::string(css_class)}};
  all.insert(all.end(), attributes.begin(), attributes.end());
  write_start("text", all);
  out_ += '>';
  out_ += escape_xml_text(label);
  out_ += "</text>\n";
}

std::string SvgDocument::finish() {
  while (!open_.empty()) close();
  return std::move(out_);
}

std::string_view palette_colour(std::size_t index) {
  // Blue, vermillion, bluish green, reddish purple, orange, sky blue, black.
  static constexpr std::array<std::string_view, 7> kPalette = {
      "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
  return kPalette[index % kPalette.size()];
}

double text_width(std::string_view text, double font_size) {
  // Average advance of a sans-serif font is about 0.6 em (DejaVu Sans, the widest fallback,
  // is 0.6-0.63 for digits and lower case); count code points, not bytes.
  std::size_t code_points = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0u) != 0x80u) ++code_points;
  }
  return static_cast<double>(code_points) * font_size * 0.6;
}

TextBox text_box(double x, double baseline, std::string_view text, double font_size,
                 std::string_view anchor) {
  const double width = text_width(text, font_size);
  const double left = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x;
  return {left, baseline - 0.8 * font_size, left + width, baseline + 0.25 * font_size};
}

bool boxes_overlap(const TextBox& a, const TextBox& b) {
  constexpr double kSlack = 0.5;  // a half-pixel touch is not an overlap
  return a.left < b.right - kSlack && b.left < a.right - kSlack && a.top < b.bottom - kSlack &&
         b.top < a.bottom - kSlack;
}

namespace {

// Liang and Barsky's clip of the segment a-b against the box: whether any part lies inside.
bool segment_crosses_box(Point a, Point b, const TextBox& box) {
  double t0 = 0;
  double t1 = 1;
  const double dx = b.x - a.x;
  const double dy = b.y - a.y;
  const double p[] = {-dx, dx, -dy, dy};
  const double q[] = {a.x - box.left, box.right - a.x, a.y - box.top, box.bottom - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;  // parallel to this edge and outside it
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return false;
  }
  return true;
}

}  // namespace

bool polyline_crosses(const std::vector<Point>& pixels, const TextBox& box) {
  for (std::size_t i = 1; i < pixels.size(); ++i) {
    const Point& a = pixels[i - 1];
    const Point& b = pixels[i];
    if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(b.x) || !std::isfinite(b.y))
      continue;
    if (segment_crosses_box(a, b, box)) return true;
  }
  return false;
}

void LabelPlacer::add_line(std::vector<Point> pixels) {
  lines_.push_back(std::move(pixels));
}

void LabelPlacer::add_label(const TextBox& box) {
  labels_.push_back(box);
}

bool LabelPlacer::clear(const TextBox& box, const TextBox& bounds) const {
  if (box.left < bounds.left || box.right > bounds.right || box.top < bounds.top ||
      box.bottom > bounds.bottom) {
    return false;
  }
  return std::none_of(labels_.begin(), labels_.end(),
                      [&box](const TextBox& other) { return boxes_overlap(box, other); }) &&
         std::none_of(lines_.begin(), lines_.end(), [&box](const std::vector<Point>& line) {
           return polyline_crosses(line, box);
         });
}

Frame layout_frame(double width, double height, const std::string& subtitle,
                   const std::vector<LegendEntry>& legend, double y_label_width) {
  Frame frame;
  frame.width = width;
  frame.height = height;
  const LegendPlacement placement = place_legend(legend, width);
  const double legend_bottom = legend_top(subtitle, width) + placement.rows * kLegendRow;
  frame.plot_top = legend_bottom + 14;
  frame.plot_left = kMargin + kAxisTitleBand + kTickLabelGap + y_label_width + kTickLabelGap;
  frame.plot_right = width - kMargin - 8;
  frame.plot_bottom = height - kMargin - kAxisTitleBand - kTickSize - kTickLabelGap;
  return frame;
}

void draw_header(SvgDocument& svg, const Frame& frame, const std::string& title,
                 const std::string& subtitle, const std::vector<LegendEntry>& legend) {
  svg.text(kMargin, kTitleBaseline, "title", title);
  double baseline = kSubtitleBaseline;
  for (const std::string& line : subtitle_lines(subtitle, frame.width)) {
    svg.text(kMargin, baseline, "subtitle", line);
    baseline += kSubtitleLine;
  }
  const LegendPlacement placement = place_legend(legend, frame.width);
  svg.open("g", {{"class", "legend"}});
  const double top = legend_top(subtitle, frame.width);
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const double y = top + placement.row[i] * kLegendRow + kLegendRow / 2;
    draw_legend_sample(svg, placement.x[i], y, legend[i]);
    svg.text(placement.x[i] + kLegendSample + 6, y + 4, "label", legend[i].label);
  }
  svg.close();
}

std::vector<Attribute> scale_attributes(char axis, const Scale& scale) {
  // Attribute names are views: they live in static storage.
  static const std::array<std::string, 6> kNames = {"data-x-scale",  "data-x-domain",
                                                    "data-x-range",  "data-y-scale",
                                                    "data-y-domain", "data-y-range"};
  const std::size_t base = axis == 'x' ? 0 : 3;
  return {{kNames[base], scale.kind == ScaleKind::log10 ? "log10" : "linear"},
          {kNames[base + 1], format_data(scale.domain_min) + " " + format_data(scale.domain_max)},
          {kNames[base + 2], format_data(scale.range_start) + " " + format_data(scale.range_end)}};
}

void draw_x_axis(SvgDocument& svg, const Frame& frame, const Scale& scale,
                 const std::vector<Tick>& ticks, std::string_view title) {
  svg.open("g", {{"class", "x-axis"}});
  for (const auto& tick : ticks) {
    const std::string x = format_coordinate(scale.to_pixel(tick.value));
    svg.leaf("line", {{"class", tick.major ? "grid" : "grid-minor"},
                      {"x1", x},
                      {"y1", format_coordinate(frame.plot_top)},
                      {"x2", x},
                      {"y2", format_coordinate(frame.plot_bottom)}});
    if (!tick.label.empty()) {
      svg.text(scale.to_pixel(tick.value), frame.plot_bottom + kTickLabelGap + kTickSize, "tick",
               tick.label, {{"text-anchor", "middle"}});
    }
  }
  svg.leaf("line", {{"class", "axis"},
                    {"x1", format_coordinate(frame.plot_left)},
                    {"y1", format_coordinate(frame.plot_bottom)},
                    {"x2", format_coordinate(frame.plot_right)},
                    {"y2", format_coordinate(frame.plot_bottom)}});
  svg.text((frame.plot_left + frame.plot_right) / 2, frame.height - kMargin + 2, "axis-title",
           title, {{"text-anchor", "middle"}});
  svg.close();
}

void draw_y_axis(SvgDocument& svg, const Frame& frame, const Scale& scale,
                 const std::vector<Tick>& ticks, std::string_view title) {
  svg.open("g", {{"class", "y-axis"}});
  for (const auto& tick : ticks) {
    const std::string y = format_coordinate(scale.to_pixel(tick.value));
    svg.leaf("line", {{"class", tick.major ? "grid" : "grid-minor"},
                      {"x1", format_coordinate(frame.plot_left)},
                      {"y1", y},
                      {"x2", format_coordinate(frame.plot_right)},
                      {"y2", y}});
    if (!tick.label.empty()) {
      svg.text(frame.plot_left - kTickLabelGap, scale.to_pixel(tick.value) + 4, "tick", tick.label,
               {{"text-anchor", "end"}});
    }
  }
  svg.leaf("line", {{"class", "axis"},
                    {"x1", format_coordinate(frame.plot_left)},
                    {"y1", format_coordinate(frame.plot_top)},
                    {"x2", format_coordinate(frame.plot_left)},
                    {"y2", format_coordinate(frame.plot_bottom)}});
  const double x = kMargin + 10;
  const double y = (frame.plot_top + frame.plot_bottom) / 2;
  svg.text(x, y, "axis-title", title,
           {{"text-anchor", "middle"},
            {"transform",
             fmt::format("rotate(-90 {} {})", format_coordinate(x), format_coordinate(y))}});
  svg.close();
}

std::string line_path(const std::vector<Point>& pixels) {
  // A vertex within a quarter pixel of the one drawn before it changes nothing a screen can
  // show; skipping it keeps a 100,000-point sweep to a few thousand vertices. The last vertex
  // of each run is always drawn, so a line ends where its data ends.
  constexpr double kMinStep = 0.25;
  std::string path;
  bool pen_down = false;
  Point last{};
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const Point& pixel = pixels[i];
    if (!std::isfinite(pixel.x) || !std::isfinite(pixel.y)) {
      pen_down = false;
      continue;
    }
    const bool run_ends = i + 1 == pixels.size() || !std::isfinite(pixels[i + 1].x) ||
                          !std::isfinite(pixels[i + 1].y);
    if (pen_down && !run_ends && std::fabs(pixel.x - last.x) < kMinStep &&
        std::fabs(pixel.y - last.y) < kMinStep) {
      continue;
    }
    if (!path.empty()) path += ' ';
    path += pen_down ? 'L' : 'M';
    path += format_coordinate(pixel.x) + " " + format_coordinate(pixel.y);
    pen_down = true;
    last = pixel;
  }
  return path;
}

void define_plot_clip(SvgDocument& svg, const Frame& frame, std::string_view id) {
  svg.open("clipPath", {{"id", std::string(id)}});
  svg.leaf("rect", {{"x", format_coordinate(frame.plot_left)},
                    {"y", format_coordinate(frame.plot_top)},
                    {"width", format_coordinate(frame.plot_right - frame.plot_left)},
                    {"height", format_coordinate(frame.plot_bottom - frame.plot_top)}});
  svg.close();
}

double widest_label(const std::vector<Tick>& ticks, double font_size) {
  double widest = 0;
  for (const auto& tick : ticks) widest = std::max(widest, text_width(tick.label, font_size));
  return widest;
}

}  // namespace kspeed::report::chart
