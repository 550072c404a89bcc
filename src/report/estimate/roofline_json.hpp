#pragma once
// The estimate's roofline fields in JSON (docs/json-format.md), present only when a model and a
// GPU are known: "platform", "levers", and a "roofline" object in "prefill" and "decode".

#include <nlohmann/json.hpp>

#include "kspeed/engine/scenario.hpp"

namespace kspeed::report {

/// Adds the fields to `out` (the estimate object, after its "decode" key); no-op without a
/// platform.
void add_roofline_json(nlohmann::ordered_json& out, const engine::Scenario& scenario);

}  // namespace kspeed::report
