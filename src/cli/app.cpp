#include "kspeed/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "command.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::cli {

std::string exit_codes_help() {
  return "\nExit codes:\n"
         "  0  success\n"
         "  1  a --min-* gate was not met (stderr says which, and by how much)\n"
         "  2  bad usage or bad input (stderr says what, where, and the fix); nothing is "
         "written\n"
         "  3  internal error (a bug in kspeed: please report it)\n";
}

namespace {

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      names.push_back("--" + name);
    }
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return names;
}

// The deepest subcommand the user named, e.g. "workloads show".
CLI::App* active_command(CLI::App& app) {
  CLI::App* current = &app;
  for (bool descended = true; descended;) {
    descended = false;
    for (CLI::App* sub : current->get_subcommands()) {
      current = sub;
      descended = true;
      break;
    }
  }
  return current;
}

// CLI11 is told to keep what it does not know, so kspeed can name it with a suggestion.
void reject_extras(CLI::App& command) {
  const std::vector<std::string> extras = command.remaining();
  if (extras.empty()) {
    return;
  }
  const std::string& word = extras.front();
  const std::string where =
      command.get_parent() == nullptr ? std::string("kspeed") : "kspeed " + command.get_name();
  if (word.starts_with("-")) {
    const std::string flag = word.substr(0, word.find('='));
    throw InputError(where + ": unknown option '" + flag + "'" +
                     io::suggestion_suffix(flag, option_names(command)) + " (see " + where +
                     " --help)");
  }
  const std::vector<std::string> subs = subcommand_names(command);
  throw InputError(where + ": unexpected argument '" + word + "'" +
                   (subs.empty() ? std::string() : io::suggestion_suffix(word, subs)) + " (see " +
                   where + " --help)");
}

void allow_extras_everywhere(CLI::App& app) {
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({})) {
    allow_extras_everywhere(*sub);
  }
}

int run_parsed(CLI::App& app, const std::vector<std::unique_ptr<Command>>& commands) {
  CLI::App& active = *active_command(app);
  reject_extras(active);
  for (const auto& command : commands) {
    if (command->app().parsed()) {
      return command->execute();
    }
  }
  throw InputError(
      "a command is required: kspeed estimate, kspeed workloads, kspeed profile, kspeed "
      "roofline, kspeed gpus, kspeed models (see kspeed --help)");
}

}  // namespace

int run(int argc, const char* const* argv) {
  CLI::App app{
      "kspeed: what is this kernel speedup worth to my users?\n"
      "Follows an attention-kernel speedup through attention's share of prefill and "
      "decode to the whole request.",
      "kspeed"};
  app.set_version_flag("--version", KSPEED_VERSION);
  app.footer(
      "\nStart with:\n  kspeed estimate --ctx 128k --kernel-speedup 2\n"
      "  kspeed estimate --help\n" +
      exit_codes_help());
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(make_estimate_command(app));
  commands.push_back(make_workloads_command(app));
  commands.push_back(make_profile_command(app));
  commands.push_back(make_roofline_command(app));
  commands.push_back(make_gpus_command(app));
  commands.push_back(make_models_command(app));
  allow_extras_everywhere(app);
  try {
    app.parse(argc, argv);
    return run_parsed(app, commands);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {
      return app.exit(error);  // --help, --version
    }
    std::cerr << "kspeed: error: " << error.what() << " (see kspeed --help)\n";
    return kExitBadInput;
  } catch (const InputError& error) {
    std::cerr << "kspeed: error: " << error.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    std::cerr << "kspeed: internal error: " << error.what()
              << " (this is a bug in kspeed; please report it with the command line)\n";
    return kExitInternal;
  }
}

}  // namespace kspeed::cli
