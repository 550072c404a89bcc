// `kspeed plan BASELINE... --effect 1%`: before running an A/B, can it see the predicted effect?
// The minimum detectable effect at the planned requests and repeats, and what detecting the
// prediction would take, from the noise of one or more baseline runs (engine/verify/power.hpp).
#include <iostream>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/plan_report.hpp"
#include "output_options.hpp"
#include "run_names.hpp"

namespace kspeed::cli {

namespace {

struct PlanFlags {
  std::vector<std::string> baselines;
  std::string effect;
  std::string estimate;
  std::string metric = "e2e";
  std::string requests;
  std::string repeats;
  std::string power = "0.8";
  std::string alpha = "0.05";
  std::string run;
  OutputOptions output;
};

std::int64_t positive_count(const std::string& text, const char* flag) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 2 || value > 1000000000) {
    throw InputError(std::string(flag) + ": '" + text +
                     "' is not a whole number from 2 to 1,000,000,000");
  }
  return value;
}

double open_fraction(const std::string& text, const char* flag) {
  const double value = io::parse_share(text, flag);
  if (value <= 0 || value >= 1) {
    throw InputError(std::string(flag) + ": '" + text + "' must lie strictly between 0 and 1");
  }
  return value;
}

// The metric's speedup in a kspeed estimate --format json, as a relative change of its time:
// 1 - 1/speedup. E2E: request.speedup; TTFT: ttft.speedup (prefill.speedup without a fixed
// term); TPOT: decode.speedup.
std::pair<double, std::string> effect_from_estimate(const std::string& path,
                                                    const std::string& metric) {
  const nlohmann::json document =
      io::parse_json_document(io::read_text_file(path, "estimate JSON"), path);
  const char* object = metric == "e2e" ? "request" : metric == "tpot" ? "decode" : "ttft";
  if (metric == "ttft" && document.is_object() && !document.contains("ttft")) object = "prefill";
  if (!document.is_object() || !document.contains(object) || !document[object].is_object() ||
      !document[object].contains("speedup") || !document[object]["speedup"].is_number()) {
    throw InputError(path + ": not a kspeed estimate --format json with " + object +
                     ".speedup: expected the JSON kspeed estimate writes (or give --effect)");
  }
  const double speedup = document[object]["speedup"].get<double>();
  if (!(speedup > 1)) {
    throw InputError(path + ": " + object + ".speedup is " + std::to_string(speedup) +
                     ": kspeed plan needs a predicted gain (a speedup above 1)");
  }
  return {1 - 1 / speedup, path + " " + object + ".speedup " + std::to_string(speedup)};
}

// One baseline run: `result`, read from `path` (a file, a FILE:LINE name, or one of the runs of
// a multi-run file, whose own name result.source is).
engine::BaselineRun baseline_run(const io::BenchResult& result, engine::LatencyMetric metric,
                                 std::vector<std::string>& warnings) {
  const std::string& path = result.source;
  const engine::BenchSide& side = result.latencies;
  // Rows the reader skipped (a negative TTFT, a failed request) are not in the noise: said, not
  // dropped silently.
  if (side.skipped > 0) {
    warnings.push_back(path + ": " + std::to_string(side.skipped) +
                       " per-request rows skipped and left out of the noise (the first: " +
                       side.first_skipped + ")");
  }
  const auto m = static_cast<std::size_t>(metric);
  if (!side.per_request || side.samples.at(m).size() < 2) {
    throw InputError(path + ": " + std::string(to_string(metric)) +
                     " has no per-request values: kspeed plan measures noise from each "
                     "request's value (AIPerf profile_export.jsonl, vllm bench serve "
                     "--save-detailed); aggregates state no spread");
  }
  engine::BaselineRun run;
  run.source = path;
  bool identified = static_cast<std::int64_t>(side.identified.size()) == side.requests;
  for (const auto& request : side.identified) identified = identified && request.ms.at(m);
  if (identified) {
    for (const auto& request : side.identified) {
      run.values_ms.push_back(*request.ms.at(m));
      run.ids.push_back(request.id);
    }
  } else {
    run.values_ms = side.samples.at(m);
  }
  return run;
}

