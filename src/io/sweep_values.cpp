#include "kspeed/io/sweep_values.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kspeed/error.hpp"

namespace kspeed::io {

namespace {

constexpr std::string_view kRangeMark = "..";

[[noreturn]] void fail(std::string_view what, std::string_view text, const std::string& why) {
  throw InputError(std::string(what) + ": '" + excerpt(text) + "' " + why +
                   ": expected one value (4k), a list (1k,4k,32k) or a range (4k..128k, spread "
                   "over --points values)");
}

double parse_item(std::string_view item, std::string_view whole, std::string_view what,
                  const SweepAxisKind& kind) {
  if (item.find_first_not_of(" \t") == std::string_view::npos) {
    fail(what, whole, "has an empty value");
  }
  return kind.parse(item, what);
}

// 0.5 · 8^(2/3) is 1.9999999999999998 in binary: 12 significant digits, far finer than any swept
// input, give back the 2 a person means and prints.
double round_significant(double value) {
  constexpr int kDigits = 12;
  if (value == 0 || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, kDigits - 1 - std::floor(std::log10(std::fabs(value))));
  return std::round(value * scale) / scale;
}

std::vector<double> spread(double lo, double hi, std::int64_t points, const SweepAxisKind& kind) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(points));
  const double last = static_cast<double>(points - 1);
  for (std::int64_t i = 0; i < points; ++i) {
    const double t = static_cast<double>(i) / last;
    // Log spacing: equal ratios between neighbours, lo * (hi/lo)^t; linear: equal steps.
    double value = round_significant(kind.spacing == SweepSpacing::log ? lo * std::pow(hi / lo, t)
                                                                       : lo + (hi - lo) * t);
    if (i == points - 1) {
      value = hi;  // exactly the typed end, not pow's rounding of it
    }
    values.push_back(kind.integral ? std::round(value) : value);
  }
  if (kind.integral) {
    values.erase(std::unique(values.begin(), values.end()), values.end());
  }
  return values;
}

std::vector<double> parse_range(std::string_view text, std::size_t mark, std::string_view what,
                                std::int64_t points, const SweepAxisKind& kind) {
  const double lo = parse_item(text.substr(0, mark), text, what, kind);
  const double hi = parse_item(text.substr(mark + kRangeMark.size()), text, what, kind);
  if (!(lo < hi)) {
    fail(what, text, "is not an increasing range (its first end must be the smaller)");
  }
  if (points < 2 || points > kMaxSweepValues) {
    throw InputError("--points: " + std::to_string(points) +
                     " is not valid: a range needs from 2 to " + std::to_string(kMaxSweepValues) +
                     " points");
  }
  return spread(lo, hi, points, kind);
}

std::vector<double> parse_list(std::string_view text, std::string_view what,
                               const SweepAxisKind& kind) {
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    values.push_back(parse_item(item, text, what, kind));
    if (static_cast<std::int64_t>(values.size()) > kMaxSweepValues) {
      fail(what, text, "has more than " + std::to_string(kMaxSweepValues) + " values");
    }
    if (comma == std::string_view::npos) {
      return values;
    }
    start = comma + 1;
  }
}

}  // namespace

bool is_sweep(std::string_view text) {
  return text.find(',') != std::string_view::npos ||
         text.find(kRangeMark) != std::string_view::npos;
}

std::vector<double> parse_sweep_values(std::string_view text, std::string_view what,
                                       std::int64_t points, const SweepAxisKind& kind) {
  const std::size_t mark = text.find(kRangeMark);
  if (mark == std::string_view::npos) {
    return parse_list(text, what, kind);
  }
  if (text.find(',') != std::string_view::npos) {
    fail(what, text, "mixes a list and a range");
  }
  if (text.find(kRangeMark, mark + kRangeMark.size()) != std::string_view::npos) {
    fail(what, text, "has more than one '..'");
  }
  return parse_range(text, mark, what, points, kind);
}

}  // namespace kspeed::io
