#pragma once
// Reporters for `kspeed estimate`.

#include <memory>
#include <nlohmann/json.hpp>

#include "kspeed/engine/scenario.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

/// The JSON schema version of estimate output (docs/json-format.md). Bumped only when a field
/// changes meaning or disappears; new fields do not bump it.
inline constexpr int kEstimateSchemaVersion = 1;

/// The reporter for `format`.
std::unique_ptr<Reporter<engine::Estimate>> make_estimate_reporter(Format format,
                                                                   const Style& style);

/// The estimate as the ordered JSON object the json reporter prints (shared with csv).
nlohmann::ordered_json estimate_to_json(const engine::Estimate& estimate);

}  // namespace kspeed::report
