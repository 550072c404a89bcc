#include "kspeed/profile/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "kspeed/error.hpp"

namespace kspeed::profile {

namespace {

constexpr std::size_t kNoStep = static_cast<std::size_t>(-1);
constexpr std::array<Phase, 4> kPhaseOrder = {Phase::prefill, Phase::decode, Phase::mixed,
                                              Phase::unphased};

// ---- Steps from annotations -------------------------------------------------------------

struct ParsedAnnotation {
  const AnnotationEvent* event = nullptr;
  StepLabel label;
};

// A step's range on one CPU thread (or, for GPU-side ranges, one device).
struct Range {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::size_t step = kNoStep;
};

struct StepIndex {
  std::vector<StepResult> steps;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<Range>> cpu_ranges;  // (pid, tid)
  std::map<std::uint64_t, std::vector<Range>> gpu_ranges;                            // device
  std::vector<std::string> styles;
};

bool contains(const AnnotationEvent& outer, const AnnotationEvent& inner) {
  return outer.start_ns <= inner.start_ns && inner.end_ns <= outer.end_ns &&
         (outer.start_ns != inner.start_ns || outer.end_ns != inner.end_ns);
}

// Nested step annotations on one thread (TraceLens's execute_… around SGLang's step[…],
// ProfilerStep#N around engine steps): the innermost annotations are the steps. An enclosing
// annotation that holds exactly one inner step lends it the counts the inner one lacks.
// Returns, per annotation, the step it became (kNoStep for enclosing ones).
std::vector<std::size_t> resolve_nesting(std::vector<ParsedAnnotation>& group,
                                         std::vector<StepResult>& steps) {
  std::sort(group.begin(), group.end(), [](const auto& a, const auto& b) {
    return a.event->start_ns != b.event->start_ns ? a.event->start_ns < b.event->start_ns
                                                  : a.event->end_ns > b.event->end_ns;
  });
  const std::size_t n = group.size();
  std::vector<std::vector<std::size_t>> inner_of(n);
  std::vector<bool> is_outer(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n && group[j].event->start_ns <= group[i].event->end_ns; ++j) {
      if (contains(*group[i].event, *group[j].event)) {
        inner_of[i].push_back(j);
        is_outer[i] = true;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (is_outer[i] && inner_of[i].size() == 1 && !is_outer[inner_of[i].front()]) {
      auto& inner = group[inner_of[i].front()];
      inner.label = merge_labels(inner.label, group[i].label);
    }
  }
  std::vector<std::size_t> step_of(n, kNoStep);
  for (std::size_t i = 0; i < n; ++i) {
    if (is_outer[i]) continue;
    StepResult step;
    step.annotation = group[i].event->name;
    step.label = group[i].label;
    step.start_ns = group[i].event->start_ns;
    step.context_tokens = step_context_tokens(step.label);
    step_of[i] = steps.size();
    steps.push_back(std::move(step));
  }
  // An enclosing annotation around a single step stands for that step (its GPU projection too).
  for (std::size_t i = 0; i < n; ++i) {
    if (is_outer[i] && inner_of[i].size() == 1) step_of[i] = step_of[inner_of[i].front()];
  }
  return step_of;
}

void add_style(std::vector<std::string>& styles, AnnotationStyle style) {
  const std::string name(to_string(style));
  if (std::find(styles.begin(), styles.end(), name) == styles.end()) styles.push_back(name);
}

StepIndex build_steps(const Trace& trace) {
  StepIndex index;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<ParsedAnnotation>> cpu_groups;
  std::vector<ParsedAnnotation> gpu_annotations;
  for (const AnnotationEvent& event : trace.annotations) {
    auto label = parse_step_label(event.name);
    if (!label || event.end_ns < event.start_ns) continue;
    add_style(index.styles, label->style);
    ParsedAnnotation parsed{&event, *label};
    if (event.gpu_side) {
      gpu_annotations.push_back(parsed);
    } else {
      cpu_groups[{event.process, event.thread}].push_back(parsed);
    }
  }
  std::unordered_map<std::int64_t, std::size_t> step_by_external_id;
  for (auto& [thread, group] : cpu_groups) {
    const std::vector<std::size_t> step_of = resolve_nesting(group, index.steps);
    auto& ranges = index.cpu_ranges[thread];
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (step_of[i] == kNoStep) continue;
      if (group[i].event->external_id)
        step_by_external_id[*group[i].event->external_id] = step_of[i];
      // An enclosing annotation around one step keeps its range: launches just before the
      // inner annotation opened (input preparation) still belong to that step.
      ranges.push_back({group[i].event->start_ns, group[i].event->end_ns, step_of[i]});
    }
  }
  // GPU-side projections: the same step as their CPU range (paired by External id), or a step
  // of their own when the CPU range is missing.
  std::map<std::uint64_t, std::vector<ParsedAnnotation>> gpu_orphans;
  for (const ParsedAnnotation& parsed : gpu_annotations) {
    const auto& event = *parsed.event;
    const auto paired = event.external_id ? step_by_external_id.find(*event.external_id)
                                          : step_by_external_id.end();
    if (paired != step_by_external_id.end()) {
      index.gpu_ranges[event.process].push_back({event.start_ns, event.end_ns, paired->second});
    } else if (!event.external_id || step_by_external_id.empty()) {
      gpu_orphans[event.process].push_back(parsed);
    }
  }
  for (auto& [device, group] : gpu_orphans) {
    const std::vector<std::size_t> step_of = resolve_nesting(group, index.steps);
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (step_of[i] != kNoStep) {
        index.gpu_ranges[device].push_back(
            {group[i].event->start_ns, group[i].event->end_ns, step_of[i]});
      }
    }
  }
  for (auto& [key, ranges] : index.cpu_ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.start_ns < b.start_ns; });
  }
  for (auto& [key, ranges] : index.gpu_ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.start_ns < b.start_ns; });
  }
  return index;
}

