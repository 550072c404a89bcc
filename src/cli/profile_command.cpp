// `kspeed profile`: trace files -> readers -> analysis -> a reporter (and, optionally, a
// workload file for `kspeed estimate --workload`).
#include <unistd.h>
#include <fstream>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/io/pattern_reader.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/io/workload_writer.hpp"
#include "kspeed/profile/workload.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

namespace {

constexpr std::uint64_t kProgressMinBytes = 64ULL << 20;  // smaller files finish too fast to care

struct ProfileFlags {
  std::vector<std::string> traces;
  std::string denominator = "kernel-time";
  std::string patterns;
  std::string top = "5";
  std::string emit_workload;
  std::string emit_share = "core";
  bool keep_idle_gaps = false;
  std::string model;  ///< the deployment the trace ran, recorded in the emitted workload
  std::string gpu;
  std::string tp;
  bool merge = false;
  OutputOptions output;
};

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
  return parse_choice(text, "--emit-share", "share", choices);
}

std::size_t parse_top(const std::string& text) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0 || value > 1000) {
    throw InputError("--top: '" + text + "' is not a whole number from 0 to 1000");
  }
  return static_cast<std::size_t>(value);
}

// "reading FILE  37% (1.2 GB of 3.3 GB)" on one rewritten stderr line, at most 10 times a second.
class ProgressLine {
 public:
  explicit ProgressLine(std::string name) : name_(std::move(name)) {}
  ~ProgressLine() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(std::uint64_t done, std::uint64_t total) {
    if (total < kProgressMinBytes) return;
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    std::fprintf(stderr, "\rkspeed: reading %s %3.0f%% (%.0f of %.0f MB)", name_.c_str(),
                 fraction * 100, static_cast<double>(done) / 1e6, static_cast<double>(total) / 1e6);
    std::fflush(stderr);
  }

 private:
  std::string name_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

class ProfileCommand final : public Command {
 public:
  explicit ProfileCommand(CLI::App& command) : app_(&command) {
    app_->add_option("traces", flags_.traces,
                     "Trace files: Kineto/PyTorch JSON (.json or .json.gz), Nsight Systems "
                     "SQLite export, `nsys stats` kernel-summary CSV; several = one per rank")
        ->type_name("TRACE...");
    app_->add_option("--denominator", flags_.denominator,
                     "What a share is a share of: kernel-time (sum of kernel durations), "
                     "busy-time (overlapping streams counted once) or wall-time (step span, "
                     "idle included)")
        ->type_name("WHAT")
        ->capture_default_str();
    app_->add_option("--patterns", flags_.patterns,
                     "A JSON file of kernel-class rules that extend (or, with "
                     "\"replace_builtin\": true, replace) the built-in ones; see docs/profile.md")
        ->type_name("FILE");
    app_->add_option("--top", flags_.top, "Kernels listed per phase and list")
        ->type_name("N")
        ->capture_default_str();
    app_->add_option("--emit-workload", flags_.emit_workload,
                     "Also write a workload JSON with the measured shares, for kspeed estimate "
                     "--workload FILE")
        ->type_name("FILE");
    app_->add_option("--emit-share", flags_.emit_share,
                     "Which share the emitted workload carries: core, core+kv, core+kv+rope")
        ->type_name("SHARE")
        ->capture_default_str();
    app_->add_flag("--keep-idle-gaps", flags_.keep_idle_gaps,
                   "Keep profiler idle gaps (an idle stretch longer than all the step's GPU "
                   "work) in the emitted workload's wall-time denominator; excluded by default");
    app_->add_option("--model", flags_.model,
                     "The model the trace ran (a preset name or config file), recorded in the "
                     "emitted workload so estimate and mix calibrate its step model on the "
                     "trace's steps")
        ->type_name("NAME");
    app_->add_option("--gpu", flags_.gpu,
                     "The GPU preset of the emitted workload (default: the trace's device, "
                     "when a preset matches it)")
        ->type_name("NAME");
    app_->add_option("--tp", flags_.tp,
                     "Tensor parallelism of the emitted workload (default: the trace's "
                     "distributed world size, with --model)")
        ->type_name("N");
    app_->add_flag("--merge", flags_.merge,
                   "Average files whose device, engine or world size differ (labelled in the "
                   "output); without it such files are an error");
    add_output_options(*app_, flags_.output);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (flags_.traces.empty()) {
      throw InputError(
          "kspeed profile needs at least one trace file: kspeed profile TRACE [TRACE...] (a "
          "torch profiler *.pt.trace.json.gz, an nsys SQLite export or an nsys stats CSV; see "
          "kspeed profile --help)");
    }
    profile::AnalysisOptions options;
    options.denominator = parse_denominator(flags_.denominator);
    options.top_kernels = parse_top(flags_.top);
    const profile::ShareScope scope = parse_scope(flags_.emit_share);
    check_output_options(flags_.output);  // a bad --format, --color or -o fails before any work
    if (!flags_.emit_workload.empty())
      io::check_output_path(flags_.emit_workload, "--emit-workload");

    io::check_distinct_files(flags_.traces, "trace file");

    profile::ProfileResult result;
    result.options = options;
    const profile::KernelClassifier classifier(patterns(result.patterns_source));
    for (const std::string& path : flags_.traces) {
      result.files.push_back(profile::analyse_trace(read(path), classifier, options));
    }
    check_same_setup(result);
    if (result.files.size() > 1) result.aggregate = profile::aggregate_files(result.files);

    // The emitted workload is written to its temporary file before -o is touched, and renamed
    // into place with it: a run that fails on either file leaves both previous files intact.
    if (!flags_.emit_workload.empty()) {
      stage_side_output(flags_.emit_workload, "--emit-workload",
                        emitted_workload(result, scope, deployment_flags()));
    }
    render_and_emit(report::make_report(result, report::profile_view, report::profile_document),
                    flags_.output);
    if (!flags_.emit_workload.empty()) {
      std::cerr << "kspeed: wrote workload " << flags_.emit_workload
                << " (use: kspeed estimate --workload " << flags_.emit_workload << ")\n";
    }
    return kExitOk;
  }

