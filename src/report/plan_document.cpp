// `kspeed plan` for programs (docs/json-format.md, "kspeed plan").
#include "kspeed/report/plan_report.hpp"

#include <cmath>

namespace kspeed::report {

namespace {

ordered_json detectability_json(const engine::Detectability& d) {
  ordered_json out;
  out["sd_ms"] = d.sd_ms;
  out["mde_fraction"] =
      std::isfinite(d.mde_fraction) ? ordered_json(d.mde_fraction) : ordered_json(nullptr);
  out["needed"] = d.needed == INT64_MAX ? ordered_json(nullptr) : ordered_json(d.needed);
  out["detectable"] = d.detectable;
  out["df"] = d.df;
  out["planned_power"] = d.power;
  out["sd_low_ms"] = d.sd_low_ms ? ordered_json(*d.sd_low_ms) : ordered_json(nullptr);
  out["sd_high_ms"] = d.sd_high_ms ? ordered_json(*d.sd_high_ms) : ordered_json(nullptr);
  out["needed_high"] = d.needed_high && *d.needed_high != INT64_MAX ? ordered_json(*d.needed_high)
                                                                    : ordered_json(nullptr);
  return out;
}

ordered_json optional_json(const std::optional<engine::Detectability>& d) {
  return d ? detectability_json(*d) : ordered_json(nullptr);
}

}  // namespace

Document plan_document(const engine::Plan& plan, const PlanContext& context) {
  Document document;
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["command"] = "plan";
  tree["metric"] = context.metric;
  tree["effect"] = plan.input.effect;
  tree["effect_source"] = context.effect_source;
  ordered_json runs = ordered_json::array();
  for (const engine::BaselineRun& run : plan.input.runs) {
    runs.push_back(
        {{"source", run.source}, {"requests", static_cast<std::int64_t>(run.values_ms.size())}});
  }
  tree["runs"] = runs;
  tree["mean_ms"] = plan.mean_ms;
  tree["requests"] = plan.requests;
  tree["repeats"] = plan.repeats;
  tree["alpha"] = plan.input.options.alpha;
  tree["power"] = plan.input.options.power;
  tree["k"] = plan.k;
  tree["unpaired"] = detectability_json(plan.unpaired);
  tree["paired"] = optional_json(plan.paired);
  tree["between_runs"] = optional_json(plan.between_runs);
  tree["run_floor"] = plan.run_floor;
  tree["deciding"] = plan.between_runs ? "between_runs" : plan.paired ? "paired" : "unpaired";
  tree["detectable"] = plan.deciding().detectable;
  tree["impractical"] = plan.impractical;
  ordered_json record;
  record["schema_version"] = kSchemaVersion;
  for (const char* key : {"metric", "effect", "mean_ms", "requests", "repeats", "alpha", "power",
                          "k", "deciding", "detectable", "impractical"}) {
    record[key] = tree[key];
  }
  flatten_into(record, "unpaired", tree["unpaired"]);
  for (const char* key : {"paired", "between_runs"}) {
    if (tree[key].is_object()) {
      flatten_into(record, key, tree[key]);
    } else {
      for (const char* field : {"sd_ms", "mde_fraction", "needed", "detectable", "df",
                                "planned_power", "sd_low_ms", "sd_high_ms", "needed_high"}) {
        record[std::string(key) + "_" + field] = nullptr;
      }
    }
  }
  document.records.push_back(record);
  return document;
}

}  // namespace kspeed::report
