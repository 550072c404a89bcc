#pragma once
// One run of a file that holds several, by the name `kspeed audit` prints for it: FILE:LINE for
// an SGLang bench_serving JSONL line, FILE:benchmarks[i] for a GuideLLM sweep's benchmark.

#include <optional>
#include <string>

#include "kspeed/io/bench_result.hpp"

namespace kspeed::cli {

/// The run `name` names when it is not a file but FILE:RUN with FILE an existing file; nullopt
/// when `name` is a path (or FILE does not exist). Throws InputError when FILE holds no run of
/// that name, listing the names it has.
std::optional<io::BenchResult> named_run(const std::string& name);

}  // namespace kspeed::cli
