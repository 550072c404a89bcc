#include "kspeed/profile/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis_parts.hpp"
#include "kspeed/error.hpp"

namespace kspeed::profile {

namespace {

using detail::build_steps;
using detail::classify_names;
using detail::kNoStep;
using detail::NameClasses;
using detail::StepIndex;
constexpr std::array<Phase, 4> kPhaseOrder = {Phase::prefill, Phase::decode, Phase::mixed,
                                              Phase::unphased};

// ---- Times of a group of kernels --------------------------------------------------------
// The analysis walks the kernels once, sorted by (device, start), and every group (a step, the
// whole trace) adds each of its kernels as it passes: sums, and busy intervals merged as they
// stream. Nothing is kept per kernel, so memory follows the steps and names a trace reports.

// The union of intervals met in (device, start) order, merged as they arrive: overlapping
// kernels on different streams of one GPU count once, summed over devices. The gaps between
// merged intervals of one device are the GPU's idle time inside the group.
//   busy = sum over merged intervals of (end - start); largest gap = max(next start - end)
class StreamingUnion {
 public:
  void add(std::int32_t device, std::int64_t start_ns, std::int64_t end_ns) {
    if (open_ && device == device_ && start_ns <= end_ns_) {
      end_ns_ = std::max(end_ns_, end_ns);
      return;
    }
    if (open_) {
      busy_ns_ += end_ns_ - start_ns_;
      if (device == device_) largest_gap_ns_ = std::max(largest_gap_ns_, start_ns - end_ns_);
    }
    open_ = true;
    device_ = device;
    start_ns_ = start_ns;
    end_ns_ = end_ns;
  }
  std::int64_t busy_ns() const { return busy_ns_ + (open_ ? end_ns_ - start_ns_ : 0); }
  std::int64_t largest_gap_ns() const { return largest_gap_ns_; }

 private:
  bool open_ = false;
  std::int32_t device_ = 0;
  std::int64_t start_ns_ = 0;  ///< the interval being merged
  std::int64_t end_ns_ = 0;
  std::int64_t busy_ns_ = 0;  ///< closed intervals
  std::int64_t largest_gap_ns_ = 0;
};

// One group's times, kernel by kernel (the kernels of a group arrive in (device, start) order).
class GroupAccumulator {
 public:
  void add(const KernelEvent& kernel, std::int64_t instances, KernelClass cls, bool timeline) {
    kernel_count_ += instances;
    class_ns_[static_cast<std::size_t>(cls)] += kernel.duration_ns;
    kernel_ns_ += kernel.duration_ns;
    if (!timeline) return;
    const std::int64_t end_ns = kernel.start_ns + kernel.duration_ns;
    first_ns_ = std::min(first_ns_, kernel.start_ns);
    last_ns_ = std::max(last_ns_, end_ns);
    all_.add(kernel.device, kernel.start_ns, end_ns);
    for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
      if (in_scope(cls, kShareScopes[s])) scoped_[s].add(kernel.device, kernel.start_ns, end_ns);
    }
  }

  GroupTimes times(Denominator denominator, bool timeline) const {
    GroupTimes out;
    out.kernel_count = kernel_count_;
    out.class_ns = class_ns_;
    out.kernel_ns = kernel_ns_;
    if (timeline && first_ns_ <= last_ns_) {
      out.busy_ns = all_.busy_ns();
      out.largest_gap_ns = all_.largest_gap_ns();
      out.wall_ns = last_ns_ - first_ns_;
    }
    for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
      for (std::size_t c = 0; c < kKernelClassCount; ++c) {
        if (in_scope(static_cast<KernelClass>(c), kShareScopes[s])) {
          out.scope_kernel_ns[s] += out.class_ns[c];
        }
      }
      // Busy and wall time count overlapping attention kernels once, like their denominators.
      if (timeline) out.scope_union_ns[s] = scoped_[s].busy_ns();
    }
    out.share_times = out.under(denominator);
    return out;
  }

