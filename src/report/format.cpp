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

}  // namespace kspeed::report
