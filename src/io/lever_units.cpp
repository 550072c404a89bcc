#include "kspeed/io/lever_units.hpp"

#include <cmath>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io {

namespace {

constexpr std::string_view kExpected =
    "a fraction of the peak in (0, 1], e.g. 0.6 or 60% (1 means the roof itself)";

}  // namespace

double parse_efficiency(std::string_view text, std::string_view what) {
  std::string_view number = text;
  double scale = 1.0;
  if (!number.empty() && number.back() == '%') {
    number.remove_suffix(1);
    scale = 0.01;
  }
  const double value = parse_number(number, what, kExpected) * scale;
  if (!(value > 0) || value > 1) {
    throw InputError(std::string(what) + ": '" + excerpt(text) + "' is outside (0, 1]: expected " +
                     std::string(kExpected));
  }
  return value;
}

std::pair<double, double> parse_efficiency_change(std::string_view text, std::string_view what) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    const double both = parse_efficiency(text, what);
    return {both, both};
  }
  const std::string before_what = std::string(what) + " (before ':')";
  const std::string after_what = std::string(what) + " (after ':')";
  return {parse_efficiency(text.substr(0, colon), before_what),
          parse_efficiency(text.substr(colon + 1), after_what)};
}

std::int64_t parse_count(std::string_view text, std::string_view what) {
  return parse_count_from(text, what, 1);
}

std::int64_t parse_count_from(std::string_view text, std::string_view what, std::int64_t minimum) {
  const std::string expected = "a whole number >= " + std::to_string(minimum) + " (for example 8)";
  const double value = parse_number(text, what, expected);
  if (value < static_cast<double>(minimum) || value != std::floor(value) || value > 1e9) {
    throw InputError(std::string(what) + ": '" + excerpt(text) + "' is not valid: expected " +
                     std::string(expected));
  }
  return static_cast<std::int64_t>(value);
}

}  // namespace kspeed::io
