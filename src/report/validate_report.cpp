// `kspeed validate` for people (a table per held-out level, then median and worst |error| per
// metric) and for programs (docs/json-format.md, "kspeed validate").
#include "kspeed/report/validate_report.hpp"

#include <fmt/format.h>

#include "kspeed/report/document.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::report {

namespace {

std::string value_text(double value, const std::string& unit) {
  return unit == "ms" ? human_ms(value) : fmt::format("{:.4g} {}", value, unit);
}

std::string error_text(double error) {
  return fmt::format("{:+.1f}%", 100 * error);
}

// "2,613 blocks × 16 tokens = 41,808 tokens per replica (modelled like ...)", or unlimited.
std::string kv_cache_text(const ValidateContext::KvCache& kv) {
  if (!kv.blocks) return "unlimited (" + kv.source + ")";
  return human_count(*kv.blocks) + " blocks × " + std::to_string(kv.block_tokens) +
         " tokens = " + human_count(*kv.blocks * kv.block_tokens) + " tokens per replica (" +
         kv.source + ")";
}

std::string saturated_caption(const engine::LevelValidation& level) {
  if (level.max_inflight > 0) {
    return fmt::format(
        "The server saturated: it achieved under 90% of the requested rate. The replay's client "
        "holds at most {} requests in flight, as the benchmark's did, and times each from its "
        "send, so the queue forms where the measured one did: TTFT and E2E are compared like "
        "with like and enter the summary.",
        level.max_inflight);
  }
  return "The server saturated: it achieved under 90% of the requested rate. The replay is "
         "open loop and queues every request the client sent, while a benchmark's client "
         "caps the requests in flight, so TTFT and E2E here measure the two clients as much "
         "as the engine: only throughput (the saturation point) enters the summary.";
}

}  // namespace

View validate_view(const std::vector<engine::ValidationResult>& results,
                   const ValidateContext& context) {
  View view;
  for (const engine::ValidationResult& result : results) {
    view.title("kspeed validate · " + context.deployment + " · " + result.source);
    std::string fit_levels;
    for (const std::string& label : result.fit_levels) {
      fit_levels += (fit_levels.empty() ? "" : " and ") + label;
    }
    const std::string fitted_on = "Fitted through the replay on " + fit_levels + "; the " +
                                  std::to_string(result.levels.size()) +
                                  " other levels are predicted, never fitted (" +
                                  std::to_string(result.replays) + " replays).";
    // A view has one answer, drawn under its first title: a later run's sentence stays under
    // its own title.
    if (&result == &results.front()) {
      view.answer(fitted_on);
    } else {
      view.caption(fitted_on, "", false);
    }
    for (const engine::LevelValidation& level : result.levels) {
      view.subheading(level.label + (level.saturated ? " (saturated)" : ""));
      Table table{{"metric", "measured", "predicted", "error"},
                  {Align::left, Align::right, Align::right, Align::right},
                  {}};
      for (const engine::MetricComparison& m : level.metrics) {
        table.rows.push_back({m.metric, value_text(m.measured, m.unit),
                              value_text(m.predicted, m.unit), error_text(m.error())});
      }
      view.table(table);
      if (level.saturated) view.caption(saturated_caption(level));
    }
    view.subheading(
        "Held-out levels: |error| per metric (latencies below saturation or under the client's "
        "in-flight cap, throughput at every level)");
    Table summary{{"metric", "levels", "median |error|", "worst |error|", "worst at"},
                  {Align::left, Align::right, Align::right, Align::right, Align::left},
                  {}};
    for (const engine::MetricSummary& s : result.summary) {
      if (s.levels == 0) continue;  // reported only at saturated levels
      summary.rows.push_back({s.metric, std::to_string(s.levels),
                              fmt::format("{:.1f}%", 100 * s.median_abs_error),
                              fmt::format("{:.1f}%", 100 * s.worst_abs_error), s.worst_level});
    }
    view.table(summary);
    step_model_facts(view, result.fit.model);
    for (const std::string& note : result.fit.notes) view.note(note);
  }
  for (const std::string& setting : context.settings) view.fact("setting", setting);
  view.fact("KV cache", kv_cache_text(context.kv));
  for (const std::string& note : context.load_notes) view.fact("load", note);
  return view;
}

