#pragma once
// --help for people: lines wrapped to the terminal, and a command's many options in groups
// (deployment, change, load, output) rather than one list.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <string>

namespace kspeed::cli {

/// The width --help wraps to: COLUMNS when it holds a number from 40 to 1,000, else the
/// terminal's when stdout is one, else 100.
std::size_t help_width();

/// `text` with every line longer than `width` broken at spaces; a continuation is indented to
/// the line's description column (an option's help) or its own indent plus 2.
std::string wrap_help(const std::string& text, std::size_t width, std::size_t column);

/// CLI11's formatter with its output wrapped to help_width().
std::shared_ptr<CLI::Formatter> wrapping_formatter();

/// Puts `command`'s options into the named groups --help prints as sections ("Deployment",
/// "Change", "Load", "Output"), by name; options without a group stay under "Options".
void group_options(CLI::App& command);

}  // namespace kspeed::cli
