#include "kspeed/report/chart/axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kspeed::report::chart {

namespace {

// Ticks are computed in floating point; a tick that lands within this fraction of a step of
// the domain's end still counts as inside (0.1 + 0.2 is not quite 0.3).
constexpr double kTickSlack = 1e-9;

double position(ScaleKind kind, double value) {
  return kind == ScaleKind::log10 ? std::log10(value) : value;
}

double from_position(ScaleKind kind, double position) {
  return kind == ScaleKind::log10 ? std::pow(10.0, position) : position;
}

// Decimals a label needs so that neighbouring ticks `step` apart read differently:
// step 0.2 -> 1, step 0.05 -> 2, step 5 -> 0.
int decimals_for_step(double step) {
  if (!(step > 0)) return -1;  // unknown: let the value decide
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + kTickSlack)));
}

// Decimals a value needs on its own (log ticks such as 0.02, 0.5, 20): up to 6.
int decimals_for_value(double value) {
  for (int decimals = 0; decimals < 6; ++decimals) {
    const double scaled = value * std::pow(10.0, decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, std::fabs(scaled))) {
      return decimals;
    }
  }
  return 6;
}

// A number with thousands separators in its integer part: 1234.5 -> "1,234.5".
std::string grouped(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const auto point = text.find('.');
  const auto integer_digits =
      static_cast<std::ptrdiff_t>(point == std::string::npos ? text.size() : point);
  for (auto i = integer_digits - 3; i > 0; i -= 3) {
    text.insert(static_cast<std::size_t>(i), ",");
  }
  // "-0" is not a tick anyone wants to read.
  const bool negative = value < 0 && std::stod(fmt::format("{:.{}f}", -value, decimals)) != 0;
  return negative ? "-" + text : text;
}

std::string plain(double value, double step) {
  const int decimals = step > 0 ? decimals_for_step(step) : decimals_for_value(value);
  return grouped(value, decimals);
}

}  // namespace

double Scale::to_pixel(double value) const {
  // Linear interpolation in the scale's position space (the value, or its log10):
  //   pixel = r0 + (pos(v) - pos(d0)) / (pos(d1) - pos(d0)) · (r1 - r0)
  const double p0 = position(kind, domain_min);
  const double p1 = position(kind, domain_max);
  if (p1 == p0) return (range_start + range_end) / 2;
  return range_start + (position(kind, value) - p0) / (p1 - p0) * (range_end - range_start);
}

double Scale::to_value(double pixel) const {
  const double p0 = position(kind, domain_min);
  const double p1 = position(kind, domain_max);
  if (range_end == range_start) return domain_min;
  return from_position(kind, p0 + (pixel - range_start) / (range_end - range_start) * (p1 - p0));
}

double nice_step(double min, double max, int target_count) {
  const double span = max - min;
  if (!(span > 0) || target_count < 1) return 1;
  // The raw step's decade, then the first of 1, 2, 5, 10 times it that is at least the raw step.
  const double raw = span / target_count;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0}) {
    if (factor * decade >= raw * (1 - kTickSlack)) return factor * decade;
  }
  return 10 * decade;
}

void widen_to_nice(double& min, double& max, int target_count) {
  const double step = nice_step(min, max, target_count);
  min = std::floor(min / step + kTickSlack) * step;
  max = std::ceil(max / step - kTickSlack) * step;
}

std::vector<Tick> linear_ticks(double min, double max, TickFormat format, int target_count) {
  std::vector<Tick> ticks;
  const double step = nice_step(min, max, target_count);
  const auto first = static_cast<std::int64_t>(std::ceil(min / step - kTickSlack));
  const auto last = static_cast<std::int64_t>(std::floor(max / step + kTickSlack));
  for (auto i = first; i <= last; ++i) {
    // i · step, not a running sum, so rounding errors do not accumulate.
    const double value = static_cast<double>(i) * step;
    ticks.push_back({value, format_tick(value, format, step), true});
  }
  return ticks;
}

std::vector<Tick> log10_ticks(double min, double max, TickFormat format) {
  std::vector<Tick> ticks;
  if (!(min > 0) || !(max > min)) return ticks;
  const double decades = std::log10(max) - std::log10(min);
  // 2 and 5 labelled up to three decades (a CDF of latencies from 0.3 s to 20 s needs its 2 s
  // and 5 s, or its curves sit between two far labels); beyond, the decades alone
  const bool label_minors = decades <= 3 + kTickSlack;
  const bool all_minors = decades < 2;
  const auto first = static_cast<int>(std::floor(std::log10(min) + kTickSlack));
  const auto last = static_cast<int>(std::ceil(std::log10(max) - kTickSlack));
  const auto inside = [&](double value) {
    return value >= min * (1 - kTickSlack) && value <= max * (1 + kTickSlack);
  };
  for (int exponent = first; exponent <= last; ++exponent) {
    const double decade = std::pow(10.0, exponent);
    if (inside(decade)) ticks.push_back({decade, format_tick(decade, format), true});
    for (int factor = 2; factor <= 9; ++factor) {
      const bool labelled = label_minors && (factor == 2 || factor == 5);
      if (!all_minors && factor != 2 && factor != 5) continue;
      const double value = factor * decade;
      if (!inside(value)) continue;
      ticks.push_back({value, labelled ? format_tick(value, format) : std::string(), false});
    }
  }
  return ticks;
}

std::vector<Tick> token_ticks(double min, double max, int max_count) {
  std::vector<Tick> ticks;
  if (!(min > 0) || !(max >= min) || max_count < 1) return ticks;
  const auto first = static_cast<int>(std::ceil(std::log2(min) - kTickSlack));
  const auto last = static_cast<int>(std::floor(std::log2(max) + kTickSlack));
  // Every stride-th power of two, stride growing until the ticks fit.
  int stride = 1;
  while ((last - first) / stride + 1 > max_count) ++stride;
  // Anchor the ticks on the largest power so the round sizes (1M, 256K, 64K …) survive.
  int start = last;
  while (start - stride >= first) start -= stride;
  for (int exponent = start; exponent <= last; exponent += stride) {
    const double value = std::ldexp(1.0, exponent);
    ticks.push_back({value, format_tokens(value), true});
  }
  return ticks;
}

std::string format_tokens(double tokens) {
  constexpr double kKibi = 1024;
  constexpr double kMebi = 1024 * 1024;
  const auto whole = [](double x) { return std::fabs(x - std::round(x)) < 1e-9; };
  if (tokens >= kMebi && whole(tokens / kMebi)) return fmt::format("{:.0f}M", tokens / kMebi);
  if (tokens >= kKibi && whole(tokens / kKibi)) return fmt::format("{:.0f}K", tokens / kKibi);
  return grouped(tokens, whole(tokens) ? 0 : 1);
}

std::string format_tick(double value, TickFormat format, double step) {
  switch (format) {
    case TickFormat::speedup:
      // Speedups always show a decimal ("1.0×", not "1×"), so the axis reads as a ratio.
      return grouped(value,
                     std::max(1, step > 0 ? decimals_for_step(step) : decimals_for_value(value))) +
             "×";
    case TickFormat::percent:
      return plain(value * 100, step * 100) + "%";
    case TickFormat::milliseconds:
      if (std::fabs(value) >= 1000) return plain(value / 1000, step / 1000) + " s";
      return plain(value, step) + " ms";
    case TickFormat::tokens:
      return format_tokens(value);
    case TickFormat::tera:
      return plain(value / 1e12, step / 1e12);
    case TickFormat::plain:
      break;
  }
  return plain(value, step);
}

}  // namespace kspeed::report::chart