class PlanCommand final : public Command {
 public:
  explicit PlanCommand(CLI::App& command) : app_(&command) {
    app_->add_option("baselines", flags_.baselines,
                     "One or more runs of the baseline with per-request values (AIPerf "
                     "profile_export.jsonl or artifact directory, vllm bench serve "
                     "--save-detailed JSON): their spread is the noise")
        ->type_name("BASELINE...");
    app_->add_option("--effect", flags_.effect,
                     "The predicted relative change of the metric's mean: 1% or 0.01")
        ->type_name("FRACTION");
    app_->add_option("--estimate", flags_.estimate,
                     "Take the effect from kspeed estimate --format json (request.speedup for "
                     "e2e, ttft or prefill for ttft, decode for tpot)")
        ->type_name("FILE");
    app_->add_option("--metric", flags_.metric, "Which latency: e2e, ttft or tpot")
        ->type_name("METRIC")
        ->capture_default_str();
    app_->add_option("--requests", flags_.requests,
                     "Requests a side in the planned A/B (default: the first baseline's)")
        ->type_name("N");
    app_->add_option("--repeats", flags_.repeats, "Runs a side in the planned A/B (default 1)")
        ->type_name("R");
    app_->add_option("--power", flags_.power, "The chance of detecting a real effect")
        ->type_name("P")
        ->capture_default_str();
    app_->add_option("--alpha", flags_.alpha, "The two-sided level (false-alarm rate)")
        ->type_name("A")
        ->capture_default_str();
    add_run_option(*app_, flags_.run);
    add_output_options(*app_, flags_.output);
    app_->footer(
        "\nThe minimum detectable effect of a comparison of means, k · sd · √(2/n) / mean with "
        "k = z(1 − α/2) + z(power),\nand the requests (or runs) needed for the predicted "
        "effect; paired when two baseline runs share\nrequest ids, between runs when two or "
        "more are given.\n"
        "\nExamples:\n"
        "  kspeed plan profile_export.jsonl --effect 1%\n"
        "  kspeed plan run1/ run2/ run3/ --estimate estimate.json --repeats 5\n"
        "  kspeed plan runs.jsonl --effect 2%   (every run of the file a baseline run)\n"
        "See docs/plan.md.\n" +
        exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (flags_.baselines.empty()) {
      throw InputError(
          "kspeed plan needs at least one baseline run: kspeed plan "
          "profile_export.jsonl --effect 1% (see kspeed plan --help)");
    }
    if (flags_.effect.empty() == flags_.estimate.empty()) {
      throw InputError(
          "kspeed plan needs the predicted effect: --effect 1% or --estimate "
          "estimate.json (one of them)");
    }
    Choices<engine::LatencyMetric> metrics = {{"e2e", engine::LatencyMetric::e2e},
                                              {"ttft", engine::LatencyMetric::ttft},
                                              {"tpot", engine::LatencyMetric::tpot}};
    const engine::LatencyMetric metric =
        parse_choice(flags_.metric, "--metric", "latency metric", metrics);
    engine::PlanInput input;
    report::PlanContext context;
    context.metric = flags_.metric;
    if (!flags_.effect.empty()) {
      input.effect = open_fraction(flags_.effect, "--effect");
      context.effect_source = "given: --effect " + flags_.effect;
    } else {
      std::tie(input.effect, context.effect_source) =
          effect_from_estimate(flags_.estimate, flags_.metric);
    }
    if (!flags_.requests.empty()) input.requests = positive_count(flags_.requests, "--requests");
    if (!flags_.repeats.empty()) input.repeats = positive_count(flags_.repeats, "--repeats");
    input.options.power =
        io::check_range("--power", open_fraction(flags_.power, "--power"), flags_.power);
    input.options.alpha =
        io::check_range("--alpha", open_fraction(flags_.alpha, "--alpha"), flags_.alpha);
    check_output_options(flags_.output);
    const std::optional<std::int64_t> run = parse_run_number(flags_.run);
    std::vector<std::string> skipped;
    // A file of several runs (SGLang JSONL, one a line) gives every run as a baseline run, a
    // series; --run N or a FILE:LINE name gives one.
    for (const std::string& path : flags_.baselines) {
      for (const io::BenchResult& result : runs_of(path, run)) {
        input.runs.push_back(baseline_run(result, metric, skipped));
      }
    }
    const engine::Plan plan = engine::plan_ab(input);
    render_and_emit(
        report::Report{report::plan_view(plan, context), report::plan_document(plan, context)},
        flags_.output);
    for (const std::string& warning : skipped) std::cerr << "kspeed: warning: " << warning << "\n";
    return kExitOk;
  }

 private:
  CLI::App* app_;
  PlanFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_plan_command(CLI::App& command) {
  return std::make_unique<PlanCommand>(command);
}

}  // namespace kspeed::cli
