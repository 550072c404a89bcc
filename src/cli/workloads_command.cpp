// `kspeed workloads` lists the built-in workloads; `kspeed workloads show NAME` prints one as
// JSON, a template to copy and edit.
#include <iostream>

#include "command.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::cli {

namespace {

class WorkloadsCommand final : public Command {
 public:
  explicit WorkloadsCommand(CLI::App& command) : app_(&command) {
    show_ = app_->add_subcommand(
        "show", "Print a built-in workload as JSON: a template for your own workload file");
    show_->add_option("name", name_, "The workload's name (kspeed workloads lists them)")
        ->required()
        ->type_name("NAME");
    app_->footer(
        "\nExamples:\n"
        "  kspeed workloads\n"
        "  kspeed workloads show deepseek-r1-fp8 > my.json   then edit, and run\n"
        "  kspeed estimate --workload my.json\n" +
        exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (show_->parsed()) {
      std::cout << io::builtin_workload_text(name_) << std::flush;
      return 0;
    }
    report::Table table;
    table.header = {"name", "description"};
    for (const std::string& name : io::builtin_workload_names()) {
      const engine::Workload workload = io::load_workload(name);
      table.rows.push_back({name, workload.description});
    }
    std::cout << report::render_text_table(table) << std::flush;
    return 0;
  }

 private:
  CLI::App* app_;
  CLI::App* show_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_workloads_command(CLI::App& command) {
  return std::make_unique<WorkloadsCommand>(command);
}

}  // namespace kspeed::cli
