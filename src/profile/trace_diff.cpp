// Before/after comparison of two traces (trace_diff.hpp).
#include "kspeed/profile/trace_diff.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

#include "kspeed/engine/chain/amdahl.hpp"

namespace kspeed::profile {

std::optional<double> ClassChange::speedup() const {
  if (before_ns <= 0 || after_ns <= 0) return std::nullopt;
  return static_cast<double>(before_ns) / static_cast<double>(after_ns);
}

std::int64_t PhaseChange::rest_change_ns() const {
  const std::int64_t rest_before = total_before_ns - attention_before_ns - other_before_ns;
  const std::int64_t rest_after = total_after_ns - attention_after_ns - other_after_ns;
  return rest_after - rest_before;
}

std::vector<KernelChange> kernel_totals(const Trace& trace, const KernelClassifier& classifier,
                                        bool as_after) {
  std::vector<KernelChange> totals(trace.kernel_names.size());
  for (std::size_t index = 0; index < trace.kernels.size(); ++index) {
    const KernelEvent& kernel = trace.kernels[index];
    KernelChange& total = totals.at(kernel.name_id);
    (as_after ? total.after_ns : total.before_ns) += kernel.duration_ns;
    (as_after ? total.after_count : total.before_count) += trace.instances_of(index);
  }
  for (std::size_t id = 0; id < totals.size(); ++id) {
    totals[id].name = trace.kernel_names[id];
    totals[id].kernel_class = classifier.classify(totals[id].name);
  }
  return totals;
}

namespace {

// Steps of one kind: phase and the token counts the annotation states (-1: not stated).
using StepKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

StepKey step_key(const StepResult& step) {
  const StepLabel& label = step.label;
  return {static_cast<int>(label.phase), label.context_tokens.value_or(-1),
          label.context_requests.value_or(-1), label.generation_tokens.value_or(-1),
          label.generation_kv_tokens.value_or(-1)};
}

StepMatch match_steps(const FileResult& before, const FileResult& after, Phase phase, bool whole) {
  std::map<StepKey, std::int64_t> before_kinds;
  StepMatch match;
  for (const StepResult& step : before.steps) {
    if (!whole && step.label.phase != phase) continue;
    ++before_kinds[step_key(step)];
    ++match.before_steps;
  }
  for (const StepResult& step : after.steps) {
    if (!whole && step.label.phase != phase) continue;
    ++match.after_steps;
    auto found = before_kinds.find(step_key(step));
    if (found != before_kinds.end() && found->second > 0) {
      --found->second;
      ++match.matched_steps;
    }
  }
  return match;
}

std::int64_t scope_index(ShareScope scope) {
  return static_cast<std::int64_t>(std::find(kShareScopes.begin(), kShareScopes.end(), scope) -
                                   kShareScopes.begin());
}

PhaseChange compare_phase(const PhaseResult& before, const PhaseResult& after,
                          const TraceDiffOptions& options) {
  PhaseChange change;
  change.phase = before.phase;
  const auto s = static_cast<std::size_t>(scope_index(options.scope));
  const ShareTimes b = before.times.under(options.denominator);
  const ShareTimes a = after.times.under(options.denominator);
  change.attention_before_ns = b.scope_ns.at(s);
  change.attention_after_ns = a.scope_ns.at(s);
  change.total_before_ns = b.denominator_ns;
  change.total_after_ns = a.denominator_ns;
  // Other kernels: kernel time outside the scope (kernel-time sums, whatever the denominator).
  change.other_before_ns = before.times.kernel_ns - before.times.scope_kernel_ns.at(s);
  change.other_after_ns = after.times.kernel_ns - after.times.scope_kernel_ns.at(s);
  if (change.total_before_ns > 0) {
    change.share_before = static_cast<double>(change.attention_before_ns) /
                          static_cast<double>(change.total_before_ns);
  }
  if (change.total_after_ns > 0) {
    change.measured_speedup =
        static_cast<double>(change.total_before_ns) / static_cast<double>(change.total_after_ns);
  }
  if (change.attention_before_ns > 0 && change.attention_after_ns > 0) {
    change.attention_speedup = static_cast<double>(change.attention_before_ns) /
                               static_cast<double>(change.attention_after_ns);
    // Amdahl: S = 1 / ((1 - p) + p / s)
    change.predicted_speedup =
        engine::amdahl_speedup(change.share_before, *change.attention_speedup);
    if (change.measured_speedup > 0) {
      change.prediction_error = *change.predicted_speedup / change.measured_speedup - 1;
    }
  }
  return change;
}

std::vector<ClassChange> compare_classes(const FileResult& before, const FileResult& after) {
  std::vector<ClassChange> classes;
  for (std::size_t c = 0; c < kKernelClassCount; ++c) {
    ClassChange change;
    change.kernel_class = static_cast<KernelClass>(c);
    change.before_ns = before.whole_trace.times.class_ns.at(c);
    change.after_ns = after.whole_trace.times.class_ns.at(c);
    classes.push_back(change);
  }
  return classes;
}

std::vector<KernelChange> compare_kernels(const Trace& before, const Trace& after,
                                          const KernelClassifier& classifier) {
  std::vector<KernelChange> kernels = kernel_totals(before, classifier, false);
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < kernels.size(); ++i) index.emplace(kernels[i].name, i);
  for (const KernelChange& after_total : kernel_totals(after, classifier, true)) {
    auto found = index.find(after_total.name);
    if (found == index.end()) {
      kernels.push_back(after_total);
      continue;
    }
    kernels[found->second].after_ns = after_total.after_ns;
    kernels[found->second].after_count = after_total.after_count;
  }
  // Largest change first; ties by name, so the order does not depend on the traces' name order.
  std::sort(kernels.begin(), kernels.end(), [](const KernelChange& x, const KernelChange& y) {
    const std::int64_t dx = std::llabs(x.after_ns - x.before_ns);
    const std::int64_t dy = std::llabs(y.after_ns - y.before_ns);
    return dx != dy ? dx > dy : x.name < y.name;
  });
  return kernels;
}

}  // namespace

bool has_common_phase(const TraceDiff& diff) {
  if (!diff.before.phased && !diff.after.phased) return true;
  for (const PhaseChange& phase : diff.phases) {
    if (!phase.whole_trace && phase.phase != Phase::unphased) return true;
  }
  return false;
}

TraceDiff diff_traces(const Trace& before_trace, const Trace& after_trace,
                      const KernelClassifier& classifier, const TraceDiffOptions& options) {
  AnalysisOptions analysis;
  analysis.denominator = options.denominator;
  TraceDiff diff;
  diff.options = options;
  diff.before = analyse_trace(before_trace, classifier, analysis);
  diff.after = analyse_trace(after_trace, classifier, analysis);
  diff.differences = setup_differences({diff.before, diff.after});
  diff.classes = compare_classes(diff.before, diff.after);
  for (const PhaseResult& phase : diff.before.phases) {
    const PhaseResult* after = find_phase(diff.after, phase.phase);
    if (after == nullptr) continue;
    PhaseChange change = compare_phase(phase, *after, options);
    change.steps = match_steps(diff.before, diff.after, phase.phase, false);
    diff.phases.push_back(change);
  }
  PhaseChange whole = compare_phase(diff.before.whole_trace, diff.after.whole_trace, options);
  whole.whole_trace = true;
  whole.steps = match_steps(diff.before, diff.after, Phase::unphased, true);
  diff.phases.push_back(whole);
  diff.kernels = compare_kernels(before_trace, after_trace, classifier);
  return diff;
}

}  // namespace kspeed::profile
