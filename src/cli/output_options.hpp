#pragma once
// --format, -o and --color, shared by every command that prints a result.

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

#include "kspeed/report/record_writer.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::cli {

struct OutputOptions {
  std::string format = "text";
  std::string output_path;  ///< empty or "-": stdout
  std::string color = "auto";
};

/// True when the result goes to stdout: no -o, or -o -.
bool writes_to_stdout(const OutputOptions& options);

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

/// Registers --plot FILE.svg with `what` as its help.
void add_plot_option(CLI::App& command, std::string& path, const std::string& what);
/// Writes the SVG to --plot atomically ('-': stdout, after the report); nothing when not given.
void write_plot(const std::string& path, const std::string& svg);

/// --title TEXT: the --plot chart's title instead of kspeed's (a slide's own words).
void add_title_option(CLI::App& command, std::string& title);

/// --title without --plot names no chart: an InputError saying to add --plot.
void check_title_option(const std::string& title, const std::string& plot_path);

/// Renders the report in the --format and emits it. When the report goes to a file or is for
/// programs (json, csv, jsonl), its warnings also go to stderr, so CI logs show them.
/// `terminal_extra` (a chart) is appended to text read on a terminal only.
void render_and_emit(const report::Report& report, const OutputOptions& options,
                     const std::string& terminal_extra = "");

/// For a format for programs, written as it is produced: `produce` hands its text to the sink
/// in pieces, which go to stdout as they come, or to -o (atomically, once all of it is there).
/// The warnings of `view` then go to stderr, as render_and_emit does.
void stream_and_emit(const std::function<void(const report::TextSink&)>& produce,
                     const report::View& view, const OutputOptions& options);

}  // namespace kspeed::cli
