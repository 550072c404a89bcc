#include "kspeed/profile/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis_parts.hpp"
#include "kspeed/error.hpp"

namespace kspeed::profile {

namespace {

using detail::attribute_kernels;
using detail::build_steps;
using detail::classify_names;
using detail::kNoStep;
using detail::NameClasses;
using detail::StepIndex;
constexpr std::array<Phase, 4> kPhaseOrder = {Phase::prefill, Phase::decode, Phase::mixed,
                                              Phase::unphased};

// ---- Times of a group of kernels --------------------------------------------------------

struct Interval {
  std::int32_t device;
  std::int64_t start_ns;
  std::int64_t end_ns;
};

// Length of the union of intervals, per device, summed over devices: overlapping kernels on
// different streams of one GPU count once.
std::int64_t union_ns(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.device != b.device ? a.device < b.device : a.start_ns < b.start_ns;
  });
  std::int64_t total = 0;
  for (std::size_t i = 0; i < intervals.size();) {
    std::int64_t start = intervals[i].start_ns;
    std::int64_t end = intervals[i].end_ns;
    std::size_t j = i + 1;
    for (; j < intervals.size() && intervals[j].device == intervals[i].device &&
           intervals[j].start_ns <= end;
         ++j) {
      end = std::max(end, intervals[j].end_ns);
    }
    total += end - start;
    i = j;
  }
  return total;
}

class GroupCalculator {
 public:
  GroupCalculator(const Trace& trace, const NameClasses& names, const AnalysisOptions& options,
                  const KernelClassifier& classifier)
      : trace_(trace),
        class_of_name_(names.class_of_name),
        rule_of_name_(names.rule_of_name),
        denominator_(options.denominator),
        limit_(options.top_kernels),
        classifier_(classifier) {}

