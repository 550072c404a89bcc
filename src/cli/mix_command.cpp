// `kspeed mix`: a request log through the chain, one request at a time (streamed), then the
// aggregates, optionally the queue replay and goodput, then a reporter (and, with --per-request,
// one NDJSON object per request).
#include <algorithm>
#include <cmath>
#include <iostream>

#include "choice.hpp"
#include "command.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/serving/mix.hpp"
#include "kspeed/engine/serving/mix_result.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/kernel_speedup_reader.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/mix_plot.hpp"
#include "kspeed/report/reports.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

namespace {

// Replicas x requests the replay accepts (check_replay_work).
constexpr double kMaxReplicaWork = 1e9;

// Flag values exactly as typed; parsed by kspeed's own parsers so every error names its flag.
struct MixFlags {
  std::string log;
  std::string columns;
  bool strict = false;
  std::string prefix_cache = "off";
  std::string prefix_cache_hit;
  bool replay = false;
  std::string replicas, rate_scale, slo_ttft, slo_tpot, attainment;
  std::string concurrency, routing = "round-robin", scheduler = "mixed", max_batched_tokens,
                           max_seqs, chunked_prefill = "on", kv_blocks, block_size,
                           request_overhead, step_model;
  std::string speedup_table_path;  ///< --kernel-speedup-table FILE
  std::string percentiles = "50,90,99";
  std::string by = "bucket";
  std::string per_request;
  std::string plot_path;
  std::string plot_title;
  std::string workload = kDefaultWorkload;
  /// Parsed by estimate's code (to_options, resolve_platform): the change flags
  /// (--kernel-speedup, --phase, --share, --decode-share, --extrapolate), --ttft, --ctx, --tpot,
  /// the deployment (--model, --gpu, --tp, --kv-dtype, ...), --calibrate and --fail-on.
  EstimateFlags deployment;
  std::string gpu_memory_utilization;
  OutputOptions output;
};

// The replay's step model and KV capacity, with where each came from.
struct ReplayDeployment {
  std::string step_model_source;
  std::string kv_blocks_source;
};

template <class T, class Parse>
std::optional<T> optional_value(const std::string& text, const char* flag, Parse parse) {
  if (text.empty()) return std::nullopt;
  return parse(text, flag);
}

// "50,90,99,99.9": points in [0, 100], at least one.
std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> points;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const double point = io::parse_number(item, "--percentiles", "a percentile from 0 to 100");
    if (point < 0 || point > 100) {
      throw InputError("--percentiles: '" + item +
                       "' is not a percentile from 0 to 100 (e.g. --percentiles 50,90,99,99.9)");
    }
    points.push_back(point);
    start = end + 1;
  }
  // In rising order, each once: "1,25,5" reads p1, p5, p25 in every output
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

engine::PrefixCacheOptions parse_prefix_cache(const MixFlags& flags) {
  engine::PrefixCacheOptions cache;
  const bool lru = flags.prefix_cache != "off";
  if (lru && !flags.prefix_cache_hit.empty()) {
    throw InputError(
        "--prefix-cache and --prefix-cache-hit both describe the cache: --prefix-cache SIZE "
        "simulates an LRU over the log's block ids (Mooncake hash_ids), --prefix-cache-hit R "
        "states a hit fraction for logs without them; pass one");
  }
  if (lru) {
    cache.mode = engine::PrefixCacheOptions::Mode::lru;
    cache.capacity_tokens = io::parse_token_count(flags.prefix_cache, "--prefix-cache");
    if (cache.capacity_tokens < cache.block_tokens) {
      throw InputError("--prefix-cache: " + flags.prefix_cache +
                       " tokens hold no 512-token block; pass at least 512 (e.g. 1m), or off");
    }
  } else if (!flags.prefix_cache_hit.empty()) {
    cache.mode = engine::PrefixCacheOptions::Mode::hit_fraction;
    cache.hit_fraction = io::parse_share(flags.prefix_cache_hit, "--prefix-cache-hit");
    if (cache.hit_fraction >= 1) {
      throw InputError("--prefix-cache-hit: '" + flags.prefix_cache_hit +
                       "' is not a fraction from 0 to below 1 (the last prompt token is always "
                       "computed); e.g. 0.3 or 30%");
    }
  }
  return cache;
}

// A whole number from 1 to `max` for `flag`, described as `what`.
std::int64_t parse_whole(const std::string& text, const char* flag, const char* what, double max) {
  const double value = io::parse_number(text, flag, what);
  if (!(value >= 1 && value <= max) || value != std::floor(value)) {
    throw InputError(std::string(flag) + ": '" + text + "' is not " + what +
                     " (a whole number from 1 to " +
                     report::human_count(static_cast<std::int64_t>(max)) + ")");
  }
  return static_cast<std::int64_t>(value);
}

