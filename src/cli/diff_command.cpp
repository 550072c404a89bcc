// `kspeed diff BEFORE AFTER`: two traces (kernel and phase speedups, the Amdahl prediction beside
// the measured phase speedup) or two benchmark results (latency changes with bootstrap intervals).
// Which kind is decided from the files' content; both must be of the same kind.
#include <filesystem>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/pattern_reader.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/profile/trace_diff.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/run_diff_report.hpp"
#include "output_options.hpp"
#include "run_names.hpp"

namespace kspeed::cli {

namespace {

constexpr std::int64_t kMaxResamples = 100000;

struct DiffFlags {
  std::vector<std::string> files;
  std::vector<std::string> before_runs;
  std::vector<std::string> after_runs;
  std::string denominator = "kernel-time";
  std::string scope = "core";
  std::string patterns;
  std::string bootstrap = "1000";
  std::string confidence = "0.95";
  std::string run;
  OutputOptions output;
};

// The first bytes of a file: enough to tell a trace from a benchmark result. They are read from
// the descriptor the reader then goes on with, so a pipe is read once.
const std::string& file_head(io::InputFile& file) {
  constexpr std::size_t kHeadBytes = std::size_t{64} * 1024;
  return file.head(kHeadBytes);
}

// A profiler trace: gzip (the torch profiler's .json.gz), an SQLite file (nsys export), Kineto
// JSON (traceEvents) or an nsys stats CSV. Anything else is read as a benchmark result.
bool looks_like_trace(const std::string& head) {
  return head.rfind("\x1f\x8b", 0) == 0 || head.rfind("SQLite format 3", 0) == 0 ||
         head.find("\"traceEvents\"") != std::string::npos ||
         head.find("Time (%)") != std::string::npos || head.find("Time(%)") != std::string::npos;
}

profile::Denominator parse_denominator(const std::string& text) {
  Choices<profile::Denominator> choices;
  for (auto denominator : {profile::Denominator::kernel_time, profile::Denominator::busy_time,
                           profile::Denominator::wall_time}) {
    choices.emplace_back(to_string(denominator), denominator);
  }
  return parse_choice(text, "--denominator", "denominator", choices);
}

profile::ShareScope parse_scope(const std::string& text) {
  Choices<profile::ShareScope> choices;
  for (profile::ShareScope scope : profile::kShareScopes) {
    choices.emplace_back(to_string(scope), scope);
  }
  return parse_choice(text, "--scope", "attention scope", choices);
}

std::int64_t parse_resamples(const std::string& text) {
  std::size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0 || value > kMaxResamples) {
    throw InputError("--bootstrap: '" + text + "' is not a whole number from 0 to " +
                     std::to_string(kMaxResamples) + " (resamples; 0: no interval)");
  }
  return value;
}

double parse_confidence(const std::string& text) {
  const double value = io::parse_share(text, "--confidence");
  if (value <= 0 || value >= 1) {
    throw InputError("--confidence: '" + text +
                     "' must lie strictly between 0 and 1 (0.95 or 95% for a 95% interval)");
  }
  return value;
}

class DiffCommand final : public Command {
 public:
  explicit DiffCommand(CLI::App& command) : app_(&command) {
    app_->add_option("files", flags_.files,
                     "BEFORE and AFTER: two profiler traces (as kspeed profile reads them) or two "
                     "benchmark results (vllm bench serve JSON, AIPerf exports, SGLang "
                     "bench_serving JSONL)")
        ->type_name("BEFORE AFTER");
    app_->add_option("--before", flags_.before_runs,
                     "Benchmark results: repeated runs of the before configuration (2 or more, "
                     "with --after): each run one value, judged between runs")
        ->type_name("FILE...");
    app_->add_option("--after", flags_.after_runs,
                     "Benchmark results: repeated runs of the after configuration (2 or more)")
        ->type_name("FILE...");
    app_->add_option("--denominator", flags_.denominator,
                     "Traces: what phase time is: kernel-time, busy-time or wall-time (idle "
                     "included); see kspeed profile --help")
        ->type_name("WHAT")
        ->capture_default_str();
    app_->add_option("--scope", flags_.scope,
                     "Traces: which kernels count as attention: core, core+kv, core+kv+rope")
        ->type_name("SCOPE")
        ->capture_default_str();
    app_->add_option("--patterns", flags_.patterns,
                     "Traces: a JSON file of kernel-class rules (as kspeed profile --patterns)")
        ->type_name("FILE");
    app_->add_option("--bootstrap", flags_.bootstrap,
                     "Benchmark results: bootstrap resamples for the confidence intervals (0: "
                     "none)")
        ->type_name("N")
        ->capture_default_str();
    app_->add_option("--confidence", flags_.confidence,
                     "Benchmark results: the intervals' confidence level (0.95 or 95%)")
        ->type_name("LEVEL")
        ->capture_default_str();
    add_run_option(*app_, flags_.run);
    add_output_options(*app_, flags_.output);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (!flags_.before_runs.empty() || !flags_.after_runs.empty()) return diff_runs();
    if (flags_.files.size() != 2) {
      throw InputError(
          "kspeed diff needs two files, BEFORE and AFTER (got " +
          std::to_string(flags_.files.size()) +
          "): two traces (kspeed diff before.json.gz after.json.gz) or two benchmark results "
          "(kspeed diff before.json after.json); see kspeed diff --help");
    }
    const profile::Denominator denominator = parse_denominator(flags_.denominator);
    const profile::ShareScope scope = parse_scope(flags_.scope);
    engine::BootstrapOptions bootstrap;
    bootstrap.resamples = parse_resamples(flags_.bootstrap);
    bootstrap.confidence = parse_confidence(flags_.confidence);
    check_output_options(flags_.output);
    const std::optional<std::int64_t> run = parse_run_number(flags_.run);
    // Two runs of one file (FILE:3 FILE:5) are two results; the same name twice is refused.
    refuse_same_file(flags_.files[0], flags_.files[1]);

    // One run of a multi-run file, by the FILE:LINE name kspeed audit prints, or an AIPerf
    // artifact directory (read file by file inside it).
    const bool named = names_a_run(flags_.files[0]) || names_a_run(flags_.files[1]);
    if (named || is_directory(flags_.files[0]) || is_directory(flags_.files[1])) {
      io::BenchResult before = single_result(runs_of(flags_.files[0], run), flags_.files[0]);
      io::BenchResult after = single_result(runs_of(flags_.files[1], run), flags_.files[1]);
      return diff_bench(std::move(before), std::move(after), bootstrap);
    }
    io::InputFile before_file(flags_.files[0], "benchmark result");
    io::InputFile after_file(flags_.files[1], "benchmark result");
    const bool before_trace = looks_like_trace(file_head(before_file));
    const bool after_trace = looks_like_trace(file_head(after_file));
    if (before_trace != after_trace) {
      const std::string& trace = before_trace ? flags_.files[0] : flags_.files[1];
      const std::string& other = before_trace ? flags_.files[1] : flags_.files[0];
      throw InputError("kspeed diff compares two files of one kind: " + trace +
                       " is a profiler trace and " + other +
                       " is not: pass two traces or two benchmark results");
    }
    if (before_trace) {
      if (run) {
        throw InputError(
            "--run " + flags_.run + " picks one run of a benchmark file that holds several; " +
            flags_.files[0] + " and " + flags_.files[1] + " are profiler traces: drop --run");
      }
      profile::TraceDiffOptions options;
      options.denominator = denominator;
      options.scope = scope;
      const profile::KernelClassifier classifier(patterns());
      const profile::Trace before = io::trace::read_trace_file(before_file, {});
      const profile::Trace after = io::trace::read_trace_file(after_file, {});
      const profile::TraceDiff diff = profile::diff_traces(before, after, classifier, options);
      render_and_emit(diff, report::trace_diff_view, report::trace_diff_document, flags_.output);
      return kExitOk;
    }
    // BEFORE is read first, so an error in both names BEFORE.
    io::BenchResult before = single_result(
        select_run(io::read_bench_results(before_file), flags_.files[0], run), flags_.files[0]);
    io::BenchResult after = single_result(
        select_run(io::read_bench_results(after_file), flags_.files[1], run), flags_.files[1]);
    return diff_bench(std::move(before), std::move(after), bootstrap);
  }

