// `kspeed completions bash|zsh|fish` and `kspeed man`: the command line described from the
// CLI11 tree that --help prints, so completions and the man page cannot drift from the flags.
// Both commands are hidden (an empty CLI11 group); CMakeLists.txt runs them at build time and
// installs the results (bash-completion, zsh site-functions, fish vendor_completions.d, man1).
#include "completions_command.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/kv_layout.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::cli {

namespace {

// One option of a command, as the scripts need it.
struct OptionInfo {
  std::vector<std::string> names;  ///< "--ctx", "-o": long names first
  std::string type_name;           ///< "TOKENS", "FILE"; empty for a switch
  std::string description;         ///< its first line
  bool takes_value = false;
  bool file = false;                ///< the value is a path: complete file names
  std::vector<std::string> values;  ///< the words it takes (a choice, a built-in name); or none
};

// One visible command: a subcommand of kspeed, or of one of its commands (workloads show).
struct CommandInfo {
  std::string name;
  std::string description;
  std::vector<OptionInfo> options;
  std::vector<CommandInfo> subcommands;
  bool positional = false;  ///< takes arguments (files: profile's traces, mix's log)
  std::string footer;       ///< examples and exit codes, as --help prints them
};

std::vector<std::string> words(std::initializer_list<const char*> list) {
  return {list.begin(), list.end()};
}

// The words an option of `command` takes: its choices (the parse_choice lists of the flags'
// parsers) or the built-in preset names; a file option also takes a path.
std::vector<std::string> option_values(const std::string& command, const std::string& option) {
  if (option == "--phase") {
    return command == "roofline" ? words({"prefill", "decode"})
                                 : words({"prefill", "decode", "both"});
  }
  if (option == "--format") return report::format_names();
  if (option == "--color") return words({"auto", "always", "never"});
  if (option == "--extrapolate") return words({"clamp", "model"});
  if (option == "--share-model") return words({"table", "analytic", "calibrated"});
  if (option == "--denominator") return words({"kernel-time", "busy-time", "wall-time"});
  if (option == "--kv-layout") {
    std::vector<std::string> out;
    for (const engine::KvLayout& layout : engine::kv_layouts()) out.emplace_back(layout.name);
    return out;
  }
  if (option == "--gpu") return io::builtin_names("gpus");
  if (option == "--model") return io::builtin_names("models");
  if (option == "--workload") return io::builtin_names("workloads");
  return {};
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

CommandInfo describe(const CLI::App& app) {
  CommandInfo info;
  info.name = app.get_name();
  info.description = first_line(app.get_description());
  info.footer = app.get_footer();
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) {
      info.positional = true;
      continue;
    }
    OptionInfo out;
    for (const std::string& name : option->get_lnames()) out.names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) out.names.push_back("-" + name);
    out.takes_value = option->get_items_expected_max() > 0;  // a switch expects 0
    out.type_name = out.takes_value ? option->get_type_name() : std::string();
    out.file = out.type_name.find("FILE") != std::string::npos;
    out.description = first_line(option->get_description());
    if (out.takes_value && !out.names.empty()) out.values = option_values(info.name, out.names[0]);
    info.options.push_back(out);
  }
  // Hidden commands (these two) have an empty group: --help leaves them out, and so do we.
  for (const CLI::App* sub : app.get_subcommands(
           [](const CLI::App* candidate) { return !candidate->get_group().empty(); })) {
    info.subcommands.push_back(describe(*sub));
  }
  return info;
}

std::string joined_names(const CommandInfo& command, bool (*keep)(const OptionInfo&)) {
  std::string out;
  for (const OptionInfo& option : command.options) {
    if (!keep(option)) continue;
    for (const std::string& name : option.names) out += (out.empty() ? "" : " ") + name;
  }
  return out;
}

std::string subcommand_names(const CommandInfo& command) {
  std::string out;
  for (const CommandInfo& sub : command.subcommands) out += (out.empty() ? "" : " ") + sub.name;
  return out;
}