// "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5":
// the step model's coefficients (step_model.hpp), each >= 0, all five named; ms_per_sequence
// (the per-running-sequence cost) may follow, 0 when absent.
engine::StepModel parse_step_model(const std::string& text) {
  engine::StepModel model;
  const std::pair<const char*, double*> keys[] = {
      {"fixed_ms", &model.fixed_ms},
      {"weights_ms", &model.weights_ms},
      {"ms_per_token", &model.ms_per_token},
      {"ms_per_prefill_pair", &model.ms_per_prefill_pair},
      {"ms_per_kv_token", &model.ms_per_kv_token},
      {"ms_per_sequence", &model.ms_per_sequence}};
  const std::string example =
      " (e.g. --step-model fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,"
      "ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5)";
  int seen = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const std::size_t equals = item.find('=');
    const std::string key = item.substr(0, equals);
    double* target = nullptr;
    for (const auto& [name, field] : keys) {
      if (key == name) target = field;
    }
    if (equals == std::string::npos || target == nullptr) {
      throw InputError("--step-model: '" + item + "' is not KEY=MS with KEY one of fixed_ms, " +
                       "weights_ms, ms_per_token, ms_per_prefill_pair, ms_per_kv_token, " +
                       "ms_per_sequence" + example);
    }
    *target = io::parse_number(item.substr(equals + 1), "--step-model", "milliseconds >= 0");
    if (!(*target >= 0) || std::isinf(*target)) {
      throw InputError("--step-model: " + key + " must be a finite number of ms >= 0" + example);
    }
    io::check_range("--step-model KEY", *target, item);
    if (key != "ms_per_sequence") ++seen;
    start = end + 1;
  }
  if (seen != 5) {
    throw InputError("--step-model: name all five coefficients once each" + example);
  }
  return model;
}

class MixCommand final : public Command {
 public:
  explicit MixCommand(CLI::App& command) : app_(&command) {
    add_log_flags();
    add_cache_flags();
    add_replay_flags();
    add_deployment_flags();
    add_change_flags();
    add_report_flags();
    add_output_options(*app_, flags_.output);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (flags_.log.empty()) {
      throw InputError(
          "kspeed mix needs a request log: kspeed mix FILE (Azure or BurstGPT CSV, Mooncake "
          "JSONL, vllm bench serve --save-detailed JSON, AIPerf profile_export.jsonl, GuideLLM "
          "benchmarks.json, LLMServingSim's vLLM requests.jsonl, a per-request CSV with "
          "--columns; see kspeed mix --help)");
    }
    // Every flag is checked before the log is read, so a typo fails in milliseconds.
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
    const engine::Slo slo = parse_slo();
    const std::optional<engine::KernelSpeedupTable> speedup_table =
        read_speedup_table(estimate_options);
    reject_replay_flags_without_replay();
    const std::optional<io::CalibrationFile> calibration = read_calibration(flags_.deployment);
    engine::Workload workload = io::load_workload(flags_.workload);
    // The replay runs on the workload's deployment when the flags name none (a workload kspeed
    // profile emitted with --model states it, with the steps to calibrate it on).
    const std::optional<engine::Platform> platform = resolve_platform(
        flags_.deployment.platform,
        flags_.replay ? PlatformDefaults{workload.model, workload.gpu, workload.batch, workload.tp,
                                         workload.kv_dtype, engine::workload_model_label(workload)}
                      : PlatformDefaults{});
    const std::optional<engine::ModelledPrefillShare> share_model = modelled_share(
        estimate_options.share_model, platform, workload, workload_option_->count() > 0);
    ReplayDeployment deployment;
    engine::ServingSetup serving = parse_replay(platform, calibration, workload, deployment);
    serving.slo = slo;
    serving.percentiles = percentiles;
    check_output_options(flags_.output);
    if (!flags_.per_request.empty()) io::check_output_path(flags_.per_request, "--per-request");
    if (!flags_.plot_path.empty() && flags_.plot_path != "-") {
      io::check_output_path(flags_.plot_path, "--plot");
    }
    check_title_option(flags_.plot_title, flags_.plot_path);

    // With --model and --gpu and no --workload the deployment answers alone: its step model
    // prices each request, and no table or latency of the built-in example reaches the answer.
    const bool deployment_answers = platform && workload_option_->count() == 0;
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
      attach_step_model(scenario_options, calibration, workload);
      if (flags_.replay) share_replay_step_model(serving, *scenario_options.step_model);
    }
    const engine::Scenario scenario = engine::resolve_scenario(workload, scenario_options);
    // Two or more --tpot-point fit TPOT = c + b·L for every request; a --tpot wins over them.
    engine::MixModel model =
        engine::make_mix_model(workload, scenario, estimate_options.extrapolation,
                               estimate_options.tpot_ms ? std::vector<engine::LatencyPoint>{}
                                                        : estimate_options.tpot_points);
    if (deployment_answers) price_by_step_model(model, *scenario_options.step_model);
    model.ttft_overhead_ms = estimate_options.ttft_overhead_ms;
    model.share_model = share_model;
    model.kernel_speedup_table = speedup_table;
    model.prefix_cache = cache;
    model.percentiles = percentiles;

