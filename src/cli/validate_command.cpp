// `kspeed validate RUN... --model NAME --gpu NAME --fit-levels L1[,L2]`: the step model fitted
// through the batching replay on the chosen load levels of each measured run, and every other
// level predicted (engine/serving/replay_validation.hpp). Reads inference-perf stage folders
// (stage_N_lifecycle_metrics.json); each level's load is rebuilt from its stated rate, duration and
// mean lengths. With --prior nothing is fitted: the prior from presets alone is set against each
// run's measured one-at-a-time latencies, one GPU per run (engine/deployment/prior_check.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "calibration_commands.hpp"
#include "choice.hpp"
#include "kspeed/engine/deployment/prior_check.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/validate_report.hpp"
#include "kspeed/report/wording.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

namespace {

struct ValidateFlags {
  std::vector<std::string> runs;
  PlatformFlags platform;
  std::string fit_levels = "1,2";
  std::string max_seqs, max_batched_tokens, chunked_prefill;
  bool prior = false;
  std::string accelmark_suite, concurrency;
  OutputOptions output;
};

constexpr std::int64_t kClosedLoopRequests = 100;

std::vector<std::size_t> parse_fit_levels(const std::string& text, std::size_t levels,
                                          const std::string& run) {
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const double value = io::parse_positive_number(item, "--fit-levels");
    if (value != std::floor(value) || value > static_cast<double>(levels)) {
      throw InputError("--fit-levels " + text + ": '" + item + "' is not a level of " + run +
                       ": expected a level number from 1 (the lightest) to " +
                       std::to_string(levels));
    }
    const auto index = static_cast<std::size_t>(value) - 1;
    if (std::find(out.begin(), out.end(), index) != out.end()) {
      throw InputError("--fit-levels " + text + ": level " + item + " is named twice");
    }
    out.push_back(index);
  }
  if (out.empty() || out.size() > 2) {
    throw InputError("--fit-levels " + text +
                     ": expected one or two levels (L1 or L1,L2: the bandwidth side on the "
                     "first, the per-sequence cost on the second)");
  }
  if (out.size() == 2 && out[1] < out[0]) std::swap(out[0], out[1]);
  if (out.size() == levels) {
    throw InputError("--fit-levels " + text + ": " + run + " has " + std::to_string(levels) +
                     " levels and all would be fitted, leaving none to validate: fit fewer");
  }
  return out;
}

engine::LevelStat stat_of(const io::MeasuredStat& s) {
  return {s.mean_ms, s.p50_ms, s.p90_ms, s.p99_ms};
}

// One inference-perf stage as replay requests: evenly spaced at the requested rate over the send
// duration, each with the stage's mean prompt and output lengths.
engine::ReplayLevel level_of(const io::MeasuredLoad& load, const std::string& run) {
  engine::ReplayLevel level;
  level.label = load.label;
  level.ttft = stat_of(load.ttft);
  level.tpot = stat_of(load.tpot);
  level.e2e = stat_of(load.e2e);
  level.achieved_rate_per_s = load.achieved_rate_per_s;
  level.requested_rate_per_s = load.rate_per_s;
  if (!load.prompt_tokens_mean || !load.output_tokens_mean) {
    throw InputError(run + ": " + load.label +
                     " states no mean prompt and output length, which the replay needs to "
                     "rebuild its load");
  }
  const auto prompt =
      static_cast<std::int32_t>(std::max(1L, std::lround(*load.prompt_tokens_mean)));
  const auto output =
      static_cast<std::int32_t>(std::max(1L, std::lround(*load.output_tokens_mean)));
  if (load.arrivals == io::ArrivalPattern::one_at_a_time || !load.rate_per_s) {
    level.closed_loop_clients = 1;
    const std::int64_t n = load.requests > 0 ? load.requests : kClosedLoopRequests;
    for (std::int64_t i = 0; i < n; ++i) level.requests.push_back({0, prompt, output, 0});
    return level;
  }
  const double rate = *load.rate_per_s;
  const double duration = load.duration_s.value_or(static_cast<double>(load.requests) / rate);
  const auto n = std::max<std::int64_t>(1, std::llround(rate * duration));
  for (std::int64_t i = 0; i < n; ++i) {
    level.requests.push_back({static_cast<double>(i) / rate, prompt, output, 0});
  }
  return level;
}

// A --prior run: "GPU=FILE" names the GPU preset it was measured on; a bare FILE is on --gpu.
struct PriorRun {
  std::string gpu;
  std::string path;
};

PriorRun split_prior_run(const std::string& text, const std::string& default_gpu) {
  const std::size_t equals = text.find('=');
  PriorRun run{default_gpu, text};
  if (equals != std::string::npos) {
    run.gpu = text.substr(0, equals);
    run.path = text.substr(equals + 1);
  }
  if (run.gpu.empty() || run.path.empty()) {
    throw InputError("kspeed validate --prior: run '" + text +
                     "': expected GPU=FILE (the GPU preset the run was measured on, then its "
                     "file), or FILE with --gpu NAME");
  }
  return run;
}

