#include "kspeed/cli/app.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <iterator>
#include <new>

#include "calibration_commands.hpp"
#include "command.hpp"
#include "completions_command.hpp"
#include "help_format.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/report/wording.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

std::string exit_codes_help(ExitCodes codes) {
  std::string gates;
  if (codes == ExitCodes::with_gates) {
    gates = "  1  a --min-* gate was not met (stderr says which, and by how much)\n";
  } else if (codes == ExitCodes::not_comparable) {
    gates =
        "  1  --require-comparable: the files are not comparable (the output names the "
        "conditions that differ)\n";
  } else if (codes == ExitCodes::all_commands) {
    gates =
        "  1  kspeed estimate: a --min-* gate was not met; kspeed audit "
        "--require-comparable: the files are not comparable\n";
  }
  return "\nExit codes:\n"
         "  0  success\n" +
         gates +
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
  // Hidden commands (completions, man: an empty group) are not suggested.
  for (const CLI::App* sub : command.get_subcommands(
           [](const CLI::App* candidate) { return !candidate->get_group().empty(); })) {
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

// A command's CLI11 app, which can set its registered options aside between flag groups
// (end_flag_group, command.hpp) and put them back, in order, before parsing. A class of CLI11's
// App because the options are its protected member.
class CommandApp final : public CLI::App {
 public:
  CommandApp(std::string summary, std::string name, CLI::App* parent, bool check_every_name)
      : CLI::App(std::move(summary), std::move(name), parent),
        check_every_name_(check_every_name) {}

  void set_aside() {
    if (check_every_name_) return;  // CLI11 compares each name with every other
    for (CLI::Option_p& option : options_) aside_.push_back(std::move(option));
    options_.clear();
  }

  void restore() {
    if (aside_.empty()) return;
    for (CLI::Option_p& option : options_) aside_.push_back(std::move(option));
    options_ = std::move(aside_);
    aside_.clear();
  }

 private:
  bool check_every_name_;
  std::vector<CLI::Option_p> aside_;  ///< the earlier groups' options, in registration order
};

// Every command kspeed has, in --help order.
struct CommandEntry {
  const char* name;
  const char* summary;
  std::unique_ptr<Command> (*make)(CLI::App& command);
  bool hidden = false;  ///< left out of --help and suggestions (tools for packagers)
};

const CommandEntry kCommands[] = {
    {"estimate",
     "What a kernel speedup is worth: the dilution chain from the attention kernel to the phase "
     "to the request",
     make_estimate_command},
    {"sweep",
     "The estimate over ranges and lists of its inputs (context, kernel speedup, batch, share, "
     "response length, levers): one row per combination, a table, CSV, JSON or a chart",
     make_sweep_command},
    {"profile",
     "Measure attention's share of GPU time per phase (prefill, decode, mixed) from profiler "
     "traces",
     make_profile_command},
    {"roofline",
     "Where one attention kernel sits on a GPU's roofline, and what faster arithmetic, fewer "
     "bytes or more bandwidth are worth on it",
     make_roofline_command},
    {"mix",
     "What a kernel speedup is worth over a request log: TTFT/TPOT/E2E percentiles before and "
     "after, prefix caching, queues and goodput",
     make_mix_command},
    {"calibrate",
     "Fit a deployment's step model to runs measured on it and write the deployment file that "
     "--deployment reads",
     make_calibrate_command},
    {"validate",
     "Fit the replay on chosen load levels of a measured run and predict every other level: "
     "measured vs predicted TTFT, TPOT, E2E and throughput, each error",
     make_validate_command},
    {"diff",
     "Before and after: two traces (kspeed's predicted phase speedup beside the measured one) "
     "or two benchmark results (latency changes with confidence intervals)",
     make_diff_command},
    {"audit",
     "Which of the ten conditions each benchmark result states, and whether results are "
     "comparable",
     make_audit_command},
    {"plan",
     "Before an A/B: the smallest change a benchmark can detect, and the requests or runs "
     "needed to see a predicted effect",
     make_plan_command},
    {"workloads", "List the built-in workloads, or print one", make_workloads_command},
    {"gpus", "List the built-in GPU presets, or print one", make_gpus_command},
    {"models", "List the built-in model presets, or print one", make_models_command},
    {"kv-layouts", "List the KV cache layouts --kv-layout takes (block scales included)",
     make_kv_layouts_command},
    {kCompletionsCommand, "Print a shell completion script (bash, zsh, fish)",
     make_completions_command, true},
    {kManCommand, "Print the man page (roff)", make_man_command, true},
};

// The command word: kspeed takes no options before it, so it is the first argument.
std::string requested_command(int argc, const char* const* argv) {
  return argc > 1 ? std::string(argv[1]) : std::string();
}

// Only the requested command registers its flags: one estimate is dominated by process start,
// and registering every command's options with CLI11 would double the work before main's real
// job. The others are bare subcommands, enough for --help and did-you-mean.
// `kspeed completions` and `kspeed man` describe every command, so all of them register then.
std::vector<std::unique_ptr<Command>> add_commands(CLI::App& app, const std::string& requested) {
  const bool describe_all = requested == kCompletionsCommand || requested == kManCommand;
  // A command named exactly needs no siblings: they serve `kspeed --help` and the did-you-mean
  // of a mistyped command, and registering all thirteen is a tenth of a bare estimate's work.
  const bool named =
      std::any_of(std::begin(kCommands), std::end(kCommands),
                  [&](const CommandEntry& entry) { return requested == entry.name; });
  std::vector<std::unique_ptr<Command>> commands;
  for (const CommandEntry& entry : kCommands) {
    if (named && !describe_all && requested != entry.name) continue;
    auto owned = std::make_shared<CommandApp>(entry.summary, entry.name, &app, describe_all);
    CommandApp& command = *owned;
    app.add_subcommand(std::move(owned));
    if (entry.hidden) {
      command.group("");
    }
    if (describe_all || requested == entry.name) {
      commands.push_back(entry.make(command));
      command.restore();
      // The accepted ranges of the command's ranged flags, from io's one table.
      if (const std::string ranges = io::ranges_help(option_names(command)); !ranges.empty()) {
        command.footer(command.get_footer() + ranges);
      }
      group_options(command);
    }
  }
  return commands;
}

// `--ctx ''` is a mistake (an unset shell variable, most often), not "use the default": every
// option that takes a value refuses an empty one, naming the flag.
void reject_empty_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_type_size() == 0 || option->count() == 0) continue;  // a switch, or unused
    for (const std::string& value : option->results()) {
      if (value.empty()) {
        const std::string name = !option->get_lnames().empty()
                                     ? "--" + option->get_lnames().front()
                                     : "the " + option->get_name() + " argument";
        throw InputError(name +
                         ": the value is empty: give one, or leave the option out to use the "
                         "default");
      }
    }
  }
}

