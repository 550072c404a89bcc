// `kspeed mix`: a request log through the chain, one request at a time (streamed), then the
// aggregates, optionally the queue replay and goodput, then a reporter (and, with --per-request,
// one NDJSON object per request).
#include <cmath>
#include <iostream>

#include "choice.hpp"
#include "command.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/mix_inputs.hpp"
#include "kspeed/engine/chain/mix_result.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/serving/load_generator.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/mix_plot.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"
#include "mix_checks.hpp"
#include "mix_flags.hpp"
#include "output_options.hpp"
#include "run_names.hpp"

namespace kspeed::cli {

namespace {

// What replaces inputs --strict or --fail-on refuse, in the flags mix takes.
constexpr const char* kMixRemedy =
    "give them (--ttft with --ctx, --tpot, --share, --decode-share, --kernel-speedup), a log with "
    "measured latencies, or a workload measured on this deployment (--workload); for the replay, "
    "--calibrate FILE with --model and --gpu, --step-model, --kv-blocks";

class MixCommand final : public Command {
 public:
  explicit MixCommand(CLI::App& command) : app_(&command) { add_mix_flags(*app_, flags_); }

  CLI::App& app() override { return *app_; }

  int execute() override {
    const bool has_log = !flags_.log.empty();
    if (!has_log && !flags_.run.empty()) {
      throw InputError("--run " + flags_.run +
                       " picks one run of a request log that holds several, and no log is "
                       "given: pass the log (kspeed mix FILE --run N), or drop --run");
    }
    if (!has_log && flags_.prompt_tokens.empty() && flags_.output_tokens.empty() &&
        flags_.requests.empty() && flags_.duration.empty()) {
      throw InputError(
          "kspeed mix needs a request log: kspeed mix FILE (Azure or BurstGPT CSV, Mooncake "
          "JSONL, vllm bench serve --save-detailed JSON, AIPerf profile_export.jsonl, GuideLLM "
          "benchmarks.json, LLMServingSim's vLLM requests.jsonl, a per-request CSV with "
          "--columns; see kspeed mix --help), or requests to generate: --prompt-tokens 1000 "
          "--output-tokens 200 --requests 1000 (with --replay: --arrivals poisson --rate 4, or "
          "--concurrency N)");
    }
    if (!has_log && !flags_.columns.empty()) {
      throw InputError("--columns maps a CSV log's columns, and no log is given: drop --columns");
    }
    // Every flag is checked before the log is read, so a typo fails in milliseconds.
    const std::optional<engine::LoadSpec> load = parse_load(flags_, has_log);
    if (!has_log && flags_.replay && flags_.concurrency.empty() &&
        load->arrivals.process == engine::ArrivalProcess::trace) {
      throw InputError(
          "--replay of generated requests needs their arrivals: add --arrivals poisson "
          "--rate R (or gamma:CV, constant), or run a closed loop with --concurrency N");
    }
    const engine::EstimateOptions estimate_options = to_options(flags_.deployment);
    io::ReadOptions read_options;
    read_options.strict = flags_.strict;
    if (!flags_.columns.empty()) {
      read_options.columns = io::parse_column_mapping(flags_.columns, "--columns");
    }
    const engine::PrefixCacheOptions cache = parse_prefix_cache(flags_);
    const std::vector<double> percentiles = parse_percentiles(flags_.percentiles);
    const engine::MixGrouping grouping = parse_choice<engine::MixGrouping>(
        flags_.by, "--by", "grouping",
        {{"bucket", engine::MixGrouping::bucket}, {"model", engine::MixGrouping::model}});
    const engine::Slo slo = parse_slo(flags_);
    const std::optional<engine::KernelSpeedupTable> speedup_table =
        read_speedup_table(flags_, estimate_options);
    reject_replay_flags_without_replay(flags_);
    if (flags_.replay) {
      take_deployment_scheduler(flags_.deployment.deployment_file,
                                {&flags_.max_seqs, &flags_.max_batched_tokens,
                                 &flags_.chunked_prefill, &flags_.scheduler});
    }
    const std::optional<io::CalibrationFile> calibration = read_calibration(flags_.deployment);
    engine::Workload workload = io::load_workload(flags_.workload);
    // The replay runs on the workload's deployment when the flags name none (a workload kspeed
    // profile emitted with --model states it, with the steps to calibrate it on).
    const PlatformDefaults workload_platform =
        flags_.replay ? PlatformDefaults{workload.model,    workload.gpu,
                                         workload.batch,    workload.tp,
                                         workload.kv_dtype, engine::workload_model_label(workload)}
                      : PlatformDefaults{};
    engine::DeploymentRequest deployment_asked =
        deployment_request(flags_.deployment.platform, calibration, workload, workload_platform);
    const std::optional<engine::Platform> platform = deployment_asked.platform;
    const std::optional<engine::ModelledPrefillShare> share_model = modelled_share(
        estimate_options.share_model, platform, workload, flags_.workload_option->count() > 0);
    std::optional<engine::Deployment> deployment;  // the replay's
    engine::ServingSetup serving = parse_replay(deployment_asked, deployment);
    serving.slo = slo;
    serving.percentiles = percentiles;
    const std::optional<engine::DisaggRequest> disagg =
        flags_.replay ? parse_disagg(flags_, deployment_asked, workload_platform) : std::nullopt;
    check_output_options(flags_.output);
    if (!flags_.per_request.empty()) io::check_output_path(flags_.per_request, "--per-request");
    if (!flags_.plot_path.empty() && flags_.plot_path != "-") {
      io::check_output_path(flags_.plot_path, "--plot");
    }
    check_title_option(flags_.plot_title, flags_.plot_path);

    // With --model and --gpu and no --workload the deployment answers alone: its step model
    // prices each request, and no table or latency of the built-in example reaches the answer.
    const bool deployment_answers = platform && flags_.workload_option->count() == 0;
    if (platform && !deployment_answers && !flags_.replay) {
      throw InputError(
          "--model and --workload " + flags_.workload +
          " both describe what prices the requests, and without --replay the deployment would "
          "reach nothing: drop --workload (the deployment's step model prices each request), or "
          "add --replay (the workload prices the chain, the deployment times the replay)");
    }
    engine::EstimateOptions scenario_options = estimate_options;
    // --ttft-overhead is each request's (MixModel::ttft_overhead_ms), not the reference's: the
    // scenario's one reference prompt must not refuse an overhead above its own TTFT.
    scenario_options.ttft_overhead_ms.reset();
    // --share-model prices each request's share (MixModel::share_model), not the reference's.
    scenario_options.share_model = engine::ShareModel::table;
    if (deployment_answers) {
      workload = engine::request_lengths_only(workload);
      workload.name.clear();
      name_after_deployment(workload, platform);
      scenario_options.platform = platform;
      // One step model for the chain and the replay: the replay's, with its request overhead,
      // prices each request alone too, so the no-queue table and the replay's "alone" agree.
      scenario_options.step_model =
          deployment ? deployment->step : engine::resolve_deployment(deployment_asked).step;
    }
    const engine::Scenario scenario = engine::resolve_scenario(workload, scenario_options);
    // Two or more --tpot-point fit TPOT = c + b·L for every request; a --tpot wins over them.
    engine::MixModel model =
        engine::make_mix_model(workload, scenario, estimate_options.extrapolation,
                               estimate_options.tpot_ms ? std::vector<engine::LatencyPoint>{}
                                                        : estimate_options.tpot_points);
    if (deployment_answers) {
      engine::price_by_step_model(model, *scenario_options.step_model, estimate_options);
    }
    model.ttft_overhead_ms = estimate_options.ttft_overhead_ms;
    model.share_model = share_model;
    model.kernel_speedup_table = speedup_table;
    model.prefix_cache = cache;
    model.percentiles = percentiles;

    engine::MixRun run(model);
    engine::MixResult result;
    if (has_log) {
      // An AIPerf artifact directory is read through its per-request export. With generated
      // arrivals each request, in log order, takes the next arrival time of the process.
      std::optional<engine::ArrivalGenerator> arrivals;
      if (load) arrivals.emplace(load->arrivals, engine::arrival_seed(load->seed));
      const auto take = [&run, &arrivals](const engine::Request& request) {
        if (!arrivals) {
          run.add(request);
          return;
        }
        engine::Request timed = request;
        timed.arrival_s = arrivals->next_s();
        run.add(timed);
      };
      const io::RequestLogReport log =
          flags_.run.empty()
              ? io::read_request_log(io::per_request_export(flags_.log), read_options, take)
              : read_log_run(read_options, take);
      result.log = static_cast<const engine::RequestLogCounts&>(log);  // format: by name, below
      result.log_format = std::string(io::to_string(log.format));
      if (load) result.generated_load = describe_load(*load, log.requests, true);
    } else {
      add_generated(*load, run, result);
    }
    result.workload_name = workload.name;
    result.workload_source = workload.source;
    result.model = run.model();
    result.summary = engine::summarise(run);
    result.grouping = grouping;
    if (grouping == engine::MixGrouping::model && result.summary.by_model.empty()) {
      throw InputError("--by model: " + result.log.source +
                       " names no models (BurstGPT logs and --columns model=COL do); use --by "
                       "bucket");
    }
    result.slo = slo;
    // Before anything is written: --strict and --fail-on over what reaches this answer.
    check_mix_inputs(engine::mix_answer_inputs(scenario, result.summary, deployment, run),
                     result.summary);
    if (flags_.replay) {
      serving.speedup = engine::attention_speedup(run.model());
      result.deployment = deployment;
      check_replay_work(flags_, serving, run.outcomes());
      if (disagg) {  // before the colocated replay, which may release the outcomes
        std::vector<std::int32_t> index;
        // A closed loop takes every request in the log's order (no arrival times).
        result.disagg = engine::replay_disaggregated_mix(
            engine::replay_requests(run, disagg->concurrency > 0, index), *disagg, serving.speedup,
            slo, percentiles);
      }
      // Nothing reads the outcomes after the replay without --per-request or --plot: the
      // replay releases them (80 bytes a request) once its own requests are built.
      result.replay =
          flags_.per_request.empty() && flags_.plot_path.empty()
              ? engine::replay_run_releasing(run, serving)
              : engine::replay_run(run, serving, &per_request_replay_,
                                   flags_.per_request.empty() ? nullptr : &replay_order_);
      engine::note_replayed_decode(result.summary.warnings, serving.speedup);
      if (result.replay->requests == 0) {
        throw InputError(
            "--replay: " + result.log.source + " (" + result.log_format +
            ") gives no request an arrival time, so there is no queue to replay; "
            "replay it as a closed loop with --concurrency N, drop --replay, or map an arrival "
            "column with --columns arrival=COL:s");
      }
    }

    if (!flags_.per_request.empty()) {
      stage_side_output(
          flags_.per_request, "--per-request",
          [this, &run](const report::TextSink& sink) { write_per_request(run, sink); });
    }
    const std::string svg = flags_.plot_path.empty()
                                ? std::string()
                                : report::mix_svg(result, run.outcomes(), flags_.plot_title,
                                                  result.replay ? &per_request_replay_ : nullptr);
    stage_plot(flags_.plot_path, svg);
    render_and_emit(report::make_report(result, report::mix_view, report::mix_document),
                    flags_.output);
    write_plot(flags_.plot_path, svg);
    if (!flags_.per_request.empty()) {
      std::cerr << "kspeed: wrote " << run.outcomes().size() << " requests to "
                << flags_.per_request << "\n";
    }
    return kExitOk;
  }

