#pragma once
// A minimal XML 1.0 reader for the chart tests: enough to prove an SVG is well-formed (tags
// nest and match, attributes are quoted and unique, entities are known, text holds no raw < or
// &, the bytes are UTF-8 without forbidden controls) and to walk its elements. Written here so
// the tests need no XML library; it throws std::runtime_error naming the byte offset.
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chart_test {

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // values decoded
  std::vector<Element> children;
  std::string text;      // the decoded character data directly inside (children's not included)
  std::string all_text;  // all character data inside, children's included, in document order

  [[nodiscard]] bool has(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) return true;
    }
    return false;
  }
  [[nodiscard]] const std::string& at(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) return v;
    }
    throw std::runtime_error("element <" + name + "> has no attribute " + std::string(key));
  }
  [[nodiscard]] double number(std::string_view key) const { return std::stod(at(key)); }
  [[nodiscard]] bool has_class(std::string_view css_class) const {
    if (!has("class")) return false;
    const std::string& classes = at("class");
    std::size_t start = 0;
    while (start <= classes.size()) {
      const auto end = classes.find(' ', start);
      if (classes.substr(start, end - start) == css_class) return true;
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return false;
  }
  // Every element below (depth first, document order) for which `match` holds.
  [[nodiscard]] std::vector<const Element*> find_all(
      const std::function<bool(const Element&)>& match) const {
    std::vector<const Element*> found;
    for (const auto& child : children) {
      if (match(child)) found.push_back(&child);
      for (const Element* below : child.find_all(match)) found.push_back(below);
    }
    return found;
  }
  [[nodiscard]] std::vector<const Element*> find_all(std::string_view tag,
                                                     std::string_view css_class = {}) const {
    return find_all([&](const Element& e) {
      return e.name == tag && (css_class.empty() || e.has_class(css_class));
    });
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view text) : text_(text) {}

  Element parse_document() {
    check_characters();
    if (starts_with("\xEF\xBB\xBF")) pos_ += 3;
    if (starts_with("<?xml")) skip_past("?>");
    skip_misc();
    Element root = parse_element();
    skip_misc();
    if (pos_ != text_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML not well-formed at byte " + std::to_string(pos_) + ": " + what);
  }
  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void skip_past(std::string_view end) {
    const auto found = text_.find(end, pos_);
    if (found == std::string_view::npos) fail("unterminated construct");
    pos_ = found + end.size();
  }
  bool at_space() const {
    return pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r');
  }
  void skip_space() {
    while (at_space()) ++pos_;
  }
  void skip_misc() {
    for (;;) {
      skip_space();
      if (starts_with("<!--")) {
        skip_past("-->");
      } else {
        return;
      }
    }
  }
  static bool name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
  }
  static bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
  }
  std::string parse_name() {
    if (pos_ >= text_.size() || !name_start(text_[pos_])) fail("expected a name");
    const std::size_t start = pos_;
    while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  // At '&': decodes one reference into out.
  void parse_reference(std::string& out) {
    const auto end = text_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) fail("unterminated entity reference");
    const std::string_view name = text_.substr(pos_ + 1, end - pos_ - 1);
    if (name == "amp")
      out += '&';
    else if (name == "lt")
      out += '<';
    else if (name == "gt")
      out += '>';
    else if (name == "quot")
      out += '"';
    else if (name == "apos")
      out += '\'';
    else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x';
      const std::string digits(name.substr(hex ? 2 : 1));
      if (digits.empty()) fail("empty character reference");
      std::size_t used = 0;
      const unsigned long cp = std::stoul(digits, &used, hex ? 16 : 10);
      if (used != digits.size()) fail("bad character reference");
      const bool allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                           (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
      if (!allowed) fail("character reference to a character XML forbids");
      append_utf8(out, static_cast<std::uint32_t>(cp));
    } else {
      fail("unknown entity &" + std::string(name) + ";");
    }
    pos_ = end + 1;
  }
  Element parse_element() {
    if (!starts_with("<")) fail("expected '<'");
    ++pos_;
    Element element;
    element.name = parse_name();
    for (;;) {
      const bool spaced = at_space();
      skip_space();
      if (starts_with("/>")) {
        pos_ += 2;
        return element;
      }
      if (starts_with(">")) {
        ++pos_;
        break;
      }
      if (!spaced) fail("attributes must be separated by white space");
      std::string key = parse_name();
      if (element.has(key)) fail("duplicate attribute " + key);
      skip_space();
      if (!starts_with("=")) fail("expected '=' after attribute " + key);
      ++pos_;
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) {
        fail("attribute value must be quoted");
      }
      const char quote = text_[pos_++];
      std::string value;
      while (pos_ < text_.size() && text_[pos_] != quote) {
        if (text_[pos_] == '<') fail("'<' inside an attribute value");
        if (text_[pos_] == '&') {
          parse_reference(value);
        } else {
          value += text_[pos_++];
        }
      }
      if (pos_ >= text_.size()) fail("unterminated attribute value");
      ++pos_;
      element.attributes.emplace_back(std::move(key), std::move(value));
    }
    for (;;) {
      if (pos_ >= text_.size()) fail("unclosed element <" + element.name + ">");
      if (starts_with("</")) {
        pos_ += 2;
        if (parse_name() != element.name) fail("mismatched closing tag for <" + element.name + ">");
        skip_space();
        if (!starts_with(">")) fail("expected '>'");
        ++pos_;
        return element;
      }
      if (starts_with("<!--")) {
        skip_past("-->");
      } else if (starts_with("<")) {
        element.children.push_back(parse_element());
        element.all_text += element.children.back().all_text;
      } else if (text_[pos_] == '&') {
        std::string decoded;
        parse_reference(decoded);
        element.text += decoded;
        element.all_text += decoded;
      } else {
        if (starts_with("]]>")) fail("']]>' in text");
        element.text += text_[pos_];
        element.all_text += text_[pos_++];
      }
    }
  }
  // The whole document must be UTF-8 holding only characters XML 1.0 allows.
  void check_characters() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const auto lead = static_cast<unsigned char>(text_[i]);
      int length = lead < 0x80                    ? 1
                   : lead >= 0xC2 && lead <= 0xDF ? 2
                   : lead >= 0xE0 && lead <= 0xEF ? 3
                   : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                  : 0;
      pos_ = i;
      if (length == 0 || i + static_cast<std::size_t>(length) > text_.size()) fail("invalid UTF-8");
      std::uint32_t cp = length == 1 ? lead : lead & (0x7Fu >> length);
      for (int k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text_[i + static_cast<std::size_t>(k)]);
        if ((next & 0xC0) != 0x80) fail("invalid UTF-8");
        cp = (cp << 6) | (next & 0x3Fu);
      }
      const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
      if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) fail("invalid UTF-8");
      if ((cp < 0x20 && cp != 0x9 && cp != 0xA && cp != 0xD) || cp == 0xFFFE || cp == 0xFFFF) {
        fail("a character XML forbids");
      }
      i += static_cast<std::size_t>(length);
    }
    pos_ = 0;
  }
  std::string_view text_;
  std::size_t pos_ = 0;
};

