#pragma once
// Reporters for `kspeed roofline`.

#include <memory>
#include <nlohmann/json.hpp>

#include "kspeed/engine/roofline_analysis.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

/// The JSON schema version of roofline output (docs/json-format.md). Bumped only when a field
/// changes meaning or disappears; new fields do not bump it.
inline constexpr int kRooflineSchemaVersion = 1;

/// The reporter for `format`.
std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_reporter(Format format,
                                                                         const Style& style);

/// The result as the ordered JSON object the json reporter prints (shared with csv).
nlohmann::ordered_json roofline_to_json(const engine::RooflineResult& result);

/// "compute", "bytes", "bandwidth", "combined": the lever names in JSON and CSV.
const char* lever_kind_name(engine::LeverKind kind);

}  // namespace kspeed::report
