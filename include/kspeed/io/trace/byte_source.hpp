#pragma once
// Byte streams for trace readers: a file read in chunks, gzip inflated on a second thread, or
// bytes already in memory (tests). Readers pull chunks and never hold the whole document.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kspeed::io::trace {

class ByteSource {
 public:
  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  virtual ~ByteSource() = default;

  /// Reads up to `capacity` bytes into `out`; returns 0 only at the end of the stream.
  /// Throws InputError for unreadable or corrupt input.
  virtual std::size_t read(char* out, std::size_t capacity) = 0;
  /// Bytes of the underlying file consumed so far (compressed bytes for gzip): for progress.
  virtual std::uint64_t file_position() const = 0;
};

/// The file at `path`. Throws InputError for a missing file, a folder, or an unreadable file.
std::unique_ptr<ByteSource> open_file_source(const std::string& path);

/// An open descriptor, read from where it stands; the source closes it. `name` names the file in
/// errors.
std::unique_ptr<ByteSource> descriptor_source(int fd, std::string name);

/// Bytes in memory (not copied: `bytes` must outlive the source).
std::unique_ptr<ByteSource> memory_source(std::string_view bytes);

/// Inflates a gzip stream (one or several members) read from `compressed`, on a second thread
/// so inflating overlaps parsing. `source_name` names the file in errors.
std::unique_ptr<ByteSource> gzip_source(std::unique_ptr<ByteSource> compressed,
                                        std::string source_name);

/// Replays `head` (bytes already read for sniffing), then continues with `rest`.
std::unique_ptr<ByteSource> prefixed_source(std::string head, std::unique_ptr<ByteSource> rest);

}  // namespace kspeed::io::trace
