#pragma once
// `kspeed validate`: the replay fitted on chosen load levels of a measured run and every other
// level predicted (engine/serving/replay_validation.hpp), for people and for programs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/prior_check.hpp"
#include "kspeed/engine/serving/replay_validation.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

/// What the command knows besides the result: how the levels' loads were rebuilt, the
/// scheduler settings and where each came from.
struct ValidateContext {
  std::string deployment;  ///< "llama-3.1-8b on h100-sxm"
  std::vector<std::string> load_notes;
  std::vector<std::string> settings;
  /// The KV cache every replay of the command ran with (per replica); blocks absent: unlimited.
  struct KvCache {
    std::optional<std::int64_t> blocks;
    std::int64_t block_tokens = 16;
    std::string provenance;  ///< "modelled", "given", "default" (unlimited)
    std::string source;      ///< how it was sized, every term, for people
  };
  KvCache kv;
};

View validate_view(const std::vector<engine::ValidationResult>& results,
                   const ValidateContext& context);
Document validate_document(const std::vector<engine::ValidationResult>& results,
                           const ValidateContext& context);

/// `kspeed validate --prior`: what the prior stands on (its efficiencies and their sources) and
/// the settings shared by every deployment checked.
struct PriorContext {
  std::string model;
  std::vector<std::string> prior_notes;
  std::vector<std::string> settings;
};

View prior_check_view(const std::vector<engine::PriorCheck>& checks, const PriorContext& context);
Document prior_check_document(const std::vector<engine::PriorCheck>& checks,
                              const PriorContext& context);

}  // namespace kspeed::report
