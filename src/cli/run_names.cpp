// FILE:RUN names of one run in a multi-run file (run_names.hpp).
#include "run_names.hpp"

#include <filesystem>
#include <vector>

#include "kspeed/error.hpp"

namespace kspeed::cli {

std::optional<io::BenchResult> named_run(const std::string& name) {
  std::error_code error;
  if (std::filesystem::exists(name, error)) return std::nullopt;
  const std::size_t colon = name.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == name.size()) return std::nullopt;
  const std::string file = name.substr(0, colon);
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  std::vector<io::BenchResult> results = io::read_bench_results(file);
  std::string names;
  for (io::BenchResult& result : results) {
    if (result.source == name) return std::move(result);
    names += (names.empty() ? "" : ", ") + result.source;
  }
  throw InputError(name + ": " + file + " holds no run named so; its runs are " + names +
                   " (the names kspeed audit " + file + " prints)");
}

}  // namespace kspeed::cli