inline Element parse_xml(std::string_view text) {
  return XmlReader(text).parse_document();
}

/// A scale read back from a plot group's data-<axis>-scale/-domain/-range, inverted by hand
/// (not through the library's Scale, so the test checks the library against the formula).
struct AxisMap {
  bool log = false;
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;

  static AxisMap read(const Element& plot, char axis) {
    const std::string prefix = std::string("data-") + axis;
    AxisMap map;
    map.log = plot.at(prefix + "-scale") == "log10";
    const auto pair = [&](const std::string& key, double& a, double& b) {
      const std::string& value = plot.at(key);
      const auto space = value.find(' ');
      a = std::stod(value.substr(0, space));
      b = std::stod(value.substr(space + 1));
    };
    pair(prefix + "-domain", map.d0, map.d1);
    pair(prefix + "-range", map.r0, map.r1);
    return map;
  }
  // value = d0 + (px - r0)/(r1 - r0) · (d1 - d0), in log10 space for a log axis.
  [[nodiscard]] double value(double pixel) const {
    const double t = (pixel - r0) / (r1 - r0);
    if (log) return std::pow(10.0, std::log10(d0) + t * (std::log10(d1) - std::log10(d0)));
    return d0 + t * (d1 - d0);
  }
  // Whether `pixel` inverts to `expected` within one pixel's worth of value there.
  [[nodiscard]] bool within_a_pixel(double pixel, double expected) const {
    const double one_pixel = std::fabs(value(pixel + 1) - value(pixel));
    return std::fabs(value(pixel) - expected) <= one_pixel;
  }
};

/// The one element with class "plot" (the group that states the scales).
inline const Element& plot_group(const Element& root) {
  const auto plots = root.find_all("g", "plot");
  if (plots.size() != 1) throw std::runtime_error("expected exactly one plot group");
  return *plots.front();
}

}  // namespace chart_test
