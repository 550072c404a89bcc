#pragma once
// A file of request lengths for the load generator (--prompt-tokens file:PATH): whole token
// counts, one or more a line, separated by spaces or commas; blank lines and lines starting
// with '#' are skipped.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

/// The lengths in `text` (named `source` in errors); InputError naming `flag`, the line and the
/// value when one is not a whole number from 1 to 2^28, or when there is none.
std::vector<std::int32_t> parse_lengths(std::string_view text, const std::string& source,
                                        std::string_view flag);

/// parse_lengths over the file at `path` (read_text_file's limits and checks).
std::vector<std::int32_t> read_length_file(const std::string& path, std::string_view flag);

}  // namespace kspeed::io