 private:
  std::int64_t kernel_count_ = 0;
  ClassTimes class_ns_{};
  std::int64_t kernel_ns_ = 0;
  std::int64_t first_ns_ = INT64_MAX;
  std::int64_t last_ns_ = INT64_MIN;
  StreamingUnion all_;
  std::array<StreamingUnion, 3> scoped_;
};

// Per kernel name, total time and executions inside one group (a phase, the whole trace).
class NameTotals {
 public:
  void add(const KernelEvent& kernel, std::int64_t instances) {
    auto& [total, count] = by_name_[kernel.name_id];
    total += kernel.duration_ns;
    count += instances;
  }

  // The largest names of the attention classes (or of class other), largest first.
  std::vector<KernelTotal> top(const Trace& trace, const NameClasses& names,
                               const KernelClassifier& classifier, std::int64_t kernel_ns,
                               bool attention, std::size_t limit) const {
    std::vector<KernelTotal> totals;
    for (const auto& [name_id, figures] : by_name_) {
      if ((names.class_of_name[name_id] != KernelClass::other) != attention) continue;
      KernelTotal total;
      total.name = trace.kernel_names[name_id];
      total.kernel_class = names.class_of_name[name_id];
      const std::size_t rule = names.rule_of_name[name_id];
      if (rule != std::string::npos) total.library = classifier.patterns()[rule].library;
      total.total_ns = figures.first;
      total.count = figures.second;
      total.share_of_kernel_time =
          kernel_ns > 0 ? static_cast<double>(total.total_ns) / static_cast<double>(kernel_ns) : 0;
      totals.push_back(std::move(total));
    }
    std::sort(totals.begin(), totals.end(), [](const KernelTotal& a, const KernelTotal& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    if (totals.size() > limit) totals.resize(limit);
    return totals;
  }

 private:
  std::unordered_map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> by_name_;
};

// The largest attention and unclassified kernels of a group, from its name totals.
struct TopKernels {
  const Trace& trace;
  const NameClasses& names;
  const KernelClassifier& classifier;
  std::size_t limit;
  void fill(PhaseResult& phase, const NameTotals& totals) const {
    const std::int64_t kernel_ns = phase.times.kernel_ns;
    phase.top_attention = totals.top(trace, names, classifier, kernel_ns, true, limit);
    phase.top_unclassified = totals.top(trace, names, classifier, kernel_ns, false, limit);
  }
};

void add_times(GroupTimes& to, const GroupTimes& from) {
  to.kernel_count += from.kernel_count;
  for (std::size_t c = 0; c < kKernelClassCount; ++c) to.class_ns[c] += from.class_ns[c];
  to.kernel_ns += from.kernel_ns;
  to.busy_ns += from.busy_ns;
  to.wall_ns += from.wall_ns;
  to.largest_gap_ns = std::max(to.largest_gap_ns, from.largest_gap_ns);
  for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
    to.scope_kernel_ns[s] += from.scope_kernel_ns[s];
    to.scope_union_ns[s] += from.scope_union_ns[s];
  }
  to.share_times.add(from.share_times);
}

// Counts are at most 2^40 each (steps.cpp), but a trace can hold millions of steps: the sum is
// checked rather than trusted.
void add_count(std::optional<std::int64_t>& sum, const std::optional<std::int64_t>& value) {
  if (!value) return;
  std::int64_t total = 0;
  if (__builtin_add_overflow(sum.value_or(0), *value, &total)) {
    throw InputError("the steps' token counts add up past " +
                     count_mark(std::numeric_limits<std::int64_t>::max()) +
                     ": the step annotations are damaged");
  }
  sum = total;
}

// Steps of one phase at the same context length become one point (the workload format needs
// distinct contexts); the point's share is time-weighted over those steps.
std::vector<ContextPoint> context_points(const std::vector<StepResult>& steps, Phase phase) {
  std::map<std::int64_t, ContextPoint> by_context;
  for (const StepResult& step : steps) {
    if (step.label.phase != phase || !step.context_tokens) continue;
    const auto context = std::llround(*step.context_tokens);
    if (context < 1) continue;
    ContextPoint& point = by_context[context];
    point.context_tokens = static_cast<double>(context);
    ++point.steps;
    point.share_times.add(step.times.share_times);
  }
  std::vector<ContextPoint> points;
  points.reserve(by_context.size());
  for (const auto& [context, point] : by_context) points.push_back(point);
  return points;
}

std::string dominant_engine(const std::vector<StepResult>& steps) {
  std::map<std::string, std::int64_t> votes;
  for (const StepResult& step : steps) {
    if (step.label.style != AnnotationStyle::profiler_step) {
      ++votes[std::string(engine_name(step.label.style))];
    }
  }
  std::string best;
  std::int64_t most = 0;
  for (const auto& [engine, count] : votes) {
    if (count > most) {
      best = engine;
      most = count;
    }
  }
  return best;
}

void check_analysable(const Trace& trace, const AnalysisOptions& options) {
  if (trace.kernels.empty()) {
    throw InputError(trace.source + ": the trace has no GPU kernel events (" +
                     count_mark(static_cast<long long>(trace.events_read)) +
                     " events read): expected events with \"cat\": \"kernel\" (Kineto) or rows "
                     "in CUPTI_ACTIVITY_KIND_KERNEL (nsys); profile with GPU activity enabled "
                     "(torch.profiler activities=[CPU, CUDA])");
  }
  if (!trace.has_timeline && options.denominator != Denominator::kernel_time) {
    throw InputError(trace.source + (": " + flag_mark("denominator") + " ") +
                     std::string(to_string(options.denominator)) +
                     " needs kernel start times, but an `nsys stats` summary has only totals: " +
                     ("use " + flag_mark("denominator") +
                      " kernel-time, or export the capture with `nsys export ") +
                     (flag_mark("type") + " sqlite` and profile that"));
  }
}

}  // namespace

