#pragma once
// Reading input files with errors that say what is wrong, and replacing output files atomically.

#include <cstdint>
#include <string>
#include <string_view>

namespace kspeed::io {

/// The environment variable that overrides kDefaultMaxInputBytes (a whole number of bytes).
inline constexpr const char* kMaxInputBytesVariable = "KSPEED_MAX_INPUT_BYTES";
/// The most bytes read from one input file (workload, model, GPU, patterns, nsys stats CSV),
/// and the largest single value (one event, one string) in a streamed trace: 256 MiB. No real
/// input comes near it; a runaway one (/dev/zero, a gzip bomb) stops there.
inline constexpr std::uint64_t kDefaultMaxInputBytes = std::uint64_t{256} << 20;

/// kDefaultMaxInputBytes, or KSPEED_MAX_INPUT_BYTES when set. Throws InputError when the
/// variable is not a whole number >= 1.
std::uint64_t max_input_bytes();

/// The whole file as text. Throws InputError naming `what` for a missing file, a directory, a
/// file that cannot be read, a file larger than max_input_bytes() (pipes and devices included)
/// and a binary file (a NUL byte), without reading past the problem.
std::string read_text_file(const std::string& path, std::string_view what);

/// Checks, before any work is done, that `path` can be written: its folder exists and is a
/// folder. Throws InputError with the fix otherwise.
void check_output_path(const std::string& path);

/// Writes `content` to a temporary file beside `path` and renames it over `path`, so a reader
/// never sees a half-written file and a failed run leaves the previous file intact.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace kspeed::io
