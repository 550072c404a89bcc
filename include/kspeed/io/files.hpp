#pragma once
// Reading input files with errors that say what is wrong, and replacing output files atomically.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

/// Refuses the same input file given twice: the same file by path (after resolving links), or
/// two files of identical content (FNV-1a over the bytes, compared only between files of equal
/// size, so distinct files cost one stat each). `what` names the inputs in the error.
void check_distinct_files(const std::vector<std::string>& paths, std::string_view what);

/// Checks, before any work is done, that `path` can be written: its folder exists and is a
/// folder. `flag` names the option the path came from (-o, --emit-workload, ...), so the message
/// blames the right one. Throws InputError with the fix otherwise.
void check_output_path(const std::string& path, std::string_view flag = "-o");

/// An output file written in full before it replaces anything. stage() writes the content to a
/// temporary file beside the target; commit() renames it over the target. A command that writes
/// two files stages both before committing either, so a failure in the second never leaves the
/// first replaced. A target that is not a regular file (a terminal, a pipe, /dev/stdout, which is
/// a symlink into /proc) is written through when committed, since it cannot be replaced; a
/// symlink to a regular file keeps the link and replaces the file it points to.
class StagedOutput {
 public:
  StagedOutput(std::string path, std::string_view flag);
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput& operator=(StagedOutput&&) = delete;
  ~StagedOutput();  ///< removes the temporary file when commit() was never reached

  void stage(std::string_view content);
  void commit();

 private:
  std::string path_;     ///< what the user named
  std::string target_;   ///< the file to replace (symlinks resolved)
  std::string flag_;     ///< the option the path came from, for messages
  std::string temp_;     ///< the temporary file, empty once committed or when writing through
  std::string content_;  ///< kept only when writing through a non-regular target
  bool write_through_ = false;
};

/// Writes `content` to a temporary file beside `path` and renames it over `path`, so a reader
/// never sees a half-written file and a failed run leaves the previous file intact.
void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view flag = "-o");

}  // namespace kspeed::io