 private:
  // --before B1 B2 ... --after A1 A2 ...: runs as the unit (engine/verify/run_diff.hpp).
  int diff_runs() const {
    if (!flags_.files.empty()) {
      throw InputError(
          "kspeed diff takes BEFORE AFTER or --before FILE... --after FILE..., not "
          "both (got " +
          flags_.files.front() + " as well)");
    }
    if (flags_.before_runs.empty() || flags_.after_runs.empty()) {
      throw InputError(std::string(flags_.before_runs.empty() ? "--before" : "--after") +
                       " has no run: a comparison with runs as the unit needs 2 or more a side "
                       "(files, or a file that holds several runs); for two single runs give "
                       "BEFORE AFTER, which compares their requests");
    }
    const double confidence = parse_confidence(flags_.confidence);
    check_output_options(flags_.output);
    const std::optional<std::int64_t> run = parse_run_number(flags_.run);
    std::vector<engine::FileConditions> conditions;
    // Each file is every run it holds (an SGLang JSONL of repeated runs, one a line), or with
    // --run the Nth alone; a FILE:LINE name is that run.
    const auto read = [&](const std::vector<std::string>& paths) {
      std::vector<engine::BenchSide> runs;
      for (const std::string& path : paths) {
        for (io::BenchResult& result : runs_of(path, run)) {
          conditions.push_back(result.conditions);
          runs.push_back(std::move(result.latencies));
        }
      }
      return runs;
    };
    std::vector<engine::BenchSide> before = read(flags_.before_runs);
    std::vector<engine::BenchSide> after = read(flags_.after_runs);
    for (const auto& [flag, runs] : {std::pair{"--before", &before}, {"--after", &after}}) {
      if (runs->size() < engine::kMinRunsPerSide) {
        throw InputError(std::string(flag) + " has " + std::to_string(runs->size()) +
                         " run(s): a comparison with runs as the unit needs 2 or more a side "
                         "(one run has no run-to-run variance); for two single runs give "
                         "BEFORE AFTER, which compares their requests");
      }
    }
    engine::RunLevelDiff diff =
        engine::compare_runs(std::move(before), std::move(after), confidence);
    diff.differing_conditions = engine::audit_conditions(conditions).differing;
    render_and_emit(diff, report::run_diff_view, report::run_diff_document, flags_.output);
    return kExitOk;
  }

