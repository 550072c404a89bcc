// `kspeed validate RUN... --model NAME --gpu NAME --fit-levels L1[,L2]`: the step model fitted
// through the batching replay on the chosen load levels of each measured run, and every other
// level predicted (engine/serving/replay_validation.hpp). Reads inference-perf stage folders
// (stage_N_lifecycle_metrics.json), sglang.bench_serving --output-file JSONL (a level a line; the
// lines that state the same dataset and lengths are one run), folders of vllm bench serve
// --save-result JSONs (a level a file, runs likewise) and AccelMark result folders
// (interactive: one at a time; online: Poisson at each target QPS); each level's load is rebuilt
// from what its file states: rate, arrivals, request count and lengths. With --prior nothing is
// fitted: the prior from presets alone is set against each run's measured one-at-a-time latencies,
// one GPU per run (engine/deployment/prior_check.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "calibration_commands.hpp"
#include "choice.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/deployment/prior_check.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/engine/serving/load_generator.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/engine_arguments.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/validate_report.hpp"
#include "kspeed/report/wording.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"
#include "replay_levels.hpp"
#include "validate_replay_setup.hpp"

namespace kspeed::cli {

namespace {

// The replay's settings and the AccelMark suite are ReplayLevelFlags (shared with calibrate).
struct ValidateFlags : ReplayLevelFlags {
  std::vector<std::string> runs;
  PlatformFlags platform;
  std::string fit_levels = "1,2";
  bool prior = false;
  std::string concurrency;
  std::string warmup;          ///< --calibrate-warmup N, with --prior
  ValidateReplayFlags replay;  ///< the KV cache and the client's in-flight cap
  OutputOptions output;
};

constexpr std::int64_t kClosedLoopRequests = 100;

// One scheduler setting of the replay: the flag's value, else what the run's deployment files
// state (vLLM's arguments in its manifest), else vLLM's default; `origin` words which for the
// answer. A setting the files state twice with different values is refused unless the flag
// gives it: the run does not say which one served.
template <class T>
std::string choose_setting(T& value, const std::string& flag_text, const char* flag,
                           const std::optional<io::StatedSetting<T>>& stated,
                           const io::StatedEngineArguments& arguments, const char* vllm_flag,
                           const std::function<T(const std::string&)>& parse) {
  if (!flag_text.empty()) {
    value = parse(flag_text);
    return std::string("given: ") + flag;
  }
  if (const io::StatedConflict* conflict = arguments.conflict_on(vllm_flag)) {
    throw InputError(std::string("the run's deployment files state ") + vllm_flag +
                     " twice with different values (" + conflict->detail + "): pass " + flag +
                     " with the value the measured server ran");
  }
  if (stated) {
    value = stated->value;
    return "stated in " + stated->where;
  }
  return "default (vLLM's)";
}

// The replay's scheduler for `run` and the answer's settings lines; `recorded` receives the
// same settings as a deployment file records them.
std::vector<std::string> choose_scheduler(const ReplayLevelFlags& flags, const std::string& run,
                                          engine::SchedulerOptions& scheduler,
                                          std::vector<io::DeploymentSetting>& recorded) {
  const io::StatedEngineArguments stated = io::read_engine_arguments(run);
  const std::function<std::int64_t(const std::string&)> count_of_seqs =
      [](const std::string& text) {
        return std::llround(io::parse_positive_number(text, "--max-seqs"));
      };
  const std::function<std::int64_t(const std::string&)> count_of_tokens =
      [](const std::string& text) {
        return std::llround(io::parse_positive_number(text, "--max-batched-tokens"));
      };
  const std::function<bool(const std::string&)> on_or_off = [](const std::string& text) {
    return parse_choice<bool>(text, "--chunked-prefill", "setting", {{"on", true}, {"off", false}});
  };
  const std::string seqs =
      choose_setting(scheduler.max_seqs, flags.max_seqs, "--max-seqs", stated.max_num_seqs, stated,
                     "--max-num-seqs", count_of_seqs);
  const std::string tokens = choose_setting(scheduler.max_batched_tokens, flags.max_batched_tokens,
                                            "--max-batched-tokens", stated.max_num_batched_tokens,
                                            stated, "--max-num-batched-tokens", count_of_tokens);
  const std::string chunked =
      choose_setting(scheduler.chunked_prefill, flags.chunked_prefill, "--chunked-prefill",
                     stated.chunked_prefill, stated, "--enable-chunked-prefill", on_or_off);
  recorded = {{"max_seqs", std::to_string(scheduler.max_seqs), seqs},
              {"max_batched_tokens", std::to_string(scheduler.max_batched_tokens), tokens},
              {"chunked_prefill", scheduler.chunked_prefill ? "on" : "off", chunked}};
  return {
      "max running requests " + std::to_string(scheduler.max_seqs) + " (" + seqs + ")",
      "token budget a step " + std::to_string(scheduler.max_batched_tokens) + " (" + tokens + ")",
      std::string("chunked prefill ") + (scheduler.chunked_prefill ? "on" : "off") + " (" +
          chunked + ")"};
}

}  // namespace

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
  return out;
}

