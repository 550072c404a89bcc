#include "kspeed/engine/chain/run_conditions.hpp"

#include <algorithm>

namespace kspeed::engine {

namespace {

HardwareCondition hardware_of(const Platform& platform) {
  return {platform.tensor_parallel.value, platform.gpu.value.name};
}

PrecisionCondition precision_of(const Platform& platform) {
  return {platform.model.value.weight_dtype, platform.kv_dtype.value, platform.precision.value};
}

SpeculationCondition speculation_of(const Platform& platform) {
  return {platform.spec_tokens_per_step.value, platform.spec_mean_accepted.value};
}

bool chosen(Provenance provenance) {
  return provenance == Provenance::given;
}

// Puts `value` under `key`: in place of the workload's when the user chose it, else only where
// the workload states nothing.
void set(std::vector<Condition>& conditions, Condition condition, bool user_chose) {
  const auto found = std::find_if(conditions.begin(), conditions.end(),
                                  [&](const Condition& c) { return c.key == condition.key; });
  if (found == conditions.end()) {
    conditions.push_back(std::move(condition));
  } else if (user_chose) {
    *found = std::move(condition);
  }
}

}  // namespace

std::vector<Condition> run_conditions(const Workload& workload,
                                      const std::optional<Platform>& platform) {
  std::vector<Condition> conditions;
  for (const auto& [key, value] : workload.conditions) {
    conditions.push_back({key, ConditionValue(value), Provenance::workload, {}});
  }
  if (platform) {
    const Provenance deployment = Provenance::preset;  // the workload's own model / gpu
    const auto provenance_of = [&](Provenance p) { return chosen(p) ? p : deployment; };
    const ModelArch& model = platform->model.value;
    set(conditions,
        {"model", ConditionValue(model.name), provenance_of(platform->model.provenance),
         model.from_hf_config ? "config.json" : ""},
        chosen(platform->model.provenance));
    const bool hardware_chosen =
        chosen(platform->gpu.provenance) || chosen(platform->tensor_parallel.provenance);
    set(conditions,
        {"hardware", hardware_of(*platform), hardware_chosen ? Provenance::given : deployment, {}},
        hardware_chosen);
    const bool precision_chosen = chosen(platform->model.provenance) ||
                                  chosen(platform->kv_dtype.provenance) ||
                                  chosen(platform->precision.provenance);
    set(conditions,
        {"precision",
         precision_of(*platform),
         precision_chosen ? Provenance::given : deployment,
         {}},
        precision_chosen);
    if (chosen(platform->spec_tokens_per_step.provenance)) {
      set(conditions, {"speculative_decoding", speculation_of(*platform), Provenance::given, {}},
          true);
    }
  }
  // Checklist order, as the workload states them.
  std::vector<Condition> ordered;
  for (const char* key : kConditionKeys) {
    for (const Condition& c : conditions) {
      if (c.key == key) {
        ordered.push_back(c);
      }
    }
  }
  return ordered;
}

std::vector<std::string> missing_conditions(const std::vector<Condition>& conditions) {
  std::vector<std::string> missing;
  for (const char* key : kConditionKeys) {
    const bool stated = std::any_of(conditions.begin(), conditions.end(),
                                    [key](const Condition& c) { return c.key == key; });
    if (!stated) {
      missing.emplace_back(key);
    }
  }
  return missing;
}

}  // namespace kspeed::engine