  GroupTimes times(const std::vector<std::uint32_t>& kernels) const {
    GroupTimes out;
    std::int64_t first = INT64_MAX;
    std::int64_t last = INT64_MIN;
    std::vector<Interval> all;
    std::array<std::vector<Interval>, 3> scoped;
    for (std::uint32_t k : kernels) {
      const KernelEvent& kernel = trace_.kernels[k];
      const KernelClass cls = class_of_name_[kernel.name_id];
      out.kernel_count += kernel.instances;
      out.class_ns[static_cast<std::size_t>(cls)] += kernel.duration_ns;
      out.kernel_ns += kernel.duration_ns;
      if (!trace_.has_timeline) continue;
      const Interval interval{kernel.device, kernel.start_ns, kernel.start_ns + kernel.duration_ns};
      first = std::min(first, interval.start_ns);
      last = std::max(last, interval.end_ns);
      all.push_back(interval);
      for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
        if (in_scope(cls, kShareScopes[s])) scoped[s].push_back(interval);
      }
    }
    if (trace_.has_timeline && !kernels.empty()) {
      out.busy_ns = union_ns(all);
      out.wall_ns = last - first;
    }
    if (denominator_ == Denominator::kernel_time) {
      for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
        for (std::size_t c = 0; c < kKernelClassCount; ++c) {
          if (in_scope(static_cast<KernelClass>(c), kShareScopes[s])) {
            out.share_times.scope_ns[s] += out.class_ns[c];
          }
        }
      }
      out.share_times.denominator_ns = out.kernel_ns;
    } else {
      // Busy and wall time count overlapping attention kernels once, like the denominator.
      for (std::size_t s = 0; s < kShareScopes.size(); ++s) {
        out.share_times.scope_ns[s] = union_ns(scoped[s]);
      }
      out.share_times.denominator_ns =
          denominator_ == Denominator::busy_time ? out.busy_ns : out.wall_ns;
    }
    return out;
  }

  std::vector<KernelTotal> top_kernels(const std::vector<std::uint32_t>& kernels,
                                       std::int64_t kernel_ns, bool attention) const {
    const std::size_t limit = limit_;
    const KernelClassifier& classifier = classifier_;
    std::unordered_map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> by_name;
    for (std::uint32_t k : kernels) {
      const KernelEvent& kernel = trace_.kernels[k];
      const bool is_attention = class_of_name_[kernel.name_id] != KernelClass::other;
      if (is_attention != attention) continue;
      auto& [total, count] = by_name[kernel.name_id];
      total += kernel.duration_ns;
      count += kernel.instances;
    }
    std::vector<KernelTotal> totals;
    for (const auto& [name_id, figures] : by_name) {
      KernelTotal total;
      total.name = trace_.kernel_names[name_id];
      total.kernel_class = class_of_name_[name_id];
      const std::size_t rule = rule_of_name_[name_id];
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
  const Trace& trace_;
  const std::vector<KernelClass>& class_of_name_;
  const std::vector<std::size_t>& rule_of_name_;
  Denominator denominator_;
  std::size_t limit_;  ///< the top kernels listed per group
  const KernelClassifier& classifier_;
};

void add_times(GroupTimes& to, const GroupTimes& from) {
  to.kernel_count += from.kernel_count;
  for (std::size_t c = 0; c < kKernelClassCount; ++c) to.class_ns[c] += from.class_ns[c];
  to.kernel_ns += from.kernel_ns;
  to.busy_ns += from.busy_ns;
  to.wall_ns += from.wall_ns;
  to.share_times.add(from.share_times);
}

void add_count(std::optional<std::int64_t>& sum, const std::optional<std::int64_t>& value) {
  if (value) sum = sum.value_or(0) + *value;
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

// One phase's steps added up, with the kernels behind them; nullopt when it has no kernels.
// Without steps, every kernel is unphased.
std::optional<PhaseResult> phase_result(Phase phase, const StepIndex& index,
                                        const std::vector<std::vector<std::uint32_t>>& of_step,
                                        const std::vector<std::uint32_t>& all_kernels,
                                        const GroupCalculator& calc) {
  PhaseResult out;
  out.phase = phase;
  std::vector<std::uint32_t> kernels;
  if (!index.steps.empty()) {
    for (std::size_t s = 0; s < index.steps.size(); ++s) {
      const StepResult& step = index.steps[s];
      if (step.label.phase != phase || step.times.kernel_count == 0) continue;
      ++out.steps;
      add_times(out.times, step.times);
      add_count(out.context_tokens, step.label.context_tokens);
      add_count(out.generation_tokens, step.label.generation_tokens);
      kernels.insert(kernels.end(), of_step[s].begin(), of_step[s].end());
    }
  } else if (phase == Phase::unphased) {
    kernels = all_kernels;
    out.times = calc.times(kernels);
  }
  if (kernels.empty()) return std::nullopt;
  out.top_attention = calc.top_kernels(kernels, out.times.kernel_ns, true);
  out.top_unclassified = calc.top_kernels(kernels, out.times.kernel_ns, false);
  return out;
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
  const std::vector<std::size_t> step_of = attribute_kernels(trace, index, result.attribution);
  const NameClasses name_classes = classify_names(trace, classifier);
  const GroupCalculator calc(trace, name_classes, options, classifier);
  std::vector<std::vector<std::uint32_t>> kernels_of_step(index.steps.size());
  std::vector<std::uint32_t> all_kernels(trace.kernels.size());
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    all_kernels[k] = static_cast<std::uint32_t>(k);
    if (step_of[k] != kNoStep) kernels_of_step[step_of[k]].push_back(static_cast<std::uint32_t>(k));
  }
  for (std::size_t s = 0; s < index.steps.size(); ++s) {
    index.steps[s].times = calc.times(kernels_of_step[s]);
  }

  // Phases, then the whole trace.
  for (Phase phase : kPhaseOrder) {
    if (auto phase_times = phase_result(phase, index, kernels_of_step, all_kernels, calc)) {
      if (phase != Phase::unphased && phase_times->steps > 0) result.phased = true;
      result.phases.push_back(std::move(*phase_times));
    }
  }
  result.whole_trace.times = calc.times(all_kernels);
  result.whole_trace.steps = static_cast<std::int64_t>(index.steps.size());
  result.whole_trace.top_attention =
      calc.top_kernels(all_kernels, result.whole_trace.times.kernel_ns, true);
  result.whole_trace.top_unclassified =
      calc.top_kernels(all_kernels, result.whole_trace.times.kernel_ns, false);

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

const PhaseResult* find_phase(const FileResult& file, Phase phase) {
  for (const PhaseResult& result : file.phases) {
    if (result.phase == phase) return &result;
  }
  return nullptr;
}

}  // namespace kspeed::profile