// The options that name a file kspeed writes; every other value that names an existing file
// (a positional log, --workload, --ncu, ...) is an input.
bool names_output(const CLI::Option& option) {
  for (const std::string& name : option.get_lnames()) {
    if (name == "output" || name == "plot" || name == "per-request" || name == "emit-workload") {
      return true;
    }
  }
  return false;
}

// `mix log.csv --per-request log.csv` would replace the log, and `-o X --plot X` keep only one
// of the two: refused for every command, before any work, by device and inode.
void check_output_files(const CLI::App& command) {
  std::vector<io::NamedPath> inputs;
  std::vector<io::NamedPath> outputs;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_type_size() == 0 || option->count() == 0) continue;
    const std::string name =
        !option->get_lnames().empty() ? "--" + option->get_lnames().front() : "the input";
    const std::string flag = name == "--output" ? "-o" : name;
    for (const std::string& value : option->results()) {
      (names_output(*option) ? outputs : inputs).emplace_back(value, flag);
    }
  }
  io::check_outputs_distinct(inputs, outputs);
}

int run_parsed(CLI::App& app, const std::vector<std::unique_ptr<Command>>& commands) {
  CLI::App& active = *active_command(app);
  reject_extras(active);
  reject_empty_values(active);
  check_output_files(active);
  for (const auto& command : commands) {
    if (command->app().parsed()) {
      return command->execute();
    }
  }
  std::string names;
  for (const CommandEntry& entry : kCommands) {
    if (!entry.hidden) names += (names.empty() ? "kspeed " : ", kspeed ") + std::string(entry.name);
  }
  throw InputError("a command is required: " + names + " (see kspeed --help)");
}

}  // namespace

namespace {

// CLI11's words where kspeed has better ones: "--ctx: At Most 1 required but received 2".
std::string worded_parse_error(const CLI::ParseError& error) {
  const std::string message = error.what();
  const std::string at_most = ": At Most 1 required but received ";
  if (const std::size_t at = message.find(at_most); at != std::string::npos) {
    return message.substr(0, at) + " was given " + message.substr(at + at_most.size()) +
           " times: it takes one value; give it once";
  }
  return message;
}

// An error that names kspeed already ("kspeed: unexpected argument") is not prefixed twice.
std::string without_program_name(std::string message) {
  if (message.starts_with("kspeed: ")) message.erase(0, std::string_view("kspeed: ").size());
  return message;
}

// Everything kspeed prints goes through std::cout; this buffer passes it on to the one cout had
// and notes the first write that failed, with its errno taken at that moment (by the end of the
// run the C library has forgotten why).
class CheckedOutput final : public std::streambuf {
 public:
  explicit CheckedOutput(std::streambuf* target) : target_(target) {}
  bool failed() const { return failed_; }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char byte = traits_type::to_char_type(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    errno = 0;
    const std::streamsize written = target_->sputn(text, count);
    if (written != count) note();
    return written;
  }
  int sync() override {
    errno = 0;
    const int result = target_->pubsync();
    if (result != 0) note();
    return result;
  }