  int diff_bench(io::BenchResult before, io::BenchResult after,
                 const engine::BootstrapOptions& bootstrap) const {
    const engine::Audit audit = engine::audit_conditions({before.conditions, after.conditions});
    engine::BenchDiff diff =
        engine::compare_bench(std::move(before.latencies), std::move(after.latencies), bootstrap);
    diff.differing_conditions = audit.differing;
    render_and_emit(diff, report::bench_diff_view, report::bench_diff_document, flags_.output);
    return kExitOk;
  }

  static bool is_directory(const std::string& path) {
    std::error_code error;
    return std::filesystem::is_directory(path, error);
  }

  // One documented behaviour (docs/diff.md): a file against itself shows no change by
  // construction, which says nothing about noise; two runs of one configuration do.
  static void refuse_same_file(const std::string& before, const std::string& after) {
    std::error_code error;
    const bool same = before == after || std::filesystem::equivalent(before, after, error);
    if (same) {
      throw InputError(after +
                       " is both BEFORE and AFTER: a file against itself "
                       "shows no change by construction and says nothing about run-to-run "
                       "noise; compare two runs of one configuration to see the noise, or ask "
                       "kspeed plan what a run can detect");
    }
  }

  static io::BenchResult single_result(std::vector<io::BenchResult> results,
                                       const std::string& path) {
    if (results.size() != 1) {
      throw InputError(path + " holds " + std::to_string(results.size()) +
                       " benchmark runs (SGLang: one a line; GuideLLM: one per benchmarks[] "
                       "entry; AccelMark: one per load level): kspeed diff BEFORE AFTER compares "
                       "one run with one run; pick one with --run N (from 1), or name each by "
                       "what kspeed audit prints for it (FILE:LINE, FILE:benchmarks[i], "
                       "FILE:metrics.online.results_by_qps[i]); for repeated runs as the unit, "
                       "--before FILE --after FILE reads every run of each file");
    }
    return std::move(results.front());
  }

  std::vector<profile::KernelPattern> patterns() const {
    if (flags_.patterns.empty()) return profile::builtin_patterns();
    return io::combined_patterns(io::parse_pattern_file(
        io::read_text_file(flags_.patterns, "patterns file"), flags_.patterns));
  }

  static std::string footer() {
    return "\nTwo traces: per phase, the realized attention speedup s and the before-share p give "
           "kspeed's\nprediction of the phase speedup, 1 / ((1 - p) + p / s) (Amdahl), shown "
           "beside the measured\none; what the prediction misses is attributed to other kernels "
           "and to idle time.\nTwo benchmark results: the change in mean, p50 and p99 of TTFT, "
           "TPOT, ITL and E2E; with\nper-request values, a percentile-bootstrap interval of the "
           "change (fixed seed) and a verdict:\n\"within noise\" when the interval contains 0.\n"
           "\nExamples:\n"
           "  kspeed diff before.pt.trace.json.gz after.pt.trace.json.gz\n"
           "  kspeed diff base.json new.json --bootstrap 2000 --confidence 0.99   (vllm bench "
           "serve --save-detailed)\n"
           "  kspeed diff profile_export.jsonl new/profile_export.jsonl --format json\n"
           "  kspeed diff --before base1/ base2/ base3/ --after new1/ new2/ new3/   (runs as "
           "the unit)\n"
           "  kspeed diff --before base.jsonl --after new.jsonl   (SGLang: every line a run)\n"
           "  kspeed diff base.jsonl new.jsonl --run 2   (the second run of each file)\n"
           "See docs/diff.md.\n" +
           exit_codes_help();
  }

  CLI::App* app_;
  DiffFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_diff_command(CLI::App& command) {
  return std::make_unique<DiffCommand>(command);
}

}  // namespace kspeed::cli
