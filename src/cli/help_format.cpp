// --help wrapped to the terminal and options in groups (help_format.hpp).
#include "help_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

namespace kspeed::cli {

namespace {

constexpr std::size_t kDefaultWidth = 100;
constexpr std::size_t kDescriptionColumn = 30;  // CLI11's column_width

// The characters of `line` as the terminal shows them: UTF-8 continuation bytes take no column.
std::size_t display_width(const std::string& line) {
  std::size_t columns = 0;
  for (const char c : line) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++columns;
  }
  return columns;
}

// The byte offset where `line`'s display column `column` starts.
std::size_t byte_at_column(const std::string& line, std::size_t column) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0U) != 0x80U) {
      if (columns == column) return i;
      ++columns;
    }
  }
  return line.size();
}

// The order groups are printed in: CLI11's own ("Options"), then what is served, what changes,
// the load, and what is written.
int group_rank(const std::string& group) {
  static const std::array<const char*, 5> kOrder = {"Options", "Deployment", "Change", "Load",
                                                    "Output"};
  for (std::size_t i = 0; i < kOrder.size(); ++i) {
    if (group == kOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(kOrder.size());
}

class WrappingFormatter final : public CLI::Formatter {
 public:
  // CLI11's make_groups (not virtual in 2.1) with the groups in group_rank's order rather than
  // in order of first use.
  std::string ordered_groups(const CLI::App* app, CLI::AppFormatMode mode) const {
    std::vector<std::string> groups = app->get_groups();
    std::stable_sort(groups.begin(), groups.end(), [](const std::string& a, const std::string& b) {
      return group_rank(a) < group_rank(b);
    });
    std::string out;
    for (const std::string& group : groups) {
      const std::vector<const CLI::Option*> options =
          app->get_options([app, mode, &group](const CLI::Option* option) {
            return option->get_group() == group && option->nonpositional() &&
                   (mode != CLI::AppFormatMode::Sub ||
                    (app->get_help_ptr() != option && app->get_help_all_ptr() != option));
          });
      if (group.empty() || options.empty()) continue;
      out += make_group(group, false, options);  // each starts with a blank line
    }
    return out;
  }

  // CLI11's make_help (Formatter.hpp) with ordered_groups, wrapped to the terminal.
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string out;
    if (app->get_name().empty() && app->get_parent() != nullptr &&
        app->get_group() != "Subcommands") {
      out += app->get_group() + ':';
    }
    out += make_description(app) + make_usage(app, std::move(name)) + make_positionals(app) +
           ordered_groups(app, mode) + make_subcommands(app, mode) + '\n' + make_footer(app);
    return wrap_help(out, help_width(), get_column_width());
  }
};

// The group of each option of the commands with many (estimate, sweep, mix, roofline), by its
// first long name. Options not listed stay under "Options".
const std::map<std::string, const char*>& option_groups() {
  static const std::map<std::string, const char*> groups = {
      // The deployment: what serves the requests, and its measured latencies.
      {"model", "Deployment"},
      {"gpu", "Deployment"},
      {"batch", "Deployment"},
      {"tp", "Deployment"},
      {"ep", "Deployment"},
      {"deployment", "Deployment"},
      {"kv-dtype", "Deployment"},
      {"precision", "Deployment"},
      {"kv-layout", "Deployment"},
      {"spec-tokens", "Deployment"},
      {"spec-accept", "Deployment"},
      {"link-bandwidth", "Deployment"},
      {"calibrate", "Deployment"},
      {"calibrate-concurrency", "Deployment"},
      {"calibrate-warmup", "Deployment"},
      {"gpu-memory-utilization", "Deployment"},
      {"vllm-version", "Deployment"},
      {"workload", "Deployment"},
      {"step-model", "Deployment"},
      {"scheduler", "Deployment"},
      {"max-batched-tokens", "Deployment"},
      {"prefill-batch", "Deployment"},
      {"max-seqs", "Deployment"},
      {"chunked-prefill", "Deployment"},
      {"kv-blocks", "Deployment"},
      {"block-size", "Deployment"},
      {"request-overhead", "Deployment"},
      {"peak-tflops", "Deployment"},
      {"bandwidth-tbs", "Deployment"},
      {"ttft", "Deployment"},
      {"ttft-point", "Deployment"},
      {"ttft-overhead", "Deployment"},
      {"tpot", "Deployment"},
      {"tpot-point", "Deployment"},
      {"prefix-cache", "Deployment"},
      {"prefix-cache-hit", "Deployment"},
      // The change: the kernel and what it touches.
      {"kernel-speedup", "Change"},
      {"kernel-speedup-table", "Change"},
      {"phase", "Change"},
      {"share", "Change"},
      {"decode-share", "Change"},
      {"share-model", "Change"},
      {"extrapolate", "Change"},
      {"compute-speedup", "Change"},
      {"bytes-reduction", "Change"},
      {"bandwidth-efficiency", "Change"},
      {"compute-efficiency", "Change"},
      {"ncu", "Change"},
      {"kernel", "Change"},
      {"launch", "Change"},
      {"mma-shape", "Change"},
      // The load: the requests and how they arrive.
      {"ctx", "Load"},
      {"response-tokens", "Load"},
      {"replay", "Load"},
      {"replicas", "Load"},
      {"routing", "Load"},
      {"rate-scale", "Load"},
      {"concurrency", "Load"},
      {"arrivals", "Load"},
      {"rate", "Load"},
      {"prompt-tokens", "Load"},
      {"output-tokens", "Load"},
      {"requests", "Load"},
      {"duration", "Load"},
      {"seed", "Load"},
      {"max-inflight", "Load"},
      {"think-time", "Load"},
      {"session-turns", "Load"},
      {"slo-ttft", "Load"},
      {"slo-tpot", "Load"},
      {"attainment", "Load"},
      {"disagg", "Load"},
      {"kv-link", "Load"},
      {"prefill-gpu", "Load"},
      {"prefill-tp", "Load"},
      {"decode-gpu", "Load"},
      {"decode-tp", "Load"},
      {"points", "Load"},
      {"ai", "Load"},
      {"columns", "Load"},
      {"run", "Load"},
      // The output: what is written, where, and the gates on it.
      {"format", "Output"},
      {"output", "Output"},
      {"plot", "Output"},
      {"title", "Output"},
      {"plot-x", "Output"},
      {"color", "Output"},
      {"per-request", "Output"},
      {"percentiles", "Output"},
      {"by", "Output"},
      {"no-chart", "Output"},
      {"strict", "Output"},
      {"fail-on", "Output"},
      {"min-request-speedup", "Output"},
      {"min-prefill-speedup", "Output"}};
  return groups;
}

}  // namespace