 private:
  // The generated requests (no log) through the chain, counted as a log's would be.
  static void add_generated(const engine::LoadSpec& load, engine::MixRun& run,
                            engine::MixResult& result) {
    const std::vector<engine::ReplayRequest> generated = engine::generate_load(load);
    run.reserve(generated.size());
    const bool timed = load.arrivals.process != engine::ArrivalProcess::trace;
    for (std::size_t i = 0; i < generated.size(); ++i) {
      engine::Request request;
      if (timed) request.arrival_s = generated[i].arrival_s;
      request.prompt_tokens = generated[i].prompt_tokens;
      request.response_tokens = generated[i].response_tokens;
      request.line = static_cast<std::int64_t>(i) + 1;
      run.add(request);
    }
    const auto count = static_cast<std::int64_t>(generated.size());
    result.log.source = "generated";
    result.log.records = count;
    result.log.requests = count;
    result.log_format = "generated";
    result.generated_load = describe_load(load, count, false);
  }

  // The replay's deployment (the request completed by the replay's flags, then resolved) and
  // its arrivals.
  engine::ServingSetup parse_replay(engine::DeploymentRequest& request,
                                    std::optional<engine::Deployment>& deployment) const {
    engine::ServingSetup setup;
    if (!flags_.replay) return setup;
    add_replay_request(flags_, request);
    deployment = engine::resolve_deployment(request);
    if (deployment->kv.modelled && deployment->kv.modelled->blocks < 1) {
      throw InputError(report::no_kv_room_error(*deployment));
    }
    setup.step = deployment->step->model;
    setup.scheduler = deployment->scheduler;
    setup.arrivals = parse_arrivals(flags_);
    return setup;
  }

