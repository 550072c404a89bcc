// `kspeed diff` for programs (docs/json-format.md, "kspeed diff"): times in ns (traces) or ms
// (benchmark results), speedups and shares as plain numbers; csv and jsonl get one record per
// phase (traces) or per metric and statistic (benchmark results).
#include "kspeed/report/reports.hpp"
#include "kspeed/report/run_diff_report.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using profile::PhaseChange;
using profile::TraceDiff;

ordered_json phase_json(const PhaseChange& phase) {
  ordered_json out;
  out["phase"] = phase.whole_trace ? "all" : std::string(to_string(phase.phase));
  out["steps_before"] = phase.steps.before_steps;
  out["steps_after"] = phase.steps.after_steps;
  out["steps_matched"] = phase.steps.matched_steps;
  out["attention_before_ns"] = phase.attention_before_ns;
  out["attention_after_ns"] = phase.attention_after_ns;
  out["other_kernels_before_ns"] = phase.other_before_ns;
  out["other_kernels_after_ns"] = phase.other_after_ns;
  out["time_before_ns"] = phase.total_before_ns;
  out["time_after_ns"] = phase.total_after_ns;
  out["attention_share_before"] = phase.share_before;  // estimate's `attention_share`, before
  out["attention_speedup"] = or_null(phase.attention_speedup);
  out["predicted_speedup"] = or_null(phase.predicted_speedup);
  out["measured_speedup"] = phase.measured_speedup;
  out["prediction_error"] = or_null(phase.prediction_error);
  out["attention_change_ns"] = phase.attention_change_ns();
  out["other_kernels_change_ns"] = phase.other_change_ns();
  out["idle_change_ns"] = phase.rest_change_ns();
  return out;
}

ordered_json trace_tree(const TraceDiff& diff) {
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["command"] = "diff";
  out["kind"] = "traces";
  out["before"] = diff.before.source;
  out["after"] = diff.after.source;
  out["denominator"] = to_string(diff.options.denominator);
  out["attention_scope"] = to_string(diff.options.scope);
  ordered_json differences = ordered_json::array();
  for (profile::SetupField field : diff.differences) {
    differences.push_back(setup_differences_text({field}, {diff.before, diff.after}));
  }
  out["setup_differences"] = differences;
  // False: no phase in both traces, so there is no headline speedup (the text says why).
  out["common_phase"] = profile::has_common_phase(diff);
  ordered_json phases = ordered_json::array();
  for (const PhaseChange& phase : diff.phases) phases.push_back(phase_json(phase));
  out["phases"] = phases;
  ordered_json classes = ordered_json::array();
  for (const profile::ClassChange& change : diff.classes) {
    ordered_json entry;
    entry["class"] = to_string(change.kernel_class);
    entry["before_ns"] = change.before_ns;
    entry["after_ns"] = change.after_ns;
    entry["speedup"] = or_null(change.speedup());
    classes.push_back(entry);
  }
  out["classes"] = classes;
  ordered_json kernels = ordered_json::array();
  for (const profile::KernelChange& kernel : diff.kernels) {
    ordered_json entry;
    entry["name"] = kernel.name;
    entry["class"] = to_string(kernel.kernel_class);
    entry["before_ns"] = kernel.before_ns;
    entry["after_ns"] = kernel.after_ns;
    entry["before_count"] = kernel.before_count;
    entry["after_count"] = kernel.after_count;
    entry["status"] = kernel.is_new() ? "new" : kernel.vanished() ? "vanished" : "matched";
    kernels.push_back(entry);
  }
  out["kernels"] = kernels;
  return out;
}

using engine::BenchDiff;
using engine::LatencyChange;

const char* no_interval_reason(engine::NoInterval reason) {
  switch (reason) {
    case engine::NoInterval::none:
      return nullptr;
    case engine::NoInterval::aggregate:
      return "aggregate-only";
    case engine::NoInterval::too_few:
      return "too-few-values";
    case engine::NoInterval::no_resamples:
      return "bootstrap-0";
    case engine::NoInterval::too_few_for_percentile:
      return "too-few-for-percentile";
    case engine::NoInterval::too_few_for_mean:
      return "too-few-for-mean";
  }
  return nullptr;
}

ordered_json pairing_problem(engine::PairingProblem problem) {
  switch (problem) {
    case engine::PairingProblem::none:
      return nullptr;
    case engine::PairingProblem::aggregate_only:
      return "aggregate-only";
    case engine::PairingProblem::unidentified:
      return "unidentified-requests";
    case engine::PairingProblem::repeated_id:
      return "repeated-id";
    case engine::PairingProblem::prompt_mismatch:
      return "prompt-mismatch";
    case engine::PairingProblem::different_requests:
      return "different-requests";
  }
  return nullptr;
}