namespace {

// Validation predicts the levels it did not fit: at least one must be left.
void check_one_level_left(const std::vector<std::size_t>& fit, std::size_t levels,
                          const std::string& text, const std::string& run) {
  if (fit.size() == levels) {
    throw InputError("--fit-levels " + text + ": " + run + " has " + std::to_string(levels) +
                     " levels and all would be fitted, leaving none to validate: fit fewer");
  }
}

engine::LevelStat stat_of(const io::MeasuredStat& s) {
  return {s.mean_ms, s.p50_ms, s.p90_ms, s.p99_ms};
}

// The seed of every generated level (sglang.bench_serving's own default --seed is 1 too; the
// draws are kspeed's, not numpy's, so the requests are alike in distribution, not one by one).
constexpr std::uint64_t kValidateSeed = 1;

engine::LengthSpec validate_lengths(const std::optional<io::UniformLengths>& uniform,
                                    const std::vector<std::int32_t>& values, double mean) {
  engine::LengthSpec spec;
  if (uniform) {
    spec.kind = engine::LengthSpec::Kind::uniform;
    spec.first = uniform->low;
    spec.second = uniform->high;
  } else if (!values.empty()) {
    spec.kind = engine::LengthSpec::Kind::list;
    spec.values = values;
  } else {
    spec.first = std::max(1.0, std::round(mean));
  }
  return spec;
}

// A level whose file states its arrival process or length distribution: the requests drawn from
// them (Poisson arrivals at the rate, or all at once; uniform or listed lengths), seeded.
void generate_level_requests(const io::MeasuredLoad& load, engine::ReplayLevel& level) {
  engine::LoadSpec spec;
  spec.seed = kValidateSeed;
  spec.requests = load.requests > 0 ? load.requests : kClosedLoopRequests;
  spec.prompt =
      validate_lengths(load.prompt_uniform, load.prompt_lengths, *load.prompt_tokens_mean);
  spec.output = validate_lengths(load.output_uniform, {}, *load.output_tokens_mean);
  if (load.arrivals == io::ArrivalPattern::poisson) {
    spec.arrivals.process = engine::ArrivalProcess::poisson;
    spec.arrivals.rate_per_s = *load.rate_per_s;
  }
  if (load.arrivals == io::ArrivalPattern::one_at_a_time) level.closed_loop_clients = 1;
  level.requests = engine::generate_load(spec);
}

// One measured level as replay requests. An inference-perf stage: its request count, evenly
// spaced at the requested rate, each with the stage's mean prompt and output lengths; a level
// whose file states more (Poisson arrivals, length ranges or lists) is drawn from it.
engine::ReplayLevel level_of(const io::MeasuredLoad& load, const std::string& run) {
  engine::ReplayLevel level;
  level.label = load.label;
  level.ttft = stat_of(load.ttft);
  level.tpot = stat_of(load.tpot);
  level.e2e = stat_of(load.e2e);
  level.achieved_rate_per_s = load.achieved_rate_per_s;
  level.requested_rate_per_s = load.rate_per_s;
  level.per_token_is_itl = load.tpot_is_itl;
  level.max_inflight = load.max_inflight.value_or(0);
  if (!load.prompt_tokens_mean || !load.output_tokens_mean) {
    throw InputError(run + ": " + load.label +
                     " states no mean prompt and output length, which the replay needs to "
                     "rebuild its load");
  }
  if (load.arrivals == io::ArrivalPattern::poisson ||
      load.arrivals == io::ArrivalPattern::all_at_once || load.prompt_uniform ||
      !load.prompt_lengths.empty()) {
    generate_level_requests(load, level);
    return level;
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
  // The requests the level completed: inference-perf sends int(rate × stage duration) of them
  // (load_generator.py run_stage), while its send_duration stretches past the stage's length
  // when a cap on requests in flight holds them back.
  const std::int64_t n =
      load.requests > 0
          ? load.requests
          : std::max<std::int64_t>(1, std::llround(rate * load.duration_s.value_or(1.0 / rate)));
  for (std::int64_t i = 0; i < n; ++i) {
    level.requests.push_back({static_cast<double>(i) / rate, prompt, output, 0});
  }
  return level;
}

// One run to validate: its levels, lightest first, and the name the tables give it.
struct ValidateRun {
  std::string name;
  std::vector<io::MeasuredLoad> loads;
  std::string format;  ///< the tool that wrote the run
};

bool validate_is_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

double validate_suite_number(const nlohmann::json& object, const char* key,
                             const std::string& suite) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number() ||
      !(object.at(key).get<double>() > 0)) {
    throw InputError(suite + ": " + key +
                     " is missing or not positive (AccelMark's suite file states it)");
  }
  return object.at(key).get<double>();
}