std::string_view to_string(Denominator denominator) {
  switch (denominator) {
    case Denominator::kernel_time:
      return "kernel-time";
    case Denominator::busy_time:
      return "busy-time";
    case Denominator::wall_time:
      return "wall-time";
  }
  return "kernel-time";
}

double Shares::of(ShareScope scope) const {
  switch (scope) {
    case ShareScope::core:
      return core;
    case ShareScope::core_kv:
      return core_kv;
    case ShareScope::core_kv_rope:
      return core_kv_rope;
  }
  return core;
}

Shares ShareTimes::shares() const {
  if (denominator_ns <= 0) return {};
  const auto den = static_cast<double>(denominator_ns);
  return {static_cast<double>(scope_ns[0]) / den, static_cast<double>(scope_ns[1]) / den,
          static_cast<double>(scope_ns[2]) / den};
}

ShareTimes GroupTimes::under(Denominator denominator) const {
  ShareTimes out;
  switch (denominator) {
    case Denominator::kernel_time:
      out.scope_ns = scope_kernel_ns;
      out.denominator_ns = kernel_ns;
      break;
    case Denominator::busy_time:
      out.scope_ns = scope_union_ns;
      out.denominator_ns = busy_ns;
      break;
    case Denominator::wall_time:
      out.scope_ns = scope_union_ns;
      out.denominator_ns = wall_ns;
      break;
  }
  return out;
}

void ShareTimes::add(const ShareTimes& other) {
  for (std::size_t s = 0; s < scope_ns.size(); ++s) scope_ns[s] += other.scope_ns[s];
  denominator_ns += other.denominator_ns;
}