// ---- bash: one function; the command is the first word that is not an option ----

// `case $prev in --phase) values="prefill decode both";; ... esac` for one command.
std::string bash_values(const CommandInfo& command) {
  std::string out;
  for (const OptionInfo& option : command.options) {
    if (option.values.empty()) continue;
    std::string list;
    for (const std::string& value : option.values) list += (list.empty() ? "" : " ") + value;
    std::string names;
    for (const std::string& name : option.names) names += (names.empty() ? "" : "|") + name;
    out += "        " + names + ") values=\"" + list + "\" ;;\n";
  }
  return out.empty() ? "" : "      case $prev in\n" + out + "      esac\n";
}

std::string bash_case(const std::string& label, const CommandInfo& command) {
  return "    " + label + ")\n" + bash_values(command) + "      options=\"" +
         joined_names(command, [](const OptionInfo&) { return true; }) + "\"\n      valued=\"" +
         joined_names(command, [](const OptionInfo& o) { return o.takes_value; }) +
         "\"\n      files=\"" + joined_names(command, [](const OptionInfo& o) { return o.file; }) +
         "\"\n      subcommands=\"" + subcommand_names(command) + "\"\n      ;;\n";
}

std::string bash_script(const CommandInfo& root) {
  std::string cases = bash_case("\"\"", root);
  for (const CommandInfo& command : root.subcommands) cases += bash_case(command.name, command);
  return "# bash completion for kspeed, generated by `kspeed completions bash` from the\n"
         "# definitions --help prints. Install: share/bash-completion/completions/kspeed\n"
         "_kspeed() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=\"\" command=\"\" i\n"
         "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    if [[ ${COMP_WORDS[i]} != -* ]]; then command=${COMP_WORDS[i]}; break; fi\n"
         "  done\n"
         "  local options=\"\" valued=\"\" files=\"\" subcommands=\"\" values=\"\"\n"
         "  case $command in\n" +
         cases +
         "  esac\n"
         "  COMPREPLY=()\n"
         "  if [[ -n $prev && \" $valued \" == *\" $prev \"* ]]; then\n"
         "    # an option's value: its choices or the built-in names, and file names for a FILE\n"
         "    [[ -n $values ]] && COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
         "    [[ \" $files \" == *\" $prev \"* ]] && COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
         "    return 0\n"
         "  fi\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  elif [[ -n $subcommands ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$subcommands\" -- \"$cur\"))\n"
         "  fi\n"
         "  return 0\n"
         "}\n"
         "complete -o default -F _kspeed kspeed\n";
}

// ---- zsh: _arguments per command ----

// Inside a single-quoted zsh word, in an _arguments description ([...]) or message (:...:).
std::string zsh_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c == '[') {
      out += '(';
    } else if (c == ']') {
      out += ')';
    } else if (c == ':') {
      out += "\\:";
    } else {
      out += c;
    }
  }
  return out;
}

std::string zsh_arguments(const CommandInfo& command) {
  std::string out = "      _arguments -s";
  for (const OptionInfo& option : command.options) {
    for (const std::string& name : option.names) {
      out += " \\\n        '" + name + (option.takes_value && name.starts_with("--") ? "=" : "") +
             "[" + zsh_text(option.description) + "]";
      if (option.takes_value) {
        std::string action = option.file ? "_files" : " ";
        if (!option.values.empty()) {
          std::string list;
          for (const std::string& value : option.values) list += " " + value;
          action = "(" + list.substr(1) + ")";
          if (option.file) action = "{_files; _values name" + list + "}";
        }
        out += ":" + zsh_text(option.type_name) + ":" + action;
      }
      out += "'";
    }
  }
  if (!command.subcommands.empty()) {
    std::string names;
    for (const CommandInfo& sub : command.subcommands) names += " " + sub.name;
    out += " \\\n        '1:command:(" + names.substr(1) + ")'";
  }
  if (command.positional) out += " \\\n        '*:file:_files'";
  return out + "\n";
}