// The mean output length of the run's own sustained scenario (sustained/result.json: tokens_out
// over requests_completed of the samples after warm-up), which sends the same prompts; none when
// the run has no sustained scenario.
std::optional<double> accelmark_sustained_output(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "sustained" / "result.json";
  if (!validate_is_file(path)) return std::nullopt;
  const nlohmann::json doc =
      io::parse_json_document(io::read_text_file(path.string(), "AccelMark result"), path.string());
  const nlohmann::json::json_pointer samples_at("/metrics/sustained/samples");
  if (!doc.contains(samples_at) || !doc.at(samples_at).is_array()) return std::nullopt;
  double tokens = 0;
  double requests = 0;
  for (const nlohmann::json& sample : doc.at(samples_at)) {
    if (sample.value("is_warmup", false)) continue;
    tokens += sample.value("tokens_out", 0.0);
    requests += sample.value("requests_completed", 0.0);
  }
  if (!(requests > 0) || !(tokens > requests)) return std::nullopt;
  return tokens / requests;
}

// The suite file (`suite_id`.json: request counts, output p50) and the prompts it sends
// (<dataset>_requests.jsonl beside it: input_tokens a line), from --accelmark-suite or a workload/
// folder beside or up to three above the result folder, where AccelMark's layout has them.
void add_accelmark_lengths(std::vector<io::MeasuredLoad>& loads, const std::string& folder,
                           const std::string& suite_flag, std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  fs::path suite = suite_flag;
  if (suite.empty()) {
    std::error_code error;
    fs::path at = fs::absolute(fs::path(folder), error);
    for (int up = 0; up <= 3 && suite.empty(); ++up) {
      if (validate_is_file(at / "workload" / "suite_A.json"))
        suite = at / "workload" / "suite_A.json";
      if (!at.has_parent_path() || at == at.parent_path()) break;
      at = at.parent_path();
    }
  }
  if (suite.empty()) {
    throw InputError(folder +
                     ": AccelMark's suite file (suite_A.json, its request counts and lengths) "
                     "is not in a workload/ folder beside or above the run: name it with "
                     "--accelmark-suite FILE (its <dataset>_requests.jsonl beside it)");
  }
  const std::string suite_name = suite.string();
  const nlohmann::json doc =
      io::parse_json_document(io::read_text_file(suite_name, "--accelmark-suite"), suite_name);
  const nlohmann::json lengths =
      doc.contains("request_distribution") ? doc.at("request_distribution") : nlohmann::json();
  const double output_p50 = validate_suite_number(lengths, "output_tokens_p50", suite_name);
  const double interactive_n = validate_suite_number(doc, "interactive_request_count", suite_name);
  const double online_n = validate_suite_number(doc, "online_request_count", suite_name);
  const std::string dataset = doc.contains("dataset") && doc.at("dataset").is_string()
                                  ? doc.at("dataset").get<std::string>()
                                  : "";
  const fs::path requests = suite.parent_path() / (dataset + "_requests.jsonl");
  if (dataset.empty() || !validate_is_file(requests)) {
    throw InputError(suite_name + ": the prompts it sends (" + requests.string() +
                     ", input_tokens a line) are not beside it: copy them from the AccelMark "
                     "repository's workloads/ folder");
  }
  std::vector<std::int32_t> prompts;
  const std::string text = io::read_text_file(requests.string(), "AccelMark requests");
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json row = io::parse_json_document(line, requests.string());
    if (!row.contains("input_tokens") || !row.at("input_tokens").is_number_integer() ||
        row.at("input_tokens").get<std::int64_t>() < 1) {
      throw InputError(requests.string() + ": a line without a positive input_tokens");
    }
    prompts.push_back(static_cast<std::int32_t>(row.at("input_tokens").get<std::int64_t>()));
  }
  if (prompts.empty()) throw InputError(requests.string() + ": no requests");
  double sum = 0;
  for (const std::int32_t p : prompts) sum += p;
  const std::optional<double> sustained = accelmark_sustained_output(folder);
  const double output = sustained.value_or(output_p50);
  notes.push_back(fmt::format(
      "{}: {} prompts from {} (mean {:.0f} tokens); every output {:.0f} tokens: {}", folder,
      prompts.size(), requests.filename().string(), sum / static_cast<double>(prompts.size()),
      output,
      sustained ? "the mean of the run's own sustained scenario after warm-up (the results do "
                  "not record outputs)"
                : "the suite's output_tokens_p50 (the run has no sustained scenario)"));
  for (io::MeasuredLoad& load : loads) {
    load.prompt_lengths = prompts;
    load.prompt_tokens_mean = sum / static_cast<double>(prompts.size());
    load.output_tokens_mean = output;
    const bool alone = load.arrivals == io::ArrivalPattern::one_at_a_time;
    load.requests = static_cast<std::int64_t>(alone ? interactive_n : online_n);
    // achieved_qps is the schedule's rate, not a measured throughput: it equals target_qps on
    // every level of the nine public runs, even where the TTFT p99 is seconds.
    load.achieved_rate_per_s.reset();
  }
  notes.push_back(folder +
                  ": AccelMark's achieved_qps equals target_qps (the schedule, not a measured "
                  "throughput): no throughput or saturation is compared");
}

