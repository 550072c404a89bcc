#pragma once
// The values of one `kspeed sweep` axis as typed: a list ("1.25,1.5,2,4"), a range ("4k..128k",
// spread over --points values) or a single value. Each typed value goes through the flag's own
// parser, so "--ctx: '12q' is not valid" reads the same in sweep as in estimate.

#include <cstdint>
#include <string_view>
#include <vector>

namespace kspeed::io {

/// Most values one axis may have, and most points in a whole sweep (all axes multiplied):
/// a million rows is far beyond any chart and still a few seconds of output.
inline constexpr std::int64_t kMaxSweepValues = 1'000'000;

/// How a range is spread between its ends.
enum class SweepSpacing {
  log,     ///< x_i = lo * (hi / lo)^(i / (n - 1)): contexts, batches, speedups (ratios)
  linear,  ///< x_i = lo + (hi - lo) * i / (n - 1): shares
};

/// The parser of one typed value (io::parse_share, a token count as double, ...).
using SweepValueParser = double (*)(std::string_view text, std::string_view what);

/// What an axis is: how its values are parsed and spread, and whether they are whole numbers
/// (rounded after spreading, repeats dropped: 1..4 over 8 points is 1, 2, 3, 4).
struct SweepAxisKind {
  SweepValueParser parse = nullptr;
  SweepSpacing spacing = SweepSpacing::log;
  bool integral = false;
};

/// True when `text` is a list or a range rather than one value.
bool is_sweep(std::string_view text);

/// The axis's values in the order typed (a range: from its first end to its second, which must
/// be larger). `points` (>= 2) applies to ranges only. Throws InputError naming `what` for an
/// empty item, a bad value, a range whose ends are not increasing, or too many values.
std::vector<double> parse_sweep_values(std::string_view text, std::string_view what,
                                       std::int64_t points, const SweepAxisKind& kind);

}  // namespace kspeed::io
