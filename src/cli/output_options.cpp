#include "output_options.hpp"

#include <cmath>
#include <stdexcept>

#include "choice.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::cli {

void add_output_options(CLI::App& command, OutputOptions& options) {
  command.add_option("--format,-f", options.format, "Output format: " + report::format_help())
      ->type_name("FORMAT")
      ->capture_default_str();
  command
      .add_option("-o,--output", options.output_path,
                  "Write the result to FILE instead of stdout (- is stdout); the file is replaced "
                  "atomically, so a failed run keeps the previous one")
      ->type_name("FILE");
  command
      .add_option("--color", options.color,
                  "Colour in text output: auto (on a terminal, unless NO_COLOR is set), "
                  "always, never")
      ->type_name("WHEN")
      ->capture_default_str();
}

report::Format parse_output_format(const OutputOptions& options) {
  if (auto format = report::parse_format(options.format)) {
    return *format;  // the registry also knows aliases (md, ndjson)
  }
  Choices<report::Format> choices;
  for (const std::string& name : report::format_names()) {
    choices.emplace_back(name, *report::parse_format(name));
  }
  return parse_choice(options.format, "--format", "format", choices);
}

bool writes_to_stdout(const OutputOptions& options) {
  return options.output_path.empty() || options.output_path == "-";
}

report::Style output_style(const OutputOptions& options) {
  parse_choice<bool>(options.color, "--color", "value",
                     {{"auto", true}, {"always", true}, {"never", true}});
  report::Style style;
  if (options.color == "always") {
    style.color = true;
  } else if (options.color == "auto") {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    style.color = writes_to_stdout(options) && ::isatty(STDOUT_FILENO) == 1 &&
                  (no_color == nullptr || *no_color == '\0') &&
                  !(term != nullptr && std::string(term) == "dumb");
  }
  return style;
}

void check_output_options(const OutputOptions& options) {
  parse_output_format(options);
  output_style(options);
  if (!writes_to_stdout(options)) {
    io::check_output_path(options.output_path, "-o");
  }
}

namespace {

std::vector<io::StagedOutput>& side_outputs() {
  static std::vector<io::StagedOutput> staged;
  return staged;
}

void commit_side_outputs() {
  for (io::StagedOutput& output : side_outputs()) output.commit();
  side_outputs().clear();
}

}  // namespace

void stage_side_output(const std::string& path, std::string_view flag, std::string_view content) {
  if (path.empty() || path == "-") return;
  side_outputs().emplace_back(path, flag).stage(content);
}

void stage_side_output(const std::string& path, std::string_view flag,
                       const std::function<void(const report::TextSink&)>& produce) {
  if (path.empty() || path == "-") return;
  io::StagedOutput& output = side_outputs().emplace_back(path, flag);
  output.begin();
  produce([&output](std::string_view piece) { output.write(piece); });
  output.end();
}

void discard_side_outputs() {
  side_outputs().clear();
}

void add_plot_option(CLI::App& command, std::string& path, const std::string& what) {
  command.add_option("--plot", path, what + " (a self-contained SVG, written atomically)")
      ->type_name("FILE.svg");
}

void stage_plot(const std::string& path, const std::string& svg) {
  stage_side_output(path, "--plot", svg);
}

void add_title_option(CLI::App& command, std::string& title) {
  command.add_option("--title", title, "With --plot: the chart's title instead of kspeed's")
      ->type_name("TEXT");
}

void check_title_option(const std::string& title, const std::string& plot_path) {
  if (!title.empty() && plot_path.empty()) {
    throw InputError("--title '" + title +
                     "': it titles the --plot chart, and no chart is drawn: add --plot FILE.svg");
  }
}

void write_plot(const std::string& path, const std::string& svg) {
  if (path == "-") std::cout << svg << std::flush;
}

namespace {

// The first number in `value` that is NaN or infinite, by its path ("rows[3].ttft_ms"), or
// empty. An explicit stack: a document's depth costs no recursion. An unbounded figure is
// written as null on purpose (nullptr in the tree); a NaN or an infinity that reaches the
// document is a figure an input pushed out of range, which JSON would print as a silent null.
std::string non_finite_path(const report::ordered_json& root, const std::string& root_name) {
  std::vector<std::pair<const report::ordered_json*, std::string>> pending{{&root, root_name}};
  while (!pending.empty()) {
    const auto [value, path] = pending.back();
    pending.pop_back();
    if (value->is_number_float() && !std::isfinite(value->get<double>())) return path;
    if (value->is_object()) {
      for (auto it = value->begin(); it != value->end(); ++it) {
        pending.emplace_back(&*it, path.empty() ? it.key() : path + "." + it.key());
      }
    } else if (value->is_array()) {
      for (std::size_t i = 0; i < value->size(); ++i) {
        pending.emplace_back(&(*value)[i], path + "[" + std::to_string(i) + "]");
      }
    }
  }
  return {};
}

void check_finite(const report::Document& document) {
  std::string path = non_finite_path(document.tree, "");
  for (std::size_t i = 0; path.empty() && i < document.records.size(); ++i) {
    path = non_finite_path(document.records[i], "record " + std::to_string(i + 1));
  }
  if (!path.empty()) {
    throw std::runtime_error("the result's " + path +
                             " is not a finite number (an input reached arithmetic outside its "
                             "range); nothing was written");
  }
}

}  // namespace

void render_and_emit(const report::Report& report, const OutputOptions& options,
                     const std::string& terminal_extra) {
  check_finite(report.document);
  const report::Format format = parse_output_format(options);
  std::string rendered = report::render(report, format, output_style(options));
  if (format == report::Format::text() && writes_to_stdout(options) &&
      ::isatty(STDOUT_FILENO) == 1) {
    rendered += terminal_extra;
  }
  emit(rendered, options);
  if (!format.for_people() || !writes_to_stdout(options)) {
    for (const std::string& warning : report.view.warnings()) {
      std::cerr << "kspeed: warning: " << warning << "\n";
    }
  }
}

void stream_and_emit(const std::function<void(const report::TextSink&)>& produce,
                     const report::View& view, const OutputOptions& options) {
  if (writes_to_stdout(options)) {
    commit_side_outputs();
    produce([](std::string_view piece) {
      std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    std::cout.flush();
  } else {
    io::StagedOutput output(options.output_path, "-o");
    output.begin();
    produce([&output](std::string_view piece) { output.write(piece); });
    output.end();
    commit_side_outputs();
    output.commit();
  }
  for (const std::string& warning : view.warnings()) {
    std::cerr << "kspeed: warning: " << warning << "\n";
  }
}

void emit(const std::string& rendered, const OutputOptions& options) {
  if (writes_to_stdout(options)) {
    commit_side_outputs();
    std::cout << rendered << std::flush;
  } else {
    io::StagedOutput output(options.output_path, "-o");
    output.stage(rendered);
    commit_side_outputs();
    output.commit();
  }
}

}  // namespace kspeed::cli
