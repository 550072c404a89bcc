#pragma once
// The deployment's step model as facts, shared by estimate's view and the calibrate and validate
// reports: each coefficient with its provenance, the calibration source and its residuals.

#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/report/view.hpp"

namespace kspeed::report {

void step_model_facts(View& view, const engine::CalibratedStepModel& model);

/// What an uncalibrated model's defaults rest on: the bandwidth prior of the GPU's memory family
/// with its range, the request overhead with its range, the per-step cost the runs do not
/// identify. Empty when the model has no prior (an efficiency was given).
std::string step_prior_text(const engine::CalibratedStepModel& model);

}  // namespace kspeed::report
