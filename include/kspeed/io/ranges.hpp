#pragma once
// The accepted range of every number a flag gives that reaches arithmetic without another
// bound, in one table: the parsers check against it and `--help` prints it (the "Ranges"
// section of each command's help), so the limits a user meets are the limits documented.

#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

struct FlagRange {
  std::string_view flag;  ///< "--alpha", or "--step-model fixed_ms" for one key of a flag
  double min = 0;         ///< smallest accepted value (inclusive)
  double max = 0;         ///< largest accepted value (inclusive)
  std::string_view why;   ///< what the bounds keep out, for --help and the error
};

/// Every ranged flag, in the order --help prints them.
const std::vector<FlagRange>& flag_ranges();

/// The entry of `flag`; throws std::logic_error for a flag not in the table (a bug).
const FlagRange& flag_range(std::string_view flag);

/// `value` when it lies in `flag`'s range; otherwise throws InputError naming the flag, the
/// value as typed (`text`), the range and why it is there.
double check_range(std::string_view flag, double value, std::string_view text);

/// The "Ranges:" section of a command's help for those of `flags` the table holds; empty when
/// it holds none.
std::string ranges_help(const std::vector<std::string>& flags);

}  // namespace kspeed::io
