// Detection: each reader looks at the first bytes and declines what is not its format; the
// first that accepts reads the trace.
#include "kspeed/io/trace/trace_reader.hpp"

#include <array>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"

namespace kspeed::io::trace {

namespace {

using TryRead = std::optional<profile::Trace> (*)(TraceInput&);

struct FormatReader {
  std::string_view name;  ///< for "tried ..." in the error
  TryRead try_read;
};

// gzip first: it wraps the others. SQLite and gzip have magic bytes; JSON and CSV are text.
constexpr std::array<FormatReader, 4> kReaders{{
    {"gzip", try_read_gzip},
    {"Nsight Systems SQLite export", try_read_nsys_sqlite},
    {"Kineto/Chrome-trace JSON", try_read_kineto_json},
    {"`nsys stats` CSV", try_read_nsys_stats_csv},
}};

std::string read_head(ByteSource& source) {
  std::string head(kHeadBytes, '\0');
  std::size_t filled = 0;
  while (filled < head.size()) {
    const std::size_t n = source.read(head.data() + filled, head.size() - filled);
    if (n == 0) break;
    filled += n;
  }
  head.resize(filled);
  return head;
}

[[noreturn]] void unknown_format(const TraceInput& input) {
  std::string tried;
  for (std::size_t i = 0; i < kReaders.size(); ++i) {
    tried += (i == 0                     ? ""
              : i + 1 == kReaders.size() ? " and "
                                         : ", ") +
             std::string(kReaders[i].name);
  }
  throw InputError(excerpt(input.source) + ": not a trace kspeed can read (it starts with '" +
                   excerpt(input.head, 24) + "'" + (input.compressed ? " once decompressed" : "") +
                   "; tried " + tried +
                   "): expected Kineto/Chrome-trace JSON ('{' or '[', plain or gzip), an Nsight "
                   "Systems SQLite export (`nsys export --type sqlite`) or an `nsys stats "
                   "--report cuda_gpu_kern_sum --format csv` file");
}

}  // namespace

profile::Trace read_trace(TraceInput& input) {
  if (input.head.empty()) {
    throw InputError(excerpt(input.source) + ": the file is empty: expected a trace");
  }
  for (const FormatReader& reader : kReaders) {
    if (std::optional<profile::Trace> trace = reader.try_read(input)) return std::move(*trace);
  }
  unknown_format(input);
}

std::optional<profile::Trace> try_read_gzip(TraceInput& input) {
  if (input.head.size() < 2 || static_cast<unsigned char>(input.head[0]) != 0x1f ||
      static_cast<unsigned char>(input.head[1]) != 0x8b) {
    return std::nullopt;
  }
  if (input.compressed) {
    throw InputError(excerpt(input.source) + ": gzip inside gzip: decompress it once first");
  }
  TraceInput inner;
  inner.source = input.source;
  inner.rest = gzip_source(prefixed_source(std::move(input.head), std::move(input.rest)),
                           excerpt(input.source));
  inner.head = read_head(*inner.rest);
  inner.compressed = true;
  inner.options = input.options;
  return read_trace(inner);
}

profile::Trace read_trace_file(const std::string& path, const ProgressCallback& progress) {
  InputFile file(path, "trace file", kTraceFileKinds);
  return read_trace_file(file, progress);
}

profile::Trace read_trace_file(InputFile& file, const ProgressCallback& progress) {
  TraceInput input;
  input.source = file.path();
  input.head = file.head(kHeadBytes).substr(0, kHeadBytes);
  // SQLite may open a regular file by name; a pipe cannot be read twice
  if (file.regular()) input.path = file.path();
  const std::uint64_t size = file.size();
  input.rest = file.stream(input.head.size());
  if (progress) {
    input.options.progress = [&progress, size](std::uint64_t done, std::uint64_t) {
      progress(done, size);
    };
  }
  return read_trace(input);
}

profile::Trace read_trace_stream(std::unique_ptr<ByteSource> stream, const std::string& source,
                                 const TraceReadOptions& options) {
  TraceInput input;
  input.source = source;
  input.rest = std::move(stream);
  input.head = read_head(*input.rest);
  input.options = options;
  return read_trace(input);
}

profile::Trace read_trace_bytes(std::string_view bytes, const std::string& source,
                                const TraceReadOptions& options) {
  return read_trace_stream(memory_source(bytes), source, options);
}

}  // namespace kspeed::io::trace
