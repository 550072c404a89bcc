// `kspeed diff` for people: two traces (realized speedups per class and phase, kspeed's Amdahl
// prediction beside the measured phase speedup, and where the difference comes from), or two
// benchmark results (the change in latency percentiles with bootstrap intervals and a verdict).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/run_diff_report.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using profile::PhaseChange;
using profile::TraceDiff;

constexpr std::size_t kKernelNameWidth = 60;
constexpr std::size_t kKernelRows = 10;

// A ratio with enough decimals to show how far it is from 1: 0.80×, 0.987×, 1.0046×.
std::string ratio_text(double ratio) {
  // Decimals that keep two significant digits of |ratio - 1| (rounded first, so 0.0999 and 0.1
  // look alike), at least 2 and at most 6.
  const double away = std::fabs(ratio - 1);
  int decimals = 2;
  if (away > 0) {
    const double unit = std::pow(10.0, std::floor(std::log10(away)) - 1);
    const double rounded = std::round(away / unit) * unit;
    decimals = std::clamp(static_cast<int>(std::floor(-std::log10(rounded) + 1e-9)) + 2, 2, 6);
  }
  return human_fixed(ratio, decimals) + "×";
}

// The code points of `text` (UTF-8; a malformed byte stands for itself).
std::vector<std::string> code_points(const std::string& text) {
  std::vector<std::string> points;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80 && !points.empty()) {
      points.back() += c;
    } else {
      points.emplace_back(1, c);
    }
  }
  return points;
}

// A long kernel name as its start, "…" and its end: renamed kernels often differ only in their
// last template arguments, so both ends stay visible.
std::string short_name(const std::string& name) {
  const std::vector<std::string> points = code_points(name);
  if (points.size() <= kKernelNameWidth) return name;
  const std::size_t tail = kKernelNameWidth / 3;
  const std::size_t head = kKernelNameWidth - tail - 1;
  std::string out;
  for (std::size_t i = 0; i < head; ++i) out += points[i];
  out += "…";
  for (std::size_t i = points.size() - tail; i < points.size(); ++i) out += points[i];
  return out;
}

// "+1.20 ms", "−350 µs", "0 ns": a signed change of time.
std::string signed_ns(std::int64_t ns) {
  if (ns == 0) return "0 ns";
  return (ns > 0 ? "+" : "−") + human_ns(std::llabs(ns));
}

std::string signed_ms(double ms) {
  // Below a nanosecond is rounding in the files' decimal text, not a change.
  if (std::fabs(ms) < 1e-6) return "0 ms";
  return (ms > 0 ? "+" : "−") + human_kernel_ms(std::fabs(ms));
}

std::string speedup_or_missing(const std::optional<double>& speedup) {
  return speedup ? human_speedup(*speedup) : std::string(kMissing);
}

// "+0.00%": a signed relative error.
std::string signed_percent(double fraction) {
  if (std::fabs(fraction) < 5e-7) return "0.00%";
  return (fraction > 0 ? "+" : "−") + human_percent(std::fabs(fraction));
}

std::string phase_name(const PhaseChange& phase) {
  return phase.whole_trace ? "whole trace" : std::string(to_string(phase.phase));
}

// The phase the answer speaks about: of the phases with attention in both traces (the whole
// trace last), the one whose prediction missed most; the first on a tie.
const PhaseChange* answer_phase(const TraceDiff& diff) {
  const PhaseChange* chosen = nullptr;
  for (const PhaseChange& phase : diff.phases) {
    if (!phase.attention_speedup || !phase.prediction_error) continue;
    if (chosen == nullptr ||
        std::fabs(*phase.prediction_error) > std::fabs(*chosen->prediction_error) + 1e-9) {
      chosen = &phase;
    }
  }
  return chosen;
}

