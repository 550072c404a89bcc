#pragma once
// --format, -o and --color, shared by every command that prints a result.

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

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

/// A file a command writes besides its report (--plot, --per-request, --emit-workload): its
/// content goes to a temporary file now, and it replaces the target when the report is emitted,
/// before a byte of the report reaches stdout (or before -o is replaced). A run that fails on
/// any output thus prints nothing and replaces nothing. Nothing happens for an empty path; "-"
/// is not a file (see write_plot).
void stage_side_output(const std::string& path, std::string_view flag, std::string_view content);
/// The same with the content handed to the sink in pieces, written to the temporary file as they
/// come (a `--per-request` file of a million requests is never held whole).
void stage_side_output(const std::string& path, std::string_view flag,
                       const std::function<void(const report::TextSink&)>& produce);
/// Removes the temporary files of side outputs never committed (the run failed).
void discard_side_outputs();

/// Registers --plot FILE.svg with `what` as its help.
void add_plot_option(CLI::App& command, std::string& path, const std::string& what);
/// Stages the SVG for --plot (stage_side_output); nothing when not given or '-'. Called before
/// the report is emitted.
void stage_plot(const std::string& path, const std::string& svg);
/// For --plot -: the SVG on stdout, after the report. Nothing for a file (staged already).
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

/// As render_and_emit, building only what the --format reads: the view always (it holds the
/// warnings), the document (a JSON tree, larger than the table it feeds) only for json, csv and
/// jsonl. A text report's memory is then what it shows, not a JSON copy of every input record.
template <class Result>
void render_and_emit(const Result& result, report::View (*view)(const Result&),
                     report::Document (*document)(const Result&), const OutputOptions& options,
                     const std::string& terminal_extra = "") {
  const bool document_read = !parse_output_format(options).for_people();
  render_and_emit(
      report::Report{view(result), document_read ? document(result) : report::Document{}}, options,
      terminal_extra);
}

/// For a format for programs, written as it is produced: `produce` hands its text to the sink
/// in pieces, which go to stdout as they come, or to -o (atomically, once all of it is there).
/// The warnings of `view` then go to stderr, as render_and_emit does.
void stream_and_emit(const std::function<void(const report::TextSink&)>& produce,
                     const report::View& view, const OutputOptions& options);

}  // namespace kspeed::cli
