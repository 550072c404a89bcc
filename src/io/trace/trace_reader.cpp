// Sniffing: the first bytes decide the reader (gzip, SQLite, JSON, CSV), whatever the name.
#include "kspeed/io/trace/trace_reader.hpp"

#include <sys/stat.h>

#include <stdexcept>

#include "kspeed/error.hpp"
#include "readers.hpp"

namespace kspeed::io::trace {

namespace {

constexpr std::size_t kSniffBytes = 4096;
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

std::string read_head(ByteSource& source) {
  std::string head(kSniffBytes, '\0');
  std::size_t filled = 0;
  while (filled < head.size()) {
    const std::size_t n = source.read(head.data() + filled, head.size() - filled);
    if (n == 0) break;
    filled += n;
  }
  head.resize(filled);
  return head;
}

std::string printable_start(std::string_view head) {
  std::string out;
  for (char c : head.substr(0, 24)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '.';
  }
  return out;
}

[[noreturn]] void unknown_format(const std::string& source, std::string_view head) {
  throw InputError(source + ": not a trace kspeed can read (it starts with '" +
                   printable_start(head) +
                   "'): expected Kineto/Chrome-trace JSON ('{' or '[', plain or gzip), an Nsight "
                   "Systems SQLite export (`nsys export --type sqlite`) or an `nsys stats "
                   "--report cuda_gpu_kern_sum --format csv` file");
}

// Reads a non-SQLite stream whose head has been read; `compressed` says it came through gzip.
profile::Trace read_stream(std::string head, std::unique_ptr<ByteSource> rest,
                           const std::string& source, bool compressed,
                           const ProgressCallback& progress) {
  profile::Trace trace;
  trace.source = source;
  trace.compressed = compressed;
  if (head.empty()) {
    throw InputError(source + ": the file is empty: expected a trace");
  }
  const SniffedKind kind = sniff(head);
  if (kind == SniffedKind::unknown) unknown_format(source, head);
  auto input = prefixed_source(std::move(head), std::move(rest));
  switch (kind) {
    case SniffedKind::gzip: {
      if (compressed) throw InputError(source + ": gzip inside gzip: decompress it once first");
      auto inflated = gzip_source(std::move(input), source);
      std::string inner_head = read_head(*inflated);
      return read_stream(std::move(inner_head), std::move(inflated), source, true, progress);
    }
    case SniffedKind::sqlite:
      throw InputError(source +
                       ": a compressed SQLite file: decompress it first (gunzip), "
                       "SQLite reads only plain files");
    case SniffedKind::json:
      read_kineto_json(*input, trace, progress);
      return trace;
    case SniffedKind::csv:
      make_nsys_stats_csv_reader()->read(*input, trace);
      return trace;
    case SniffedKind::unknown:
      break;
  }
  throw std::logic_error("unhandled trace kind");
}

}  // namespace

SniffedKind sniff(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return SniffedKind::gzip;
  }
  if (head.starts_with(kSqliteMagic)) return SniffedKind::sqlite;
  std::string_view text = head;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return SniffedKind::unknown;
  if (text[first] == '{' || text[first] == '[') return SniffedKind::json;
  if (text.find('\0') != std::string_view::npos) return SniffedKind::unknown;
  // CSV: nsys stats's header, or any text whose first line has commas (the CSV reader then
  // says precisely why it is not an nsys report).
  const std::string_view first_line = text.substr(first, text.find('\n', first) - first);
  if (text.find("Total Time (ns)") != std::string_view::npos ||
      first_line.find(',') != std::string_view::npos ||
      text.find("cuda_gpu_kern_sum") != std::string_view::npos) {
    return SniffedKind::csv;
  }
  return SniffedKind::unknown;
}

profile::Trace read_trace_file(const std::string& path, const ProgressCallback& progress) {
  auto file = open_file_source(path);
  std::string head = read_head(*file);
  if (sniff(head) == SniffedKind::sqlite) {
    file.reset();
    return read_nsys_sqlite(path);
  }
  struct stat info {};
  const std::uint64_t size =
      ::stat(path.c_str(), &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
  const ProgressCallback sized =
      progress ? ProgressCallback(
                     [&progress, size](std::uint64_t done, std::uint64_t) { progress(done, size); })
               : ProgressCallback();
  return read_stream(std::move(head), std::move(file), path, false, sized);
}

profile::Trace read_trace_bytes(std::string_view bytes, const std::string& source) {
  return read_trace_stream(memory_source(bytes), source);
}

profile::Trace read_trace_stream(std::unique_ptr<ByteSource> input, const std::string& source) {
  std::string head = read_head(*input);
  if (sniff(head) == SniffedKind::sqlite) {
    throw InputError(source + ": SQLite content must be read from a file (read_trace_file)");
  }
  return read_stream(std::move(head), std::move(input), source, false, {});
}

}  // namespace kspeed::io::trace