std::string zsh_script(const CommandInfo& root) {
  std::string commands;
  std::string cases;
  for (const CommandInfo& command : root.subcommands) {
    commands += "    '" + command.name + ":" + zsh_text(command.description) + "'\n";
    cases += "    " + command.name + ")\n" + zsh_arguments(command) + "      ;;\n";
  }
  return "#compdef kspeed\n"
         "# zsh completion for kspeed, generated by `kspeed completions zsh` from the\n"
         "# definitions --help prints. Install: share/zsh/site-functions/_kspeed\n"
         "_kspeed() {\n"
         "  local -a commands\n"
         "  commands=(\n" +
         commands +
         "  )\n"
         "  if (( CURRENT == 2 )); then\n"
         "    _describe -t commands 'kspeed command' commands\n"
         "    return\n"
         "  fi\n"
         "  shift words\n"
         "  (( CURRENT-- ))\n"
         "  case $words[1] in\n" +
         cases +
         "  esac\n"
         "}\n"
         "_kspeed \"$@\"\n";
}

// ---- fish: one `complete` line per command and option ----

std::string fish_text(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish_option(const std::string& condition, const OptionInfo& option) {
  std::string line = "complete -c kspeed -n " + fish_text(condition);
  for (const std::string& name : option.names) {
    line += name.starts_with("--") ? " -l " + name.substr(2) : " -s " + name.substr(1);
  }
  if (option.takes_value) line += option.file ? " -r -F" : " -r";
  if (!option.values.empty()) {
    std::string list;
    for (const std::string& value : option.values) list += (list.empty() ? "" : " ") + value;
    line += " -a " + fish_text(list);
  }
  return line + " -d " + fish_text(option.description) + "\n";
}

std::string fish_script(const CommandInfo& root) {
  std::string out =
      "# fish completion for kspeed, generated by `kspeed completions fish` from the\n"
      "# definitions --help prints. Install: share/fish/vendor_completions.d/kspeed.fish\n"
      "complete -c kspeed -f\n";
  for (const OptionInfo& option : root.options) out += fish_option("__fish_use_subcommand", option);
  for (const CommandInfo& command : root.subcommands) {
    out += "complete -c kspeed -n __fish_use_subcommand -a " + command.name + " -d " +
           fish_text(command.description) + "\n";
  }
  for (const CommandInfo& command : root.subcommands) {
    const std::string condition = "__fish_seen_subcommand_from " + command.name;
    for (const OptionInfo& option : command.options) out += fish_option(condition, option);
    for (const CommandInfo& sub : command.subcommands) {
      out += "complete -c kspeed -n " + fish_text(condition) + " -a " + sub.name + " -d " +
             fish_text(sub.description) + "\n";
    }
    if (command.positional) out += "complete -c kspeed -n " + fish_text(condition) + " -F\n";
  }
  return out;
}

// ---- man: roff (man(7)) ----

// Text for a roff line: backslashes escaped, a leading '.' or '\'' made literal, and hyphens
// in option names written \- so they render as ASCII minus signs.
std::string roff(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out = "\\&" + out;
  return out;
}

std::string man_options(const std::vector<OptionInfo>& options) {
  std::string out;
  for (const OptionInfo& option : options) {
    std::string names;
    for (const std::string& name : option.names) {
      names += (names.empty() ? "" : ", ") + std::string("\\fB") + roff(name) + "\\fR";
    }
    out += ".TP\n" + names + (option.takes_value ? " \\fI" + roff(option.type_name) + "\\fR" : "") +
           "\n" + roff(option.description) + "\n";
  }
  return out;
}

// A --help footer (examples, exit codes) as preformatted lines.
std::string man_footer(const std::string& footer) {
  std::string out = ".PP\n.nf\n";
  std::size_t start = 0;
  while (start < footer.size()) {
    std::size_t end = footer.find('\n', start);
    if (end == std::string::npos) end = footer.size();
    const std::string line = footer.substr(start, end - start);
    if (!line.empty() || start != 0) out += roff(line) + "\n";
    start = end + 1;
  }
  return out + ".fi\n";
}

// Every example command line the --help footers give ("  kspeed ..." lines), in command order,
// for the man page's EXAMPLES section.
std::string man_examples(const CommandInfo& root, const std::string& root_footer) {
  std::string out;
  const auto collect = [&out](const std::string& footer) {
    std::size_t start = 0;
    while (start < footer.size()) {
      std::size_t end = footer.find('\n', start);
      if (end == std::string::npos) end = footer.size();
      const std::string line = footer.substr(start, end - start);
      if (line.rfind("  kspeed ", 0) == 0) out += roff(line.substr(2)) + "\n";
      start = end + 1;
    }
  };
  collect(root_footer);
  for (const CommandInfo& command : root.subcommands) collect(command.footer);
  return out.empty() ? std::string() : ".SH EXAMPLES\n.PP\n.nf\n" + out + ".fi\n";
}

std::string man_page(const CommandInfo& root, const std::string& root_description) {
  std::string out =
      ".\\\" Generated by `kspeed man` from the definitions --help prints.\n"
      ".TH KSPEED 1 \"\" \"kspeed " KSPEED_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\n"
      "kspeed \\- " +
      roff(first_line(root_description).substr(first_line(root_description).find(':') + 2)) +
      "\n.SH SYNOPSIS\n.B kspeed\n.I command\n[\\fIoptions\\fR]\n"
      ".SH DESCRIPTION\n" +
      roff(root_description.substr(root_description.find('\n') + 1)) + "\n.SH OPTIONS\n" +
      man_options(root.options) + ".SH COMMANDS\n";
  for (const CommandInfo& command : root.subcommands) {
    out += ".SS \"kspeed " + roff(command.name) + "\"\n" + roff(command.description) + "\n";
    for (const CommandInfo& sub : command.subcommands) {
      out += ".PP\n\\fBkspeed " + roff(command.name) + " " + roff(sub.name) +
             "\\fR: " + roff(sub.description) + "\n";
    }
    out += man_options(command.options);
    if (!command.footer.empty()) out += man_footer(command.footer);
  }
  out += man_examples(root, root.footer);
  out += ".SH EXIT STATUS\n" + man_footer(exit_codes_help(ExitCodes::all_commands)) +
         ".SH SEE ALSO\nThe README and docs/ of the kspeed sources: model.md (the equations), "
         "json\\-format.md and docs/schema (the output for programs).\n";
  return out;
}

class CompletionsCommand final : public Command {
 public:
  explicit CompletionsCommand(CLI::App& command) : app_(&command) {
    app_->group("");  // hidden from --help
    app_->add_option("shell", shell_, "bash, zsh or fish")->required();
  }
  CLI::App& app() override { return *app_; }
  int execute() override {
    const CommandInfo root = describe(*app_->get_parent());
    if (shell_ == "bash") {
      std::cout << bash_script(root);
    } else if (shell_ == "zsh") {
      std::cout << zsh_script(root);
    } else if (shell_ == "fish") {
      std::cout << fish_script(root);
    } else {
      throw InputError("completions: unknown shell '" + shell_ + "': expected bash, zsh or fish");
    }
    return kExitOk;
  }

 private:
  CLI::App* app_;
  std::string shell_;
};

class ManCommand final : public Command {
 public:
  explicit ManCommand(CLI::App& command) : app_(&command) { app_->group(""); }
  CLI::App& app() override { return *app_; }
  int execute() override {
    const CLI::App& root = *app_->get_parent();
    std::cout << man_page(describe(root), root.get_description());
    return kExitOk;
  }

 private:
  CLI::App* app_;
};

}  // namespace

std::unique_ptr<Command> make_completions_command(CLI::App& command) {
  return std::make_unique<CompletionsCommand>(command);
}

std::unique_ptr<Command> make_man_command(CLI::App& command) {
  return std::make_unique<ManCommand>(command);
}

}  // namespace kspeed::cli
