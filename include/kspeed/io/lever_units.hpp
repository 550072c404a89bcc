#pragma once
// Parsing the roofline's flag values: efficiencies (fractions of a roof, in (0, 1]) and the
// BEFORE:AFTER form of --bandwidth-efficiency. Each parser names its flag in errors.

#include <cstdint>
#include <string_view>
#include <utility>

namespace kspeed::io {

/// "0.6" or "60%" -> 0.6. Must lie in (0, 1]: an efficiency is a fraction of the peak.
double parse_efficiency(std::string_view text, std::string_view what);

/// "0.6:0.66" -> (0.6, 0.66): the old kernel's and the new kernel's efficiency. A single value
/// ("0.6") means unchanged: (0.6, 0.6).
std::pair<double, double> parse_efficiency_change(std::string_view text, std::string_view what);

/// A whole number >= 1 ("8"): batch sizes and GPU counts.
std::int64_t parse_count(std::string_view text, std::string_view what);

/// A whole number >= `minimum`: counts where 0 means none (minimum 0).
std::int64_t parse_count_from(std::string_view text, std::string_view what, std::int64_t minimum);

}  // namespace kspeed::io
