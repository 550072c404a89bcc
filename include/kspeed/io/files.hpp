#pragma once
// Reading input files with errors that say what is wrong, and replacing output files atomically.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kspeed::io {

namespace trace {
class ByteSource;
}

/// The environment variable that overrides kDefaultMaxInputBytes (a whole number of bytes).
inline constexpr const char* kMaxInputBytesVariable = "KSPEED_MAX_INPUT_BYTES";
/// The most bytes read from one input file (workload, model, GPU, patterns, nsys stats CSV),
/// and the largest single value (one event, one string) in a streamed trace: 256 MiB. No real
/// input comes near it; a runaway one (/dev/zero, a gzip bomb) stops there.
inline constexpr std::uint64_t kDefaultMaxInputBytes = std::uint64_t{256} << 20;

/// kDefaultMaxInputBytes, or KSPEED_MAX_INPUT_BYTES when set. Throws InputError when the
/// variable is not a whole number >= 1.
std::uint64_t max_input_bytes();

/// The environment variable that overrides kDefaultPeerWaitSeconds (seconds, decimals allowed).
inline constexpr const char* kPeerWaitVariable = "KSPEED_PEER_WAIT_SECONDS";
/// How long kspeed waits for the other end of a named pipe (a FIFO given as an input with no
/// writer, or as an output with no reader) before it refuses the path: 10 s, long enough for a
/// producer started beside kspeed, short enough that a forgotten FIFO is an error, not a hang.
inline constexpr double kDefaultPeerWaitSeconds = 10;

/// kDefaultPeerWaitSeconds, or KSPEED_PEER_WAIT_SECONDS when set (0 to 3600). Throws
/// InputError when the variable is not such a number.
double peer_wait_seconds();

/// Opens `path` read-only (O_CLOEXEC). A named pipe whose writer does not come within
/// peer_wait_seconds() is refused with an InputError naming `label`; errno is kept for the
/// caller when the open itself fails (-1 returned).
int open_for_reading(const std::string& path, const std::string& label);

/// Opens `path` write-only with `flags` added. A named pipe with no reader within
/// peer_wait_seconds() is refused with an InputError naming `label`; -1 with errno otherwise.
int open_for_writing(const std::string& path, int flags, const std::string& label);

/// KSPEED_MAX_INPUT_BYTES when it is set, else nothing: set, it bounds every input whole,
/// streamed traces and request logs included (their compressed bytes and their inflated text
/// each), not only the documents read into memory.
std::optional<std::uint64_t> max_stream_bytes();

/// What binary bytes at the start of a file are, for the message that refuses them: "UTF-16
/// text (little-endian): convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)", "gzip-compressed:
/// ...", a zip, zstd, xz or bzip2 archive, an SQLite database; else "binary (it contains NUL
/// bytes)".
std::string describe_binary(std::string_view head);

/// Throws the one "too large" InputError every reader gives: `label` (what 'path') is larger
/// than `limit` bytes; `expected` says what a normal input of its kind is.
[[noreturn]] void refuse_too_large(const std::string& label, std::uint64_t limit,
                                   std::string_view expected = "a small JSON document");

/// One input file, opened once. Its first bytes are sniffed from the same descriptor the rest
/// is read from, so a named pipe or `<(...)` is never reopened (a second open of a FIFO blocks
/// until another writer comes, i.e. forever). A regular file's size comes from fstat, so an
/// oversized one is refused before a byte is read; a pipe or a device is counted as it is read.
class InputFile {
 public:
  /// Opens `path`. Throws InputError naming `what` when it does not exist, is a folder or
  /// cannot be opened; `expected` completes the folder message ("expected a trace file").
  InputFile(std::string path, std::string_view what, std::string_view expected = "a file");
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  const std::string& path() const { return path_; }
  /// "what 'path'", for messages.
  const std::string& label() const { return label_; }
  /// True for a regular file (then size() is its size from fstat); false for a pipe or device.
  bool regular() const { return regular_; }
  std::uint64_t size() const { return size_; }

  /// The first `bytes` bytes (fewer when the file is shorter), read once and kept: asking again,
  /// for fewer or more, reads only what was not read yet.
  const std::string& head(std::size_t bytes);
  /// The whole content as text (the head included): refused past max_input_bytes() (by size
  /// for a regular file, before reading) and at the first NUL byte (no text holds one).
  std::string read_text();
  /// The content from byte `offset` on (offset <= what head() read) as a stream that owns the
  /// descriptor; the InputFile is spent afterwards.
  std::unique_ptr<trace::ByteSource> stream(std::size_t offset = 0);

 private:
  std::string path_;
  std::string label_;
  int fd_ = -1;
  bool regular_ = false;
  bool at_end_ = false;
  std::uint64_t size_ = 0;
  std::string head_;
};

/// Where a path leads, for telling whether two paths name one file: the device and inode of
/// the file, or, for a file not created yet, of its folder plus its name. Empty for a path that
/// is not a regular file nor a file to be created (a terminal, a pipe, /dev/null, "-").
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::string name;  ///< the file name inside the folder, for a file that does not exist yet
  bool operator==(const FileIdentity&) const = default;
};
std::optional<FileIdentity> file_identity(const std::string& path);

/// A path and the flag it came from ("-o", "--plot", "the input").
using NamedPath = std::pair<std::string, std::string>;

/// Refuses, before any work, an output that is one of the inputs (writing it would replace the
/// input) or that another output also names (one of the two would be lost). Compares device
/// and inode (links and other spellings of one path included), not strings.
void check_outputs_distinct(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs);

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
  /// stage() in pieces, for content too large to hold: begin() creates the temporary file,
  /// write() appends a piece, end() makes it durable. stage(c) is begin(); write(c); end().
  void begin();
  void write(std::string_view piece);
  void end();
  void commit();

 private:
  std::string path_;     ///< what the user named
  std::string target_;   ///< the file to replace (symlinks resolved)
  std::string flag_;     ///< the option the path came from, for messages
  std::string temp_;     ///< the temporary file, empty once committed or when writing through
  std::string content_;  ///< kept only when writing through a non-regular target
  int fd_ = -1;          ///< the temporary file, between begin() and end()
  bool write_through_ = false;
};

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every StagedOutput's temporary
/// file (the old output stays as it was) and then end the process as the signal would have.
void remove_temporaries_on_signal();

/// Writes `content` to a temporary file beside `path` and renames it over `path`, so a reader
/// never sees a half-written file and a failed run leaves the previous file intact.
void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view flag = "-o");

}  // namespace kspeed::io
