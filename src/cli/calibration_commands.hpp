#pragma once
// The factories of `kspeed calibrate` and `kspeed validate` (registered in app.cpp's kCommands).

#include <CLI/CLI.hpp>
#include <memory>

#include "command.hpp"

namespace kspeed::cli {

std::unique_ptr<Command> make_calibrate_command(CLI::App& command);
std::unique_ptr<Command> make_validate_command(CLI::App& command);

}  // namespace kspeed::cli