 private:
  // Files of different setups are not ranks of one run: averaging them is an error unless
  // --merge asks for it, and then the output says what was merged.
  void check_same_setup(profile::ProfileResult& result) const {
    std::vector<profile::SetupField> differences = profile::setup_differences(result.files);
    if (differences.empty()) return;
    if (flags_.merge) {
      result.merged_differences = std::move(differences);
      return;
    }
    throw InputError("the trace files come from different setups (" +
                     report::setup_differences_text(differences, result.files) +
                     "), so their shares are not ranks of one run to average: profile each "
                     "setup on its own, or pass --merge to average them anyway (labelled)");
  }

  std::vector<profile::KernelPattern> patterns(std::string& source) const {
    if (flags_.patterns.empty()) {
      source = "built-in";
      return profile::builtin_patterns();
    }
    const io::PatternFile file = io::parse_pattern_file(
        io::read_text_file(flags_.patterns, "patterns file"), flags_.patterns);
    source = (file.replace_builtin ? "" : "built-in + ") + flags_.patterns;
    return io::combined_patterns(file);
  }

  static profile::Trace read(const std::string& path) {
    // Opened once: the first 64 KiB (enough for ncu's preamble and header) are read before the
    // trace readers take the same descriptor, so a pipe is never reopened to name the format.
    io::InputFile file(path, "trace file", io::trace::kTraceFileKinds);
    const std::string head = file.head(std::size_t{64} * 1024);
    const bool show_progress = ::isatty(STDERR_FILENO) == 1;
    ProgressLine line(std::filesystem::path(path).filename().string());
    io::trace::ProgressCallback progress;
    if (show_progress) {
      progress = [&line](std::uint64_t done, std::uint64_t total) { line.update(done, total); };
    }
    try {
      return io::trace::read_trace_file(file, progress);
    } catch (const InputError&) {
      // A kernel profiler's export is not a timeline: say which command reads it.
      if (io::looks_like_ncu_export(head)) {
        throw InputError(path +
                         ": this is an Nsight Compute export (a kernel profiler's, not a "
                         "timeline): use kspeed roofline --ncu " +
                         path + " --gpu NAME");
      }
      throw;
    }
  }

  struct EmittedDeployment {
    bool keep_idle_gaps = false;
    std::string model, gpu, tp;
  };
  EmittedDeployment deployment_flags() const {
    if (flags_.emit_workload.empty() && (!flags_.model.empty() || !flags_.gpu.empty() ||
                                         !flags_.tp.empty() || flags_.keep_idle_gaps)) {
      throw InputError(
          "--model, --gpu, --tp and --keep-idle-gaps describe the workload profile writes: "
          "pass --emit-workload FILE too, or leave them out");
    }
    // Read now, so a path that is missing or not a model fails here, not in the command that
    // later reads the workload.
    if (!flags_.model.empty()) (void)io::load_model(flags_.model);
    if (!flags_.gpu.empty()) (void)io::load_gpu(flags_.gpu);
    return {flags_.keep_idle_gaps, flags_.model, flags_.gpu, flags_.tp};
  }