// The run's measured latencies: an AccelMark result.json with the suite file --accelmark-suite
// names (its request lengths), else whatever kspeed calibrate reads.
io::CalibrationFile read_prior_run(const std::string& path, const std::string& suite_path,
                                   std::optional<double> concurrency) {
  if (suite_path.empty()) {
    try {
      return io::read_calibration_file(path, concurrency);
    } catch (const InputError& error) {
      // The reader's fix (copy the suite file beside the run) is one of two here.
      if (std::string_view(error.what()).find("suite file") == std::string_view::npos) throw;
      throw InputError(std::string(error.what()) + ", or name it with --accelmark-suite FILE");
    }
  }
  const std::string text = io::read_text_file(path, "run");
  if (!io::looks_like_accelmark_result(text)) return io::read_calibration_file(path, concurrency);
  return io::parse_accelmark_result(text, io::read_text_file(suite_path, "--accelmark-suite"),
                                    path);
}

class ValidateCommand final : public Command {
 public:
  explicit ValidateCommand(CLI::App& command) : app_(&command) {
    app_->add_option("runs", flags_.runs,
                     "Measured runs of one deployment at several loads: inference-perf output "
                     "folders (stage_N_lifecycle_metrics.json)")
        ->type_name("RUN...")
        ->required();
    app_->add_option("--fit-levels", flags_.fit_levels,
                     "The levels to fit on, counted from 1 (the lightest): L1 fits the bandwidth "
                     "side, L1,L2 also the per-sequence cost; every other level is predicted")
        ->type_name("L1[,L2]")
        ->capture_default_str();
    app_->add_option("--max-seqs", flags_.max_seqs,
                     "The engine's running requests at most (vLLM --max-num-seqs). Default: 1024")
        ->type_name("N");
    app_->add_option("--max-batched-tokens", flags_.max_batched_tokens,
                     "The engine's token budget a step (vLLM --max-num-batched-tokens). "
                     "Default: 8192")
        ->type_name("N");
    app_->add_option("--chunked-prefill", flags_.chunked_prefill,
                     "on or off (vLLM --no-enable-chunked-prefill). Default: on")
        ->type_name("on|off");
    app_->add_flag("--prior", flags_.prior,
                   "Fit nothing: the prior from presets against each run's one-at-a-time "
                   "latencies; runs are GPU=FILE (AccelMark result.json or a per-request log)");
    app_->add_option("--accelmark-suite", flags_.accelmark_suite,
                     "AccelMark's suite file (suite_A.json: the request lengths) for --prior "
                     "runs that have none in a workload/ folder above them")
        ->type_name("FILE");
    app_->add_option("--calibrate-concurrency", flags_.concurrency,
                     "Requests in flight while the --prior runs were measured, when they do not "
                     "say (1: one at a time)")
        ->type_name("N");
    add_platform_flags(*app_, flags_.platform);
    end_flag_group(*app_);
    add_output_options(*app_, flags_.output);
    app_->footer(
        "\nExample:\n"
        "  kspeed validate inference-perf-run/ --model llama-3.1-8b --gpu h100-sxm \\\n"
        "                  --max-seqs 128 --chunked-prefill off --fit-levels 1,2\n"
        "  kspeed validate --prior --model llama-3.1-8b a100-sxm-80gb=a100/result.json \\\n"
        "                  h200-sxm=h200/result.json --accelmark-suite suite_A.json\n" +
        exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    check_output_options(flags_.output);
    if (flags_.prior) return execute_prior();
    if (!flags_.accelmark_suite.empty() || !flags_.concurrency.empty()) {
      throw InputError(
          "--accelmark-suite and --calibrate-concurrency are read with --prior only (the fitted "
          "validation reads inference-perf folders): add --prior or leave them out");
    }
    if (flags_.platform.model.empty() || flags_.platform.gpu.empty()) {
      throw InputError(
          "kspeed validate replays the deployment's step model: name it with --model NAME and "
          "--gpu NAME (kspeed models, kspeed gpus list them)");
    }
    const std::optional<engine::Platform> platform = resolve_platform(flags_.platform, {});
    if (!platform) throw InputError("--model and --gpu did not resolve to a deployment");
    engine::ServingSetup setup;
    report::ValidateContext context;
    context.deployment = report::deployment_name(*platform);
    setup.scheduler.chunked_prefill =
        flags_.chunked_prefill.empty()
            ? true
            : parse_choice<bool>(flags_.chunked_prefill, "--chunked-prefill", "setting",
                                 {{"on", true}, {"off", false}});
    if (!flags_.max_seqs.empty()) {
      setup.scheduler.max_seqs =
          std::llround(io::parse_positive_number(flags_.max_seqs, "--max-seqs"));
    }
    if (!flags_.max_batched_tokens.empty()) {
      setup.scheduler.max_batched_tokens = std::llround(
          io::parse_positive_number(flags_.max_batched_tokens, "--max-batched-tokens"));
    }
    const auto origin = [](const std::string& flag_value, const char* flag) {
      return flag_value.empty() ? std::string("default (vLLM's)") : std::string("given: ") + flag;
    };
    context.settings = {
        "max running requests " + std::to_string(setup.scheduler.max_seqs) + " (" +
            origin(flags_.max_seqs, "--max-seqs") + ")",
        "token budget a step " + std::to_string(setup.scheduler.max_batched_tokens) + " (" +
            origin(flags_.max_batched_tokens, "--max-batched-tokens") + ")",
        std::string("chunked prefill ") + (setup.scheduler.chunked_prefill ? "on" : "off") + " (" +
            origin(flags_.chunked_prefill, "--chunked-prefill") + ")"};
    context.load_notes = {
        "each level's load rebuilt from what its file states: constant-rate arrivals at the "
        "requested rate over the send duration, every request at the level's mean prompt and "
        "output lengths (no length spread: it is not in the file)"};
    const engine::CalibratedStepModel prior = engine::modelled_step_model_with_tp_comm(*platform);
    std::vector<engine::ValidationResult> results;
    for (const std::string& run : flags_.runs) {
      std::error_code error;
      if (!std::filesystem::is_directory(run, error)) {
        throw InputError(run +
                         ": kspeed validate reads inference-perf output folders "
                         "(stage_N_lifecycle_metrics.json) for now; other formats (AccelMark, "
                         "per-request logs) are not read by validate yet");
      }
      const std::vector<io::MeasuredLoad> loads = io::read_inference_perf_stages(run);
      if (loads.size() < 2) {
        throw InputError(run + ": " + std::to_string(loads.size()) +
                         " load level(s) found: validation needs one to fit and one to predict");
      }
      std::vector<engine::ReplayLevel> levels;
      for (const io::MeasuredLoad& load : loads) levels.push_back(level_of(load, run));
      const std::vector<std::size_t> fit = parse_fit_levels(flags_.fit_levels, levels.size(), run);
      results.push_back(engine::validate_through_replay(prior, setup, levels, fit, run));
    }
    const bool for_people = parse_output_format(flags_.output).for_people();
    render_and_emit(report::Report{report::validate_view(results, context),
                                   for_people ? report::Document{}
                                              : report::validate_document(results, context)},
                    flags_.output);
    return kExitOk;
  }

  // --prior: one platform per run (its GPU, the shared --model and deployment flags), the
  // prior's prediction of the run's measured points, nothing fitted.
  int execute_prior() {
    if (flags_.platform.model.empty()) {
      throw InputError(
          "kspeed validate --prior checks the prior of one model on several GPUs: name it with "
          "--model NAME (kspeed models lists them)");
    }
    if (flags_.fit_levels != "1,2" || !flags_.max_seqs.empty() ||
        !flags_.max_batched_tokens.empty() || !flags_.chunked_prefill.empty()) {
      throw InputError(
          "--prior fits nothing and replays no load: --fit-levels, --max-seqs, "
          "--max-batched-tokens and --chunked-prefill do not apply; leave them out");
    }
    std::optional<double> concurrency;
    if (!flags_.concurrency.empty()) {
      concurrency = io::parse_positive_number(flags_.concurrency, "--calibrate-concurrency");
    }
    std::vector<engine::PriorCheck> checks;
    report::PriorContext context;
    context.model = flags_.platform.model;
    for (const std::string& text : flags_.runs) {
      const PriorRun run = split_prior_run(text, flags_.platform.gpu);
      PlatformFlags flags = flags_.platform;
      flags.gpu = run.gpu;
      const std::optional<engine::Platform> platform = resolve_platform(flags, {});
      if (!platform) throw InputError(text + ": --model and the GPU did not resolve");
      const io::CalibrationFile file =
          read_prior_run(run.path, flags_.accelmark_suite, concurrency);
      const engine::CalibratedStepModel prior = engine::modelled_step_model_with_tp_comm(*platform);
      checks.push_back(engine::check_prior(prior, file.points, file.cached_tokens,
                                           report::deployment_name(*platform), run.path));
      // One note per memory family's prior among the runs, in the runs' order.
      const std::string note = report::step_prior_text(prior);
      if (std::find(context.prior_notes.begin(), context.prior_notes.end(), note) ==
          context.prior_notes.end()) {
        context.prior_notes.push_back(note);
      }
      if (context.settings.empty()) {
        context.settings = {
            "tp " + std::to_string(platform->tensor_parallel.value) + " (" +
                std::string(engine::to_string(platform->tensor_parallel.provenance)) + ")",
            "precision " + platform->precision.value + ", KV " + platform->kv_dtype.value};
      }
    }
    context.prior_notes.push_back(
        "TTFT = the overhead + one prefill step, TPOT = one decode step at the mean context");
    const bool for_people = parse_output_format(flags_.output).for_people();
    render_and_emit(report::Report{report::prior_check_view(checks, context),
                                   for_people ? report::Document{}
                                              : report::prior_check_document(checks, context)},
                    flags_.output);
    return kExitOk;
  }

 private:
  CLI::App* app_;
  ValidateFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_validate_command(CLI::App& command) {
  return std::make_unique<ValidateCommand>(command);
}

}  // namespace kspeed::cli
