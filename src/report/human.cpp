#include "kspeed/report/human.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace kspeed::report {

namespace {

// Decimals that leave three significant digits: 295 -> 0, 29.6 -> 1, 8.00 -> 2.
int three_significant_decimals(double value) {
  const double magnitude = std::fabs(value);
  return magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
}

// Three significant digits below 1 too ("0.250"), for times.
std::string three_significant(double value) {
  return fmt::format("{:.{}f}", value,
                     std::fabs(value) >= 1 ? three_significant_decimals(value) : 3);
}

// What a number that is not one (inf, nan) prints as: never "inf×" or "-nan%". Readers refuse
// out-of-range input, so this is the last line of defence, not the way a value is reported.
constexpr const char* kNotANumber = "n/a";

}  // namespace

std::string human_speedup(double speedup) {
  if (!std::isfinite(speedup)) return kNotANumber;
  // Within 5% of 1, unchanged included: one precision for every ratio near 1, so an unchanged
  // TPOT ("1.0000×") reads at the precision of the E2E ratio beside it ("1.0001×").
  if (std::fabs(speedup - 1.0) < 0.05) {
    return fmt::format("{:.4f}×", speedup);
  }
  return fmt::format("{:.2f}×", speedup);
}

std::string human_ceiling(const std::optional<double>& ceiling) {
  return ceiling ? human_speedup(*ceiling) : std::string("∞");
}

std::string human_ms(double milliseconds) {
  if (!std::isfinite(milliseconds)) return kNotANumber;
  if (milliseconds == 0) {
    return "0 ms";
  }
  if (std::fabs(milliseconds) >= 1000) {
    return three_significant(milliseconds / 1000.0) + " s";
  }
  // Below a millisecond in microseconds ("134 µs", not "0.134 ms"), as kernel times print; what
  // rounds to 1,000 µs prints as 1.00 ms.
  if (std::fabs(milliseconds) < 1) {
    if (std::fabs(milliseconds) * 1000 < 999.5) {
      return three_significant(milliseconds * 1000) + " µs";
    }
    return three_significant(std::copysign(1.0, milliseconds)) + " ms";
  }
  return three_significant(milliseconds) + " ms";
}

std::string human_kernel_ms(double milliseconds) {
  if (!std::isfinite(milliseconds)) return kNotANumber;
  return milliseconds < 1 ? human_figure(milliseconds * 1000) + " µs" : human_ms(milliseconds);
}

std::string human_ns(std::int64_t nanoseconds) {
  constexpr std::int64_t kNsPerUs = 1000;
  constexpr std::int64_t kNsPerMs = 1000000;
  if (nanoseconds < kNsPerUs) return std::to_string(nanoseconds) + " ns";
  if (nanoseconds < kNsPerMs) {
    return human_figure(static_cast<double>(nanoseconds) / kNsPerUs) + " µs";
  }
  return human_ms(static_cast<double>(nanoseconds) / kNsPerMs);
}

std::string human_percent(double fraction) {
  const double percent = fraction * 100.0;
  if (!std::isfinite(percent)) return kNotANumber;
  std::string text = fmt::format("{:.{}f}%", percent, std::fabs(percent) < 10 ? 2 : 1);
  // A value that rounds to zero at the printed precision has no sign: "-0.00%" would read as a
  // loss (a pool's busy time saved of -1e-6 is no saving and no loss).
  if (text.front() == '-' && text.find_first_of("123456789") == std::string::npos) text.erase(0, 1);
  return text;
}

std::string human_count(std::int64_t count) {
  std::string digits = std::to_string(count < 0 ? -count : count);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return count < 0 ? "-" + digits : digits;
}

std::string human_figure(double value) {
  if (!std::isfinite(value)) return kNotANumber;
  return fmt::format("{:.{}f}", value, three_significant_decimals(value));
}

std::string human_si(double value, const char* unit) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  if (!std::isfinite(value)) return kNotANumber;
  std::size_t prefix = 0;
  while (std::fabs(value) >= 1000 && prefix + 1 < std::size(kPrefixes)) {
    value /= 1000;
    ++prefix;
  }
  return fmt::format("{} {}{}", human_figure(value), kPrefixes[prefix], unit);
}

std::string human_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return kNotANumber;
  return fmt::format("{:.{}f}", value, decimals);
}

std::string human_plain(double value) {
  return fmt::format("{}", value);
}

}  // namespace kspeed::report