  // --run N: the Nth non-blank line of a log whose every line is one run (SGLang bench_serving
  // --output-details appends a run a line), read as a log of its own, named FILE:LINE.
  io::RequestLogReport read_log_run(const io::ReadOptions& options,
                                    const io::RequestSink& take) const {
    const std::optional<std::int64_t> wanted = parse_run_number(flags_.run);
    const std::string text = io::read_text_file(flags_.log, "request log");
    std::int64_t runs = 0;
    std::int64_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string_view line(text.data() + start, end - start);
      start = end + 1;
      ++line_number;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      if (++runs == *wanted) {
        return io::read_request_log_text(line, flags_.log + ":" + std::to_string(line_number),
                                         options, take);
      }
    }
    throw InputError("--run " + flags_.run + ": " + flags_.log + " holds " + std::to_string(runs) +
                     (runs == 1 ? " line" : " lines") + ": give a run from 1 to " +
                     std::to_string(runs));
  }

  // --strict (illustrative, clamped, extrapolated, borrowed) and --fail-on: exit 2 naming the
  // refused inputs, with fixes mix takes.
  void check_mix_inputs(const std::vector<engine::AnswerInput>& inputs,
                        const engine::MixSummary& summary) const {
    if (flags_.strict) engine::refuse_missing_phase(summary);
    if (flags_.strict) engine::refuse_beyond_context(summary.warnings, "--strict");
    if (flags_.strict) {
      engine::refuse_inputs(inputs, engine::strict_filter(), "--strict", kMixRemedy);
    }
    if (!flags_.deployment.fail_on.empty()) {
      engine::refuse_inputs(inputs,
                            engine::parse_input_filter(flags_.deployment.fail_on, "--fail-on"),
                            "--fail-on", kMixRemedy);
    }
  }

