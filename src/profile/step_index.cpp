// Steps from annotations: which annotations are engine steps, and the ranges they cover on each
// CPU thread and GPU, so kernels can be attributed to them (attribution.cpp).
#include <algorithm>

#include "analysis_parts.hpp"

namespace kspeed::profile::detail {

namespace {

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
    step.start_ns = group[i].event->start_ns;  // relative here; build_steps adds the origin
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

}  // namespace

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
  for (StepResult& step : index.steps) step.start_ns += trace.time_origin_ns;  // the file's clock
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

}  // namespace kspeed::profile::detail