 private:
  void note() {
    if (failed_) return;
    failed_ = true;
    error_ = errno;
  }
  std::streambuf* target_;
  bool failed_ = false;
  int error_ = 0;
};

// Memory running out is an outcome to explain, not an abort: a bad_alloc thrown where it cannot
// be caught (a noexcept function, a destructor) would end in std::terminate (SIGABRT, exit
// 134). The handler runs where the allocation failed, so it allocates nothing: one write(2),
// then _Exit. Temporary output files are left behind by _Exit; finished outputs are untouched.
[[noreturn]] void out_of_memory() {
  constexpr std::string_view kMessage =
      "kspeed: error: out of memory: this input needs more memory than the machine (or ulimit "
      "-v) gives kspeed; give a smaller input, or for audit and diff use --format text, which "
      "builds the least\n";
  const ssize_t written = ::write(STDERR_FILENO, kMessage.data(), kMessage.size());
  (void)written;
  std::_Exit(kExitBadInput);
}

// What reached stdout is checked once, at the end: `kspeed estimate > /dev/full` (a full disk,
// a closed pipe) is an error, not a silent exit 0 with nothing written. `code` is kept when the
// run already failed.
int finish_stdout(int code, CheckedOutput& output) {
  std::cout.flush();
  if (!output.failed() && !std::cout.fail()) return code;
  const int error = output.error();
  std::cerr << "kspeed: error: writing to stdout failed"
            << (error != 0 ? std::string(": ") + std::strerror(error) : std::string())
            << ": the output is incomplete (is the disk full, or was the reader closed?)\n";
  std::cout.clear();
  return code == kExitOk || code == kExitGateFailed ? int{kExitBadInput} : code;
}

int run_command(int argc, const char* const* argv) {
  CLI::App app{
      "kspeed: what is this kernel speedup worth to my users?\n"
      "Follows an attention-kernel speedup through attention's share of prefill and "
      "decode to the whole request.",
      "kspeed"};
  app.set_version_flag("--version", KSPEED_VERSION);
  app.formatter(wrapping_formatter());  // the commands inherit it
  app.footer(
      "\nStart with:\n  kspeed estimate --ctx 128k --kernel-speedup 2\n"
      "  kspeed estimate --help\n"
      "\nFor packagers:\n"
      "  kspeed completions bash|zsh|fish   a shell completion script\n"
      "  kspeed man                         the man page (roff)\n" +
      exit_codes_help(ExitCodes::all_commands));
  std::vector<std::unique_ptr<Command>> commands = add_commands(app, requested_command(argc, argv));
  allow_extras_everywhere(app);
  if (argc <= 1) {
    // `kspeed` alone asks what kspeed does: the help, not an error
    std::cout << app.help();
    return kExitOk;
  }
  try {
    app.parse(argc, argv);
    return run_parsed(app, commands);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {
      return app.exit(error);  // --help, --version
    }
    std::cerr << "kspeed: error: " << without_program_name(worded_parse_error(error))
              << " (see kspeed --help)\n";
    return kExitBadInput;
  } catch (const InputError& error) {
    std::cerr << "kspeed: error: " << without_program_name(report::worded_error(error.what()))
              << "\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    std::cerr << "kspeed: internal error: " << error.what()
              << " (this is a bug in kspeed; please report it with the command line)\n";
    return kExitInternal;
  }
}

}  // namespace

void end_flag_group(CLI::App& command) {
  if (auto* const owned = dynamic_cast<CommandApp*>(&command)) owned->set_aside();
}

int run(int argc, const char* const* argv) {
  std::set_new_handler(out_of_memory);
  io::remove_temporaries_on_signal();  // Ctrl-C mid-write leaves no temporary file
  CheckedOutput checked(std::cout.rdbuf());
  std::streambuf* const previous = std::cout.rdbuf(&checked);
  const int code = run_command(argc, argv);
  discard_side_outputs();  // a failed run leaves no temporary file behind
  const int final_code = finish_stdout(code, checked);
  std::cout.rdbuf(previous);
  return final_code;
}

}  // namespace kspeed::cli
