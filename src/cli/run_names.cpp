// FILE:RUN names of one run in a multi-run file, and --run N (run_names.hpp).
#include "run_names.hpp"

#include <filesystem>
#include <vector>

#include "kspeed/error.hpp"

namespace kspeed::cli {

bool names_a_run(const std::string& name) {
  std::error_code error;
  if (std::filesystem::exists(name, error)) return false;
  const std::size_t colon = name.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == name.size()) return false;
  return std::filesystem::is_regular_file(name.substr(0, colon), error);
}

std::optional<io::BenchResult> named_run(const std::string& name) {
  if (!names_a_run(name)) return std::nullopt;
  const std::string file = name.substr(0, name.rfind(':'));
  std::vector<io::BenchResult> results = io::read_bench_results(file);
  std::string names;
  for (io::BenchResult& result : results) {
    if (result.source == name) return std::move(result);
    names += (names.empty() ? "" : ", ") + result.source;
  }
  throw InputError(name + ": " + file + " holds no run named so; its runs are " + names +
                   " (the names kspeed audit " + file + " prints)");
}

void add_run_option(CLI::App& command, std::string& run) {
  command
      .add_option("--run", run,
                  "Benchmark results: of a file that holds several runs (SGLang bench_serving "
                  "JSONL, one a line; a GuideLLM sweep; AccelMark load levels), read the Nth "
                  "alone (from 1; kspeed audit FILE lists them)")
      ->type_name("N");
}

std::optional<std::int64_t> parse_run_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 1) {
    throw InputError("--run: '" + text +
                     "' is not a run number: expected a whole number from 1 (the first run of "
                     "the file; kspeed audit FILE lists its runs in order)");
  }
  return value;
}

std::vector<io::BenchResult> runs_of(const std::string& path, std::optional<std::int64_t> run) {
  if (std::optional<io::BenchResult> named = named_run(path)) {
    if (run) {
      throw InputError(path + " names one run already: drop --run " + std::to_string(*run) +
                       ", or give the file alone with --run");
    }
    std::vector<io::BenchResult> one;
    one.push_back(std::move(*named));
    return one;
  }
  return select_run(io::read_bench_results(path), path, run);
}

std::vector<io::BenchResult> select_run(std::vector<io::BenchResult> results,
                                        const std::string& path, std::optional<std::int64_t> run) {
  if (!run) return results;
  if (static_cast<std::size_t>(*run) > results.size()) {
    throw InputError("--run " + std::to_string(*run) + ": " + path + " holds " +
                     std::to_string(results.size()) + (results.size() == 1 ? " run" : " runs") +
                     ": give a run from 1 to " + std::to_string(results.size()) +
                     " (kspeed audit " + path + " lists them)");
  }
  std::vector<io::BenchResult> one;
  one.push_back(std::move(results[static_cast<std::size_t>(*run - 1)]));
  return one;
}

}  // namespace kspeed::cli
