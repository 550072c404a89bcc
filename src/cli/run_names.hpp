#pragma once
// One run of a file that holds several, by the name `kspeed audit` prints for it: FILE:LINE for
// an SGLang bench_serving JSONL line, FILE:benchmarks[i] for a GuideLLM sweep's benchmark; or by
// its place in the file (--run N); or every run of the file, as a series.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/io/bench_result.hpp"

namespace kspeed::cli {

/// The run `name` names when it is not a file but FILE:RUN with FILE an existing file; nullopt
/// when `name` is a path (or FILE does not exist). Throws InputError when FILE holds no run of
/// that name, listing the names it has.
std::optional<io::BenchResult> named_run(const std::string& name);

/// Whether `name` is FILE:RUN (FILE an existing file, `name` itself not a path): a run's name.
bool names_a_run(const std::string& name);

/// Adds --run N to `command` (diff, plan, audit): the Nth run of each multi-run file.
void add_run_option(CLI::App& command, std::string& run);

/// --run's value: nullopt when not given; else a whole number from 1. Throws InputError.
std::optional<std::int64_t> parse_run_number(const std::string& text);

/// The runs `path` stands for: the one a FILE:RUN name names; else every run of the file, in
/// file order (an SGLang JSONL one a line, a GuideLLM sweep one per benchmark), or with `run`
/// the Nth alone (from 1). Throws InputError when the file holds fewer than N runs, or when
/// both a FILE:RUN name and --run pick one.
std::vector<io::BenchResult> runs_of(const std::string& path, std::optional<std::int64_t> run);

/// `results`, read from `path`, or with `run` the Nth alone; throws InputError as runs_of.
std::vector<io::BenchResult> select_run(std::vector<io::BenchResult> results,
                                        const std::string& path, std::optional<std::int64_t> run);

}  // namespace kspeed::cli
