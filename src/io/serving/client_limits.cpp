// The benchmark client's limits a run's files state (client_limits.hpp): inference-perf's
// config.yaml. Read as indented `key: value` lines, not parsed as YAML (kspeed carries no YAML
// library, engine_arguments.cpp reads manifests the same way): the keys needed are plain scalars
// one level under the top-level `load:` block.
#include "kspeed/io/serving/client_limits.hpp"

#include <charconv>
#include <filesystem>
#include <system_error>

#include "kspeed/io/files.hpp"

namespace kspeed::io {

// Named, not anonymous: the unity build compiles several .cpp files as one.
namespace client_cap_scan {

// inference-perf's default worker_max_concurrency (inference_perf/config/loadgen/config.py,
// LoadConfig.worker_max_concurrency = Field(default=100)).
constexpr std::int64_t kInferencePerfWorkerConcurrency = 100;

struct LoadKey {
  std::string value;
  std::int64_t line = 0;
};

struct LoadBlock {
  std::optional<LoadKey> type, num_workers, worker_max_concurrency;
};

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The scalar after `key:`, without a trailing comment or quotes.
std::string scalar_value(std::string_view rest) {
  if (const std::size_t hash = rest.find(" #"); hash != std::string_view::npos) {
    rest = rest.substr(0, hash);
  }
  rest = trimmed(rest);
  if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'') &&
      rest.back() == rest.front()) {
    rest = rest.substr(1, rest.size() - 2);
  }
  return std::string(rest);
}

// The keys directly under the top-level `load:` (the first indentation seen inside it).
LoadBlock load_block(std::string_view text) {
  LoadBlock block;
  bool inside = false;
  std::size_t child_indent = 0;
  std::int64_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::string_view content = trimmed(line);
    if (content.empty() || content.front() == '#') continue;
    const std::size_t indent = line.find_first_not_of(" \t");
    if (indent == 0) {
      const std::size_t colon = content.find(':');
      inside = colon != std::string_view::npos && content.substr(0, colon) == "load" &&
               trimmed(content.substr(colon + 1)).empty();
      child_indent = 0;
      continue;
    }
    if (!inside) continue;
    if (child_indent == 0) child_indent = indent;
    if (indent != child_indent) continue;  // deeper: a nested block (sweep:, stages:)
    const std::size_t colon = content.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trimmed(content.substr(0, colon));
    LoadKey value{scalar_value(content.substr(colon + 1)), line_number};
    if (key == "type") block.type = value;
    if (key == "num_workers") block.num_workers = value;
    if (key == "worker_max_concurrency") block.worker_max_concurrency = value;
  }
  return block;
}

std::optional<std::int64_t> positive_count(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

}  // namespace client_cap_scan

StatedClientCap scan_inference_perf_client_cap(std::string_view config_yaml,
                                               const std::string& file) {
  using namespace client_cap_scan;
  const LoadBlock load = load_block(config_yaml);
  StatedClientCap cap;
  const std::string type = load.type ? load.type->value : "constant";
  if (type != "constant" && type != "poisson") {
    cap.why_not = file + " states load.type " + type +
                  ": not an open loop at a rate, so num_workers × worker_max_concurrency is not "
                  "the cap the replay applies";
    return cap;
  }
  const std::optional<std::int64_t> workers =
      load.num_workers ? positive_count(load.num_workers->value) : std::nullopt;
  if (!workers) {
    cap.why_not = file +
                  " states no whole load.num_workers (inference-perf's default is the client "
                  "machine's CPU count, which the run does not record), so its in-flight cap "
                  "num_workers × worker_max_concurrency is not known";
    return cap;
  }
  std::int64_t per_worker = kInferencePerfWorkerConcurrency;
  std::string per_worker_where = "inference-perf's default";
  if (load.worker_max_concurrency) {
    const std::optional<std::int64_t> stated = positive_count(load.worker_max_concurrency->value);
    if (!stated) {
      cap.why_not = file + ":" + std::to_string(load.worker_max_concurrency->line) +
                    ": load.worker_max_concurrency '" + load.worker_max_concurrency->value +
                    "' is not a whole number above 0";
      return cap;
    }
    per_worker = *stated;
    per_worker_where = "line " + std::to_string(load.worker_max_concurrency->line);
  }
  cap.max_inflight = *workers * per_worker;
  cap.where = file + ": num_workers " + std::to_string(*workers) + " (line " +
              std::to_string(load.num_workers->line) + ") × worker_max_concurrency " +
              std::to_string(per_worker) + " (" + per_worker_where + ")";
  return cap;
}

StatedClientCap read_inference_perf_client_cap(const std::string& folder) {
  const std::filesystem::path path = std::filesystem::path(folder) / "config.yaml";
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    StatedClientCap cap;
    cap.why_not = "no config.yaml beside the stages in " + folder +
                  " (inference-perf's run configuration: load.num_workers × "
                  "load.worker_max_concurrency caps the requests in flight)";
    return cap;
  }
  return scan_inference_perf_client_cap(read_text_file(path.string(), "inference-perf config"),
                                        path.filename().string());
}

}  // namespace kspeed::io
