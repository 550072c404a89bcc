// `kspeed sweep`: estimate's flags, where some accept a list or a range; one estimate per
// combination through the same engine path (engine::run_sweep), then the sweep's report.
#include <fmt/format.h>

#include <string>

#include "command.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/kernel_speedup_reader.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/sweep_values.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/record_writer.hpp"
#include "kspeed/report/reports.hpp"
#include "ncu_flags.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

namespace {

constexpr const char* kDefaultPoints = "8";

double token_count(std::string_view text, std::string_view what) {
  return static_cast<double>(io::parse_token_count(text, what));
}

double count(std::string_view text, std::string_view what) {
  return static_cast<double>(io::parse_count(text, what));
}

const io::SweepAxisKind kTokens{token_count, io::SweepSpacing::log, true};
const io::SweepAxisKind kCount{count, io::SweepSpacing::log, true};
const io::SweepAxisKind kRatio{io::parse_positive_number, io::SweepSpacing::log, false};
const io::SweepAxisKind kShare{io::parse_share, io::SweepSpacing::linear, false};

struct SweepFlags {
  EstimateFlags estimate;
  std::string points = kDefaultPoints;
  std::string plot_path;
  std::string plot_title;
  std::string plot_x;
  std::string speedup_table_path;
  bool no_chart = false;
};

// When `text` is a list or a range: its values, and `text` becomes the first of them, so the
// estimate flags parse as for one estimate. A single value stays for to_options to parse.
template <class T>
std::vector<T> take_axis(std::string& text, const char* flag, std::int64_t points,
                         const io::SweepAxisKind& kind) {
  if (!io::is_sweep(text)) {
    return {};
  }
  std::vector<T> values;
  for (double value : io::parse_sweep_values(text, flag, points, kind)) {
    values.push_back(static_cast<T>(value));
  }
  text = fmt::format("{}", values.front());
  return values;
}

engine::SweepAxes take_axes(EstimateFlags& flags, std::int64_t points) {
  engine::SweepAxes axes;
  axes.prompt_tokens = take_axis<std::int64_t>(flags.ctx, "--ctx", points, kTokens);
  axes.kernel_speedup = take_axis<double>(flags.kernel_speedup, "--kernel-speedup", points, kRatio);
  axes.batch = take_axis<std::int64_t>(flags.platform.batch, "--batch", points, kCount);
  axes.prefill_share = take_axis<double>(flags.share, "--share", points, kShare);
  axes.response_tokens =
      take_axis<std::int64_t>(flags.response_tokens, "--response-tokens", points, kTokens);
  axes.compute_speedup =
      take_axis<double>(flags.levers.compute_speedup, "--compute-speedup", points, kRatio);
  axes.bytes_reduction =
      take_axis<double>(flags.levers.bytes_reduction, "--bytes-reduction", points, kRatio);
  return axes;
}

// A format for programs as a stream of records; nullopt for a format people read (the table).
// A sweep may have a million rows: a table of them, or a JSON tree of them, would be most of
// the run's time and memory.
std::optional<report::RecordFormat> record_format(report::Format format) {
  if (format.for_people()) {
    return std::nullopt;
  }
  if (format.name() == "csv") {
    return report::RecordFormat::csv;
  }
  return format.name() == "jsonl" ? report::RecordFormat::jsonl : report::RecordFormat::json_rows;
}

class SweepCommand final : public Command {
 public:
  explicit SweepCommand(CLI::App& command) : app_(&command) {
    add_estimate_flags(*app_, flags_.estimate);
    add_ncu_flags(*app_, flags_.estimate.ncu);
    app_->add_option("--points", flags_.points,
                     "Values in each range (a..b), spread evenly on a log scale (on a linear one "
                     "for --share)")
        ->type_name("N")
        ->capture_default_str();
    app_->add_option("--kernel-speedup-table", flags_.speedup_table_path,
                     "The kernel speedup measured at several contexts or batch sizes (CSV "
                     "'context,speedup' or 'batch,speedup', or JSON), applied at each point: "
                     "interpolated in log-log between rows, held at the nearest row outside")
        ->type_name("FILE");
    add_plot_option(*app_, flags_.plot_path,
                    "Also draw the sweep into FILE: speedup against context (else the batch, "
                    "else the swept input), the ceiling 1/(1-p), the measured shares");
    add_title_option(*app_, flags_.plot_title);
    app_->add_option(
            "--plot-x", flags_.plot_x,
            "With --plot: the swept input on the x axis (prompt_tokens, batch, kernel_speedup, "
            "compute_speedup, bytes_reduction, prefill_attention_share, "
            "response_tokens); the others make the series")
        ->type_name("INPUT");
    app_->add_flag("--no-chart", flags_.no_chart,
                   "No terminal chart under the table (it is drawn only on a terminal)");
    add_provenance_flags(*app_, flags_.estimate);
    add_output_options(*app_, flags_.estimate.output);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    EstimateFlags flags = flags_.estimate;
    const std::int64_t points = io::parse_count(flags_.points, "--points");
    const engine::SweepAxes axes = take_axes(flags, points);
    check_size(axes);
    engine::EstimateOptions options = to_options(flags);
    check_output_options(flags.output);
    if (!flags_.plot_path.empty() && flags_.plot_path != "-") {
      io::check_output_path(flags_.plot_path, "--plot");
    }
    check_title_option(flags_.plot_title, flags_.plot_path);
    if (!flags_.plot_x.empty() && flags_.plot_path.empty()) {
      throw InputError("--plot-x " + flags_.plot_x +
                       ": it chooses the --plot chart's x axis, and no chart is drawn: add "
                       "--plot FILE.svg");
    }
    check_ncu_flags_need_file(flags.ncu);
    const bool measured_kernel = !flags.ncu.file.empty();
    if (measured_kernel) check_measured_axes(axes, flags_.speedup_table_path);

    const std::optional<io::CalibrationFile> calibration = read_calibration(flags);
    engine::Workload workload = load_estimate_workload(flags, calibration);
    deploy(flags, calibration, workload, options);
    if (measured_kernel) price_measured_kernel(flags, options);
    std::optional<engine::KernelSpeedupTable> speedup_table;
    if (!flags_.speedup_table_path.empty()) {
      speedup_table = io::load_kernel_speedup_table(flags_.speedup_table_path);
    }
    if (!flags.fail_on.empty()) (void)engine::parse_input_filter(flags.fail_on, "--fail-on");
    const engine::Sweep sweep = engine::run_sweep(workload, options, axes, speedup_table);
    check_input_provenance(flags, sweep);
    const std::string svg = flags_.plot_path.empty()
                                ? std::string()
                                : report::sweep_svg(sweep, flags_.plot_title, flags_.plot_x);
    stage_plot(flags_.plot_path, svg);
    if (const auto records = record_format(parse_output_format(flags.output))) {
      stream_and_emit(
          [&](const report::TextSink& sink) { report::write_sweep(sweep, *records, sink); },
          report::sweep_warnings_view(sweep), flags.output);
    } else {
      const std::string chart =
          flags_.no_chart ? std::string() : report::sweep_terminal_chart(sweep);
      render_and_emit(report::Report{report::sweep_view(sweep), {}}, flags.output, chart);
    }
    write_plot(flags_.plot_path, svg);
    return kExitOk;
  }

