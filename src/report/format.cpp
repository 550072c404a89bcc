#include <algorithm>

#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"text", "json", "csv", "markdown"};
  return names;
}

std::optional<Format> parse_format(std::string_view name) {
  if (name == "text") return Format::text;
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  if (name == "markdown" || name == "md") return Format::markdown;
  return std::nullopt;
}

std::string paint(const Style& style, const std::string& text, Ansi attribute) {
  if (!style.color) {
    return text;
  }
  const char* code = "1";
  switch (attribute) {
    case Ansi::bold:
      code = "1";
      break;
    case Ansi::red:
      code = "31";
      break;
    case Ansi::green:
      code = "32";
      break;
    case Ansi::yellow:
      code = "33";
      break;
  }
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}

}  // namespace kspeed::report