ordered_json change_json(const LatencyChange& change) {
  ordered_json out;
  out["metric"] = to_string(change.metric);
  out["statistic"] = to_string(change.statistic);
  out["before_ms"] = change.before_ms;
  out["after_ms"] = change.after_ms;
  out["change_ms"] = change.change_ms;
  out["ratio"] = change.ratio > 0 ? ordered_json(change.ratio) : ordered_json(nullptr);
  out["ci_low_ms"] = or_null(change.ci_low_ms);
  out["ci_high_ms"] = or_null(change.ci_high_ms);
  const char* reason = no_interval_reason(change.no_interval);
  out["no_interval_reason"] = reason != nullptr ? ordered_json(reason) : ordered_json(nullptr);
  out["values"] = change.values > 0 ? ordered_json(change.values) : ordered_json(nullptr);
  out["requests_needed"] = or_null(change.requests_needed);
  out["verdict"] = change.no_interval == engine::NoInterval::too_few_for_percentile ||
                           change.no_interval == engine::NoInterval::too_few_for_mean
                       ? "too-few-requests"
                   : !change.within_noise ? "no-interval"
                   : *change.within_noise ? "within-noise"
                   : change.change_ms < 0 ? "faster"
                                          : "slower";
  return out;
}

ordered_json side_json(const engine::BenchSide& side) {
  ordered_json out;
  out["source"] = side.source;
  out["per_request"] = side.per_request;
  out["requests"] = side.requests > 0 ? ordered_json(side.requests) : ordered_json(nullptr);
  return out;
}

ordered_json bench_tree(const BenchDiff& diff) {
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["command"] = "diff";
  out["kind"] = "benchmarks";
  out["before"] = side_json(diff.before);
  out["after"] = side_json(diff.after);
  out["bootstrap_resamples"] = diff.options.resamples;
  out["confidence"] = diff.options.confidence;
  out["seed"] = diff.options.seed;
  ordered_json pairing;
  pairing["paired"] = diff.pairing.paired;
  pairing["pairs"] = diff.pairing.pairs;
  pairing["reason"] = pairing_problem(diff.pairing.problem);
  out["pairing"] = pairing;
  ordered_json differing = ordered_json::array();
  for (const std::string& key : diff.differing_conditions) differing.push_back(key);
  out["differing_conditions"] = differing;
  ordered_json changes = ordered_json::array();
  for (const LatencyChange& change : diff.changes) changes.push_back(change_json(change));
  out["changes"] = changes;
  out["judged"] = diff.judged;
  return out;
}

}  // namespace

Document trace_diff_document(const TraceDiff& diff) {
  Document document;
  document.tree = trace_tree(diff);
  for (const ordered_json& phase : document.tree["phases"]) {
    ordered_json record;
    record["schema_version"] = kSchemaVersion;
    record["before"] = diff.before.source;
    record["after"] = diff.after.source;
    record["common_phase"] = document.tree["common_phase"];
    flatten_into(record, "", phase);
    document.records.push_back(record);
  }
  return document;
}

Document bench_diff_document(const BenchDiff& diff) {
  Document document;
  document.tree = bench_tree(diff);
  for (const ordered_json& change : document.tree["changes"]) {
    ordered_json record;
    record["schema_version"] = kSchemaVersion;
    record["before"] = diff.before.source;
    record["after"] = diff.after.source;
    flatten_into(record, "", change);
    document.records.push_back(record);
  }
  return document;
}

Document run_diff_document(const engine::RunLevelDiff& diff) {
  Document document;
  ordered_json& out = document.tree;
  out["schema_version"] = kSchemaVersion;
  out["command"] = "diff";
  out["kind"] = "runs";
  for (const auto& [key, runs] : {std::pair{"before", &diff.before}, {"after", &diff.after}}) {
    ordered_json sides = ordered_json::array();
    for (const engine::BenchSide& run : *runs) sides.push_back(side_json(run));
    out[key] = sides;
  }
  out["confidence"] = diff.confidence;
  ordered_json differing = ordered_json::array();
  for (const std::string& key : diff.differing_conditions) differing.push_back(key);
  out["differing_conditions"] = differing;
  ordered_json changes = ordered_json::array();
  for (const engine::RunLevelChange& change : diff.changes) {
    ordered_json row;
    row["metric"] = to_string(change.metric);
    row["statistic"] = to_string(change.statistic);
    row["before_runs_ms"] = change.before_runs_ms;
    row["after_runs_ms"] = change.after_runs_ms;
    row["before_ms"] = change.before_ms;
    row["after_ms"] = change.after_ms;
    row["change_ms"] = change.change_ms;
    row["ratio"] = change.ratio > 0 ? ordered_json(change.ratio) : ordered_json(nullptr);
    row["se_ms"] = change.se_ms;
    row["df"] = change.df;
    row["ci_low_ms"] = change.ci_low_ms;
    row["ci_high_ms"] = change.ci_high_ms;
    row["verdict"] = change.within_noise    ? "within-noise"
                     : change.change_ms < 0 ? "faster"
                                            : "slower";
    changes.push_back(row);
  }
  out["changes"] = changes;
  for (const ordered_json& change : out["changes"]) {
    ordered_json record;
    record["schema_version"] = kSchemaVersion;
    record["kind"] = "runs";
    for (const char* key : {"metric", "statistic", "before_ms", "after_ms", "change_ms", "ratio",
                            "se_ms", "df", "ci_low_ms", "ci_high_ms", "verdict"}) {
      record[key] = change[key];
    }
    document.records.push_back(record);
  }
  return document;
}

}  // namespace kspeed::report