namespace {

// What the reader says about the file itself.
FileResult describe_file(const Trace& trace) {
  FileResult result;
  result.source = trace.source;
  result.format = trace.format;
  result.compressed = trace.compressed;
  result.info = trace.info;
  result.kernel_names = static_cast<std::int64_t>(trace.kernel_names.size());
  result.bytes_read = trace.bytes_read;
  result.events_read = trace.events_read;
  return result;
}

// What one walk over the kernels gathers: each step's times, each phase's and the whole trace's
// kernel names, the whole trace's times.
constexpr std::size_t kPhaseSlots = static_cast<std::size_t>(Phase::unphased) + 1;

struct KernelWalk {
  std::vector<GroupTimes> step_times;               ///< by step index
  std::array<NameTotals, kPhaseSlots> phase_names;  ///< by Phase value
  GroupTimes whole_times;
  NameTotals whole_names;
};

std::size_t phase_slot(Phase phase) {
  return static_cast<std::size_t>(phase);
}

// The kernels in (device, start) order, so every group's busy intervals merge as they stream;
// empty when the file lists them so already (the common case: nothing to allocate), and for a
// summary, which has no timeline. 4 bytes per kernel otherwise.
std::vector<std::uint32_t> walk_order(const Trace& trace) {
  if (!trace.has_timeline) return {};
  const auto& kernels = trace.kernels;
  const auto before = [](const KernelEvent& x, const KernelEvent& y) {
    return x.device != y.device ? x.device < y.device : x.start_ns < y.start_ns;
  };
  bool sorted = true;
  for (std::size_t k = 1; k < kernels.size() && sorted; ++k) {
    sorted = !before(kernels[k], kernels[k - 1]);
  }
  if (sorted) return {};
  std::vector<std::uint32_t> order(kernels.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::uint32_t>(k);
  std::sort(order.begin(), order.end(), [&kernels, &before](std::uint32_t a, std::uint32_t b) {
    return before(kernels[a], kernels[b]);
  });
  return order;
}

// Each kernel once: attributed to its step, added to that step, its phase's names and the whole
// trace.
KernelWalk walk_kernels(const Trace& trace, const StepIndex& index, const NameClasses& names,
                        const AnalysisOptions& options, AttributionCounts& counts) {
  const detail::KernelAttributor attributor(trace, index);
  std::vector<GroupAccumulator> steps(index.steps.size());
  GroupAccumulator whole;
  KernelWalk walk;
  const bool timeline = trace.has_timeline;
  const std::vector<std::uint32_t> order = walk_order(trace);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const std::size_t k = order.empty() ? i : order[i];
    const KernelEvent& kernel = trace.kernels[k];
    const std::int64_t instances = trace.instances_of(k);
    const KernelClass cls = names.class_of_name[kernel.name_id];
    whole.add(kernel, instances, cls, timeline);
    walk.whole_names.add(kernel, instances);
    const std::size_t step = attributor.step_of(kernel, counts);
    if (step == kNoStep) continue;
    steps[step].add(kernel, instances, cls, timeline);
    walk.phase_names[phase_slot(index.steps[step].label.phase)].add(kernel, instances);
  }
  walk.step_times.reserve(steps.size());
  for (const GroupAccumulator& step : steps) {
    walk.step_times.push_back(step.times(options.denominator, timeline));
  }
  walk.whole_times = whole.times(options.denominator, timeline);
  return walk;
}

// One phase's steps added up; nullopt when it has no kernels. Without steps, every kernel is
// unphased.
std::optional<PhaseResult> phase_result(Phase phase, const StepIndex& index, const KernelWalk& walk,
                                        const TopKernels& top) {
  PhaseResult out;
  out.phase = phase;
  if (!index.steps.empty()) {
    for (const StepResult& step : index.steps) {
      if (step.label.phase != phase || step.times.kernel_count == 0) continue;
      ++out.steps;
      add_times(out.times, step.times);
      add_count(out.context_tokens, step.label.context_tokens);
      add_count(out.generation_tokens, step.label.generation_tokens);
    }
    if (out.steps == 0) return std::nullopt;
    top.fill(out, walk.phase_names[phase_slot(phase)]);
  } else {
    if (phase != Phase::unphased) return std::nullopt;
    out.times = walk.whole_times;
    top.fill(out, walk.whole_names);
  }
  return out;
}

// A step whose GPU sat idle for more than this part of its wall time: its kernel-time share and
// its wall-time share answer different questions (TRACES.md, "Which denominator").
constexpr double kIdleFractionWarned = 0.2;

// One note for the steps with a large idle part: how many, and the idlest one's figures (its
// busy fraction, largest gap and its core share under kernel and wall time).
void add_idle_note(FileResult& result) {
  const StepResult* idlest = nullptr;
  std::int64_t idle_steps = 0;
  for (const StepResult& step : result.steps) {
    const GroupTimes& t = step.times;
    if (t.wall_ns <= 0) continue;
    const double busy = static_cast<double>(t.busy_ns) / static_cast<double>(t.wall_ns);
    if (1.0 - busy <= kIdleFractionWarned) continue;
    ++idle_steps;
    if (idlest == nullptr ||
        t.busy_ns * idlest->times.wall_ns < idlest->times.busy_ns * t.wall_ns) {
      idlest = &step;
    }
  }
  if (idlest == nullptr) return;
  const GroupTimes& t = idlest->times;
  engine::Warning note;
  note.code = engine::WarningCode::gpu_idle_in_step;
  note.phase = idlest->label.phase;
  note.input = result.source;
  note.names = {{"step", idlest->annotation}};
  note.numbers = {
      {"idle_steps", static_cast<double>(idle_steps)},
      {"steps", static_cast<double>(result.steps.size())},
      {"busy_fraction", static_cast<double>(t.busy_ns) / static_cast<double>(t.wall_ns)},
      {"wall_ms", static_cast<double>(t.wall_ns) / 1e6},
      {"largest_gap_ms", static_cast<double>(t.largest_gap_ns) / 1e6},
      {"kernel_time_share", t.under(Denominator::kernel_time).shares().core},
      {"wall_time_share", t.under(Denominator::wall_time).shares().core}};
  result.notes.push_back(std::move(note));
}

// A softmax kernel this large a part of kernel time is most likely attention run on the math
// path (matmul, softmax, matmul: PyTorch's SDPA fallback, eager attention), which no attention
// pattern can tell from other softmaxes; a sampler's softmax over the vocabulary is far smaller.
constexpr double kMathPathSoftmaxShare = 0.1;

void add_math_path_note(FileResult& result) {
  for (const KernelTotal& kernel : result.whole_trace.top_unclassified) {
    if (kernel.name.find("softmax_warp_forward") == std::string::npos ||
        kernel.share_of_kernel_time < kMathPathSoftmaxShare) {
      continue;
    }
    engine::Warning note;
    note.code = engine::WarningCode::math_path_attention;
    note.input = result.source;
    note.names = {{"kernel", kernel.name}};
    note.numbers = {{"share_of_kernel_time", kernel.share_of_kernel_time},
                    {"attention_core_share",
                     result.whole_trace.times.under(Denominator::kernel_time).shares().core}};
    result.notes.push_back(std::move(note));
    return;
  }
}

// What a reader should know about how the shares were found (the report words it).
void add_notes(const Trace& trace, bool has_steps, FileResult& result) {
  const auto note = [&result](engine::WarningCode code) {
    engine::Warning warning;
    warning.code = code;
    warning.input = result.source;
    result.notes.push_back(std::move(warning));
  };
  if (!trace.has_timeline) {
    note(engine::WarningCode::summary_without_timeline);
  } else if (!has_steps) {
    note(engine::WarningCode::no_step_annotations);
  } else if (!result.phased) {
    note(engine::WarningCode::steps_without_phase);
  }
  add_idle_note(result);
  add_math_path_note(result);
  if (has_steps && result.attribution.outside_steps > 0) {
    note(engine::WarningCode::kernels_outside_steps);
    result.notes.back().numbers = {
        {"kernel_executions", static_cast<double>(result.attribution.outside_steps)}};
  }
}

}  // namespace