  // One NDJSON line per request in log order, handed over as it is made; with --replay, its
  // replayed values too (requests left out of the replay, without an arrival time, get the
  // chain's fields only).
  void write_per_request(const engine::MixRun& run, const report::TextSink& sink) const {
    std::vector<std::int32_t> replayed_at(run.outcomes().size(), -1);
    for (std::size_t i = 0; i < replay_order_.size(); ++i) {
      replayed_at[static_cast<std::size_t>(replay_order_[i])] = static_cast<std::int32_t>(i);
    }
    for (std::size_t i = 0; i < run.outcomes().size(); ++i) {
      const engine::RequestOutcome& outcome = run.outcomes()[i];
      const std::string& model = run.models()[outcome.model_index];
      const std::int32_t at = replayed_at[i];
      sink(at < 0 || per_request_replay_.after.empty()
               ? report::per_request_line(outcome, model, run.model())
               : report::per_request_replay_line(
                     outcome, model, run.model(),
                     per_request_replay_.before[static_cast<std::size_t>(at)],
                     per_request_replay_.after[static_cast<std::size_t>(at)]));
    }
  }

  CLI::App* app_;
  MixFlags flags_;
  engine::PerRequestReplay per_request_replay_;  // with --replay and --per-request or --plot
  std::vector<std::int32_t> replay_order_;       // replayed request i is outcome replay_order_[i]
};

}  // namespace

std::unique_ptr<Command> make_mix_command(CLI::App& command) {
  return std::make_unique<MixCommand>(command);
}

}  // namespace kspeed::cli
