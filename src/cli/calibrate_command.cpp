// `kspeed calibrate RUN... --model NAME --gpu NAME [deployment flags] [-o FILE]`: fits the
// deployment's step model to the runs measured on it and writes the deployment file
// (io/deployment_file.hpp) that --deployment FILE reads back on estimate, sweep and mix.
#include <iostream>

#include "calibration_commands.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/view.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

namespace {

struct CalibrateFlags {
  std::vector<std::string> runs;
  PlatformFlags platform;
  std::string concurrency;
  bool strict = false;
  OutputOptions output;
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
  return run;
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
  for (const io::CalibrationRun& run : file.runs) {
    view.fact("run", run.file + " (" + run.format + ", concurrency " +
                         std::to_string(static_cast<long long>(run.concurrency)) +
                         "): " + std::to_string(run.ttft_points) + " TTFT points, " +
                         std::to_string(run.tpot_points) + " TPOT points" +
                         (run.tpot_from.empty() ? "" : " (" + run.tpot_from + ")"));
  }
  report::step_model_facts(view, file.step);
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
                     "LLMServingSim requests.jsonl) or an AccelMark result.json")
        ->type_name("RUN...")
        ->required();
    add_platform_flags(*app_, flags_.platform);
    end_flag_group(*app_);
    app_->add_option("--calibrate-concurrency", flags_.concurrency,
                     "Requests in flight while the runs were measured, when they do not say")
        ->type_name("N");
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
        "  kspeed estimate --deployment b200.json          the estimate on that deployment\n" +
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
    std::optional<double> concurrency;
    if (!flags_.concurrency.empty()) {
      concurrency = io::parse_positive_number(flags_.concurrency, "--calibrate-concurrency");
    }
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
      const io::CalibrationFile run = io::read_calibration_file(path, concurrency);
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

 private:
  CLI::App* app_;
  CalibrateFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_calibrate_command(CLI::App& command) {
  return std::make_unique<CalibrateCommand>(command);
}

}  // namespace kspeed::cli