FileResult analyse_trace(const Trace& trace, const KernelClassifier& classifier,
                         const AnalysisOptions& options) {
  check_analysable(trace, options);
  FileResult result = describe_file(trace);

  // Steps, and each kernel in its step.
  StepIndex index = build_steps(trace);
  result.annotation_styles = index.styles;
  const NameClasses name_classes = classify_names(trace, classifier);
  const KernelWalk walk = walk_kernels(trace, index, name_classes, options, result.attribution);
  for (std::size_t s = 0; s < index.steps.size(); ++s) index.steps[s].times = walk.step_times[s];
  const TopKernels top{trace, name_classes, classifier, options.top_kernels};

  // Phases, then the whole trace.
  for (Phase phase : kPhaseOrder) {
    if (auto phase_times = phase_result(phase, index, walk, top)) {
      if (phase != Phase::unphased && phase_times->steps > 0) result.phased = true;
      result.phases.push_back(std::move(*phase_times));
    }
  }
  result.whole_trace.times = walk.whole_times;
  result.whole_trace.steps = static_cast<std::int64_t>(index.steps.size());
  top.fill(result.whole_trace, walk.whole_names);

  // Steps in time order: context points and the engine.
  std::stable_sort(
      index.steps.begin(), index.steps.end(),
      [](const StepResult& a, const StepResult& b) { return a.start_ns < b.start_ns; });
  result.prefill_points = context_points(index.steps, Phase::prefill);
  result.decode_points = context_points(index.steps, Phase::decode);
  result.engine = dominant_engine(index.steps);
  const bool has_steps = !index.steps.empty();
  result.steps = std::move(index.steps);
  add_notes(trace, has_steps, result);
  return result;
}

