#pragma once
// The deployment's step model as facts, shared by estimate's view and the calibrate and validate
// reports: each coefficient with its provenance, the calibration source and its residuals.

#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/report/view.hpp"

namespace kspeed::report {

void step_model_facts(View& view, const engine::CalibratedStepModel& model);

}  // namespace kspeed::report
