// `kspeed calibrate RUN... --model NAME --gpu NAME [deployment flags] [-o FILE]`: fits the
// deployment's step model to the runs measured on it and writes the deployment file
// (io/deployment_file.hpp) that --deployment FILE reads back on estimate, sweep and mix.
// Per-request logs are fitted point by point (engine/deployment/step_calibration.hpp); a run of
// several load levels (the ones kspeed validate reads) or levels typed by hand (--level,
// --levels) are fitted through the batching replay on --fit-levels, by default the lightest two
// (replay_levels.hpp: validate's readers and fit, one code path).
#include <fmt/format.h>
#include <algorithm>
#include <iostream>

#include "calibration_commands.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/serving/typed_levels.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/view.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"
#include "replay_levels.hpp"

namespace kspeed::cli {

namespace {

struct CalibrateFlags {
  std::vector<std::string> runs;
  PlatformFlags platform;
  std::string concurrency;
  std::string warmup;
  bool strict = false;
  OutputOptions output;
  // Load levels: which to fit, levels typed by hand, the replay's engine settings.
  std::string fit_levels;
  std::vector<std::string> typed_levels;
  std::string levels_file;
  ReplayLevelFlags replay;
};

// Where a setting came from: the flag that gave it, else kspeed's default.
std::string setting_source(const std::string& flag_value, const char* flag,
                           engine::Provenance provenance) {
  if (!flag_value.empty()) return std::string("flag ") + flag;
  return provenance == engine::Provenance::given ? std::string("flag ") + flag
                                                 : std::string(engine::to_string(provenance));
}

std::vector<io::DeploymentSetting> deployment_settings(const PlatformFlags& flags,
                                                       const engine::Platform& platform) {
  return {
      {"model", flags.model, "flag --model"},
      {"gpu", flags.gpu, "flag --gpu"},
      {"tp", std::to_string(platform.tensor_parallel.value),
       setting_source(flags.tp, "--tp", platform.tensor_parallel.provenance)},
      {"ep", std::to_string(platform.expert_parallel.value),
       setting_source(flags.ep, "--ep", platform.expert_parallel.provenance)},
      {"precision", platform.precision.value,
       setting_source(flags.precision, "--precision", platform.precision.provenance)},
      {"kv_dtype", platform.kv_dtype.value,
       setting_source(flags.kv_dtype, "--kv-dtype", platform.kv_dtype.provenance)},
  };
}

io::CalibrationRun run_summary(const io::CalibrationFile& file) {
  io::CalibrationRun run;
  run.file = file.source;
  run.format = file.format;
  run.concurrency = file.concurrency;
  for (const engine::LatencyObservation& point : file.points) {
    run.ttft_points += point.ttft_ms ? 1 : 0;
  }
  run.tpot_points = file.tpot_points;
  run.tpot_from = file.tpot_note;
  run.ttft_note = file.ttft_note;
  run.warmup_note = file.warmup_note;
  return run;
}

// A fit through the replay: which levels of which run, the statistic each gave, the replays.
void replay_fit_facts(report::View& view, const io::DeploymentFile& file) {
  const io::ReplayFitRecord& fit = *file.replay_fit;
  view.fact("fit", fmt::format("through the replay on {} of the {} level(s) of {} ({} replays)",
                               fit.fit_levels.size(), fit.levels_in_run, fit.run, fit.replays));
  for (const io::CalibrationRun& run : file.runs) {
    view.fact("level",
              fmt::format("{} (in flight {:.3g}): {}", run.level, run.concurrency, run.tpot_from));
  }
}

report::View calibrate_view(const io::DeploymentFile& file, const std::string& written_to) {
  report::View view;
  view.title("Deployment calibrated: " + file.settings[0].value + " on " + file.settings[1].value);
  view.answer(written_to.empty() ? "The deployment file follows as JSON (-o FILE writes it)."
                                 : "Deployment file written to " + written_to +
                                       ": pass it to estimate, sweep or mix with --deployment.");
  for (const io::DeploymentSetting& s : file.settings) {
    view.fact(s.key, s.value + " (" + s.source + ")");
  }
  if (file.replay_fit) {
    replay_fit_facts(view, file);
  } else {
    for (const io::CalibrationRun& run : file.runs) {
      view.fact("run", run.file + " (" + run.format + ", concurrency " +
                           std::to_string(static_cast<long long>(run.concurrency)) +
                           "): " + std::to_string(run.ttft_points) + " TTFT points, " +
                           std::to_string(run.tpot_points) + " TPOT points" +
                           (run.tpot_from.empty() ? "" : " (" + run.tpot_from + ")") +
                           (run.warmup_note.empty() ? "" : "; " + run.warmup_note));
    }
  }
  report::step_model_facts(view, file.step);
  if (file.replay_fit) {
    for (const std::string& note : file.replay_fit->notes) view.warning(note);
    // Files written before the scheduler was recorded as settings hold it only as these lines.
    if (file.setting("max_seqs").empty()) {
      for (const std::string& setting : file.replay_fit->settings) view.fact("setting", setting);
    }
    for (const std::string& load : file.replay_fit->load) view.fact("load", load);
  }
  if (file.runs.size() == 1 && file.runs[0].tpot_points == 0) {
    view.warning(
        "no TPOT point: the decode side (weights and KV reads) keeps its modelled "
        "prior, labelled modelled; give a run with per-request TPOT, ITL, or E2E and "
        "TTFT");
  }
  return view;
}

class CalibrateCommand final : public Command {
 public:
  explicit CalibrateCommand(CLI::App& command) : app_(&command) {
    app_->add_option("runs", flags_.runs,
                     "Runs measured on the deployment: per-request logs with TTFT and a "
                     "per-token time (TPOT, ITL, or E2E and TTFT: AIPerf profile_export.jsonl, "
                     "vllm bench serve --save-detailed JSON, an InferenceX trace-replay CSV, "
                     "LLMServingSim requests.jsonl) or an AccelMark result.json; or one run of "
                     "several load levels (an inference-perf report folder, an AccelMark result "
                     "folder, sglang.bench_serving JSONL), fitted through the replay")
        ->type_name("RUN...");
    add_platform_flags(*app_, flags_.platform);
    end_flag_group(*app_);
    add_level_flags();
    end_flag_group(*app_);
    app_->add_option("--calibrate-concurrency", flags_.concurrency,
                     "Requests in flight while the runs were measured, when they do not say")
        ->type_name("N");
    app_->add_option("--calibrate-warmup", flags_.warmup, kCalibrateWarmupHelp)->type_name("N");
    app_->add_flag("--strict", flags_.strict,
                   "Exit 2 when a run gives no per-token (TPOT) point: the decode side would "
                   "stay modelled");
    app_->add_option("-o,--output", flags_.output.output_path,
                     "Write the deployment file (JSON) to FILE, atomically, and print a summary; "
                     "without it the deployment file goes to stdout")
        ->type_name("FILE");
    app_->footer(
        "\nExamples:\n"
        "  kspeed calibrate detailed_results.csv --model deepseek-r1 --gpu b200 --tp 4 \\\n"
        "                   --calibrate-concurrency 1 -o b200.json\n"
        "  kspeed estimate --deployment b200.json          the estimate on that deployment\n"
        "  kspeed calibrate inference-perf-run/ --model llama-3.1-8b --gpu h100-sxm -o h100.json\n"
        "                   (aggregate load levels: fitted through the replay on the lightest "
        "two)\n"
        "  kspeed calibrate --model llama-3.1-8b --gpu h100-sxm --levels levels.csv -o "
        "h100.json\n" +
        exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (!flags_.output.output_path.empty() && flags_.output.output_path != "-") {
      io::check_output_path(flags_.output.output_path, "-o");
    }
    if (flags_.platform.model.empty() || flags_.platform.gpu.empty()) {
      throw InputError(
          "kspeed calibrate fits a deployment's step model: name it with --model NAME and --gpu "
          "NAME (kspeed models, kspeed gpus list them)");
    }
    const bool typed = !flags_.typed_levels.empty() || !flags_.levels_file.empty();
    if (flags_.runs.empty() && !typed) {
      throw InputError(
          "kspeed calibrate needs what was measured on the deployment: RUN... (a per-request "
          "log, or a run of several load levels), or load levels typed by hand with --level "
          "KEY=VALUE,... or --levels FILE (docs/calibrate.md)");
    }
    std::vector<std::string> level_runs;
    for (const std::string& path : flags_.runs) {
      if (is_multi_level_run(path)) level_runs.push_back(path);
    }
    if (typed || !level_runs.empty()) return execute_levels(level_runs, typed);
    refuse_level_flags();
    return execute_requests();
  }

 private:
  void add_level_flags() {
    app_->add_option("--fit-levels", flags_.fit_levels,
                     "Load levels to fit through the replay, counted from 1 (the lightest): L1 "
                     "fits the bandwidth side, L1,L2 also the per-sequence cost. Default: the "
                     "lightest two at different loads (one when all share a load)")
        ->type_name("L1[,L2]");
    app_->add_option("--level", flags_.typed_levels,
                     "A load level typed by hand, repeatable, lightest first: KEY=VALUE pairs "
                     "(rate=2,arrivals=poisson,requests=200,prompt=1024,output=256,"
                     "ttft_mean_ms=45,tpot_mean_ms=9.5; docs/calibrate.md lists the keys)")
        ->type_name("SPEC");
    app_->add_option("--levels", flags_.levels_file,
                     "Load levels typed by hand as CSV: a header of --level's keys, one level a "
                     "row, lightest first")
        ->type_name("FILE");
    app_->add_option("--max-seqs", flags_.replay.max_seqs,
                     "Levels: the engine's running requests at most (vLLM --max-num-seqs). "
                     "Default: what the run's *.yaml / *.sh state, else vLLM's 1024")
        ->type_name("N");
    app_->add_option("--max-batched-tokens", flags_.replay.max_batched_tokens,
                     "Levels: the engine's token budget a step (vLLM --max-num-batched-tokens). "
                     "Default: what the run's files state, else 8192")
        ->type_name("N");
    app_->add_option("--chunked-prefill", flags_.replay.chunked_prefill,
                     "Levels: on or off (vLLM --[no-]enable-chunked-prefill). Default: what the "
                     "run's files state, else on")
        ->type_name("on|off");
    app_->add_option("--scheduler", flags_.replay.scheduler,
                     "Levels: mixed (vLLM V1) or prefill-first (SGLang's default, vLLM V0). "
                     "Default: mixed")
        ->type_name("POLICY");
    app_->add_option("--accelmark-suite", flags_.replay.accelmark_suite,
                     "AccelMark's suite file (suite_A.json) for a result folder with no "
                     "workload/ folder above")
        ->type_name("FILE");
  }

  // The level flags mean nothing to a per-request fit: refused, not ignored.
  void refuse_level_flags() const {
    const ReplayLevelFlags& r = flags_.replay;
    for (const auto& [value, flag] :
         {std::pair{&flags_.fit_levels, "--fit-levels"}, std::pair{&r.max_seqs, "--max-seqs"},
          std::pair{&r.max_batched_tokens, "--max-batched-tokens"},
          std::pair{&r.chunked_prefill, "--chunked-prefill"},
          std::pair{&r.scheduler, "--scheduler"},
          std::pair{&r.accelmark_suite, "--accelmark-suite"}}) {
      if (!value->empty()) {
        throw InputError(std::string(flag) +
                         " applies to load levels fitted through the replay (a run of several "
                         "levels, or --level / --levels), and " +
                         flags_.runs.front() +
                         " is a per-request log, fitted request by request: leave " + flag +
                         " out");
      }
    }
  }

  int execute_requests() {
    std::optional<double> concurrency;
    if (!flags_.concurrency.empty()) {
      concurrency = io::parse_positive_number(flags_.concurrency, "--calibrate-concurrency");
    }
    const std::int64_t warmup = parse_calibrate_warmup(flags_.warmup);
    const std::optional<engine::Platform> platform = resolve_platform(flags_.platform, {});
    if (!platform) {
      throw InputError("kspeed calibrate: --model and --gpu did not resolve to a deployment");
    }
    io::DeploymentFile file;
    file.settings = deployment_settings(flags_.platform, *platform);
    std::vector<engine::LatencyObservation> points;
    std::vector<double> cached;
    std::vector<engine::RunningDecodeObservation> decode;
    std::string points_note;
    std::string sources;
    for (const std::string& path : flags_.runs) {
      const io::CalibrationFile run = io::read_calibration_file(path, concurrency, warmup);
      if (flags_.strict && run.tpot_points == 0) {
        throw InputError("--strict: " + path + " has no per-token time (" +
                         io::describe_points(run) +
                         "), so the decode side would stay modelled: give a run with "
                         "per-request TPOT, ITL, or E2E and TTFT, or leave --strict out");
      }
      points.insert(points.end(), run.points.begin(), run.points.end());
      cached.insert(cached.end(), run.cached_tokens.begin(), run.cached_tokens.end());
      cached.resize(points.size(), 0.0);  // a run that states no cached prefix: none
      decode.insert(decode.end(), run.decode_points.begin(), run.decode_points.end());
      points_note += (points_note.empty() ? "" : "; ") + io::describe_points(run);
      sources += (sources.empty() ? "" : ", ") + path;
      file.runs.push_back(run_summary(run));
      if (file.typical_prompt_tokens == 0) {
        file.typical_prompt_tokens = run.typical_prompt_tokens;
        file.typical_response_tokens = run.typical_response_tokens;
        file.concurrency = run.concurrency;
      }
    }
    // Decode points of different runs are on different clocks, but each point's running
    // sequences were counted within its own run, so they fit one line together.
    file.step = engine::calibrate_to_run(engine::modelled_step_model_with_tp_comm(*platform),
                                         points, cached, decode, sources);
    file.calibration_points = points_note;
    return emit(file);
  }

  // The deployment file to stdout, or to -o FILE atomically with a summary for people.
  int emit(const io::DeploymentFile& file) {
    const std::string json = io::deployment_to_json_text(file);
    if (writes_to_stdout(flags_.output)) {
      std::cout << json;
      return kExitOk;
    }
    io::write_file_atomically(flags_.output.output_path, json, "-o");
    OutputOptions summary;
    render_and_emit(report::Report{calibrate_view(file, flags_.output.output_path), {}}, summary);
    return kExitOk;
  }

  int execute_levels(const std::vector<std::string>& level_runs, bool typed);

  CLI::App* app_;
  CalibrateFlags flags_;
};

// Levels typed by hand, as one run (typed levels have no files: the engine settings are the
// flags' and vLLM's defaults).
ReplayLevelRun typed_level_run(const CalibrateFlags& flags) {
  std::vector<io::TypedLevel> typed;
  if (!flags.levels_file.empty()) {
    if (!flags.typed_levels.empty()) {
      throw InputError("--level and --levels " + flags.levels_file +
                       " both type load levels: give them in one place");
    }
    typed = io::read_typed_levels_csv(flags.levels_file);
  }
  for (std::size_t i = 0; i < flags.typed_levels.size(); ++i) {
    typed.push_back(
        io::parse_typed_level(flags.typed_levels[i], "--level " + std::to_string(i + 1), i + 1));
  }
  ReplayLevelRun run;
  run.name = flags.levels_file.empty() ? "typed levels (--level)" : flags.levels_file;
  run.format = "typed";
  for (const io::TypedLevel& level : typed) {
    engine::ReplayLevel replay = replay_level_of(level.load, run.name);
    if (level.concurrency > 0) replay.closed_loop_clients = level.concurrency;
    run.levels.push_back(std::move(replay));
    run.per_token_basis.push_back(level.load.tpot_basis);
  }
  return run;
}

// Two levels at the same offered load (a repeated benchmark line) cannot separate the
// per-sequence cost from the weights read.
bool same_load(const engine::ReplayLevel& a, const engine::ReplayLevel& b) {
  return a.requested_rate_per_s == b.requested_rate_per_s &&
         a.closed_loop_clients == b.closed_loop_clients;
}

std::string load_words(const engine::ReplayLevel& level) {
  if (level.requested_rate_per_s) return fmt::format("{:.4g} req/s", *level.requested_rate_per_s);
  return fmt::format("{} client(s)", level.closed_loop_clients);
}

// The fit levels: --fit-levels, else the lightest and the next at another load (one level when
// every level is at the lightest's load). `notes` says when the default fell back to one.
std::vector<std::size_t> choose_fit_levels(const std::string& text, const ReplayLevelRun& run,
                                           std::vector<std::string>& notes) {
  if (!text.empty()) {
    std::vector<std::size_t> fit = parse_fit_levels(text, run.levels.size(), run.name);
    if (fit.size() == 2 && same_load(run.levels[fit[0]], run.levels[fit[1]])) {
      throw InputError("--fit-levels " + text + ": " + run.levels[fit[0]].label + " and " +
                       run.levels[fit[1]].label + " are at the same load (" +
                       load_words(run.levels[fit[0]]) +
                       "), so they cannot separate the per-sequence cost from the weights read: "
                       "choose levels at two loads, or fit on one");
    }
    return fit;
  }
  for (std::size_t i = 1; i < run.levels.size(); ++i) {
    if (!same_load(run.levels[0], run.levels[i])) return {0, i};
  }
  if (run.levels.size() > 1) {
    notes.push_back("every level of " + run.name + " is at one load (" + load_words(run.levels[0]) +
                    "): fitted on the first alone");
  }
  return {0};
}

double mean_tokens(const std::vector<engine::ReplayRequest>& requests, bool prompt) {
  double sum = 0;
  for (const engine::ReplayRequest& r : requests) {
    sum += prompt ? r.prompt_tokens : r.response_tokens;
  }
  return requests.empty() ? 0 : sum / static_cast<double>(requests.size());
}

// Requests in flight on average at a level: a closed loop's clients; an open loop's rate times
// its mean E2E (Little's law), measured where the level states both, else replayed; at least 1.
double level_in_flight(const engine::ReplayLevel& level, const engine::ServingSetup& fitted) {
  if (level.closed_loop_clients > 0) return static_cast<double>(level.closed_loop_clients);
  const std::optional<double> rate =
      level.achieved_rate_per_s ? level.achieved_rate_per_s : level.requested_rate_per_s;
  if (rate && level.e2e.mean_ms) return std::max(1.0, *rate * *level.e2e.mean_ms / 1000.0);
  const engine::ReplaySide side = engine::replay_level(level, fitted);
  return std::max(1.0, side.offered_rate_per_s * side.e2e_ms.mean / 1000.0);
}

// One entry of the deployment file's runs per fit level: the statistics it gave.
io::CalibrationRun fit_level_entry(const ReplayLevelRun& run, std::size_t index, bool gave_ttft,
                                   const engine::ServingSetup& fitted) {
  const engine::ReplayLevel& level = run.levels[index];
  io::CalibrationRun entry;
  entry.file = run.name;
  entry.format = run.format;
  entry.level = level.label;
  entry.concurrency = level_in_flight(level, fitted);
  entry.ttft_points = gave_ttft ? 1 : 0;
  entry.tpot_points = 1;
  const char* per_token = level.per_token_is_itl ? "ITL" : "TPOT";
  const char* statistic = level.tpot.mean_ms ? "mean" : "p50";
  const std::string& basis = run.per_token_basis[index];
  entry.tpot_from = fmt::format("{} {} {:.4g} ms{}", per_token, statistic,
                                level.tpot.mean_ms ? *level.tpot.mean_ms : *level.tpot.p50_ms,
                                basis.empty() ? "" : " (" + basis + ")");
  if (gave_ttft) {
    const bool mean = level.ttft.mean_ms.has_value();
    entry.tpot_from +=
        fmt::format("; TTFT {} {:.4g} ms (the request overhead)", mean ? "mean" : "p50",
                    mean ? *level.ttft.mean_ms : *level.ttft.p50_ms);
  }
  return entry;
}

int CalibrateCommand::execute_levels(const std::vector<std::string>& level_runs, bool typed) {
  if (level_runs.size() != flags_.runs.size()) {
    throw InputError(
        "kspeed calibrate fits either per-request logs (request by request) or one run of "
        "several load levels (through the replay), not both at once: " +
        fmt::format("{}", fmt::join(level_runs, ", ")) +
        " hold load levels; calibrate on them alone, or on the per-request logs alone");
  }
  if (typed && !level_runs.empty()) {
    throw InputError("--level / --levels type load levels by hand, and " + level_runs.front() +
                     " holds its own: give the run's files or the typed levels, not both");
  }
  if (level_runs.size() > 1) {
    throw InputError("kspeed calibrate fits one run's load levels; " +
                     std::to_string(level_runs.size()) +
                     " runs were given: calibrate on one (kspeed validate compares several)");
  }
  if (!flags_.concurrency.empty()) {
    throw InputError(
        "--calibrate-concurrency states a per-request log's concurrency; each load level's "
        "load is read from its file (or typed): leave it out");
  }
  if (!flags_.warmup.empty()) {
    throw InputError(
        "--calibrate-warmup leaves a per-request log's first requests out of a request-by-request "
        "fit; load levels are fitted by their statistics, which hold no request to leave out: "
        "leave it out");
  }
  const std::optional<engine::Platform> platform = resolve_platform(flags_.platform, {});
  if (!platform) {
    throw InputError("kspeed calibrate: --model and --gpu did not resolve to a deployment");
  }
  ReplayLevelsRead read = read_replay_levels(level_runs, flags_.replay, 0);
  ReplayLevelRun run;
  if (typed) {
    run = typed_level_run(flags_);
    read.load_notes = {
        "each typed level's load rebuilt as validate rebuilds a measured one: constant "
        "arrivals evenly spaced at the rate (rate x duration_s requests, else requests), "
        "Poisson arrivals drawn at the rate (seeded 1), a closed loop of concurrency clients; "
        "every request at the level's mean prompt and output lengths"};
  } else if (read.runs.size() != 1) {
    std::vector<std::string> names;
    for (const ReplayLevelRun& r : read.runs) names.push_back(r.name);
    throw InputError(level_runs.front() + " holds " + std::to_string(read.runs.size()) + " runs (" +
                     fmt::format("{}", fmt::join(names, "; ")) +
                     "): calibrate fits one deployment on one run's levels: write that run's "
                     "lines to a file of their own");
  } else {
    run = std::move(read.runs.front());
  }
  std::vector<std::string> fit_notes;
  const std::vector<std::size_t> fit = choose_fit_levels(flags_.fit_levels, run, fit_notes);
  std::vector<const engine::ReplayLevel*> fit_levels;
  fit_levels.reserve(fit.size());
  for (const std::size_t i : fit) fit_levels.push_back(&run.levels[i]);
  const engine::ReplayFit result = engine::fit_through_replay(
      engine::modelled_step_model_with_tp_comm(*platform), read.setup, fit_levels, run.name);
  engine::ServingSetup fitted = read.setup;
  fitted.step = result.model.model;
  fitted.scheduler.request_overhead_ms = result.model.request_overhead_ms;

  io::DeploymentFile file;
  file.settings = deployment_settings(flags_.platform, *platform);
  // The scheduler the fit replayed: mix --deployment replays with it (its fitted coefficients
  // were found under these steps).
  file.settings.insert(file.settings.end(), read.scheduler_settings.begin(),
                       read.scheduler_settings.end());
  file.step = result.model;
  io::ReplayFitRecord record;
  record.run = run.name;
  record.levels_in_run = static_cast<std::int64_t>(run.levels.size());
  record.replays = result.replays;
  record.settings = read.settings;
  record.load = read.load_notes;
  record.notes = fit_notes;
  record.notes.insert(record.notes.end(), result.notes.begin(), result.notes.end());
  const bool overhead_fitted =
      result.model.origins.request_overhead.provenance == engine::Provenance::fitted;
  for (std::size_t k = 0; k < fit.size(); ++k) {
    record.fit_levels.push_back(run.levels[fit[k]].label);
    file.runs.push_back(fit_level_entry(run, fit[k], k == 0 && overhead_fitted, fitted));
  }
  const engine::ReplayLevel& lightest = run.levels[fit.front()];
  file.typical_prompt_tokens = std::llround(mean_tokens(lightest.requests, true));
  file.typical_response_tokens =
      std::max<std::int64_t>(1, std::llround(mean_tokens(lightest.requests, false)));
  file.concurrency = file.runs.front().concurrency;
  file.calibration_points = fmt::format(
      "fitted through the replay ({} replays) on {} of {}'s {} load level(s): {}", result.replays,
      fit.size(), run.name, run.levels.size(), fmt::join(record.fit_levels, "; "));
  file.replay_fit = std::move(record);
  return emit(file);
}

}  // namespace

std::unique_ptr<Command> make_calibrate_command(CLI::App& command) {
  return std::make_unique<CalibrateCommand>(command);
}

}  // namespace kspeed::cli
