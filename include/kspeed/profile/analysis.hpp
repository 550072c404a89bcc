#pragma once
// From a Trace to attention shares: attribute every kernel to an engine step, group steps by
// phase, and sum kernel time per class. Pure functions over plain values: no printing.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/warning.hpp"
#include "kspeed/profile/classify.hpp"
#include "kspeed/profile/steps.hpp"
#include "kspeed/profile/trace.hpp"

namespace kspeed::profile {

/// What a share is a share of.
enum class Denominator {
  kernel_time,  ///< sum of kernel durations (what `nsys stats` "Time (%)" uses): the default
  busy_time,    ///< union of kernel intervals per device: overlapping streams counted once
  wall_time,    ///< from the step's first kernel start to its last kernel end (idle included)
};
/// "kernel-time", "busy-time", "wall-time".
std::string_view to_string(Denominator denominator);

/// Time per kernel class, ns, indexed by KernelClass.
using ClassTimes = std::array<std::int64_t, kKernelClassCount>;

/// The three cumulative shares (core; core + KV write; core + KV write + RoPE).
struct Shares {
  double core = 0;
  double core_kv = 0;
  double core_kv_rope = 0;
  double of(ShareScope scope) const;
};

/// The time behind a set of shares: numerators per scope and the denominator, ns. Shares of an
/// aggregate are sums of numerators over sums of denominators (time-weighted).
struct ShareTimes {
  std::array<std::int64_t, 3> scope_ns{};  ///< indexed like kShareScopes
  std::int64_t denominator_ns = 0;
  Shares shares() const;
  void add(const ShareTimes& other);
};

/// One kernel name's total inside a group of kernels.
struct KernelTotal {
  std::string name;
  KernelClass kernel_class = KernelClass::other;
  std::string library;  ///< the matching rule's library; empty for class other
  std::int64_t total_ns = 0;
  std::int64_t count = 0;           ///< executions
  double share_of_kernel_time = 0;  ///< total_ns / the group's kernel time
};

/// Kernel time and intervals summary shared by steps and phases.
struct GroupTimes {
  std::int64_t kernel_count = 0;  ///< kernel executions
  ClassTimes class_ns{};          ///< kernel time per class
  std::int64_t kernel_ns = 0;     ///< sum of kernel durations
  std::int64_t busy_ns = 0;       ///< union of kernel intervals per device, summed over devices
  std::int64_t wall_ns = 0;       ///< last kernel end - first kernel start
  ShareTimes share_times;         ///< under the chosen denominator
};

/// One engine step.
struct StepResult {
  std::string annotation;  ///< the annotation's text
  StepLabel label;
  std::int64_t start_ns = 0;             ///< the annotation's start (CPU clock), ns
  std::optional<double> context_tokens;  ///< step_context_tokens(label)
  GroupTimes times;
};

/// A phase (or the whole trace): aggregated over its steps, time-weighted.
struct PhaseResult {
  Phase phase = Phase::unphased;
  std::int64_t steps = 0;
  GroupTimes times;
  std::optional<std::int64_t> context_tokens;     ///< summed over steps that state them
  std::optional<std::int64_t> generation_tokens;  ///< summed over steps that state them
  std::vector<KernelTotal> top_attention;         ///< core, KV write, RoPE, metadata kernels
  std::vector<KernelTotal> top_unclassified;      ///< largest kernels of class other
};

/// A share measured at one context length: steps of one phase with the same context, merged.
struct ContextPoint {
  double context_tokens = 0;
  std::int64_t steps = 0;
  ShareTimes share_times;
};

/// How kernels found their step.
struct AttributionCounts {
  std::int64_t via_launch = 0;          ///< correlation id -> runtime call -> CPU annotation
  std::int64_t via_gpu_annotation = 0;  ///< GPU-side annotation containing the kernel
  std::int64_t outside_steps = 0;       ///< in no step (before, between or after steps)
};

/// The analysis of one trace file.
struct FileResult {
  std::string source;
  TraceFormat format = TraceFormat::kineto_json;
  bool compressed = false;
  TraceInfo info;
  std::string engine;  ///< from the annotations: "vLLM", "SGLang", ...; empty
  std::vector<std::string> annotation_styles;  ///< styles seen, e.g. {"sglang", "tracelens"}
  bool phased = false;                         ///< some step had a phase
  std::vector<PhaseResult> phases;  ///< prefill, decode, mixed, unphased: those with kernels
  PhaseResult whole_trace;          ///< every kernel, whatever its step (phase unphased)
  std::vector<StepResult> steps;    ///< in time order
  std::vector<ContextPoint> prefill_points;  ///< by prompt length per request
  std::vector<ContextPoint> decode_points;   ///< by KV length per request
  AttributionCounts attribution;
  std::int64_t kernel_names = 0;  ///< distinct kernel names
  std::uint64_t bytes_read = 0;
  std::uint64_t events_read = 0;
  std::vector<engine::Warning> notes;  ///< what a reader should know (no steps, summary only)
};

/// One phase across files: time-weighted share and the spread of per-file shares.
struct PhaseSpread {
  Phase phase = Phase::unphased;
  std::int64_t files = 0;  ///< files with kernels in this phase
  std::int64_t steps = 0;
  ShareTimes share_times;  ///< summed over files
  Shares min, max;         ///< per-file extremes
};

struct AnalysisOptions {
  Denominator denominator = Denominator::kernel_time;
  std::size_t top_kernels = 5;  ///< kernels listed per phase and list
};

struct ProfileResult {
  AnalysisOptions options;
  std::string patterns_source;  ///< "built-in", or "built-in + FILE", or "FILE"
  std::vector<FileResult> files;
  std::vector<PhaseSpread> aggregate;  ///< across files (filled when there are several)
};

/// Analyses one trace. Throws InputError when the trace has no GPU kernels, or when the
/// denominator needs a timeline the format does not have.
FileResult analyse_trace(const Trace& trace, const KernelClassifier& classifier,
                         const AnalysisOptions& options);

/// Per phase across files (ranks): summed times and the per-file spread.
std::vector<PhaseSpread> aggregate_files(const std::vector<FileResult>& files);

/// The phase result for `phase`, or nullptr.
const PhaseResult* find_phase(const FileResult& file, Phase phase);

}  // namespace kspeed::profile
