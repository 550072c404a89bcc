#pragma once
// `kspeed plan`'s report (kept apart from reports.hpp, which every report file includes).

#include "kspeed/engine/verify/power.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

/// What the plan is about, for the title and the record: the metric and where the effect came
/// from ("given" or the estimate file).
struct PlanContext {
  std::string metric;         ///< "e2e", "ttft", "tpot"
  std::string effect_source;  ///< "--effect 1%", or the estimate JSON's path and field
};

View plan_view(const engine::Plan& plan, const PlanContext& context);
Document plan_document(const engine::Plan& plan, const PlanContext& context);

}  // namespace kspeed::report