    engine::MixRun run(model);
    engine::MixResult result;
    // An AIPerf artifact directory is read through its per-request export.
    const io::RequestLogReport log =
        io::read_request_log(io::per_request_export(flags_.log), read_options,
                             [&run](const engine::Request& request) { run.add(request); });
    result.log = static_cast<const engine::RequestLogCounts&>(log);  // format: by name, below
    result.log_format = std::string(io::to_string(log.format));
    result.workload_name = workload.name;
    result.workload_source = workload.source;
    result.model = run.model();
    result.summary = engine::summarise(run);
    result.grouping = grouping;
    if (grouping == engine::MixGrouping::model && result.summary.by_model.empty()) {
      throw InputError("--by model: " + flags_.log +
                       " names no models (BurstGPT logs and --columns model=COL do); use --by "
                       "bucket");
    }
    result.slo = slo;
    // Before anything is written: --strict and --fail-on over what reaches this answer.
    check_mix_inputs(mix_inputs(scenario, result.summary, deployment, run));
    if (flags_.replay) {
      serving.speedup = engine::attention_speedup(run.model());
      result.step_model_source = deployment.step_model_source;
      result.kv_blocks_source = deployment.kv_blocks_source;
      check_replay_work(serving, run.outcomes().size());
      // Nothing reads the outcomes after the replay without --per-request or --plot: the
      // replay releases them (80 bytes a request) once its own requests are built.
      result.replay =
          flags_.per_request.empty() && flags_.plot_path.empty()
              ? engine::replay_run_releasing(run, serving)
              : engine::replay_run(run, serving,
                                   flags_.per_request.empty() ? nullptr : &per_request_replay_,
                                   flags_.per_request.empty() ? nullptr : &replay_order_);
      engine::note_replayed_decode(result.summary.warnings, serving.speedup);
      if (result.replay->requests == 0) {
        throw InputError(
            "--replay: " + flags_.log + " (" + result.log_format +
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
                                : report::mix_svg(result, run.outcomes(), flags_.plot_title);
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
  void add_log_flags() {
    app_->add_option("log", flags_.log,
                     "A request log; the format is detected by content (gzip too): Azure LLM "
                     "inference trace CSV, BurstGPT CSV, Mooncake JSONL, vllm bench serve "
                     "--save-detailed JSON, AIPerf profile_export.jsonl, GuideLLM benchmarks.json "
                     "(one benchmark with its requests), InferenceX trace-replay CSV, "
                     "LLMServingSim's vLLM requests.jsonl, or any CSV with --columns")
        ->type_name("FILE");
    app_->add_option("--columns", flags_.columns,
                     "Which CSV column holds each field: prompt=COL,response=COL[,arrival=COL:s|"
                     "ms|us|ns|datetime][,cached=COL[:BLOCK]][,ttft=COL:s|ms][,tpot=..][,itl=..]"
                     "[,e2e=..][,model=COL][,success=COL]")
        ->type_name("MAP");
    app_->add_flag("--strict", flags_.strict,
                   "Stop at the first bad row (exit 2, file:line) instead of skipping and "
                   "counting it; and exit 2, writing nothing, when an input that reaches the "
                   "answer is illustrative, clamped, extrapolated or borrowed (stderr names them)");
  }

  void add_cache_flags() {
    app_->add_option("--prefix-cache", flags_.prefix_cache,
                     "Simulate an LRU prefix cache of SIZE tokens over the log's block ids "
                     "(Mooncake hash_ids, 512-token blocks): 1m, 8m; or off")
        ->type_name("SIZE|off")
        ->capture_default_str();
    app_->add_option("--prefix-cache-hit", flags_.prefix_cache_hit,
                     "For logs without block ids: this fraction of every prompt is cached "
                     "(0.3 or 30%; labelled given)")
        ->type_name("R");
  }

  void add_replay_flags() {
    app_->add_flag("--replay", flags_.replay,
                   "Replay the log through a continuous-batching engine, step by step, before and "
                   "after: queues, batches, TTFT/TPOT/ITL/E2E under load, SLO attainment, "
                   "capacity (docs/mix.md)");
    app_->add_option(
            "--step-model", flags_.step_model,
            "The deployment's step time (ms): fixed_ms=..,weights_ms=..,ms_per_token=..,"
            "ms_per_prefill_pair=..,ms_per_kv_token=..[,ms_per_sequence=..] (with --replay; "
            "instead of the one --model and --gpu model or --calibrate fits)")
        ->type_name("COEFFS");
    app_->add_option("--replicas", flags_.replicas, "Engine replicas (with --replay). Default: 1")
        ->type_name("N");
    app_->add_option("--routing", flags_.routing,
                     "How requests reach replicas: round-robin, least-outstanding, or "
                     "shared-queue (wait at the router for a free sequence slot)")
        ->type_name("POLICY")
        ->capture_default_str();
    app_->add_option("--rate-scale", flags_.rate_scale,
                     "Arrivals at X times the log's rate (with --replay; 2 = twice as fast). "
                     "Default: 1")
        ->type_name("X");
    app_->add_option("--concurrency", flags_.concurrency,
                     "A closed loop of N clients instead of the log's arrival times, each sending "
                     "the next request when its last returns (vllm bench serve --max-concurrency)")
        ->type_name("N");
    app_->add_option("--scheduler", flags_.scheduler,
                     "mixed: vLLM V1 (decodes and prefill chunks share each step); prefill-first: "
                     "SGLang's default and vLLM V0 (prefill steps stall decodes)")
        ->type_name("POLICY")
        ->capture_default_str();
    app_->add_option("--max-batched-tokens", flags_.max_batched_tokens,
                     "Tokens per step (vLLM --max-num-batched-tokens). Default: 8192, vLLM's for "
                     "vllm serve on GPUs of 70 GiB or more (2048 below)")
        ->type_name("TOKENS");
    app_->add_option("--max-seqs", flags_.max_seqs,
                     "Sequences per step (vLLM --max-num-seqs). Default: 1024 (vLLM's on GPUs of "
                     "70 GiB or more; 256 below)")
        ->type_name("N");
    app_->add_option("--chunked-prefill", flags_.chunked_prefill,
                     "on: a long prompt spans steps (vLLM V1 default); off: it waits to fit whole")
        ->type_name("on|off")
        ->capture_default_str();
    app_->add_option("--kv-blocks", flags_.kv_blocks,
                     "KV cache per replica in blocks (vLLM logs 'GPU KV cache size'); full: the "
                     "latest request is preempted and recomputed. Default: what --model on --gpu "
                     "leaves beside the weights (--gpu-memory-utilization), else unlimited")
        ->type_name("N");
    app_->add_option("--block-size", flags_.block_size,
                     "Tokens per KV block (vLLM --block-size). Default: 16")
        ->type_name("TOKENS");
    app_->add_option("--request-overhead", flags_.request_overhead,
                     "Time per request outside the engine (HTTP, tokenization), added to TTFT and "
                     "E2E, never queued. Default: 0")
        ->type_name("DURATION");
    app_->add_option("--slo-ttft", flags_.slo_ttft,
                     "TTFT objective (with --replay): SLO attainment and capacity before and "
                     "after: 2s, 2500ms")
        ->type_name("DURATION");
    app_->add_option("--slo-tpot", flags_.slo_tpot, "TPOT objective (with --replay): 60ms")
        ->type_name("DURATION");
    app_->add_option("--attainment", flags_.attainment,
                     "Capacity's target: the fraction of requests that must meet both SLOs "
                     "(0.9 or 90%). Default: 90%")
        ->type_name("P");
  }

  // The deployment the replay runs on, registered by the code estimate and sweep use.
  void add_deployment_flags() {
    add_platform_flags(*app_, flags_.deployment.platform);
    add_calibration_flags(*app_, flags_.deployment);
    app_->add_option("--gpu-memory-utilization", flags_.gpu_memory_utilization,
                     "With --replay on --model/--gpu and no --kv-blocks: the fraction of each "
                     "GPU's memory the engine takes; the KV cache is what the weights leave of it "
                     "(vLLM --gpu-memory-utilization). Default: 0.9, vLLM's")
        ->type_name("F");
    add_fail_on_flag(*app_, flags_.deployment);
  }

  void add_change_flags() {
    workload_option_ =
        app_->add_option("--workload,-w", flags_.workload,
                         "Share tables and reference latencies: a workload JSON file or a built-in "
                         "name (kspeed workloads lists them). With --model and --gpu and no "
                         "--workload, the deployment's step model prices every request instead")
            ->type_name("FILE|NAME")
            ->capture_default_str();
    // The change flags estimate and sweep take, registered and parsed by their code.
    cli::add_change_flags(*app_, flags_.deployment);
    app_->add_option("--kernel-speedup-table", flags_.speedup_table_path,
                     "The kernel speedup measured at several contexts (CSV 'context,speedup', or "
                     "JSON), read at each request's prompt: interpolated in log-log between "
                     "rows, held at the nearest row outside; with --replay, on that request's "
                     "attention in every step it shares")
        ->type_name("FILE");
    app_->add_option("--ttft", flags_.deployment.ttft,
                     "A measured TTFT at --ctx tokens, to which requests without a measured TTFT "
                     "are scaled. Default: the workload's")
        ->type_name("DURATION");
    app_->add_option("--ttft-point", flags_.deployment.ttft_points,
                     "A measured TTFT at a prompt length, PROMPT=TTFT (repeatable): 8k=474ms. "
                     "Two or more fit TTFT = T0 + a·n·(1 + odds(2c + n)) for every request "
                     "without a measured TTFT. Default: the workload's points")
        ->type_name("L=D");
    app_->add_option("--ttft-overhead", flags_.deployment.ttft_overhead,
                     "Time in TTFT no attention kernel touches (scheduling, KV transfer, "
                     "chunking gaps), for every request without a measured TTFT: TTFT's fixed "
                     "term, which dilutes the prefill speedup (a TTFT below it is all fixed "
                     "term); 0 for none. Default: the fitted T0, or the step model's overhead "
                     "and fixed step cost")
        ->type_name("DURATION");
    app_->add_option("--tpot-point", flags_.deployment.tpot_points,
                     "A measured TPOT at a context length, CONTEXT=TPOT (repeatable): "
                     "--tpot-point 1k=50ms --tpot-point 128k=95ms. Two or more fit TPOT = c + b·L, "
                     "taken at each request's prompt L; one is held like --tpot. --tpot wins")
        ->type_name("L=D");
    app_->add_option("--ctx", flags_.deployment.ctx,
                     "The prompt length --ttft was measured at: 1k, 4096")
        ->type_name("TOKENS");
    app_->add_option("--tpot", flags_.deployment.tpot,
                     "TPOT for requests without a measured one: 50ms. Default: the workload's")
        ->type_name("DURATION");
  }

  void add_report_flags() {
    app_->add_option("--percentiles", flags_.percentiles, "Which percentiles to report")
        ->type_name("LIST")
        ->capture_default_str();
    app_->add_option("--by", flags_.by,
                     "Group the table by prompt-length bucket or by model (logs that name "
                     "models)")
        ->type_name("bucket|model")
        ->capture_default_str();
    app_->add_option("--per-request", flags_.per_request,
                     "Also write one JSON object per request (NDJSON) to FILE, atomically")
        ->type_name("FILE");
    add_plot_option(*app_, flags_.plot_path,
                    "Also draw the CDF of TTFT and E2E over the requests, before and after, "
                    "into FILE");
    add_title_option(*app_, flags_.plot_title);
  }

  engine::Slo parse_slo() const {
    engine::Slo slo;
    slo.ttft_ms = optional_value<double>(flags_.slo_ttft, "--slo-ttft", io::parse_duration_ms);
    slo.tpot_ms = optional_value<double>(flags_.slo_tpot, "--slo-tpot", io::parse_duration_ms);
    if (!flags_.attainment.empty()) {
      slo.attainment_target = io::parse_share(flags_.attainment, "--attainment");
      if (slo.attainment_target <= 0) {
        throw InputError("--attainment: '" + flags_.attainment +
                         "' is no target: pass the fraction of requests that must meet the SLOs, "
                         "e.g. 90% or 0.99");
      }
    }
    return slo;
  }

  engine::SchedulerOptions parse_scheduler() const {
    engine::SchedulerOptions scheduler;
    scheduler.policy = parse_choice<engine::SchedulerPolicy>(
        flags_.scheduler, "--scheduler", "policy",
        {{"mixed", engine::SchedulerPolicy::mixed},
         {"prefill-first", engine::SchedulerPolicy::prefill_first}});
    scheduler.chunked_prefill = parse_choice<bool>(flags_.chunked_prefill, "--chunked-prefill",
                                                   "setting", {{"on", true}, {"off", false}});
    if (!flags_.max_batched_tokens.empty()) {
      scheduler.max_batched_tokens = parse_whole(flags_.max_batched_tokens, "--max-batched-tokens",
                                                 "a token budget per step", 1e9);
    }
    if (!flags_.max_seqs.empty()) {
      scheduler.max_seqs =
          parse_whole(flags_.max_seqs, "--max-seqs", "a number of sequences per step", 1e7);
    }
    if (!flags_.block_size.empty()) {
      scheduler.block_tokens =
          parse_whole(flags_.block_size, "--block-size", "tokens per KV block", 1e6);
    }
    if (!flags_.kv_blocks.empty()) {
      scheduler.kv_blocks =
          parse_whole(flags_.kv_blocks, "--kv-blocks", "a number of KV blocks", 1e12);
    }
    if (!flags_.request_overhead.empty()) {
      scheduler.request_overhead_ms =
          io::parse_duration_ms(flags_.request_overhead, "--request-overhead");
    }
    return scheduler;
  }

  // The replay looks at every replica at each event, so its work grows as replicas times
  // requests: a replica beyond one per request never runs one, and past kMaxReplicaWork
  // replica-requests the replay would run for minutes. Refused, naming what to lower.
  void check_replay_work(const engine::ServingSetup& serving, std::size_t requests) const {
    const auto replicas =
        static_cast<std::uint64_t>(std::max<std::int64_t>(1, serving.arrivals.replicas));
    if (replicas > 1 && replicas > requests) {
      throw InputError("--replicas " + flags_.replicas + ": " + flags_.log + " holds " +
                       report::human_count(static_cast<std::int64_t>(requests)) +
                       " requests, and a replica beyond one per request never runs one: lower "
                       "--replicas to at most " +
                       report::human_count(static_cast<std::int64_t>(requests)));
    }
    if (static_cast<double>(replicas) * static_cast<double>(requests) > kMaxReplicaWork) {
      throw InputError("--replicas " + flags_.replicas + " over " +
                       report::human_count(static_cast<std::int64_t>(requests)) +
                       " requests is more replay work than kspeed does (replicas x requests at "
                       "most " +
                       report::human_count(static_cast<std::int64_t>(kMaxReplicaWork)) +
                       "): lower --replicas, or replay a sample of the log");
    }
  }

  // Flags that only the replay reads, given without --replay.
  void reject_replay_flags_without_replay() const {
    if (flags_.replay) return;
    const PlatformFlags& platform = flags_.deployment.platform;
    for (const auto& [flag, value] :
         {std::pair{"--replicas", &flags_.replicas},
          {"--rate-scale", &flags_.rate_scale},
          {"--concurrency", &flags_.concurrency},
          {"--step-model", &flags_.step_model},
          {"--max-batched-tokens", &flags_.max_batched_tokens},
          {"--max-seqs", &flags_.max_seqs},
          {"--kv-blocks", &flags_.kv_blocks},
          {"--block-size", &flags_.block_size},
          {"--request-overhead", &flags_.request_overhead},
          {"--slo-ttft", &flags_.slo_ttft},
          {"--slo-tpot", &flags_.slo_tpot},
          {"--attainment", &flags_.attainment},
          {"--batch", &platform.batch},
          {"--gpu-memory-utilization", &flags_.gpu_memory_utilization}}) {
      if (!value->empty()) {
        throw InputError(std::string(flag) +
                         " describes the batching replay: add --replay (SLO attainment and "
                         "capacity come from replaying the log's requests)");
      }
    }
  }

  // The chain's latencies and shares from the deployment's step model, request by request
  // (engine::MixRun::add): what the flags state (--ttft, --ttft-point, --tpot, --share,
  // --decode-share) still wins, and nothing the resolved scenario took for its one reference
  // request is kept.
  void price_by_step_model(engine::MixModel& model, const engine::CalibratedStepModel& step) const {
    model.step_model = step;
    if (flags_.deployment.ttft_points.empty()) model.ttft_fit.reset();
    // By the flags, not the provenance: a --step-model's latencies are "given" too.
    const EstimateFlags& flags = flags_.deployment;
    if (flags.ttft.empty()) model.reference.reset();
    if (model.tpot_ms && flags.tpot.empty() && flags.tpot_points.empty()) model.tpot_ms.reset();
    if (flags_.deployment.decode_share.empty()) model.decode_share.reset();
    model.prefill_shares.clear();
    model.decode_shares.clear();
    model.share_origin = step.calibration;
  }

  // One step model for the chain and the replay: the replay's (--step-model, or the
  // deployment's as fitted), with its request overhead (--request-overhead wins), prices each
  // request alone too, so the no-queue table and the replay's "alone" agree.
  void share_replay_step_model(const engine::ServingSetup& serving,
                               engine::CalibratedStepModel& chain) const {
    chain.model = serving.step;
    chain.request_overhead_ms = serving.scheduler.request_overhead_ms;
    if (flags_.step_model.empty()) return;
    chain.calibration = engine::Provenance::given;
    chain.calibration_source = "--step-model";
  }

  engine::ServingSetup parse_replay(const std::optional<engine::Platform>& platform,
                                    const std::optional<io::CalibrationFile>& calibration,
                                    const engine::Workload& workload,
                                    ReplayDeployment& deployment) const {
    engine::ServingSetup setup;
    if (!flags_.replay) return setup;
    setup.scheduler = parse_scheduler();
    deployment.step_model_source = choose_step_model(setup, platform, calibration, workload);
    deployment.kv_blocks_source = choose_kv_blocks(setup, platform);
    if (!flags_.replicas.empty()) {
      setup.arrivals.replicas =
          parse_whole(flags_.replicas, "--replicas", "a number of engine replicas",
                      io::flag_range("--replicas").max);
    }
    if (!flags_.rate_scale.empty()) {
      setup.arrivals.rate_scale = io::parse_positive_number(flags_.rate_scale, "--rate-scale");
    }
    if (!flags_.concurrency.empty()) {
      if (!flags_.rate_scale.empty()) {
        throw InputError(
            "--concurrency and --rate-scale both set the arrivals: a closed loop of N clients "
            "ignores the log's times; pass one");
      }
      setup.arrivals.concurrency =
          parse_whole(flags_.concurrency, "--concurrency", "a number of clients", 1e7);
    }
    setup.arrivals.routing =
        parse_choice<engine::Routing>(flags_.routing, "--routing", "routing",
                                      {{"round-robin", engine::Routing::round_robin},
                                       {"least-outstanding", engine::Routing::least_outstanding},
                                       {"shared-queue", engine::Routing::shared_queue}});
    return setup;
  }

  // The replay's step model: --step-model as given, else the deployment's, modelled from its
  // roofline and fitted to --calibrate's file. A calibration's request overhead is time outside
  // the engine: it joins TTFT and E2E, never the queue (--request-overhead overrides it).
  std::string choose_step_model(engine::ServingSetup& setup,
                                const std::optional<engine::Platform>& platform,
                                const std::optional<io::CalibrationFile>& calibration,
                                const engine::Workload& workload) const {
    if (!flags_.step_model.empty()) {
      if (calibration) {
        throw InputError("--step-model and --calibrate " + flags_.deployment.calibrate +
                         " both set the replay's step model (--step-model states it, --calibrate "
                         "fits it to measured latencies): pass one");
      }
      setup.step = parse_step_model(flags_.step_model);
      return "given: --step-model";
    }
    if (!platform) {
      throw InputError(
          "--replay needs the deployment's step time: name the deployment with --model NAME "
          "--gpu NAME (modelled from its roofline; kspeed models, kspeed gpus list them), add "
          "--calibrate FILE to fit it to latencies measured on it, or state it with --step-model "
          "fixed_ms=..,weights_ms=..,ms_per_token=..,ms_per_prefill_pair=..,ms_per_kv_token=.. "
          "(docs/mix.md)");
    }
    // A profiler trace's steps already hold the all-reduce kernels: no modelled term on top.
    engine::CalibratedStepModel step = workload.profiled_steps.empty() || calibration
                                           ? engine::modelled_step_model_with_tp_comm(*platform)
                                           : engine::modelled_step_model(*platform);
    if (calibration && calibration->fitted) {
      step = *calibration->fitted;  // --deployment: fitted by kspeed calibrate
    } else if (calibration) {
      step = engine::calibrate_to_run(step, calibration->points, calibration->cached_tokens,
                                      calibration->decode_points, calibration->source);
    } else if (!workload.profiled_steps.empty()) {
      step = engine::calibrate_to_steps(step, engine::step_observations(workload.profiled_steps),
                                        workload.profiled_from);
    }
    setup.step = step.model;
    if (flags_.request_overhead.empty()) {
      setup.scheduler.request_overhead_ms = step.request_overhead_ms;
    }
    const std::string deployment = platform->model.value.name + " on " +
                                   (platform->tensor_parallel.value > 1
                                        ? std::to_string(platform->tensor_parallel.value) + "× "
                                        : std::string()) +
                                   platform->gpu.value.name;
    if (calibration) {
      return "fitted: " + deployment + " to " + calibration->source +
             (calibration->ttft_note.empty() ? std::string() : " (" + calibration->ttft_note + ")");
    }
    if (!workload.profiled_steps.empty()) {
      return "measured: " + deployment + " calibrated on the steps of " + workload.profiled_from;
    }
    return "modelled: " + deployment + " roofline at the cited default efficiencies";
  }

  // KV blocks per replica: --kv-blocks as given, else what the deployment's GPU memory holds
  // beside its weights (kv_capacity.hpp), else unlimited.
  std::string choose_kv_blocks(engine::ServingSetup& setup,
                               const std::optional<engine::Platform>& platform) const {
    const bool utilization_given = !flags_.gpu_memory_utilization.empty();
    if (!flags_.kv_blocks.empty()) {
      if (utilization_given) {
        throw InputError(
            "--gpu-memory-utilization sizes the KV cache from the GPU's memory and --kv-blocks "
            "states it: pass one");
      }
      return "given: --kv-blocks";
    }
    if (!platform) {
      if (utilization_given) {
        throw InputError(
            "--gpu-memory-utilization sizes the KV cache from the deployment's GPU memory: name "
            "it with --model NAME --gpu NAME, or state the cache with --kv-blocks N");
      }
      return "default: unlimited";
    }
    double utilization = engine::kDefaultGpuMemoryUtilization;
    if (utilization_given) {
      utilization = io::parse_share(flags_.gpu_memory_utilization, "--gpu-memory-utilization");
      if (utilization <= 0) {
        throw InputError("--gpu-memory-utilization: '" + flags_.gpu_memory_utilization +
                         "' leaves the engine no memory: pass a fraction above 0 and at most 1, "
                         "e.g. 0.9 or 90%");
      }
    }
    const engine::KvCapacity kv =
        engine::kv_cache_capacity(*platform, utilization, setup.scheduler.block_tokens);
    const std::string budget = report::human_plain(platform->gpu.value.memory_gb) + " GB × " +
                               report::human_plain(utilization) +
                               (utilization_given ? " (given)" : " (vLLM's default)");
    const std::string weights = report::human_fixed(kv.weight_bytes / 1e9, 2) + " GB";
    if (kv.blocks < 1) {
      throw InputError("--replay: " + platform->model.value.name + "'s weights take " + weights +
                       " per GPU, leaving no KV cache in " + budget +
                       ": split them with --tp N, raise --gpu-memory-utilization, or state the "
                       "cache with --kv-blocks N");
    }
    setup.scheduler.kv_blocks = kv.blocks;
    return "modelled: (" + budget + " − " + weights + " weights) / " +
           report::human_count(std::llround(kv.kv_bytes_per_token)) + " bytes per token / " +
           std::to_string(kv.block_tokens) + " tokens";
  }

  // The inputs that reach mix's answer, named as the output names them: the kernel speedup and
  // shares of the targeted phases; the workload's TTFT and TPOT when some request lacks a
  // measured one; with --replay, the step model and the KV capacity. The log's lengths are
  // measured.
  static std::vector<engine::AnswerInput> mix_inputs(const engine::Scenario& scenario,
                                                     const engine::MixSummary& summary,
                                                     const ReplayDeployment& deployment,
                                                     const engine::MixRun& run) {
    const engine::MixModel& model = run.model();
    std::vector<engine::AnswerInput> inputs;
    for (const engine::AnswerInput& input : engine::answer_inputs(scenario)) {
      const bool from_log = input.name == "prompt" || input.name == "response" ||
                            (input.name == "TTFT" && summary.ttft_modelled == 0) ||
                            (input.name == "TTFT fixed term" &&
                             (summary.ttft_modelled == 0 || model.ttft_overhead_ms)) ||
                            (input.name == "TPOT" && summary.tpot_from_workload == 0);
      if (!from_log) inputs.push_back(input);
    }
    if (model.ttft_overhead_ms && *model.ttft_overhead_ms > 0 && summary.ttft_modelled > 0) {
      inputs.push_back({"TTFT fixed term", engine::Provenance::given});
    }
    for (engine::AnswerInput& input : inputs) {
      if (input.name == "prefill attention share" && model.share_model && !model.prefill_share) {
        input = {input.name, engine::Provenance::modelled};  // --share-model's, not the table's
        if (!model.share_model->borrowed_table.empty()) {
          input.borrowed = true;
          input.borrowed_from = engine::borrowed_table(model.share_model->borrowed_table);
        }
      }
      if (input.name == "kernel speedup" && model.kernel_speedup_table) {
        // The table's, at each prompt: clamped when some request lies outside its rows.
        input = {input.name, run.speedups_clamped() > 0        ? engine::Provenance::clamped
                             : run.speedups_interpolated() > 0 ? engine::Provenance::interpolated
                                                               : engine::Provenance::given};
      }
    }
    if (!deployment.step_model_source.empty()) {
      inputs.push_back({"replay step model", provenance_of(deployment.step_model_source)});
      inputs.push_back({"replay KV capacity", provenance_of(deployment.kv_blocks_source)});
    }
    return inputs;
  }

  // --kernel-speedup-table: a table by context, read at each request's prompt, by the chain and
  // by the replay (each request's attention work in a shared step over its own speedup). A
  // table by batch size is refused: the chain runs each request alone (no batch to read it at).
  std::optional<engine::KernelSpeedupTable> read_speedup_table(
      const engine::EstimateOptions& options) const {
    if (flags_.speedup_table_path.empty()) return std::nullopt;
    if (options.kernel_speedup) {
      throw InputError(
          "--kernel-speedup-table gives each request's kernel speedup at its prompt: drop "
          "--kernel-speedup");
    }
    engine::KernelSpeedupTable table = io::load_kernel_speedup_table(flags_.speedup_table_path);
    if (table.key != engine::SpeedupKey::context) {
      throw InputError("--kernel-speedup-table " + flags_.speedup_table_path +
                       " is by batch size, and mix prices each request alone (batch 1): give a "
                       "table by context ('context,speedup'), read at each request's prompt");
    }
    return table;
  }

  // --share-model analytic|calibrated: each request's prefill share from the model's
  // architecture (estimate's, at each request's own prompt); table: none.
  static std::optional<engine::ModelledPrefillShare> modelled_share(
      engine::ShareModel mode, const std::optional<engine::Platform>& platform,
      const engine::Workload& workload, bool workload_given) {
    if (mode == engine::ShareModel::table) return std::nullopt;
    if (!platform || !platform->model.value.shapes) {
      throw InputError(
          "--share-model computes each request's prefill share from the model's shapes: pass "
          "--model NAME (a built-in or a config.json) and --gpu NAME, or leave it at table");
    }
    engine::ModelledPrefillShare share{platform->model.value, std::nullopt};
    if (mode == engine::ShareModel::calibrated) {
      if (workload.prefill_shares.empty()) {
        throw InputError(
            "--share-model calibrated fits the analytic curve to the workload's prefill share "
            "table, and workload '" +
            workload.name + "' has none: use --share-model analytic");
      }
      share.calibration =
          engine::calibrate_share(share.model, *share.model.shapes, workload.prefill_shares);
      // Without --workload the table is the built-in example's: another deployment's.
      if (!workload_given) share.borrowed_table = workload.name;
    }
    return share;
  }

  // "modelled: ..." -> modelled: the sources chosen above start with their provenance.
  static engine::Provenance provenance_of(const std::string& source) {
    const std::string word = source.substr(0, source.find(':'));
    if (word == "modelled") return engine::Provenance::modelled;
    if (word == "fitted") return engine::Provenance::fitted;
    if (word == "measured") return engine::Provenance::measured;
    if (word == "default") return engine::Provenance::default_value;
    return engine::Provenance::given;
  }

  // --strict (illustrative, clamped, extrapolated, borrowed) and --fail-on: exit 2 naming the
  // refused inputs, with fixes mix takes.
  void check_mix_inputs(const std::vector<engine::AnswerInput>& inputs) const {
    if (flags_.strict) refuse(inputs, engine::strict_filter(), "--strict");
    if (!flags_.deployment.fail_on.empty()) {
      refuse(inputs, engine::parse_input_filter(flags_.deployment.fail_on, "--fail-on"),
             "--fail-on");
    }
  }

  static void refuse(const std::vector<engine::AnswerInput>& inputs,
                     const engine::InputFilter& filter, const char* flag) {
    std::string list;
    int count = 0;
    for (const engine::AnswerInput& input : inputs) {
      const bool listed = std::find(filter.provenances.begin(), filter.provenances.end(),
                                    input.provenance) != filter.provenances.end();
      if (!listed && !(filter.borrowed && input.borrowed)) continue;
      list += (list.empty() ? "" : ", ") + input.name + " (" +
              (input.borrowed ? engine::borrowed_phrase(input) + ", " : std::string()) +
              std::string(engine::to_string(input.provenance)) + ")";
      ++count;
    }
    if (count == 0) return;
    throw InputError(std::string(flag) + ": the answer stands on " + std::to_string(count) +
                     (count == 1 ? " input" : " inputs") + " it refuses: " + list +
                     ": give them (--ttft with --ctx, --tpot, --share, --decode-share, "
                     "--kernel-speedup), a log with measured latencies, or a workload measured "
                     "on this deployment (--workload); for the replay, --calibrate FILE with "
                     "--model and --gpu, --step-model, --kv-blocks");
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

  static std::string footer() {
    return "\nExamples:\n"
           "  kspeed mix azure-2023-conv.csv                   percentiles, buckets, histogram\n"
           "  kspeed mix mooncake.jsonl --prefix-cache 8m      with an LRU prefix cache\n"
           "  kspeed mix azure.csv --replay --step-model "
           "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,"
           "ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5 --slo-ttft 2.5s --slo-tpot 60ms\n"
           "                                                   batching, SLO attainment, capacity\n"
           "  kspeed mix azure.csv --replay --model llama-3.1-8b --gpu h100-sxm --slo-ttft 2s\n"
           "                                                   the deployment's step model and KV\n"
           "  kspeed mix azure.csv --replay --model llama-3.1-8b --gpu h100-sxm --calibrate "
           "result.json\n"
           "                                                   ... fitted to latencies measured on "
           "it\n"
           "  kspeed mix profile_export.jsonl --format json    a log with measured latencies\n"
           "  kspeed mix results.csv --columns prompt=input_tokens,response=output_tokens_actual,"
           "ttft=ttft:s\n"
           "  kspeed mix burstgpt.csv --by model --per-request out.ndjson\n"
           "See docs/mix.md for the model (weighting, buckets, batching replay, capacity, prefix "
           "cache).\n" +
           exit_codes_help();
  }

  CLI::App* app_;
  CLI::Option* workload_option_ = nullptr;  ///< --workload: given, or the default
  MixFlags flags_;
  engine::PerRequestReplay per_request_replay_;  // with --replay and --per-request
  std::vector<std::int32_t> replay_order_;       // replayed request i is outcome replay_order_[i]
};

}  // namespace

std::unique_ptr<Command> make_mix_command(CLI::App& command) {
  return std::make_unique<MixCommand>(command);
}

}  // namespace kspeed::cli
