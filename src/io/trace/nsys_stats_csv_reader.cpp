// `nsys stats --report cuda_gpu_kern_sum --format csv`: preamble lines, then the header
// `Time (%),Total Time (ns),Instances,Avg (ns),...,Name`, one row per kernel name. No timeline:
// each row becomes one KernelEvent holding the name's total time and instance count.
#include <string>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

namespace kspeed::io::trace {

namespace {

// One CSV record (RFC 4180 quoting); names with commas are quoted by nsys.
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

std::string read_all(ByteSource& input) {
  std::string text;
  char chunk[1 << 16];
  while (const std::size_t n = input.read(chunk, sizeof chunk)) text.append(chunk, n);
  return text;
}

long find_column(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<long>(i);
  }
  return -1;
}

// Plain digits; thousands separators tolerated.
bool parse_count(const std::string& cell, std::int64_t& out) {
  std::string digits;
  for (char c : cell) {
    if (c >= '0' && c <= '9')
      digits += c;
    else if (c != ',' && c != ' ')
      return false;
  }
  if (digits.empty() || digits.size() > 16) return false;  // 1e16 ns = 115 days: sums stay in int64
  out = std::stoll(digits);
  return true;
}

class NsysStatsCsvReader final : public TraceReader {
 public:
  profile::TraceFormat format() const override { return profile::TraceFormat::nsys_stats_csv; }

  void read(ByteSource& input, profile::Trace& trace) const override {
    trace.format = profile::TraceFormat::nsys_stats_csv;
    trace.has_timeline = false;
    trace.info.platform = "CUDA";
    const std::string text = read_all(input);
    trace.bytes_read = text.size();
    std::size_t line_start = 0;
    std::size_t line_number = 0;
    std::vector<std::string> header;
    long total_column = -1, instances_column = -1, name_column = -1;
    std::string first_line;
    profile::KernelNameTable names(trace.kernel_names);
    while (line_start < text.size()) {
      std::size_t line_end = text.find('\n', line_start);
      if (line_end == std::string::npos) line_end = text.size();
      const std::string line = text.substr(line_start, line_end - line_start);
      line_start = line_end + 1;
      ++line_number;
      if (first_line.empty()) first_line = line.substr(0, 60);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const std::vector<std::string> cells = split_csv_line(line);
      if (name_column < 0) {
        total_column = find_column(cells, "Total Time (ns)");
        name_column = find_column(cells, "Name");
        instances_column = find_column(cells, "Instances");
        if (total_column < 0 || name_column < 0) {
          name_column = -1;  // still the preamble
        } else {
          header = cells;
        }
        continue;
      }
      ++trace.events_read;
      const auto column = [&](long index) -> const std::string& {
        static const std::string empty;
        return index >= 0 && static_cast<std::size_t>(index) < cells.size()
                   ? cells[static_cast<std::size_t>(index)]
                   : empty;
      };
      std::int64_t total_ns = 0;
      if (!parse_count(column(total_column), total_ns)) {
        throw InputError(trace.source + ":" + std::to_string(line_number) +
                         ": column 'Total Time (ns)' holds '" + column(total_column) +
                         "': expected a whole number of nanoseconds");
      }
      std::int64_t instances = 1;
      if (instances_column >= 0 && !parse_count(column(instances_column), instances)) instances = 1;
      profile::KernelEvent kernel;
      kernel.name_id = names.intern(column(name_column));
      kernel.duration_ns = total_ns;
      kernel.instances = static_cast<std::uint32_t>(std::max<std::int64_t>(1, instances));
      trace.kernels.push_back(kernel);
    }
    if (name_column < 0) {
      throw InputError(trace.source +
                       ": not an `nsys stats` kernel summary: no header line with "
                       "\"Total Time (ns)\" and \"Name\" columns (the file starts with '" +
                       first_line +
                       "'); expected the output of `nsys stats --report "
                       "cuda_gpu_kern_sum --format csv`");
    }
  }
};

}  // namespace

std::unique_ptr<TraceReader> make_nsys_stats_csv_reader() {
  return std::make_unique<NsysStatsCsvReader>();
}

}  // namespace kspeed::io::trace
