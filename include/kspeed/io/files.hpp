#pragma once
// Reading input files with errors that say what is wrong, and replacing output files atomically.

#include <string>
#include <string_view>

namespace kspeed::io {

/// The whole file as text. Throws InputError naming `what` for a missing file, a directory, or
/// a file that cannot be read.
std::string read_text_file(const std::string& path, std::string_view what);

/// Checks, before any work is done, that `path` can be written: its folder exists and is a
/// folder. Throws InputError with the fix otherwise.
void check_output_path(const std::string& path);

/// Writes `content` to a temporary file beside `path` and renames it over `path`, so a reader
/// never sees a half-written file and a failed run leaves the previous file intact.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace kspeed::io