Document validate_document(const std::vector<engine::ValidationResult>& results,
                           const ValidateContext& context) {
  Document document;
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["command"] = "validate";
  tree["deployment"] = context.deployment;
  tree["settings"] = context.settings;
  tree["kv_cache"] = {
      {"blocks", context.kv.blocks ? ordered_json(*context.kv.blocks) : ordered_json(nullptr)},
      {"block_tokens", context.kv.block_tokens},
      {"tokens", context.kv.blocks ? ordered_json(*context.kv.blocks * context.kv.block_tokens)
                                   : ordered_json(nullptr)},
      {"provenance", context.kv.provenance},
      {"source", context.kv.source}};
  tree["load_notes"] = context.load_notes;
  ordered_json runs = ordered_json::array();
  for (const engine::ValidationResult& result : results) {
    ordered_json run;
    run["source"] = result.source;
    run["fit_levels"] = result.fit_levels;
    run["replays"] = result.replays;
    run["fit_notes"] = result.fit.notes;
    run["step_model"] = deployment_json(result.fit.model, {});
    ordered_json levels = ordered_json::array();
    for (const engine::LevelValidation& level : result.levels) {
      ordered_json metrics = ordered_json::array();
      for (const engine::MetricComparison& m : level.metrics) {
        metrics.push_back({{"metric", m.metric},
                           {"unit", m.unit},
                           {"measured", m.measured},
                           {"predicted", m.predicted},
                           {"error", m.error()}});
        document.records.push_back({{"schema_version", kSchemaVersion},
                                    {"source", result.source},
                                    {"level", level.label},
                                    {"saturated", level.saturated},
                                    {"metric", m.metric},
                                    {"unit", m.unit},
                                    {"measured", m.measured},
                                    {"predicted", m.predicted},
                                    {"error", m.error()}});
      }
      levels.push_back({{"label", level.label},
                        {"offered_rate_per_s", level.offered_rate_per_s},
                        {"saturated", level.saturated},
                        {"max_inflight", level.max_inflight},
                        {"latencies_summarised", level.latencies_summarised},
                        {"metrics", metrics}});
    }
    run["levels"] = levels;
    ordered_json summary = ordered_json::array();
    for (const engine::MetricSummary& s : result.summary) {
      summary.push_back({{"metric", s.metric},
                         {"levels", s.levels},
                         {"median_abs_error", s.median_abs_error},
                         {"worst_abs_error", s.worst_abs_error},
                         {"worst_level", s.worst_level}});
    }
    run["summary"] = summary;
    runs.push_back(run);
  }
  tree["runs"] = runs;
  return document;
}

namespace {

const engine::PointResidual* prior_point(const engine::PriorCheck& check,
                                         engine::LatencyKind kind) {
  for (const engine::PointResidual& point : check.points) {
    if (point.kind == kind) return &point;
  }
  return nullptr;
}

// "measured / prior (error)" for one latency of one deployment, or "–" when the run has none.
std::string prior_cell(const engine::PriorCheck& check, engine::LatencyKind kind) {
  const engine::PointResidual* point = prior_point(check, kind);
  if (point == nullptr) return "–";
  return fmt::format("{} / {} ({})", human_ms(point->measured_ms), human_ms(point->predicted_ms),
                     error_text(engine::prior_error(*point)));
}

std::string prior_kind_name(engine::LatencyKind kind) {
  return kind == engine::LatencyKind::ttft ? "TTFT" : "TPOT";
}

}  // namespace

