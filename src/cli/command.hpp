#pragma once
// A subcommand: registers its flags on construction, runs after a successful parse.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace kspeed::cli {

class Command {
 public:
  Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  virtual ~Command() = default;

  /// The CLI11 subcommand this command registered.
  virtual CLI::App& app() = 0;
  /// Runs the command; returns the exit code. Throws InputError for bad input.
  virtual int execute() = 0;
};

// Each factory adds its flags to `command`, the subcommand cli::run created with the name and
// summary of kCommands (app.cpp).
std::unique_ptr<Command> make_estimate_command(CLI::App& command);
std::unique_ptr<Command> make_sweep_command(CLI::App& command);
std::unique_ptr<Command> make_workloads_command(CLI::App& command);
std::unique_ptr<Command> make_profile_command(CLI::App& command);
std::unique_ptr<Command> make_roofline_command(CLI::App& command);
std::unique_ptr<Command> make_mix_command(CLI::App& command);
std::unique_ptr<Command> make_gpus_command(CLI::App& command);
std::unique_ptr<Command> make_models_command(CLI::App& command);
std::unique_ptr<Command> make_diff_command(CLI::App& command);
std::unique_ptr<Command> make_audit_command(CLI::App& command);
std::unique_ptr<Command> make_plan_command(CLI::App& command);
std::unique_ptr<Command> make_kv_layouts_command(CLI::App& command);

/// Marks the end of one group of a command's flags. CLI11 checks each new option's names
/// against every option already on the command, copying name lists as it goes: quadratic in the
/// command's options, and 28% of a bare `kspeed estimate`'s instructions. Between groups the
/// command (created by cli::run) sets its options aside, so each group is checked only within
/// itself; they are back in order before parsing. Every name is still checked against every
/// other when all commands register at once (`kspeed completions`, `kspeed man`, which every
/// build runs), so a duplicate cannot slip through.
void end_flag_group(CLI::App& command);

/// Which exit codes a command's --help lists: exit 1 exists only where a command has gates
/// (estimate's --min-*, audit's --require-comparable).
enum class ExitCodes { without_gates, with_gates, all_commands, not_comparable };

/// The exit-code table printed at the end of every --help.
std::string exit_codes_help(ExitCodes codes = ExitCodes::without_gates);

}  // namespace kspeed::cli
