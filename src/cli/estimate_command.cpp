// `kspeed estimate`: flags to EstimateOptions, then the engine, then a reporter.
#include <iostream>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/engine/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

namespace {

constexpr const char* kDefaultWorkload = "deepseek-r1-fp8";

// Flag values exactly as typed; parsed by kspeed's own parsers so every error names its flag.
struct EstimateFlags {
  std::string workload = kDefaultWorkload;
  std::string ctx, response_tokens, ttft, tpot, kernel_speedup, share, decode_share;
  std::string phase;  // empty: prefill, or both when levers describe the change
  std::string extrapolate = "clamp";
  PlatformFlags platform;
  LeverFlags levers;
  std::string min_request_speedup, min_prefill_speedup;
  OutputOptions output;
};

template <class T, class Parse>
std::optional<T> optional_value(const std::string& text, const char* flag, Parse parse) {
  if (text.empty()) {
    return std::nullopt;
  }
  return parse(text, flag);
}

engine::Phase parse_phase(const std::string& text) {
  return parse_choice<engine::Phase>(text, "--phase", "phase",
                                     {{"prefill", engine::Phase::prefill},
                                      {"decode", engine::Phase::decode},
                                      {"both", engine::Phase::both}});
}

engine::Extrapolation parse_extrapolation(const std::string& text) {
  return parse_choice<engine::Extrapolation>(
      text, "--extrapolate", "mode",
      {{"clamp", engine::Extrapolation::clamp}, {"model", engine::Extrapolation::model}});
}

engine::EstimateOptions to_options(const EstimateFlags& flags) {
  engine::EstimateOptions options;
  options.prompt_tokens = optional_value<std::int64_t>(flags.ctx, "--ctx", io::parse_token_count);
  options.response_tokens = optional_value<std::int64_t>(flags.response_tokens, "--response-tokens",
                                                         io::parse_token_count);
  options.ttft_ms = optional_value<double>(flags.ttft, "--ttft", io::parse_duration_ms);
  options.tpot_ms = optional_value<double>(flags.tpot, "--tpot", io::parse_duration_ms);
  options.kernel_speedup =
      optional_value<double>(flags.kernel_speedup, "--kernel-speedup", io::parse_positive_number);
  options.prefill_share = optional_value<double>(flags.share, "--share", io::parse_share);
  options.decode_share =
      optional_value<double>(flags.decode_share, "--decode-share", io::parse_share);
  options.levers = parse_levers(flags.levers);
  // Levers are placed on each phase's roofline, so by default they apply to both phases.
  options.phase = !flags.phase.empty() ? parse_phase(flags.phase)
                  : options.levers     ? engine::Phase::both
                                       : engine::Phase::prefill;
  options.extrapolation = parse_extrapolation(flags.extrapolate);
  return options;
}

engine::GateThresholds to_gates(const EstimateFlags& flags) {
  engine::GateThresholds gates;
  gates.min_request_speedup = optional_value<double>(
      flags.min_request_speedup, "--min-request-speedup", io::parse_positive_number);
  gates.min_prefill_speedup = optional_value<double>(
      flags.min_prefill_speedup, "--min-prefill-speedup", io::parse_positive_number);
  return gates;
}

class EstimateCommand final : public Command {
 public:
  explicit EstimateCommand(CLI::App& command) : app_(&command) {
    add_workload_flags();
    add_change_flags();
    add_platform_flags(*app_, flags_.platform);
    add_lever_flags(*app_, flags_.levers);
    add_gate_flags();
    add_output_options(*app_, flags_.output);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    engine::EstimateOptions options = to_options(flags_);
    const engine::GateThresholds gates = to_gates(flags_);
    check_output_options(flags_.output);  // a bad --format, --color or -o fails before any work

    const engine::Workload workload = io::load_workload(flags_.workload);
    options.platform = resolve_platform(
        flags_.platform, {workload.model, workload.gpu, workload.batch, workload.tp});
    const engine::Estimate estimate = engine::run_estimate(workload, options, gates);
    render_and_emit(report::make_report(estimate, report::estimate_view, report::estimate_document),
                    flags_.output);
    return report_gates(estimate.gates);
  }

 private:
  void add_workload_flags() {
    app_->add_option("--workload,-w", flags_.workload,
                     "A workload JSON file, or the name of a built-in workload "
                     "(kspeed workloads lists them)")
        ->type_name("FILE|NAME")
        ->capture_default_str();
    app_->add_option("--ctx", flags_.ctx,
                     "Prompt length in tokens: 4096, 4k, 128k, 1m (k = 1024). Default: the "
                     "workload's; TTFT is then scaled to it unless --ttft is given")
        ->type_name("TOKENS");
    app_->add_option("--response-tokens", flags_.response_tokens,
                     "Response length in tokens (>= 1). Default: the workload's")
        ->type_name("TOKENS");
    app_->add_option("--ttft", flags_.ttft,
                     "Measured time to first token at this prompt length: 500, 500ms, 0.5s")
        ->type_name("DURATION");
    app_->add_option("--tpot", flags_.tpot, "Measured time per output token: 50, 50ms, 50000us")
        ->type_name("DURATION");
  }

  void add_change_flags() {
    app_->add_option("--kernel-speedup,-s", flags_.kernel_speedup,
                     "Attention kernel speedup: old kernel time / new kernel time (> 0; below 1 "
                     "is a slowdown). Default: 2")
        ->type_name("X");
    app_->add_option("--share", flags_.share,
                     "Prefill attention share, overriding the workload's table: 0.85 or 85%")
        ->type_name("P");
    app_->add_option("--decode-share", flags_.decode_share,
                     "Decode attention share: 0.2 or 20%. Needed for --phase decode|both when "
                     "the workload has no decode table")
        ->type_name("P");
    app_->add_option("--phase", flags_.phase,
                     "Where the change applies: prefill, decode or both. Default: prefill; both "
                     "when levers (--compute-speedup, --bytes-reduction, --bandwidth-efficiency) "
                     "describe the change")
        ->type_name("PHASE");
    app_->add_option("--extrapolate", flags_.extrapolate,
                     "Outside the share table: clamp to the nearest measured point (with a "
                     "warning) or model (continue the edge segment)")
        ->type_name("MODE")
        ->capture_default_str();
  }

  void add_gate_flags() {
    app_->add_option("--min-request-speedup", flags_.min_request_speedup,
                     "CI gate: exit 1 unless the request speedup is at least X (e.g. 1.01)")
        ->type_name("X");
    app_->add_option("--min-prefill-speedup", flags_.min_prefill_speedup,
                     "CI gate: exit 1 unless the prefill speedup is at least X")
        ->type_name("X");
  }

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
           exit_codes_help();
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
};

}  // namespace

std::unique_ptr<Command> make_estimate_command(CLI::App& command) {
  return std::make_unique<EstimateCommand>(command);
}

}  // namespace kspeed::cli
