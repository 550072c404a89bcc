#pragma once
// Parsing the numbers people type: token counts with k/m suffixes (binary, as context sizes are
// named: 128k = 131,072), durations with us/ms/s suffixes, shares as 0.85 or 85%. Each parser
// names the flag or field in its error (`what`) so the message says where the problem is.

#include <cstdint>
#include <string_view>

namespace kspeed::io {

// Limits that keep every later sum finite and every loop short; far beyond any real workload.
inline constexpr std::int64_t kMaxTokens = std::int64_t{1} << 27;  ///< "128m" = 134,217,728
inline constexpr double kMaxDurationMs = 1e9;                      ///< about 11.6 days
inline constexpr double kMinDurationMs = 1e-6;                     ///< 1 ns: below is a typo
inline constexpr double kMinPositiveNumber = 1e-6;                 ///< speedups, thresholds
inline constexpr double kMaxPositiveNumber = 1e9;

/// "4096" -> 4096, "4k" -> 4096, "128k" -> 131072, "1m" -> 1048576. From 1 to kMaxTokens.
std::int64_t parse_token_count(std::string_view text, std::string_view what);

/// "500" -> 500 ms, "500ms", "0.5s", "500000us". From kMinDurationMs to kMaxDurationMs.
double parse_duration_ms(std::string_view text, std::string_view what);

/// "0.85" or "85%" -> 0.85. Must lie in [0, 1].
double parse_share(std::string_view text, std::string_view what);

/// A number from kMinPositiveNumber to kMaxPositiveNumber ("2", "1.5", "1e3").
double parse_positive_number(std::string_view text, std::string_view what);

/// A finite number (any sign); the building block of the others.
double parse_number(std::string_view text, std::string_view what, std::string_view expected);

}  // namespace kspeed::io
