#pragma once
// Reading profiler traces: each format is a function that reads the trace when the first bytes
// are its format and returns nothing when they are not (bloaty's TryOpenELFFile idea); read_trace
// tries them in turn. The content decides, not the file name.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/profile/trace.hpp"

namespace kspeed::io {
class InputFile;
}

namespace kspeed::io::trace {

/// Called now and then while reading: bytes of the file consumed, and the file's size (0 when
/// unknown).
using ProgressCallback = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// How many bytes readers are given to decide whether a stream is their format.
inline constexpr std::size_t kHeadBytes = 4096;

/// Knobs for reading one trace; the defaults are what the CLI uses.
struct TraceReadOptions {
  ProgressCallback progress;  ///< may be empty
  /// The Kineto scanner's starting window. It doubles while one value (an event, a string)
  /// does not fit, up to max_value_bytes. Fuzz targets make it small: zero-filling 4 MiB per
  /// input would dominate their run time.
  std::size_t window_bytes = std::size_t{4} << 20;
  /// The largest single value (a Kineto event or string, a whole nsys stats CSV) read into
  /// memory; 0: io::max_input_bytes() (256 MiB unless KSPEED_MAX_INPUT_BYTES says otherwise).
  std::uint64_t max_value_bytes = 0;
};

/// A trace's bytes as the readers see them.
struct TraceInput {
  std::string source;                ///< names the trace in errors (the path as given)
  std::string head;                  ///< the first kHeadBytes bytes (fewer when the stream is)
  std::unique_ptr<ByteSource> rest;  ///< the bytes after `head`
  std::string path;                  ///< the regular file holding exactly these bytes, or empty
  bool compressed = false;           ///< the bytes came out of gzip
  TraceReadOptions options;
};

/// gzip (1f 8b): inflates on a second thread and reads the content with read_trace.
std::optional<profile::Trace> try_read_gzip(TraceInput& input);
/// An Nsight Systems SQLite export ("SQLite format 3\0"). SQLite needs a file: bytes that are
/// not a regular file (a pipe such as `<(cat x.sqlite)`) are copied once to a temporary file.
std::optional<profile::Trace> try_read_nsys_sqlite(TraceInput& input);
/// Kineto/Chrome-trace JSON: '{' or '[' after an optional BOM and whitespace.
std::optional<profile::Trace> try_read_kineto_json(TraceInput& input);
/// `nsys stats --report cuda_gpu_kern_sum --format csv`: text that names the report or whose
/// first line has commas. A CSV without the report's header is an error that quotes it.
std::optional<profile::Trace> try_read_nsys_stats_csv(TraceInput& input);

/// Tries each format in turn. When none accepts, the InputError names the formats tried and
/// quotes the first bytes (escaped).
profile::Trace read_trace(TraceInput& input);

/// Reads the trace file at `path` (gzip decompressed on the fly).
profile::Trace read_trace_file(const std::string& path, const ProgressCallback& progress = {});
/// The same over a file already open (its head perhaps sniffed): read from that descriptor.
profile::Trace read_trace_file(InputFile& file, const ProgressCallback& progress = {});
/// What a trace file is, for "is a folder: expected ..." messages.
inline constexpr const char* kTraceFileKinds = "a trace file (*.json, *.json.gz, *.sqlite, *.csv)";

/// Reads a trace from any byte stream; `source` names it in errors. Lets tests feed bytes in
/// awkward chunk sizes.
profile::Trace read_trace_stream(std::unique_ptr<ByteSource> input, const std::string& source,
                                 const TraceReadOptions& options = {});

/// Reads trace bytes held in memory; `source` names them in errors. For tests, benchmarks and
/// fuzz targets.
profile::Trace read_trace_bytes(std::string_view bytes, const std::string& source,
                                const TraceReadOptions& options = {});

}  // namespace kspeed::io::trace