 private:
  // --ncu prices one set of levers on the measured launch: the same kernel speedup at every
  // point. A list of levers, of kernel speedups or a speedup table would give another.
  static void check_measured_axes(const engine::SweepAxes& axes, const std::string& table) {
    if (!axes.compute_speedup.empty() || !axes.bytes_reduction.empty()) {
      throw InputError(
          "--ncu prices one set of levers on the measured launch: give --compute-speedup and "
          "--bytes-reduction one value each, or sweep them without --ncu (on the modelled "
          "roofline)");
    }
    if (!axes.kernel_speedup.empty() || !table.empty()) {
      throw InputError(
          std::string(table.empty() ? "--kernel-speedup" : "--kernel-speedup-table") +
          " and --ncu both give the kernel speedup: --ncu prices the levers on the measured "
          "kernel; drop one");
    }
  }

  static void check_size(const engine::SweepAxes& axes) {
    const std::int64_t size = engine::sweep_size(axes);
    if (size > io::kMaxSweepValues) {
      throw InputError("sweep: " + fmt::format("{}", size) + " combinations is more than " +
                       fmt::format("{}", io::kMaxSweepValues) +
                       ": use fewer --points or shorter lists");
    }
  }

  static std::string footer() {
    return "\nSwept flags take a list (1.25,1.5,2,4) or a range (4k..128k, --points values, "
           "log-spaced; --share linearly): --ctx, --kernel-speedup, --batch, --share, "
           "--response-tokens, --compute-speedup, --bytes-reduction. One row per combination, "
           "the context varying fastest; every other flag is estimate's.\n"
           "\nExamples:\n"
           "  kspeed sweep --ctx 4k..128k --points 6 --kernel-speedup 2\n"
           "  kspeed sweep --ctx 1k..1m --kernel-speedup 1.25,1.5,2,4 --plot sweep.svg\n"
           "  kspeed sweep --ctx 4k,32k,128k --format csv -o sweep.csv\n" +
           exit_codes_help();
  }

  CLI::App* app_;
  SweepFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command(CLI::App& command) {
  return std::make_unique<SweepCommand>(command);
}

}  // namespace kspeed::cli
