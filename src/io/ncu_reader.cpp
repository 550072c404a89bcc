// Nsight Compute CSV exports. Column and metric names from the Nsight Compute CLI manual
// ("--csv", "--page", "--print-units"; https://docs.nvidia.com/nsight-compute/NsightComputeCli/)
// and from real exports of ncu 2019.x to 2025.x (TRACES.md, "Nsight Compute").
#include "kspeed/io/ncu_reader.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"

namespace kspeed::io {

namespace {

using engine::ProfiledKernel;
using engine::ProfiledMetric;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Columns that describe a launch rather than measure it (raw page: every other column is a
// metric). Details pages of recent versions add "Block Size", "Grid Size", "Device", "CC".
constexpr std::array<std::string_view, 14> kLaunchColumns = {
    "ID",          "Process ID", "Process Name",  "Host Name",     "Kernel Name",
    "Kernel Time", "Context",    "Stream",        "Block Size",    "Grid Size",
    "Device",      "CC",         "Function Name", "Demangled Name"};

// One CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks) and
// the line it starts on.
struct Record {
  std::vector<std::string> cells;
  std::size_t line = 0;
};

class CsvScanner {
 public:
  CsvScanner(std::string_view text, std::size_t offset, std::size_t line)
      : text_(text), pos_(offset), line_(line) {}

  // The next record; false at the end of the text. Blank lines are skipped.
  bool next(Record& out) {
    while (pos_ < text_.size()) {
      out.cells.assign(1, std::string());
      out.line = line_;
      read_record(out.cells);
      if (out.cells.size() > 1 || !out.cells[0].empty()) return true;
    }
    return false;
  }

 private:
  void read_record(std::vector<std::string>& cells) {
    bool quoted = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (quoted) {
        if (c == '"' && pos_ < text_.size() && text_[pos_] == '"') {
          cells.back() += '"';
          ++pos_;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') ++line_;
          cells.back() += c;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.emplace_back();
      } else if (c == '\n') {
        ++line_;
        return;
      } else if (c != '\r') {
        cells.back() += c;
      }
    }
  }

  std::string_view text_;
  std::size_t pos_;
  std::size_t line_;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Digits with optional thousands separators ("61,824", "945,954,313.37"), sign, fraction and
// exponent. Commas are accepted only as well-formed groups of three, so "1,2" is not a number.
std::optional<double> parse_number(std::string_view cell) {
  cell = trim(cell);
  std::string plain;
  plain.reserve(cell.size());
  std::size_t digits_in_group = 0;
  bool grouped = false;
  bool integer_part = true;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    const char c = cell[i];
    if (c == ',') {
      if (!integer_part || digits_in_group == 0 || (grouped && digits_in_group != 3) ||
          (!grouped && digits_in_group > 3)) {
        return std::nullopt;
      }
      grouped = true;
      digits_in_group = 0;
      continue;
    }
    if (c >= '0' && c <= '9') {
      if (integer_part) ++digits_in_group;
    } else if (integer_part && !(c == '-' || c == '+')) {
      integer_part = false;
      if (grouped && digits_in_group != 3) return std::nullopt;
    }
    plain += c;
  }
  if (integer_part && grouped && digits_in_group != 3) return std::nullopt;
  if (plain.empty()) return std::nullopt;
  const char* first = plain.data();
  if (*first == '+') ++first;
  double value = 0;
  const auto [end, error] = std::from_chars(first, plain.data() + plain.size(), value);
  if (error != std::errc() || end != plain.data() + plain.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

bool is_not_available(std::string_view cell) {
  cell = trim(cell);
  return cell.empty() || cell == "n/a" || cell == "N/A";
}

// Scale of one side of a unit ("nsecond", "Kbyte", "Ghz", "cycle").
double unit_part_scale(std::string_view part) {
  static const std::map<std::string_view, double, std::less<>> kTimes = {
      {"second", 1}, {"s", 1},          {"msecond", 1e-3}, {"ms", 1e-3},       {"usecond", 1e-6},
      {"us", 1e-6},  {"nsecond", 1e-9}, {"ns", 1e-9},      {"psecond", 1e-12},
  };
  if (const auto it = kTimes.find(part); it != kTimes.end()) return it->second;
  // Binary prefixes (KiB, MiB, GiB) as some exporters print bytes.
  static const std::map<std::string_view, double, std::less<>> kBinary = {
      {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
  if (const auto it = kBinary.find(part); it != kBinary.end()) return it->second;
  // Decimal prefixes before a lower-case base: Kbyte, Mbyte, Gbyte, Tbyte, Khz, Mhz, Ghz, Kinst,
  // Mcycle (ncu's --print-units auto), and KB, MB, GB.
  if (part.size() >= 2) {
    static const std::map<char, double> kPrefixes = {{'K', 1e3}, {'k', 1e3},  {'M', 1e6},
                                                     {'G', 1e9}, {'T', 1e12}, {'P', 1e15}};
    const auto prefix = kPrefixes.find(part[0]);
    const char base = part[1];
    if (prefix != kPrefixes.end() && ((base >= 'a' && base <= 'z') || part.substr(1) == "B")) {
      return prefix->second;
    }
  }
  return 1;
}

std::string location(const std::string& source, std::size_t line) {
  return source + ":" + std::to_string(line);
}

// The column index of `name` in `header`, or npos.
std::size_t column_of(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::string::npos;
}

// A cell of a row that may be shorter than the header: missing trailing cells are empty.
std::string_view cell_at(const Record& row, std::size_t column) {
  if (column == std::string::npos || column >= row.cells.size()) return {};
  return row.cells[column];
}

// The ceiling on a quantity ncu states, in SI base units: 10^18 (an exabyte, 31 years, an
// exahertz). A measured count, duration, rate or percentage is finite, >= 0 and below it.
constexpr double kMaxQuantity = 1e18;

// A number under a unit is a measured quantity: checked where it is read, so a negative byte
// count is never summed and 1e300 never reaches a report as "inf EB/s".
double checked_quantity(double value, std::string_view cell, std::string_view unit,
                        std::string_view metric, const std::string& where) {
  if (unit.empty() || (value >= 0 && value <= kMaxQuantity)) return value;
  throw InputError(where + ": metric '" + std::string(metric) + "' holds " +
                   excerpt(trim(cell), 40) + " " + std::string(unit) +
                   ": expected a measured quantity, >= 0 and at most 1e18 in base units; "
                   "re-export with ncu --import report.ncu-rep --csv");
}

// One value as ncu printed it, in SI base units. A text value under a quantity's unit (anything
// but "") is not a number where one was expected: an InputError.
ProfiledMetric parse_metric(std::string_view cell, std::string_view unit, std::string_view metric,
                            const std::string& where) {
  ProfiledMetric out;
  out.unit = std::string(trim(unit));
  const double scale = ncu_unit_scale(out.unit);
  if (is_not_available(cell)) {
    out.text = std::string(trim(cell));
    return out;
  }
  if (const std::optional<double> value = parse_number(cell)) {
    out.value = checked_quantity(*value * scale, cell, out.unit, metric, where);
    return out;
  }
  if (cell.find(';') != std::string_view::npos) {
    // Legacy raw pages hold arrays ("32.00; 32.00; 4.00"): one value per element.
    std::vector<double> elements;
    std::size_t start = 0;
    bool numeric = true;
    while (start <= cell.size() && numeric) {
      const std::size_t end = std::min(cell.find(';', start), cell.size());
      const std::optional<double> element = parse_number(cell.substr(start, end - start));
      numeric = element.has_value();
      if (element) {
        elements.push_back(checked_quantity(*element * scale, cell, out.unit, metric, where));
      }
      start = end + 1;
    }
    if (numeric) {
      out.elements = std::move(elements);
      return out;
    }
  }
  if (!out.unit.empty()) {
    throw InputError(where + ": metric '" + std::string(metric) + "' holds '" +
                     std::string(trim(cell)).substr(0, 40) +
                     "', which is not a number (its unit is '" + out.unit +
                     "'): expected a number such as 1,234.5 or n/a; re-export with " +
                     "ncu --import report.ncu-rep --csv");
  }
  out.text = std::string(trim(cell));
  return out;
}

void add_metric(ProfiledKernel& kernel, std::string name, ProfiledMetric metric) {
  kernel.metrics.emplace(std::move(name), std::move(metric));  // the first value of a name wins
}

// The header line: the first line that starts with the "ID" column (quoted or not).
bool is_header_line(std::string_view line) {
  if (line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
  return line.substr(0, 5) == "\"ID\"," || line.substr(0, 3) == "ID,";
}

bool is_profiler_line(std::string_view line) {
  return line.substr(0, 2) == "==" && line.find("==", 2) != std::string_view::npos;
}

// A file with ncu's messages and no table: the run failed or profiled nothing.
[[noreturn]] void throw_failed_run(const std::string& source, std::size_t line,
                                   std::string_view message) {
  std::string text = source + ":" + std::to_string(line) + ": ncu reported '" +
                     std::string(message.substr(0, 160)) + "' and";
  text +=
      " wrote no result table (no \"ID\" header line): the profiling run failed or no kernel "
      "matched; check the ncu command (--kernel-name, --launch-skip, permissions to the GPU "
      "counters) and export again with --csv";
  throw InputError(text);
}

class NcuTableReader {
 public:
  NcuTableReader(const std::string& source, NcuReport& report) : source_(source), report_(report) {}

  void read_details(CsvScanner& rows, const std::vector<std::string>& header) {
    const std::size_t id = column_of(header, "ID");
    const std::size_t name = column_of(header, "Kernel Name");
    const std::size_t section = column_of(header, "Section Name");
    const std::size_t metric = column_of(header, "Metric Name");
    const std::size_t unit = column_of(header, "Metric Unit");
    const std::size_t value = column_of(header, "Metric Value");
    const std::size_t device = column_of(header, "Device");
    const std::size_t cc = column_of(header, "CC");
    Record row;
    while (rows.next(row)) {
      if (skip_row(row, header)) continue;
      ProfiledKernel& kernel = kernel_for(row, cell_at(row, id), cell_at(row, name));
      const std::string_view metric_name = cell_at(row, metric);
      if (metric_name.empty()) continue;  // a rule's advice row, not a metric
      if (kernel.metrics.empty()) {
        if (!cell_at(row, device).empty()) kernel.device = std::string(cell_at(row, device));
        if (!cell_at(row, cc).empty()) kernel.compute_capability = std::string(cell_at(row, cc));
      }
      ProfiledMetric parsed = parse_metric(cell_at(row, value), cell_at(row, unit), metric_name,
                                           location(source_, row.line));
      parsed.section = std::string(cell_at(row, section));
      parsed.line = row.line;
      add_metric(kernel, std::string(metric_name), std::move(parsed));
    }
  }

  void read_raw(CsvScanner& rows, const std::vector<std::string>& header, std::size_t header_line) {
    Record units;
    if (!rows.next(units) || !trim(cell_at(units, column_of(header, "ID"))).empty()) {
      throw InputError(location(source_, units.line > 0 ? units.line : header_line + 1) +
                       ": the raw page's second row should hold the metrics' units (an empty ID "
                       "cell); export the raw page with ncu --csv --page raw");
    }
    const std::size_t id = column_of(header, "ID");
    const std::size_t name = column_of(header, "Kernel Name");
    const std::size_t device = column_of(header, "Device");
    const std::size_t cc = column_of(header, "CC");
    std::vector<std::size_t> metric_columns;
    for (std::size_t i = 0; i < header.size(); ++i) {
      bool launch_column = false;
      for (const std::string_view known : kLaunchColumns) launch_column |= header[i] == known;
      if (!launch_column && !header[i].empty()) metric_columns.push_back(i);
    }
    Record row;
    while (rows.next(row)) {
      if (skip_row(row, header)) continue;
      ProfiledKernel& kernel = kernel_for(row, cell_at(row, id), cell_at(row, name));
      for (const std::size_t column : metric_columns) {
        ProfiledMetric parsed = parse_metric(cell_at(row, column), cell_at(units, column),
                                             header[column], location(source_, row.line));
        parsed.line = row.line;
        add_metric(kernel, header[column], std::move(parsed));
      }
      if (!cell_at(row, device).empty()) kernel.device = std::string(cell_at(row, device));
      if (!cell_at(row, cc).empty()) kernel.compute_capability = std::string(cell_at(row, cc));
      describe_device_from_attributes(kernel);
    }
  }

 private:
  // Lines ncu interleaves with the table (==PROF==, ==WARNING==) are skipped; a repeated header
  // means two exports were concatenated.
  bool skip_row(const Record& row, const std::vector<std::string>& header) {
    if (is_profiler_line(row.cells[0])) return true;
    if (row.cells == header) {
      throw InputError(location(source_, row.line) +
                       ": a second header line (\"ID\",...): two ncu exports were concatenated; "
                       "give kspeed one export per file");
    }
    return false;
  }

  // The launch a row belongs to: the current one, or a new one. A launch whose rows ended
  // earlier, or an ID with another kernel's name, is an error.
  ProfiledKernel& kernel_for(const Record& row, std::string_view id, std::string_view name) {
    const std::string trimmed_id(trim(id));
    if (trimmed_id.empty() || !parse_number(trimmed_id)) {
      throw InputError(location(source_, row.line) + ": the ID column holds '" +
                       trimmed_id.substr(0, 40) +
                       "': expected the launch's number; is this line program output inside "
                       "the ncu table? Export with ncu --csv --log-file or --export, then "
                       "ncu --import report.ncu-rep --csv");
    }
    if (!report_.kernels.empty() && report_.kernels.back().id == trimmed_id) {
      ProfiledKernel& current = report_.kernels.back();
      if (current.name != name) {
        throw InputError(location(source_, row.line) + ": launch ID " + trimmed_id +
                         " names kernel '" + std::string(name).substr(0, 60) +
                         "', but its rows from line " + std::to_string(current.line) + " name '" +
                         current.name.substr(0, 60) +
                         "': expected one kernel per ID; export the report again");
      }
      return current;
    }
    if (const auto seen = first_line_of_.find(trimmed_id); seen != first_line_of_.end()) {
      throw InputError(location(source_, row.line) + ": a row of launch ID " + trimmed_id +
                       " after rows of launch ID " + report_.kernels.back().id + "; launch " +
                       trimmed_id + "'s rows started at line " + std::to_string(seen->second) +
                       ": ncu writes each launch's rows together, so the file was concatenated "
                       "or re-sorted; export it again with ncu --import report.ncu-rep --csv");
    }
    first_line_of_.emplace(trimmed_id, row.line);
    ProfiledKernel kernel;
    kernel.id = trimmed_id;
    kernel.name = std::string(name);
    kernel.line = row.line;
    report_.kernels.push_back(std::move(kernel));
    return report_.kernels.back();
  }

  // Legacy raw pages carry the device as attributes: display name and compute capability.
  static void describe_device_from_attributes(ProfiledKernel& kernel) {
    // The "Device" column holds an index ("0"); the display name ("NVIDIA B200") says more.
    const auto is_index = [](const std::string& text) {
      return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    };
    if (const ProfiledMetric* display = kernel.find("device__attribute_display_name");
        display != nullptr && (!kernel.device || is_index(*kernel.device)) &&
        !display->text.empty()) {
      kernel.device = display->text;
    }
    const std::optional<double> major = kernel.number("device__attribute_compute_capability_major");
    const std::optional<double> minor = kernel.number("device__attribute_compute_capability_minor");
    // A compute capability is two small whole numbers ("6.00", "1.00"); anything else is left out.
    const auto small_whole = [](const std::optional<double>& v) {
      return v && *v >= 0 && *v < 100 && *v == static_cast<double>(static_cast<int>(*v));
    };
    if (!kernel.compute_capability && small_whole(major) && small_whole(minor)) {
      kernel.compute_capability =
          std::to_string(static_cast<int>(*major)) + "." + std::to_string(static_cast<int>(*minor));
    }
  }

  const std::string& source_;
  NcuReport& report_;
  std::map<std::string, std::size_t, std::less<>> first_line_of_;
};

}  // namespace

double ncu_unit_scale(std::string_view unit) {
  unit = trim(unit);
  // "numerator/denominator": "byte/second", "cycle/nsecond", "Gbyte/second".
  const std::size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return unit_part_scale(unit);
  return unit_part_scale(unit.substr(0, slash)) / unit_part_scale(unit.substr(slash + 1));
}

bool looks_like_ncu_export(std::string_view head) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t end = std::min(head.find('\n', pos), head.size());
    const std::string_view line = head.substr(pos, end - pos);
    if (line.substr(0, 8) == "==PROF==") return true;
    if (is_header_line(line)) return line.find("Kernel Name") != std::string_view::npos;
    pos = end + 1;
  }
  return false;
}

std::optional<NcuReport> try_parse_ncu_csv(std::string_view text, const std::string& source) {
  // Find the header: skip ncu's ==PROF== lines and the program's output before it.
  std::size_t pos = 0;
  std::size_t line = 1;
  std::size_t first_message_line = 0;
  std::string_view first_error;
  std::size_t first_error_line = 0;
  std::string_view first_message;
  bool found = false;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view current = text.substr(pos, end - pos);
    if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
    if (is_header_line(current)) {
      found = true;
      break;
    }
    if (is_profiler_line(current)) {
      if (first_message_line == 0) {
        first_message_line = line;
        first_message = current;
      }
      if (first_error_line == 0 && current.substr(0, 9) == "==ERROR==") {
        first_error_line = line;
        first_error = current;
      }
    }
    pos = end + 1;
    ++line;
  }
  if (!found) {
    if (first_error_line > 0) throw_failed_run(source, first_error_line, first_error);
    if (first_message_line > 0) throw_failed_run(source, first_message_line, first_message);
    return std::nullopt;
  }
  const std::size_t header_line = line;
  if (text.substr(pos, kUtf8Bom.size()) == kUtf8Bom) pos += kUtf8Bom.size();
  CsvScanner rows(text, pos, line);
  Record header;
  rows.next(header);
  const auto has = [&](std::string_view name) {
    return column_of(header.cells, name) != std::string::npos;
  };
  if (!has("Kernel Name")) return std::nullopt;
  NcuReport report;
  report.source = source;
  NcuTableReader reader(source, report);
  if (has("Metric Name") && has("Metric Value")) {
    report.page = NcuPage::details;
    reader.read_details(rows, header.cells);
  } else {
    report.page = NcuPage::raw;
    reader.read_raw(rows, header.cells, header_line);
  }
  return report;
}

NcuReport parse_ncu_csv(std::string_view text, const std::string& source) {
  if (std::optional<NcuReport> report = try_parse_ncu_csv(text, source)) return std::move(*report);
  std::string_view first = text.substr(0, std::min(text.find('\n'), text.size()));
  if (first.substr(0, kUtf8Bom.size()) == kUtf8Bom) first.remove_prefix(kUtf8Bom.size());
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  throw InputError(source +
                   ":1: not an Nsight Compute CSV export: no header line starting with "
                   "\"ID\" and holding a \"Kernel Name\" column (the file starts with '" +
                   std::string(first.substr(0, 60)) +
                   "'); expected the output of ncu --csv (--page details or --page raw), or of "
                   "ncu --import report.ncu-rep --csv");
}

NcuReport load_ncu_csv(const std::string& path) {
  return parse_ncu_csv(read_text_file(path, "Nsight Compute CSV export"), path);
}

namespace {

struct DevicePreset {
  std::string_view display_name;        ///< device__attribute_display_name, as NVIDIA names it
  std::string_view preset;              ///< data/gpus/<preset>.json
  std::string_view compute_capability;  ///< major.minor
};

// The display names of the exact parts the presets describe (SXM boards): a PCIe or NVL part has
// other clocks and bandwidth, so it maps to no preset.
constexpr std::array<DevicePreset, 6> kDevicePresets{{
    {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb", "8.0"},
    {"NVIDIA H100 80GB HBM3", "h100-sxm", "9.0"},
    {"NVIDIA H100 SXM5 80GB", "h100-sxm", "9.0"},
    {"NVIDIA H200", "h200-sxm", "9.0"},
    {"NVIDIA B200", "b200", "10.0"},
    {"AMD Instinct MI300X", "mi300x", ""},  // a Kineto trace's device name; no CUDA capability
}};

}  // namespace

std::optional<std::string> gpu_preset_for_device(std::string_view display_name) {
  for (const DevicePreset& device : kDevicePresets) {
    if (device.display_name == display_name) return std::string(device.preset);
  }
  return std::nullopt;
}

std::optional<std::string> compute_capability_of_preset(std::string_view preset) {
  for (const DevicePreset& device : kDevicePresets) {
    if (device.preset == preset && !device.compute_capability.empty()) {
      return std::string(device.compute_capability);
    }
  }
  return std::nullopt;
}

}  // namespace kspeed::io