// "prefill", "prefill and decode", "no phased steps": the phases a trace's steps are in.
std::string phases_of(const profile::FileResult& file) {
  std::vector<std::string> names;
  for (const profile::PhaseResult& phase : file.phases) {
    if (phase.phase != profile::Phase::unphased) names.emplace_back(to_string(phase.phase));
  }
  if (names.empty()) return "no phased steps";
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text + " steps";
}

// Steps annotated with a phase on some side, but no phase in both (profile::has_common_phase).
bool no_common_phase(const TraceDiff& diff) {
  return !profile::has_common_phase(diff);
}

std::string trace_answer(const TraceDiff& diff) {
  if (no_common_phase(diff)) {
    return "No phase in common (" + diff.before.source + ": " + phases_of(diff.before) + "; " +
           diff.after.source + ": " + phases_of(diff.after) +
           "): no speedup is stated, since the traces ran different work. The tables compare "
           "the whole traces as they are.";
  }
  const PhaseChange* phase = answer_phase(diff);
  if (phase == nullptr) {
    return "No phase has attention kernels in both traces: there is no attention speedup to "
           "predict from.";
  }
  std::string text =
      phase_name(*phase) + ": attention " + human_speedup(*phase->attention_speedup) +
      " (realized); from the before-share " + human_percent(phase->share_before) +
      " kspeed predicts " + human_speedup(*phase->predicted_speedup) + ", measured " +
      human_speedup(phase->measured_speedup) + " (prediction error " +
      signed_percent(phase->prediction_error.value_or(0)) + ").";
  if (phase->other_change_ns() != 0 || phase->rest_change_ns() != 0) {
    text += " The difference: other kernels " + signed_ns(phase->other_change_ns()) +
            ", idle/overlap " + signed_ns(phase->rest_change_ns()) + ".";
  }
  return text;
}

Table phase_table(const TraceDiff& diff) {
  Table table;
  table.header = {"phase",        "steps matched", "attention before", "after", "attention",
                  "share before", "predicted",     "measured",         "error"};
  table.align = {Align::left,  Align::right, Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right, Align::right};
  for (const PhaseChange& phase : diff.phases) {
    table.rows.push_back(
        {phase_name(phase),
         human_count(phase.steps.matched_steps) + " of " +
             human_count(std::max(phase.steps.before_steps, phase.steps.after_steps)),
         human_ns(phase.attention_before_ns), human_ns(phase.attention_after_ns),
         speedup_or_missing(phase.attention_speedup), human_percent(phase.share_before),
         speedup_or_missing(phase.predicted_speedup), human_speedup(phase.measured_speedup),
         phase.prediction_error ? signed_percent(*phase.prediction_error) : kMissing});
  }
  return table;
}

Table attribution_table(const TraceDiff& diff) {
  Table table;
  table.header = {"phase",     "time before",   "time after",  "change",
                  "attention", "other kernels", "idle/overlap"};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  for (const PhaseChange& phase : diff.phases) {
    table.rows.push_back({phase_name(phase), human_ns(phase.total_before_ns),
                          human_ns(phase.total_after_ns),
                          signed_ns(phase.total_after_ns - phase.total_before_ns),
                          signed_ns(phase.attention_change_ns()),
                          signed_ns(phase.other_change_ns()), signed_ns(phase.rest_change_ns())});
  }
  return table;
}

Table class_table(const TraceDiff& diff) {
  Table table;
  table.header = {"kernel class", "before", "after", "speedup"};
  table.align = {Align::left, Align::right, Align::right, Align::right};
  for (const profile::ClassChange& change : diff.classes) {
    if (change.before_ns == 0 && change.after_ns == 0) continue;
    table.rows.push_back({std::string(to_string(change.kernel_class)), human_ns(change.before_ns),
                          human_ns(change.after_ns), speedup_or_missing(change.speedup())});
  }
  return table;
}

