#pragma once
// `kspeed diff --before RUN... --after RUN...`: repeated runs a side, each run one value
// (engine/verify/run_diff.hpp); the view in diff_view.cpp, the document in diff_document.cpp.

#include "kspeed/engine/verify/run_diff.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

View run_diff_view(const engine::RunLevelDiff& diff);
Document run_diff_document(const engine::RunLevelDiff& diff);

}  // namespace kspeed::report