std::vector<PhaseSpread> aggregate_files(const std::vector<FileResult>& files) {
  std::vector<PhaseSpread> spreads;
  for (Phase phase : kPhaseOrder) {
    PhaseSpread spread;
    spread.phase = phase;
    for (const FileResult& file : files) {
      const PhaseResult* found = find_phase(file, phase);
      if (found == nullptr) continue;
      const Shares shares = found->times.share_times.shares();
      if (spread.files == 0) {
        spread.min = spread.max = shares;
      } else {
        spread.min = {std::min(spread.min.core, shares.core),
                      std::min(spread.min.core_kv, shares.core_kv),
                      std::min(spread.min.core_kv_rope, shares.core_kv_rope)};
        spread.max = {std::max(spread.max.core, shares.core),
                      std::max(spread.max.core_kv, shares.core_kv),
                      std::max(spread.max.core_kv_rope, shares.core_kv_rope)};
      }
      ++spread.files;
      spread.steps += found->steps;
      spread.share_times.add(found->times.share_times);
    }
    if (spread.files > 0) spreads.push_back(spread);
  }
  return spreads;
}

std::vector<SetupField> setup_differences(const std::vector<FileResult>& files) {
  // Two files differ in a field when both state it and the values differ.
  const auto differ = [](const FileResult& a, const FileResult& b, SetupField field) {
    switch (field) {
      case SetupField::device:
        return (!a.info.gpu.empty() && !b.info.gpu.empty() && a.info.gpu != b.info.gpu) ||
               (!a.info.platform.empty() && !b.info.platform.empty() &&
                a.info.platform != b.info.platform);
      case SetupField::engine:
        return !a.engine.empty() && !b.engine.empty() && a.engine != b.engine;
      case SetupField::world_size:
        return a.info.world_size && b.info.world_size && *a.info.world_size != *b.info.world_size;
    }
    return false;
  };
  std::vector<SetupField> differences;
  for (SetupField field : kSetupFields) {
    bool found = false;
    for (std::size_t i = 0; i < files.size() && !found; ++i) {
      for (std::size_t j = i + 1; j < files.size() && !found; ++j) {
        found = differ(files[i], files[j], field);
      }
    }
    if (found) differences.push_back(field);
  }
  return differences;
}

const PhaseResult* find_phase(const FileResult& file, Phase phase) {
  for (const PhaseResult& result : file.phases) {
    if (result.phase == phase) return &result;
  }
  return nullptr;
}

}  // namespace kspeed::profile
