#pragma once
// Reporters for `kspeed profile`.

#include <memory>
#include <nlohmann/json.hpp>

#include "kspeed/profile/analysis.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

/// The JSON schema version of profile output (docs/json-format.md). Bumped only when a field
/// changes meaning or disappears; new fields do not bump it.
inline constexpr int kProfileSchemaVersion = 1;

std::unique_ptr<Reporter<profile::ProfileResult>> make_profile_reporter(Format format,
                                                                        const Style& style);

/// The result as the ordered JSON object the json reporter prints (shared with csv).
nlohmann::ordered_json profile_to_json(const profile::ProfileResult& result);

}  // namespace kspeed::report