std::size_t help_width() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value >= 40 && value <= 1000) {
      return static_cast<std::size_t>(value);
    }
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) != 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col >= 40) {
    return size.ws_col;
  }
  return kDefaultWidth;
}

std::string wrap_help(const std::string& text, std::size_t width, std::size_t column) {
  std::ostringstream out;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (!first) out << '\n';
    first = false;
    if (display_width(line) <= width) {
      out << line;
      continue;
    }
    // An option's row: two spaces, its names, and its help from the description column.
    const std::size_t lead = line.find_first_not_of(' ');
    const std::size_t at = byte_at_column(line, column);
    const bool option_row =
        lead == 2 && at < line.size() && at > 0 && line[at - 1] == ' ' && line[at] != ' ';
    const std::size_t indent = option_row ? column : (lead == std::string::npos ? 0 : lead + 2);
    std::string rest = line;
    bool continuation = false;
    while (display_width(rest) > width) {
      // The last space at or before the width, past the indent; none: the first after it.
      const std::size_t limit = byte_at_column(rest, width);
      std::size_t cut = rest.rfind(' ', limit);
      const std::size_t start_col = continuation ? indent : (lead == std::string::npos ? 0 : lead);
      // A line never starts with a dash: a continuation that began "--flag" would read as an
      // option of its own (and scripts that list a command's options from --help would count it).
      for (std::size_t earlier = cut; earlier != std::string::npos && earlier > start_col;) {
        const std::size_t word = rest.find_first_not_of(' ', earlier);
        if (word == std::string::npos || rest[word] != '-') {
          cut = earlier;
          break;
        }
        earlier = earlier == 0 ? std::string::npos : rest.rfind(' ', earlier - 1);
      }
      bool at_comma = false;
      if (cut == std::string::npos || cut <= start_col) {
        // A long word (a list like a=..,b=..): break after its last comma that fits.
        const std::size_t comma = rest.rfind(',', limit - 1);
        if (comma != std::string::npos && comma > start_col) {
          cut = comma + 1;
          at_comma = true;
        } else {
          cut = rest.find(' ', limit);
        }
      }
      if (cut == std::string::npos) break;
      std::size_t end = cut;
      while (!at_comma && end > 0 && rest[end - 1] == ' ') --end;
      out << rest.substr(0, end) << '\n';
      const std::size_t next = rest.find_first_not_of(' ', cut);
      rest = std::string(indent, ' ') + (next == std::string::npos ? "" : rest.substr(next));
      continuation = true;
    }
    out << rest;
  }
  if (!text.empty() && text.back() == '\n') out << '\n';
  return out.str();
}

std::shared_ptr<CLI::Formatter> wrapping_formatter() {
  auto formatter = std::make_shared<WrappingFormatter>();
  formatter->column_width(kDescriptionColumn);
  return formatter;
}

void group_options(CLI::App& command) {
  const std::string name = command.get_name();
  if (name != "estimate" && name != "sweep" && name != "mix" && name != "roofline") return;
  for (CLI::Option* option : command.get_options()) {
    if (option->get_lnames().empty()) continue;
    const auto group = option_groups().find(option->get_lnames().front());
    if (group != option_groups().end()) option->group(group->second);
  }
}

}  // namespace kspeed::cli
