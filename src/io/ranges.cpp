#include "kspeed/io/ranges.hpp"

#include <cstdio>
#include <stdexcept>

#include "kspeed/error.hpp"

namespace kspeed::io {

namespace {

// "%g" of a bound: 1e-09, 0.5, 100000.
std::string bound_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

}  // namespace

const std::vector<FlagRange>& flag_ranges() {
  // Each bound keeps the arithmetic after it finite and meaningful; none is a default.
  static const std::vector<FlagRange> ranges = {
      {"--alpha", 1e-9, 0.5,
       "the two-sided false-alarm rate: 1e-9 already asks z = 6.1; below about 1e-16, "
       "1 - alpha/2 rounds to 1, which has no normal quantile; above 0.5 is no test"},
      {"--power", 0.5, 0.999999,
       "the chance of detecting a real effect: below 0.5, z(power) is negative and the "
       "'detectable' effect is one the test would more likely miss (at 0.01 it turns "
       "negative); 1 needs an infinite sample"},
      {"--step-model KEY", 0, 1e5,
       "each step-model coefficient in ms: 1e5 ms (100 s) is a thousand times the slowest "
       "measured step of a real engine; beyond it sums of steps leave a double's range"},
      {"--bandwidth-efficiency", 0.01, 1,
       "a fraction of the memory roof: below 1% no kernel worth pricing runs, and the time "
       "it implies (100x the roof's) is no longer a roofline question"},
      {"--compute-efficiency", 0.01, 1,
       "a fraction of the compute roof: below 1% no kernel worth pricing runs, and the time "
       "it implies (100x the roof's) is no longer a roofline question"},
      {"--replicas", 1, 1e6,
       "engine replicas of the replay; the replay's work also grows with the requests "
       "(replicas x requests at most 1e9)"},
  };
  return ranges;
}

const FlagRange& flag_range(std::string_view flag) {
  for (const FlagRange& range : flag_ranges()) {
    if (range.flag == flag) return range;
  }
  throw std::logic_error("flag_range: no range for " + std::string(flag));
}

double check_range(std::string_view flag, double value, std::string_view text) {
  const FlagRange& range = flag_range(flag);
  if (value >= range.min && value <= range.max) return value;
  std::string name(flag);
  if (name.ends_with(" KEY")) name.resize(name.size() - 4);
  throw InputError(name + ": '" + excerpt(text) + "' is outside " + bound_text(range.min) + " to " +
                   bound_text(range.max) + ": " + std::string(range.why) + " (the ranges: --help)");
}

std::string ranges_help(const std::vector<std::string>& flags) {
  std::string out;
  for (const FlagRange& range : flag_ranges()) {
    std::string name(range.flag);
    const std::string bare = name.ends_with(" KEY") ? name.substr(0, name.size() - 4) : name;
    bool present = false;
    for (const std::string& flag : flags) present = present || flag == bare;
    if (!present) continue;
    out += "  " + name + "  " + bound_text(range.min) + " to " + bound_text(range.max) + "\n";
  }
  return out.empty() ? out : "\nRanges (values outside are refused):\n" + out;
}

}  // namespace kspeed::io