// The runs of a file or folder that holds several, less those with too few levels to fit on
// `fit_count` and predict one (each named in `notes`).
std::vector<ValidateRun> validate_runs_with_levels(const std::string& path,
                                                   std::vector<io::MeasuredRun> measured,
                                                   std::size_t fit_count,
                                                   std::vector<std::string>& notes,
                                                   const std::string& format) {
  std::vector<ValidateRun> runs;
  for (io::MeasuredRun& run : measured) {
    if (run.loads.size() <= fit_count) {
      notes.push_back(path + ": run '" + run.name + "' has " + std::to_string(run.loads.size()) +
                      " level(s): too few to fit on " + std::to_string(fit_count) +
                      " and predict one; not validated");
      continue;
    }
    runs.push_back({path + " (" + run.name + ")", std::move(run.loads), format});
  }
  if (runs.empty()) {
    throw InputError(path +
                     ": no run in it has more load levels than --fit-levels names "
                     "(a run: the levels that state the same lengths and arrivals): fit on one "
                     "level (--fit-levels 1) or add a run at more loads");
  }
  return runs;
}

// What a RUN argument holds: an inference-perf folder, an AccelMark result folder
// (interactive/ and online/ result.json), a folder of vllm bench serve result JSONs, or
// sglang.bench_serving JSONL (one run per setting the levels share; a run with too few levels to
// fit and predict is named in `notes`).
std::vector<ValidateRun> read_validate_runs(const std::string& path, const std::string& suite_flag,
                                            std::size_t fit_count,
                                            std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    const fs::path folder(path);
    std::vector<io::MeasuredLoad> loads;
    for (const char* scenario : {"interactive", "online"}) {
      const fs::path result = folder / scenario / "result.json";
      if (!validate_is_file(result)) continue;
      std::vector<io::MeasuredLoad> more = io::read_accelmark_result(result.string());
      loads.insert(loads.end(), more.begin(), more.end());
    }
    if (loads.empty() && io::folder_has_vllm_bench_results(path)) {
      notes.push_back(path +
                      ": vllm bench serve results, a file a level: every request sent at once "
                      "with at most max_concurrency in flight (request_rate inf) or Poisson at "
                      "request_rate, every request at the level's mean prompt and output "
                      "lengths (the files state no spread; vLLM's random dataset draws none at "
                      "its default range ratio 0)");
      return validate_runs_with_levels(path, io::read_vllm_bench_folder(path), fit_count, notes,
                                       "vllm bench serve");
    }
    if (loads.empty()) return {{path, io::read_inference_perf_stages(path), "inference-perf"}};
    add_accelmark_lengths(loads, path, suite_flag, notes);
    return {{path, loads, "accelmark"}};
  }
  const std::string text = io::read_text_file(path, "run");
  if (!io::looks_like_sglang_bench_serving(text)) {
    throw InputError(path +
                     ": kspeed validate reads inference-perf output folders "
                     "(stage_N_lifecycle_metrics.json), AccelMark result folders (interactive/, "
                     "online/ result.json), folders of vllm bench serve --save-result JSONs (a "
                     "file a level) and sglang.bench_serving --output-file JSONL; other "
                     "formats (per-request logs) are not read by validate yet");
  }
  return validate_runs_with_levels(path, io::parse_sglang_bench_serving(text, path), fit_count,
                                   notes, "sglang.bench_serving");
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
                                   std::optional<double> concurrency, std::int64_t warmup) {
  if (suite_path.empty()) {
    try {
      return io::read_calibration_file(path, concurrency, warmup);
    } catch (const InputError& error) {
      // The reader's fix (copy the suite file beside the run) is one of two here.
      if (std::string_view(error.what()).find("suite file") == std::string_view::npos) throw;
      throw InputError(std::string(error.what()) + ", or name it with --accelmark-suite FILE");
    }
  }
  const std::string text = io::read_text_file(path, "run");
  if (!io::looks_like_accelmark_result(text)) {
    return io::read_calibration_file(path, concurrency, warmup);
  }
  if (warmup > 0) {
    throw InputError("--calibrate-warmup " + std::to_string(warmup) + ": " + path +
                     " is AccelMark's aggregate result, which holds no request to leave out: "
                     "leave the flag out");
  }
  return io::parse_accelmark_result(text, io::read_text_file(suite_path, "--accelmark-suite"),
                                    path);
}