Table kernel_table(const TraceDiff& diff) {
  Table table;
  table.header = {"kernel", "class", "before", "after", "change", "status"};
  table.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::left};
  for (std::size_t i = 0; i < diff.kernels.size() && table.rows.size() < kKernelRows; ++i) {
    const profile::KernelChange& kernel = diff.kernels[i];
    if (kernel.after_ns == kernel.before_ns) break;  // sorted by |change|: the rest did not change
    table.rows.push_back({short_name(kernel.name), std::string(to_string(kernel.kernel_class)),
                          kernel.is_new() ? kMissing : human_ns(kernel.before_ns),
                          kernel.vanished() ? kMissing : human_ns(kernel.after_ns),
                          signed_ns(kernel.after_ns - kernel.before_ns),
                          kernel.is_new()     ? "new"
                          : kernel.vanished() ? "vanished"
                                              : ""});
  }
  return table;
}

std::string name_list(const TraceDiff& diff, bool new_ones) {
  std::string list;
  std::size_t count = 0;
  for (const profile::KernelChange& kernel : diff.kernels) {
    if (new_ones ? !kernel.is_new() : !kernel.vanished()) continue;
    // In full: a shortened name may not tell a renamed kernel from the original.
    if (++count <= 5) list += (list.empty() ? "" : "; ") + kernel.name;
  }
  if (count > 5) list += "; and " + human_count(static_cast<std::int64_t>(count - 5)) + " more";
  return list;
}

void step_warnings(View& view, const TraceDiff& diff) {
  for (const PhaseChange& phase : diff.phases) {
    const std::int64_t steps = std::max(phase.steps.before_steps, phase.steps.after_steps);
    if (phase.whole_trace || phase.steps.matched_steps == steps) continue;
    view.warning(phase_name(phase) + ": only " + human_count(phase.steps.matched_steps) + " of " +
                 human_count(steps) +
                 " steps have the same token counts in both traces, so the phase times compare "
                 "different work: capture both traces with the same requests (same prompt and "
                 "output lengths, same batch)");
  }
}

}  // namespace

View trace_diff_view(const TraceDiff& diff) {
  View view;
  view.title("kspeed diff: " + diff.before.source + " → " + diff.after.source);
  view.answer(trace_answer(diff));
  view.caption(std::string("times are ") + std::string(to_string(diff.options.denominator)) +
               " sums; attention is the " + std::string(to_string(diff.options.scope)) +
               " kernels; predicted = Amdahl 1 / ((1 − p) + p / s) with p the before-share and s "
               "the realized attention speedup; error = predicted / measured − 1");
  if (!diff.differences.empty()) {
    view.warning("the traces come from different setups (" +
                 setup_differences_text(diff.differences, {diff.before, diff.after}) +
                 "): the change is not a kernel change alone");
  }
  if (no_common_phase(diff)) {
    view.warning("no phase is in both traces (" + phases_of(diff.before) + " before, " +
                 phases_of(diff.after) +
                 " after): a diff compares one phase of one workload before and after a change; "
                 "capture both traces with the same requests");
  } else {
    step_warnings(view, diff);
  }
  view.subheading("Per phase: predicted against measured");
  view.table(phase_table(diff));
  view.subheading("Where the phase time went (after − before)");
  view.table(attribution_table(diff));
  view.subheading("Per kernel class (whole trace, kernel time)");
  view.table(class_table(diff));
  const Table kernels = kernel_table(diff);
  if (!kernels.rows.empty()) {
    view.subheading("Kernels that changed most");
    view.table(kernels);
  }
  const std::string new_kernels = name_list(diff, true);
  const std::string vanished = name_list(diff, false);
  if (!new_kernels.empty()) view.fact("new kernels", new_kernels);
  if (!vanished.empty()) view.fact("vanished kernels", vanished);
  if (new_kernels.empty() && vanished.empty()) {
    view.note("Every kernel name appears in both traces.");
  }
  return view;
}