View prior_check_view(const std::vector<engine::PriorCheck>& checks, const PriorContext& context) {
  View view;
  view.title("kspeed validate --prior · " + context.model + " · " + std::to_string(checks.size()) +
             (checks.size() == 1 ? " deployment" : " deployments"));
  view.answer(
      "The uncalibrated prior (presets and defaults set by public runs, nothing fitted to these) "
      "against each run's latencies: measured / prior, modelled (error = prior / measured − 1).");
  Table table{{"deployment", "prompt / output", "TTFT", "TPOT"},
              {Align::left, Align::right, Align::right, Align::right},
              {}};
  for (const engine::PriorCheck& check : checks) {
    table.rows.push_back(
        {check.deployment,
         fmt::format("{:.0f} / {:.0f}", check.prompt_tokens, check.response_tokens),
         prior_cell(check, engine::LatencyKind::ttft),
         prior_cell(check, engine::LatencyKind::tpot)});
  }
  view.table(table);
  view.subheading("Across the deployments: |error| of the prior");
  Table summary{{"metric", "deployments", "median |error|", "worst |error|", "worst at"},
                {Align::left, Align::right, Align::right, Align::right, Align::left},
                {}};
  for (const engine::PriorErrorSummary& s : engine::summarize_prior_checks(checks)) {
    summary.rows.push_back({prior_kind_name(s.kind), std::to_string(s.deployments),
                            fmt::format("{:.1f}%", 100 * s.median_abs_error),
                            fmt::format("{:.1f}%", 100 * s.worst_abs_error), s.worst_deployment});
  }
  view.table(summary);
  for (const engine::PriorCheck& check : checks) {
    std::string run = check.deployment + ": " + check.source + " (measured; " +
                      std::to_string(check.requests) +
                      (check.requests == 1 ? " point" : " requests, medians") + ", concurrency " +
                      fmt::format("{:.0f}", check.concurrency);
    if (check.cached_ttfts_left_out > 0) {
      run += "; " + std::to_string(check.cached_ttfts_left_out) +
             " TTFTs left out: a prefix cache served part of the prompt, which the prior "
             "prefills";
    }
    view.fact("run", run + ")");
  }
  for (const std::string& note : context.prior_notes) view.fact("prior", note);
  for (const std::string& setting : context.settings) view.fact("setting", setting);
  return view;
}

Document prior_check_document(const std::vector<engine::PriorCheck>& checks,
                              const PriorContext& context) {
  Document document;
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["command"] = "validate";
  tree["mode"] = "prior";
  tree["model"] = context.model;
  tree["prior_notes"] = context.prior_notes;
  tree["settings"] = context.settings;
  ordered_json deployments = ordered_json::array();
  for (const engine::PriorCheck& check : checks) {
    ordered_json points = ordered_json::array();
    for (const engine::PointResidual& point : check.points) {
      const ordered_json row = {{"metric", std::string(engine::to_string(point.kind))},
                                {"label", point.label},
                                {"measured_ms", point.measured_ms},
                                {"predicted_ms", point.predicted_ms},
                                {"error", engine::prior_error(point)}};
      points.push_back(row);
      ordered_json record = row;
      record["schema_version"] = kSchemaVersion;
      record["deployment"] = check.deployment;
      record["source"] = check.source;
      document.records.push_back(record);
    }
    deployments.push_back({{"deployment", check.deployment},
                           {"source", check.source},
                           {"prompt_tokens", check.prompt_tokens},
                           {"response_tokens", check.response_tokens},
                           {"concurrency", check.concurrency},
                           {"requests", check.requests},
                           {"cached_ttfts_left_out", check.cached_ttfts_left_out},
                           {"points", points}});
  }
  tree["deployments"] = deployments;
  ordered_json summary = ordered_json::array();
  for (const engine::PriorErrorSummary& s : engine::summarize_prior_checks(checks)) {
    summary.push_back({{"metric", std::string(engine::to_string(s.kind))},
                       {"deployments", s.deployments},
                       {"median_abs_error", s.median_abs_error},
                       {"worst_abs_error", s.worst_abs_error},
                       {"worst_deployment", s.worst_deployment}});
  }
  tree["summary"] = summary;
  return document;
}

}  // namespace kspeed::report
