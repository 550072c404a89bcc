#pragma once
// --format, -o and --color, shared by every command that prints a result.

#include <CLI/CLI.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "kspeed/report/reporter.hpp"

namespace kspeed::cli {

struct OutputOptions {
  std::string format = "text";
  std::string output_path;  ///< empty: stdout
  std::string color = "auto";
};

/// Registers --format, -o/--output and --color on `command`.
void add_output_options(CLI::App& command, OutputOptions& options);

/// The parsed --format; InputError with did-you-mean for an unknown one.
report::Format parse_output_format(const OutputOptions& options);

/// Colour when --color always, or auto on a terminal stdout with NO_COLOR unset and no -o.
report::Style output_style(const OutputOptions& options);

/// Fails early (before any work) when -o points into a folder that does not exist.
void check_output_destination(const OutputOptions& options);

/// Writes the finished text to -o (atomically) or to stdout. Called once, after all rendering
/// succeeded, so an error never leaves half a document behind.
void emit(const std::string& rendered, const OutputOptions& options);

/// Renders `result` with `reporter` and emits it.
template <class Result>
void render_and_emit(const report::Reporter<Result>& reporter, const Result& result,
                     const OutputOptions& options) {
  std::ostringstream buffer;
  reporter.write(result, buffer);
  emit(buffer.str(), options);
}

}  // namespace kspeed::cli