namespace {

using engine::BenchDiff;
using engine::LatencyChange;
using engine::NoInterval;

std::string metric_label(engine::LatencyMetric metric) {
  switch (metric) {
    case engine::LatencyMetric::ttft:
      return "TTFT";
    case engine::LatencyMetric::tpot:
      return "TPOT";
    case engine::LatencyMetric::itl:
      return "ITL";
    case engine::LatencyMetric::e2e:
      return "E2E";
  }
  return "?";
}

std::string verdict_text(const LatencyChange& change) {
  if (change.no_interval == NoInterval::too_few_for_percentile ||
      change.no_interval == NoInterval::too_few_for_mean) {
    return "too few requests (" + human_count(*change.requests_needed) + " needed)";
  }
  if (!change.within_noise) return "no interval";
  if (*change.within_noise) return "within noise";
  return change.change_ms < 0 ? "faster" : "slower";
}

std::string interval_text(const LatencyChange& change) {
  if (!change.ci_low_ms) return kMissing;
  return "[" + signed_ms(*change.ci_low_ms) + ", " + signed_ms(*change.ci_high_ms) + "]";
}

Table bench_table(const BenchDiff& diff) {
  Table table;
  table.header = {"metric", "statistic", "before",   "after",
                  "change", "ratio",     "interval", "verdict"};
  table.align = {Align::left,  Align::left,  Align::right, Align::right,
                 Align::right, Align::right, Align::left,  Align::left};
  for (const LatencyChange& change : diff.changes) {
    table.rows.push_back({metric_label(change.metric), std::string(to_string(change.statistic)),
                          human_kernel_ms(change.before_ms), human_kernel_ms(change.after_ms),
                          signed_ms(change.change_ms),
                          change.ratio > 0 ? ratio_text(change.ratio) : kMissing,
                          interval_text(change), verdict_text(change)});
  }
  return table;
}

// Why the two results were not paired, for the caption.
std::string unpaired_reason(const BenchDiff& diff) {
  const engine::Pairing& pairing = diff.pairing;
  switch (pairing.problem) {
    case engine::PairingProblem::none:
    case engine::PairingProblem::aggregate_only:
      return "a result with aggregates only";
    case engine::PairingProblem::unidentified:
      return pairing.source + " does not identify its requests";
    case engine::PairingProblem::repeated_id:
      return "request " + pairing.id + " appears twice in " + pairing.source;
    case engine::PairingProblem::prompt_mismatch:
      return "request " + pairing.id + " has " + human_count(pairing.before_prompt_tokens) +
             " prompt tokens before and " + human_count(pairing.after_prompt_tokens) +
             " after: not the same prompts";
    case engine::PairingProblem::different_requests:
      return "only " + human_count(pairing.pairs) + " of " + human_count(diff.before.requests) +
             " and " + human_count(diff.after.requests) +
             " requests share an id: not the same requests";
  }
  return "";
}

std::string side_text(const engine::BenchSide& side) {
  return side.per_request
             ? human_count(side.requests) + " requests with per-request values"
             : "aggregates only" + (side.requests > 0
                                        ? " (" + human_count(side.requests) + " requests)"
                                        : std::string());
}

// "95%", "99.5%".
std::string confidence_text(double confidence) {
  return human_plain(confidence * 100) + "%";
}

std::string bench_answer(const BenchDiff& diff) {
  if (diff.changes.empty()) return "The two results state no latency figure in common.";
  std::int64_t outside = 0;
  std::int64_t inside = 0;
  std::int64_t without = 0;
  std::int64_t unsupported = 0;
  for (const LatencyChange& change : diff.changes) {
    if (change.no_interval == NoInterval::too_few_for_percentile ||
        change.no_interval == NoInterval::too_few_for_mean) {
      ++unsupported;
    }
    if (!change.within_noise) {
      ++without;
    } else {
      ++(*change.within_noise ? inside : outside);
    }
  }
  const std::string unsupported_text =
      unsupported > 0
          ? " " + human_count(unsupported) + " rows have too few requests for a verdict."
          : std::string();
  if (without == static_cast<std::int64_t>(diff.changes.size())) {
    return "Changes shown without confidence intervals: " +
           std::string(
               diff.before.per_request && diff.after.per_request
                   ? "too few values or --bootstrap 0." + unsupported_text
                   : "a result with aggregates only has no per-request values to resample, so "
                     "nobody can tell a change from run-to-run noise.");
  }
  if (outside == 0) {
    return "Every change with a verdict is within noise: each " +
           confidence_text(diff.options.confidence) + " interval contains 0." + unsupported_text;
  }
  return human_count(outside) + " of " + human_count(outside + inside) +
         " changes are outside noise (their " + confidence_text(diff.options.confidence) +
         " interval excludes 0); " + human_count(inside) + " are within noise." + unsupported_text;
}

// With no real change, each judged row flags with chance 1 - c; across rows the chance that at
// least one does is 1 - c^m for independent rows, and at most m (1 - c) whatever their
// dependence (Bonferroni).
// A level for people: 4 significant digits, no trailing zeros (0.05, 99.58).
std::string compact(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string multiplicity_note(std::int64_t judged, double confidence) {
  const auto m = static_cast<double>(judged);
  const double independent = 1 - std::pow(confidence, m);
  const double corrected = 1 - (1 - confidence) / m;
  return human_count(judged) + " rows were judged, each at " + confidence_text(confidence) +
         ": with no real change the chance that at least one flags is " +
         human_fixed(independent * 100, 1) + "% if the rows were independent (1 − " +
         compact(confidence) + "^" + human_count(judged) +
         "; rows of one metric move together, so less). Judge the one row planned in advance, or "
         "hold the family at " +
         confidence_text(confidence) + " with --confidence " + compact(corrected * 100) +
         "% (Bonferroni: 1 − " + compact(1 - confidence) + " / " + human_count(judged) + ").";
}

}  // namespace

View bench_diff_view(const BenchDiff& diff) {
  View view;
  view.title("kspeed diff: " + diff.before.source + " → " + diff.after.source);
  view.answer(bench_answer(diff));
  if (!diff.differing_conditions.empty()) {
    std::string conditions;
    for (const std::string& key : diff.differing_conditions) {
      conditions += (conditions.empty() ? "" : ", ") + key;
    }
    view.warning("the two results were measured under different conditions (" + conditions +
                 "), so the change is not the effect of one change alone: see kspeed audit " +
                 diff.before.source + " " + diff.after.source);
  }
  for (const engine::BenchSide* side : {&diff.before, &diff.after}) {
    if (side->skipped > 0) {
      view.warning(side->source + ": " + human_count(side->skipped) +
                   " per-request rows skipped and left out of the comparison (the first: " +
                   side->first_skipped + ")");
    }
  }
  view.fact("before", side_text(diff.before));
  view.fact("after", side_text(diff.after));
  view.table(bench_table(diff));
  if (diff.before.per_request && diff.after.per_request) {
    const std::string resampled =
        diff.pairing.paired
            ? " resamples of " + human_count(diff.pairing.pairs) +
                  " request pairs (paired: both ran the same requests, matched by request id)"
            : " resamples of each side's requests (unpaired: " + unpaired_reason(diff) + ")";
    view.caption("interval: " + confidence_text(diff.options.confidence) +
                 " percentile bootstrap of after − before, " + human_count(diff.options.resamples) +
                 resampled + ", seed " + std::to_string(diff.options.seed) +
                 "; percentiles by numpy's linear rule; a verdict needs " +
                 human_count(engine::kMinRequestsForVerdict) +
                 " requests, a percentile's also those a distribution-free interval needs (p99: " +
                 human_count(engine::requests_for_quantile(0.99, diff.options.confidence)) +
                 " at " + confidence_text(diff.options.confidence) +
                 "); TPOT = (E2E − TTFT) / (output tokens − 1) when the file has no TPOT");
    if (diff.judged > 1) view.note(multiplicity_note(diff.judged, diff.options.confidence));
    view.note(
        "The interval resamples the requests of these two runs: run-to-run variation (GPU "
        "clocks, placement, other tenants) is not in it, so a verdict says whether these runs "
        "differ, not that another pair of runs would; kspeed plan with 3 or more baseline runs "
        "says how many runs a side a verdict between configurations needs.");
  } else {
    view.note("No confidence interval: " +
              std::string(!diff.before.per_request ? diff.before.source : diff.after.source) +
              " states only aggregate figures (mean, median, p99), and an interval needs each "
              "request's value to resample. Save per-request values (vllm bench serve "
              "--save-detailed, AIPerf's profile_export.jsonl) to tell a change from noise.");
  }
  for (engine::LatencyMetric metric : diff.missing) {
    view.note(metric_label(metric) + " is not in both results.");
  }
  return view;
}

View run_diff_view(const engine::RunLevelDiff& diff) {
  View view;
  const auto sources = [](const std::vector<engine::BenchSide>& runs) {
    std::string text;
    for (const engine::BenchSide& run : runs) text += (text.empty() ? "" : ", ") + run.source;
    return text;
  };
  view.title("kspeed diff, runs as the unit: " +
             human_count(static_cast<std::int64_t>(diff.before.size())) + " runs → " +
             human_count(static_cast<std::int64_t>(diff.after.size())) + " runs");
  std::int64_t outside = 0;
  for (const engine::RunLevelChange& change : diff.changes) outside += change.within_noise ? 0 : 1;
  const auto judged = static_cast<std::int64_t>(diff.changes.size());
  if (diff.changes.empty()) {
    view.answer("The runs state no latency figure in common.");
  } else if (outside == 0) {
    view.answer("Every change is within noise between runs: each " +
                confidence_text(diff.confidence) +
                " interval of the change in the runs' average figure contains 0.");
  } else {
    view.answer(human_count(outside) + " of " + human_count(judged) +
                " changes are outside noise between runs (their " +
                confidence_text(diff.confidence) + " interval excludes 0); " +
                human_count(judged - outside) + " are within noise.");
  }
  if (!diff.differing_conditions.empty()) {
    std::string conditions;
    for (const std::string& key : diff.differing_conditions) {
      conditions += (conditions.empty() ? "" : ", ") + key;
    }
    view.warning("the runs were measured under different conditions (" + conditions +
                 "), so the change is not the effect of one change alone: see kspeed audit");
  }
  view.fact("before", sources(diff.before));
  view.fact("after", sources(diff.after));
  Table table;
  table.header = {"metric", "statistic", "before",   "after",  "change",
                  "ratio",  "df",        "interval", "verdict"};
  table.align = {Align::left,  Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::left,  Align::left};
  for (const engine::RunLevelChange& change : diff.changes) {
    table.rows.push_back(
        {metric_label(change.metric), std::string(to_string(change.statistic)),
         human_kernel_ms(change.before_ms), human_kernel_ms(change.after_ms),
         signed_ms(change.change_ms), change.ratio > 0 ? ratio_text(change.ratio) : kMissing,
         human_fixed(change.df, 1),
         "[" + signed_ms(change.ci_low_ms) + ", " + signed_ms(change.ci_high_ms) + "]",
         change.within_noise    ? "within noise"
         : change.change_ms < 0 ? "faster"
                                : "slower"});
  }
  view.table(table);
  view.caption("before, after: the average over runs of each run's figure; interval: " +
               confidence_text(diff.confidence) +
               " Welch t interval of the change, each run one value (df: Welch–Satterthwaite), "
               "so run-to-run variation is in it; docs/diff.md");
  if (judged > 1) view.note(multiplicity_note(judged, diff.confidence));
  for (engine::LatencyMetric metric : diff.missing) {
    view.note(metric_label(metric) + " is not in every run.");
  }
  return view;
}

}  // namespace kspeed::report
