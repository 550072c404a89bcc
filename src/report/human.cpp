#include "kspeed/report/human.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kspeed::report {

namespace {

// Three significant digits, never in exponent notation.
std::string three_significant(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

}  // namespace

std::string human_speedup(double speedup) {
  if (speedup == 1.0) {
    return "1.00×";  // exactly unchanged: no digits to show
  }
  if (std::fabs(speedup - 1.0) < 0.05) {
    return fmt::format("{:.4f}×", speedup);
  }
  return fmt::format("{:.2f}×", speedup);
}

std::string human_ceiling(const std::optional<double>& ceiling) {
  return ceiling ? human_speedup(*ceiling) : std::string("∞");
}

std::string human_ms(double milliseconds) {
  if (milliseconds == 0) {
    return "0 ms";
  }
  if (std::fabs(milliseconds) >= 1000) {
    return three_significant(milliseconds / 1000.0) + " s";
  }
  return three_significant(milliseconds) + " ms";
}

std::string human_percent(double fraction) {
  const double percent = fraction * 100.0;
  if (std::fabs(percent) < 10) {
    return fmt::format("{:.2f}%", percent);
  }
  return fmt::format("{:.1f}%", percent);
}

std::string human_count(std::int64_t count) {
  std::string digits = std::to_string(count < 0 ? -count : count);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return count < 0 ? "-" + digits : digits;
}

}  // namespace kspeed::report
