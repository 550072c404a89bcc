#pragma once
// Reading profiler traces: one reader per format behind one interface, and a sniffing function
// that picks the reader from the content (magic bytes), not from the file name.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/profile/trace.hpp"

namespace kspeed::io::trace {

/// Called now and then while reading: bytes of the file consumed, and the file's size (0 when
/// unknown).
using ProgressCallback = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// What the first bytes say the file is.
enum class SniffedKind {
  gzip,    ///< 1f 8b: decompress and sniff again
  sqlite,  ///< "SQLite format 3\0": an Nsight Systems export
  json,    ///< '{' or '[' after optional BOM and whitespace: Kineto/Chrome trace
  csv,     ///< text with a comma-separated first line: `nsys stats` CSV
  unknown,
};

/// Looks at the first bytes of a file (at least 16 when the file has them).
SniffedKind sniff(std::string_view head);

class TraceReader {
 public:
  TraceReader() = default;
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;
  virtual ~TraceReader() = default;

  virtual profile::TraceFormat format() const = 0;
  /// Reads the stream into a Trace; `trace.source` and `trace.compressed` are already set.
  /// Throws InputError naming the file, the place and what was expected.
  virtual void read(ByteSource& input, profile::Trace& trace) const = 0;
};

std::unique_ptr<TraceReader> make_kineto_json_reader();
std::unique_ptr<TraceReader> make_nsys_stats_csv_reader();

/// Nsight Systems SQLite exports are read through SQLite, which needs the file itself.
profile::Trace read_nsys_sqlite(const std::string& path);

/// Sniffs and reads the trace file at `path` (gzip decompressed on the fly).
profile::Trace read_trace_file(const std::string& path, const ProgressCallback& progress = {});

/// Sniffs and reads a JSON or CSV trace (plain or gzip) from any byte stream; `source` names it
/// in errors. Lets tests feed bytes in awkward chunk sizes.
profile::Trace read_trace_stream(std::unique_ptr<ByteSource> input, const std::string& source);

/// Sniffs and reads trace bytes held in memory (JSON or CSV, plain or gzip); `source` names them
/// in errors. For tests and benchmarks.
profile::Trace read_trace_bytes(std::string_view bytes, const std::string& source);

}  // namespace kspeed::io::trace