  // The deployment the steps ran on: --gpu, else the trace's device when a preset matches it;
  // --tp, else the trace's world size (with a model: the step model needs both).
  static void add_deployment(const profile::ProfileResult& result,
                             const EmittedDeployment& deployment, engine::Workload& workload) {
    if (!deployment.model.empty()) workload.model = deployment.model;
    if (!deployment.gpu.empty()) {
      workload.gpu = deployment.gpu;
    } else if (!result.files.empty()) {
      workload.gpu = io::gpu_preset_for_device(result.files.front().info.gpu);
    }
    // A model without a GPU names no deployment: estimate would drop it without a word.
    if (workload.model && !workload.gpu) {
      const std::string device = result.files.empty() ? "" : result.files.front().info.gpu;
      throw InputError("--model " + deployment.model +
                       ": the emitted workload records the model "
                       "with the GPU it ran on, and " +
                       (device.empty() ? std::string("the trace names no GPU")
                                       : "the trace's device '" + device + "' matches no preset") +
                       ": pass --gpu NAME (kspeed gpus lists them) or a GPU JSON file");
    }
    if (!deployment.tp.empty()) {
      workload.tp = io::parse_count(deployment.tp, "--tp");
    } else if (workload.model && !result.files.empty() &&
               result.files.front().info.world_size.value_or(1) > 1) {
      workload.tp = *result.files.front().info.world_size;
    }
  }

  // The profiler idle gaps the workload records: how many steps, the longest, and what the
  // wall-time denominator does with them.
  static void report_profiler_gaps(const engine::Workload& workload, bool kept) {
    const engine::ProfiledStep* longest = nullptr;
    std::int64_t steps = 0;
    for (const engine::ProfiledStep& step : workload.profiled_steps) {
      if (step.profiler_gap_ms <= 0) continue;
      ++steps;
      if (longest == nullptr || step.profiler_gap_ms > longest->profiler_gap_ms) longest = &step;
    }
    if (longest == nullptr) return;
    std::cerr << "kspeed: --emit-workload: " << steps << " of " << workload.profiled_steps.size()
              << " steps held a profiler idle gap (an idle stretch longer than all the step's "
                 "GPU work); the longest, "
              << report::human_ms(longest->profiler_gap_ms) << " in '" << longest->label
              << "' (busy " << report::human_ms(longest->busy_ms) << "), is recorded as "
              << "profiler_gap_ms and "
              << (kept ? "kept in the wall time (--keep-idle-gaps)"
                       : "left out of a wall-time denominator (--keep-idle-gaps keeps it)")
              << "\n";
  }

  // Built and validated before anything is written: the emitted file must read back.
  static std::string emitted_workload(const profile::ProfileResult& result,
                                      profile::ShareScope scope,
                                      const EmittedDeployment& deployment) {
    profile::EmitOptions options;
    options.keep_idle_gaps = deployment.keep_idle_gaps;
    profile::EmittedWorkload emitted = profile::workload_from_profile(result, scope, options);
    add_deployment(result, deployment, emitted.workload);
    for (auto& [key, value] : emitted.workload.conditions) {
      if (key == "token_counts") value = report::token_counts_condition(emitted.workload);
    }
    if (emitted.workload.prefill_shares.empty() && emitted.workload.decode_shares.empty()) {
      std::string why = emitted.notes.empty()
                            ? std::string()
                            : " (" + report::warning_sentence(emitted.notes.front()) + ")";
      throw InputError(
          "--emit-workload: no prefill or decode step states its context length, so "
          "there is no share table to write" +
          why +
          ": it needs step annotations with token counts (vLLM execute_context_…, "
          "SGLang step[EXTEND … toks=T]); pass the share to kspeed estimate with "
          "--share instead");
    }
    for (const engine::Warning& note : emitted.notes)
      std::cerr << "kspeed: --emit-workload: " << report::warning_sentence(note) << "\n";
    report_profiler_gaps(emitted.workload, deployment.keep_idle_gaps);
    std::string text = io::workload_to_json_text(emitted.workload);
    io::parse_workload(text, "emitted workload");  // a bug here must not produce a bad file
    return text;
  }

  static std::string footer() {
    return "\nExamples:\n"
           "  kspeed profile trace.pt.trace.json.gz              shares per phase\n"
           "  kspeed profile rank*.json.gz --format json         one result per rank + aggregate\n"
           "  kspeed profile report.sqlite --denominator busy-time\n"
           "  kspeed profile t.json.gz --emit-workload w.json && kspeed estimate --workload "
           "w.json\n"
           "See docs/profile.md for capturing traces with vLLM, SGLang, TensorRT-LLM and nsys.\n" +
           exit_codes_help();
  }

  CLI::App* app_;
  ProfileFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_profile_command(CLI::App& command) {
  return std::make_unique<ProfileCommand>(command);
}

}  // namespace kspeed::cli
