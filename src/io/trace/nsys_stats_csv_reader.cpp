// `nsys stats --report cuda_gpu_kern_sum --format csv`: preamble lines, then the header
// `Time (%),Total Time (ns),Instances,Avg (ns),...,Name`, one row per kernel name. No timeline:
// each row becomes one KernelEvent holding the name's total time and instance count.
#include <string>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "reader_common.hpp"

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

// A kernel summary has one row per kernel name: kilobytes. The limit stops a runaway stream.
std::string read_all(TraceInput& input) {
  std::string text = std::move(input.head);
  const std::uint64_t limit = value_limit(input.options);
  std::vector<char> chunk(std::size_t{1} << 16);
  while (const std::size_t n = input.rest->read(chunk.data(), chunk.size())) {
    if (text.size() + n > limit) {
      throw InputError(input.source + ": an `nsys stats` CSV larger than " + std::to_string(limit) +
                       " bytes: a kernel summary is kilobytes; is it "
                       "the right file? (set " +
                       std::string(kMaxInputBytesVariable) + " to raise the limit)");
    }
    text.append(chunk.data(), n);
  }
  return text;
}

long find_column(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<long>(i);
  }
  return -1;
}

// Plain digits; thousands separators tolerated. At most 16 digits (1e16 ns = 115 days per row;
// 1e16 instances): each row fits int64, and CheckedTotal guards the sums.
bool parse_count(const std::string& cell, std::int64_t& out) {
  std::string digits;
  for (char c : cell) {
    if (c >= '0' && c <= '9')
      digits += c;
    else if (c != ',' && c != ' ')
      return false;
  }
  if (digits.empty() || digits.size() > 16) return false;
  out = std::stoll(digits);
  return true;
}

// Text (no NUL) that names the report, or whose first non-blank line has a comma.
bool looks_like_csv(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head.find('\0') != std::string_view::npos) return false;
  const std::string_view first_line = head.substr(first, head.find('\n', first) - first);
  return head.find("Total Time (ns)") != std::string_view::npos ||
         head.find("cuda_gpu_kern_sum") != std::string_view::npos ||
         first_line.find(',') != std::string_view::npos;
}

[[noreturn]] void bad_row(const profile::Trace& trace, std::size_t line_number,
                          const std::string& message) {
  throw InputError(trace.source + ":" + std::to_string(line_number) + ": " + message);
}

}  // namespace

std::optional<profile::Trace> try_read_nsys_stats_csv(TraceInput& input) {
  if (!looks_like_csv(input.head)) return std::nullopt;
  profile::Trace trace = new_trace(input, profile::TraceFormat::nsys_stats_csv);
  trace.has_timeline = false;
  trace.info.platform = "CUDA";
  std::string text = read_all(input);
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  trace.bytes_read = text.size();
  std::size_t line_start = 0;
  std::size_t line_number = 0;
  std::vector<std::string> header;
  long total_column = -1, instances_column = -1, name_column = -1;
  std::string first_line;
  profile::KernelNameTable names(trace.kernel_names);
  CheckedTotal total_time;
  CheckedTotal total_instances;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    const std::string line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    if (first_line.empty()) first_line = excerpt(line);
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
      bad_row(trace, line_number,
              "column 'Total Time (ns)' holds '" + excerpt(column(total_column)) +
                  "': expected a whole number of nanoseconds (at most 16 digits)");
    }
    std::int64_t instances = 1;
    if (instances_column >= 0 && !column(instances_column).empty() &&
        (!parse_count(column(instances_column), instances) || instances < 1)) {
      bad_row(trace, line_number,
              "column 'Instances' holds '" + excerpt(column(instances_column)) +
                  "': expected a whole number of executions >= 1 (at most 16 digits)");
    }
    if (!total_time.add(total_ns) || !total_instances.add(instances)) {
      bad_row(trace, line_number,
              "the kernel times or instance counts add up past 2^63 (9.2e18): the "
              "summary cannot be right; is the file corrupt?");
    }
    profile::KernelEvent kernel;
    kernel.name_id = names.intern(column(name_column));
    kernel.duration_ns = total_ns;
    trace.kernels.push_back(kernel);
    trace.instances.push_back(instances);
  }
  if (name_column < 0) {
    throw InputError(trace.source +
                     ": not an `nsys stats` kernel summary: no header line with "
                     "\"Total Time (ns)\" and \"Name\" columns (the file starts with '" +
                     first_line +
                     "'); expected the output of `nsys stats --report "
                     "cuda_gpu_kern_sum --format csv`");
  }
  return trace;
}

}  // namespace kspeed::io::trace
