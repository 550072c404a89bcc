#pragma once
// Parsing the numbers people type: token counts with k/m suffixes (binary, as context sizes are
// named: 128k = 131,072), durations with us/ms/s suffixes, shares as 0.85 or 85%. Each parser
// names the flag or field in its error (`what`) so the message says where the problem is.

#include <cstdint>
#include <string_view>

namespace kspeed::io {

/// "4096" -> 4096, "4k" -> 4096, "128k" -> 131072, "1m" -> 1048576. Must be >= 1.
std::int64_t parse_token_count(std::string_view text, std::string_view what);

/// "500" -> 500 ms, "500ms", "0.5s", "500000us". Must be finite and > 0.
double parse_duration_ms(std::string_view text, std::string_view what);

/// "0.85" or "85%" -> 0.85. Must lie in [0, 1].
double parse_share(std::string_view text, std::string_view what);

/// A finite number > 0 ("2", "1.5", "1e3").
double parse_positive_number(std::string_view text, std::string_view what);

/// A finite number (any sign); the building block of the others.
double parse_number(std::string_view text, std::string_view what, std::string_view expected);

}  // namespace kspeed::io