// The step whose range holds `time_ns`: the latest-starting range that began at or before it
// (ranges on one thread do not overlap once nesting is resolved; GPU projections may, so a few
// earlier ranges are checked too).
std::size_t step_at(const std::vector<Range>& ranges, std::int64_t time_ns) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), time_ns,
                             [](std::int64_t t, const Range& r) { return t < r.start_ns; });
  for (int checked = 0; it != ranges.begin() && checked < 8; ++checked) {
    --it;
    if (time_ns <= it->end_ns) return it->step;
  }
  return kNoStep;
}

// ---- Kernel attribution -----------------------------------------------------------------

struct LaunchKey {
  std::uint64_t process;
  std::uint64_t correlation;
  bool operator==(const LaunchKey&) const = default;
};
struct LaunchKeyHash {
  std::size_t operator()(const LaunchKey& key) const {
    return std::hash<std::uint64_t>()(key.correlation * 0x9E3779B97F4A7C15ULL ^ key.process);
  }
};

// Kernel -> step: correlation id -> launching runtime call -> the step annotation around that
// call on its CPU thread. Right for CUDA/HIP graph replay, where every kernel of the graph
// shares the cudaGraphLaunch's correlation id and runs after the CPU annotation has closed.
// Fallback: the GPU-side projection of an annotation that contains the kernel (eager only).
std::vector<std::size_t> attribute_kernels(const Trace& trace, const StepIndex& index,
                                           AttributionCounts& counts) {
  std::unordered_map<LaunchKey, const LaunchEvent*, LaunchKeyHash> launches;
  launches.reserve(trace.launches.size());
  for (const LaunchEvent& launch : trace.launches) {
    launches.emplace(LaunchKey{launch.process, launch.correlation}, &launch);
  }
  std::vector<std::size_t> step_of(trace.kernels.size(), kNoStep);
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const KernelEvent& kernel = trace.kernels[k];
    if (kernel.correlation != 0 && !index.cpu_ranges.empty()) {
      const auto launch = launches.find({kernel.process, kernel.correlation});
      if (launch != launches.end()) {
        const auto ranges =
            index.cpu_ranges.find({launch->second->cpu_process, launch->second->thread});
        if (ranges != index.cpu_ranges.end()) {
          step_of[k] = step_at(ranges->second, launch->second->start_ns);
          if (step_of[k] != kNoStep) {
            ++counts.via_launch;
            continue;
          }
        }
      }
    }
    const auto gpu = index.gpu_ranges.find(static_cast<std::uint64_t>(kernel.device));
    if (gpu != index.gpu_ranges.end()) {
      step_of[k] = step_at(gpu->second, kernel.start_ns);
      if (step_of[k] != kNoStep) {
        ++counts.via_gpu_annotation;
        continue;
      }
    }
    ++counts.outside_steps;
  }
  return step_of;
}

// Each distinct name is classified once (regex search is the slow part of the analysis).
struct NameClasses {
  std::vector<KernelClass> class_of_name;
  std::vector<std::size_t> rule_of_name;  // npos: no rule matched
};

