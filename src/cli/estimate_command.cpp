// `kspeed estimate`: flags to EstimateOptions, then the engine, then a reporter.
#include <iostream>

#include "command.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "ncu_flags.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

namespace {

class EstimateCommand final : public Command {
 public:
  explicit EstimateCommand(CLI::App& command) : app_(&command) {
    add_estimate_flags(*app_, flags_);
    add_ncu_flags(*app_, flags_.ncu);
    add_gate_flags(*app_, flags_);
    end_flag_group(*app_);
    add_output_options(*app_, flags_.output);
    add_plot_option(*app_, plot_path_,
                    "Also draw the dilution chain into FILE: time before and after at each "
                    "level, from the kernel to the request");
    add_title_option(*app_, plot_title_);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    engine::EstimateOptions options = to_options(flags_);
    const engine::GateThresholds gates = to_gates(flags_);
    check_output_options(flags_.output);  // a bad --format, --color or -o fails before any work
    if (!plot_path_.empty() && plot_path_ != "-") {
      io::check_output_path(plot_path_, "--plot");
    }
    check_title_option(plot_title_, plot_path_);
    check_ncu_flags_need_file(flags_.ncu);

    const std::optional<io::CalibrationFile> calibration = read_calibration(flags_);
    engine::Workload workload = load_estimate_workload(flags_, calibration);
    deploy(flags_, calibration, workload, options);
    if (!flags_.ncu.file.empty()) price_measured_kernel(flags_, options);
    if (!flags_.fail_on.empty()) (void)engine::parse_input_filter(flags_.fail_on, "--fail-on");
    const engine::Estimate estimate = engine::run_estimate(workload, options, gates);
    check_input_provenance(flags_, estimate.scenario);
    const std::string svg =
        plot_path_.empty() ? std::string() : report::estimate_svg(estimate, plot_title_);
    stage_plot(plot_path_, svg);
    // Text and Markdown draw the view alone: the JSON document is built only for the formats
    // that write it (a tenth of a bare estimate's instructions, callgrind)
    const bool for_people = parse_output_format(flags_.output).for_people();
    render_and_emit(
        report::Report{report::estimate_view(estimate),
                       for_people ? report::Document{} : report::estimate_document(estimate)},
        flags_.output);
    write_plot(plot_path_, svg);
    return report_gates(estimate.gates);
  }

 private:
  static std::string footer() {
    return "\nExamples:\n"
           "  kspeed estimate                                  the built-in default workload\n"
           "  kspeed estimate --ctx 128k --kernel-speedup 2    the chain at a 128K prompt\n"
           "  kspeed estimate --workload my.json --format json -o out.json\n"
           "  kspeed estimate --share 0.18 --ttft 500 --tpot 50 --response-tokens 128 \\\n"
           "                  --min-request-speedup 1.01       gate a change in CI\n"
           "  kspeed estimate --model llama-3.1-70b --gpu h100-sxm --tp 8 --batch 32 \\\n"
           "                  --ctx 8k --ttft 900 --tpot 25 --bytes-reduction 2\n"
           "                                                   an FP8 KV cache, through the "
           "roofline\n" +
           exit_codes_help(ExitCodes::with_gates);
  }

  static int report_gates(const std::vector<engine::GateCheck>& gates) {
    int code = kExitOk;
    for (const auto& gate : gates) {
      if (!gate.passed) {
        std::cerr << "kspeed: gate failed: --" << gate.name << " " << gate.threshold
                  << ": the estimate is " << report::human_speedup(gate.actual) << ", "
                  << report::human_percent((gate.threshold - gate.actual) / gate.threshold)
                  << " short of " << report::human_speedup(gate.threshold) << "\n";
        code = kExitGateFailed;
      }
    }
    return code;
  }

  CLI::App* app_;
  EstimateFlags flags_;
  std::string plot_path_;
  std::string plot_title_;
};

}  // namespace

std::unique_ptr<Command> make_estimate_command(CLI::App& command) {
  return std::make_unique<EstimateCommand>(command);
}

}  // namespace kspeed::cli
