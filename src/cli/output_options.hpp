#pragma once
// --format, -o and --color, shared by every command that prints a result.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "kspeed/report/render.hpp"

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

/// Fails early (before any work) on an unknown --format or --color, or when -o points into a
/// folder that does not exist.
void check_output_options(const OutputOptions& options);

/// Writes the finished text to -o (atomically) or to stdout. Called once, after all rendering
/// succeeded, so an error never leaves half a document behind.
void emit(const std::string& rendered, const OutputOptions& options);

/// Renders the report in the --format and emits it. When the report goes to a file or is for
/// programs (json, csv, jsonl), its warnings also go to stderr, so CI logs show them.
void render_and_emit(const report::Report& report, const OutputOptions& options);

}  // namespace kspeed::cli