NameClasses classify_names(const Trace& trace, const KernelClassifier& classifier) {
  NameClasses out;
  out.class_of_name.reserve(trace.kernel_names.size());
  out.rule_of_name.reserve(trace.kernel_names.size());
  for (const std::string& name : trace.kernel_names) {
    std::size_t rule = std::string::npos;
    out.class_of_name.push_back(classifier.classify(name, &rule));
    out.rule_of_name.push_back(rule);
  }
  return out;
}

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
  GroupCalculator(const Trace& trace, const NameClasses& names, Denominator denominator)
      : trace_(trace),
        class_of_name_(names.class_of_name),
        rule_of_name_(names.rule_of_name),
        denominator_(denominator) {}

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
                                       std::int64_t kernel_ns, bool attention, std::size_t limit,
                                       const KernelClassifier& classifier) const {
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

FileResult analyse_trace(const Trace& trace, const KernelClassifier& classifier,
                         const AnalysisOptions& options) {
  check_analysable(trace, options);
  FileResult result;
  result.source = trace.source;
  result.format = trace.format;
  result.compressed = trace.compressed;
  result.info = trace.info;
  result.kernel_names = static_cast<std::int64_t>(trace.kernel_names.size());
  result.bytes_read = trace.bytes_read;
  result.events_read = trace.events_read;

  StepIndex index = build_steps(trace);
  result.annotation_styles = index.styles;
  const std::vector<std::size_t> step_of = attribute_kernels(trace, index, result.attribution);
  const NameClasses name_classes = classify_names(trace, classifier);
  const GroupCalculator calc(trace, name_classes, options.denominator);

  std::vector<std::vector<std::uint32_t>> kernels_of_step(index.steps.size());
  std::vector<std::uint32_t> all_kernels(trace.kernels.size());
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    all_kernels[k] = static_cast<std::uint32_t>(k);
    if (step_of[k] != kNoStep) kernels_of_step[step_of[k]].push_back(static_cast<std::uint32_t>(k));
  }
  for (std::size_t s = 0; s < index.steps.size(); ++s) {
    index.steps[s].times = calc.times(kernels_of_step[s]);
  }

  const bool has_steps = !index.steps.empty();
  for (Phase phase : kPhaseOrder) {
    PhaseResult phase_result;
    phase_result.phase = phase;
    std::vector<std::uint32_t> kernels;
    if (has_steps) {
      for (std::size_t s = 0; s < index.steps.size(); ++s) {
        const StepResult& step = index.steps[s];
        if (step.label.phase != phase || step.times.kernel_count == 0) continue;
        ++phase_result.steps;
        add_times(phase_result.times, step.times);
        add_count(phase_result.context_tokens, step.label.context_tokens);
        add_count(phase_result.generation_tokens, step.label.generation_tokens);
        kernels.insert(kernels.end(), kernels_of_step[s].begin(), kernels_of_step[s].end());
      }
      if (phase != Phase::unphased && phase_result.steps > 0) result.phased = true;
    } else if (phase == Phase::unphased) {
      kernels = all_kernels;
      phase_result.times = calc.times(kernels);
    }
    if (kernels.empty()) continue;
    phase_result.top_attention = calc.top_kernels(kernels, phase_result.times.kernel_ns, true,
                                                  options.top_kernels, classifier);
    phase_result.top_unclassified = calc.top_kernels(kernels, phase_result.times.kernel_ns, false,
                                                     options.top_kernels, classifier);
    result.phases.push_back(std::move(phase_result));
  }

  result.whole_trace.times = calc.times(all_kernels);
  result.whole_trace.steps = static_cast<std::int64_t>(index.steps.size());
  result.whole_trace.top_attention = calc.top_kernels(
      all_kernels, result.whole_trace.times.kernel_ns, true, options.top_kernels, classifier);
  result.whole_trace.top_unclassified = calc.top_kernels(
      all_kernels, result.whole_trace.times.kernel_ns, false, options.top_kernels, classifier);

  std::stable_sort(
      index.steps.begin(), index.steps.end(),
      [](const StepResult& a, const StepResult& b) { return a.start_ns < b.start_ns; });
  result.prefill_points = context_points(index.steps, Phase::prefill);
  result.decode_points = context_points(index.steps, Phase::decode);
  result.engine = dominant_engine(index.steps);
  result.steps = std::move(index.steps);

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