class ValidateCommand final : public Command {
 public:
  explicit ValidateCommand(CLI::App& command) : app_(&command) {
    app_->add_option("runs", flags_.runs,
                     "Measured runs of one deployment at several loads: inference-perf output "
                     "folders (stage_N_lifecycle_metrics.json), AccelMark result folders, "
                     "folders of vllm bench serve --save-result JSONs (a file a level), "
                     "sglang.bench_serving --output-file JSONL")
        ->type_name("RUN...")
        ->required();
    app_->add_option("--fit-levels", flags_.fit_levels,
                     "The levels to fit on, counted from 1 (the lightest): L1 fits the bandwidth "
                     "side, L1,L2 also the per-sequence cost; every other level is predicted")
        ->type_name("L1[,L2]")
        ->capture_default_str();
    app_->add_option(
            "--max-seqs", flags_.max_seqs,
            "The engine's running requests at most (vLLM --max-num-seqs). Default: what the "
            "run's *.yaml / *.sh state, else vLLM's 1024")
        ->type_name("N");
    app_->add_option("--max-batched-tokens", flags_.max_batched_tokens,
                     "The engine's token budget a step (vLLM --max-num-batched-tokens). "
                     "Default: what the run's files state, else 8192")
        ->type_name("N");
    app_->add_option("--chunked-prefill", flags_.chunked_prefill,
                     "on or off (vLLM --[no-]enable-chunked-prefill). Default: what the run's "
                     "files state, else on")
        ->type_name("on|off");
    app_->add_option("--scheduler", flags_.scheduler,
                     "mixed: vLLM V1 (decodes and prefill chunks share each step); "
                     "prefill-first: SGLang's default and vLLM V0. Default: mixed")
        ->type_name("POLICY");
    app_->add_flag("--prior", flags_.prior,
                   "Fit nothing: the prior from presets against each run's one-at-a-time "
                   "latencies; runs are GPU=FILE (AccelMark result.json or a per-request log)");
    app_->add_option("--accelmark-suite", flags_.accelmark_suite,
                     "AccelMark's suite file (suite_A.json: the request lengths; its "
                     "<dataset>_requests.jsonl beside it) for runs with no workload/ folder above")
        ->type_name("FILE");
    app_->add_option("--calibrate-concurrency", flags_.concurrency,
                     "Requests in flight while the --prior runs were measured, when they do not "
                     "say (1: one at a time)")
        ->type_name("N");
    app_->add_option("--calibrate-warmup", flags_.warmup,
                     std::string(kCalibrateWarmupHelp) + " (with --prior)")
        ->type_name("N");
    app_->add_option("--gpu-memory-utilization", flags_.replay.gpu_memory_utilization,
                     "The fraction of GPU memory vLLM takes, which sizes the replay's KV cache "
                     "as mix sizes it. Default: what the run's files state, else 0.9")
        ->type_name("F");
    app_->add_option("--kv-blocks", flags_.replay.kv_blocks,
                     "The KV cache per replica in blocks, as the engine's start-up log states "
                     "it. Default: modelled from the GPU's memory")
        ->type_name("N");
    app_->add_option("--block-size", flags_.replay.block_size,
                     "Tokens per KV block (vLLM --block-size). Default: what the run's files "
                     "state, else 16")
        ->type_name("N");
    app_->add_option("--max-inflight", flags_.replay.max_inflight,
                     "The client's cap on requests in flight at every open-loop level. Default: "
                     "what the run states (inference-perf config.yaml, sglang max_concurrency)")
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
    if (!flags_.concurrency.empty()) {
      throw InputError(
          "--calibrate-concurrency is read with --prior only (the fitted validation takes each "
          "level's load from its file): add --prior or leave it out");
    }
    if (!flags_.warmup.empty()) {
      throw InputError(
          "--calibrate-warmup is read with --prior only (load levels hold no request to leave "
          "out): add --prior or leave it out");
    }
    if (flags_.platform.model.empty() || flags_.platform.gpu.empty()) {
      throw InputError(
          "kspeed validate replays the deployment's step model: name it with --model NAME and "
          "--gpu NAME (kspeed models, kspeed gpus list them)");
    }
    const std::optional<engine::Platform> platform = resolve_platform(flags_.platform, {});
    if (!platform) throw InputError("--model and --gpu did not resolve to a deployment");
    report::ValidateContext context;
    context.deployment = report::deployment_name(*platform);
    const std::size_t fit_count = 1 + static_cast<std::size_t>(std::count(
                                          flags_.fit_levels.begin(), flags_.fit_levels.end(), ','));
    // validate's replays add the KV cache mix would size and the client's in-flight cap.
    ReplayCapacityRequest capacity;
    capacity.platform = &*platform;
    capacity.flags = flags_.replay;
    ReplayLevelsRead read = read_replay_levels(flags_.runs, flags_, fit_count, &capacity);
    context.kv = capacity.kv;
    context.settings = std::move(read.settings);
    context.load_notes = std::move(read.load_notes);
    context.load_notes.insert(
        context.load_notes.begin() + 1,
        "sglang's ITL p50 is fitted as the replay's TPOT p50 and held out against the replay's "
        "ITL p50 (the gaps between tokens over all tokens, as sglang reports it)");
    const engine::CalibratedStepModel prior = engine::modelled_step_model_with_tp_comm(*platform);
    std::vector<engine::ValidationResult> results;
    for (const ReplayLevelRun& named : read.runs) {
      const std::string& run = named.name;
      if (named.levels.size() < 2) {
        throw InputError(run + ": " + std::to_string(named.levels.size()) +
                         " load level(s) found: validation needs one to fit and one to predict");
      }
      const std::vector<std::size_t> fit =
          parse_fit_levels(flags_.fit_levels, named.levels.size(), run);
      check_one_level_left(fit, named.levels.size(), flags_.fit_levels, run);
      results.push_back(engine::validate_through_replay(prior, read.setup, named.levels, fit, run));
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
    const ValidateReplayFlags& replay = flags_.replay;
    if (flags_.fit_levels != "1,2" || !flags_.max_seqs.empty() || !flags_.scheduler.empty() ||
        !flags_.max_batched_tokens.empty() || !flags_.chunked_prefill.empty() ||
        !replay.gpu_memory_utilization.empty() || !replay.kv_blocks.empty() ||
        !replay.block_size.empty() || !replay.max_inflight.empty()) {
      throw InputError(
          "--prior fits nothing and replays no load: --fit-levels, --max-seqs, "
          "--max-batched-tokens, --chunked-prefill, --scheduler, --gpu-memory-utilization, "
          "--kv-blocks, --block-size and --max-inflight do not apply; leave them out");
    }
    std::optional<double> concurrency;
    if (!flags_.concurrency.empty()) {
      concurrency = io::parse_positive_number(flags_.concurrency, "--calibrate-concurrency");
    }
    const std::int64_t warmup = parse_calibrate_warmup(flags_.warmup);
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
          read_prior_run(run.path, flags_.accelmark_suite, concurrency, warmup);
      if (!file.warmup_note.empty()) context.settings.push_back(run.path + ": " + file.warmup_note);
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
    context.prior_notes.emplace_back(
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

ReplayLevelsRead read_replay_levels(const std::vector<std::string>& paths,
                                    const ReplayLevelFlags& flags, std::size_t fit_count,
                                    ReplayCapacityRequest* capacity) {
  ReplayLevelsRead read;
  read.load_notes = {
      "each level's load rebuilt from what its file states: inference-perf, the stage's "
      "request count at constant-rate arrivals at the requested rate, every request at the "
      "level's mean prompt and output lengths (no length spread: it is not in the file); "
      "sglang.bench_serving, Poisson arrivals at the rate (all at once for rate inf), the "
      "completed count, random-dataset lengths uniform from max(1, len x range ratio) to len "
      "(other datasets: the means from the token totals); AccelMark, one at a time "
      "(interactive, the suite's interactive_request_count) or Poisson at the target QPS "
      "(online_request_count), prompts drawn from the suite's request file (input_tokens), "
      "outputs as the note per run says; draws seeded 1"};
  // The scheduler: vLLM's defaults, then what the run's files state, then the flags'. Levels
  // typed by hand (no path) have no files: the flags and the defaults.
  const std::vector<std::string> sources = paths.empty() ? std::vector<std::string>{""} : paths;
  std::vector<ValidateRun> runs;
  for (const std::string& path : sources) {
    engine::SchedulerOptions scheduler;
    std::vector<io::DeploymentSetting> recorded;
    std::vector<std::string> settings = choose_scheduler(flags, path, scheduler, recorded);
    // The KV cache, sized from the scheduler's settings as mix sizes it (validate only).
    report::ValidateContext::KvCache kv;
    if (capacity != nullptr) {
      kv = choose_validate_kv(*capacity->platform, capacity->flags, path, scheduler, settings);
    }
    if (read.settings.empty()) {
      read.settings = settings;
      read.scheduler_settings = recorded;
      read.setup.scheduler = scheduler;
      if (capacity != nullptr) capacity->kv = kv;
    } else if (scheduler.max_seqs != read.setup.scheduler.max_seqs ||
               scheduler.max_batched_tokens != read.setup.scheduler.max_batched_tokens ||
               scheduler.chunked_prefill != read.setup.scheduler.chunked_prefill ||
               scheduler.kv_blocks != read.setup.scheduler.kv_blocks ||
               scheduler.block_tokens != read.setup.scheduler.block_tokens) {
      throw InputError(path + ": its scheduler settings (" +
                       fmt::format("{}", fmt::join(settings, "; ")) + ") differ from " +
                       paths.front() + "'s: give runs of different settings one at a time");
    }
    if (path.empty()) continue;
    std::vector<ValidateRun> more =
        read_validate_runs(path, flags.accelmark_suite, fit_count, read.load_notes);
    for (ValidateRun& run : more) {
      if (capacity != nullptr) apply_client_cap(path, capacity->flags, run.loads, read.load_notes);
      runs.push_back(std::move(run));
    }
  }
  if (!flags.scheduler.empty()) {
    read.setup.scheduler.policy = parse_choice<engine::SchedulerPolicy>(
        flags.scheduler, "--scheduler", "policy",
        {{"mixed", engine::SchedulerPolicy::mixed},
         {"prefill-first", engine::SchedulerPolicy::prefill_first}});
  }
  const std::string policy_source =
      flags.scheduler.empty() ? "default (vLLM's)" : "given: --scheduler";
  read.settings.push_back(std::string("scheduler ") +
                          std::string(scheduler_policy_name(read.setup.scheduler.policy)) + " (" +
                          policy_source + ")");
  // Recorded as --scheduler spells it, so a command reading the file passes it back unchanged.
  read.scheduler_settings.push_back(
      {"scheduler",
       read.setup.scheduler.policy == engine::SchedulerPolicy::mixed ? "mixed" : "prefill-first",
       policy_source});
  for (const ValidateRun& run : runs) {
    ReplayLevelRun out;
    out.name = run.name;
    out.format = run.format;
    for (const io::MeasuredLoad& load : run.loads) {
      out.levels.push_back(level_of(load, run.name));
      out.per_token_basis.push_back(load.tpot_basis);
    }
    if (capacity != nullptr) check_levels_fit_kv(out.levels, read.setup.scheduler, out.name);
    read.runs.push_back(std::move(out));
  }
  return read;
}

engine::ReplayLevel replay_level_of(const io::MeasuredLoad& load, const std::string& run) {
  return level_of(load, run);
}

bool is_multi_level_run(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    for (const char* scenario : {"interactive", "online"}) {
      if (validate_is_file(fs::path(path) / scenario / "result.json")) return true;
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("stage_", 0) == 0 && name.ends_with("_lifecycle_metrics.json")) return true;
    }
    return false;
  }
  if (!validate_is_file(path)) return false;
  const std::string text = io::read_text_file(path, "run");
  // --output-details lines carry each request's lengths: calibrate reads those per request.
  const std::string_view head = std::string_view(text).substr(0, text.find('\n'));
  return io::looks_like_sglang_bench_serving(text) &&
         head.find("\"input_lens\"") == std::string_view::npos;
}

std::unique_ptr<Command> make_validate_command(CLI::App& command) {
  return std::make_unique<ValidateCommand>(command);
}

}  // namespace kspeed::cli
