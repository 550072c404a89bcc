#pragma once
// The conditions of the run being estimated (MODEL.md section 6's checklist), decided for the
// estimate's view and document (which only word them): the workload's, with the model, hardware
// and precision of the deployment in their place where the user chose the deployment. After
// `--model llama-3.1-70b --gpu h100-sxm --tp 8` the run is a Llama on eight H100s whatever model
// the workload's shares were measured on (a mismatch the share warning names), and its hardware
// is stated.

#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/chain/workload.hpp"

namespace kspeed::engine {

/// One checklist condition and where its value came from.
struct Condition {
  std::string key;  ///< a kConditionKeys entry
  ConditionValue value;
  /// workload: stated by the workload; given: from the deployment flags; preset: from the
  /// workload's deployment (its model/gpu) where its conditions are silent.
  engine::Provenance provenance = engine::Provenance::workload;
  std::string origin;  ///< more on the provenance, e.g. "config.json" (empty: nothing more)
};

/// The workload's conditions in checklist order; with a platform, `model`, `hardware`,
/// `precision` and `speculative_decoding` follow the platform where the user chose it (or where
/// the workload is silent).
std::vector<Condition> run_conditions(const engine::Workload& workload,
                                      const std::optional<engine::Platform>& platform);

/// Checklist keys `conditions` do not state, in checklist order.
std::vector<std::string> missing_conditions(const std::vector<Condition>& conditions);

}  // namespace kspeed::engine
