#pragma once
// Hidden commands that describe kspeed's own command line, from the same CLI11 definitions as
// --help: `kspeed completions bash|zsh|fish` (a completion script) and `kspeed man` (a man page
// in roff). The build runs them to make the files `cmake --install` puts in share/.

#include <memory>

#include "command.hpp"

namespace kspeed::cli {

/// The names cli::run gives these commands; when one is requested, every command registers
/// its flags so the whole tree can be walked.
inline constexpr const char* kCompletionsCommand = "completions";
inline constexpr const char* kManCommand = "man";

std::unique_ptr<Command> make_completions_command(CLI::App& command);
std::unique_ptr<Command> make_man_command(CLI::App& command);

}  // namespace kspeed::cli
