#pragma once
// One report per command: a view for people and a document for programs, each built in its own
// file (estimate_view.cpp, estimate_document.cpp, ...). A new command's report: two files and
// three declarations here.

#include "kspeed/engine/roofline_analysis.hpp"
#include "kspeed/engine/scenario.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

View estimate_view(const engine::Estimate& estimate);
Document estimate_document(const engine::Estimate& estimate);

View roofline_view(const engine::RooflineResult& result);
Document roofline_document(const engine::RooflineResult& result);

View profile_view(const profile::ProfileResult& result);
Document profile_document(const profile::ProfileResult& result);

/// The view and the document of one result.
template <class Result>
Report make_report(const Result& result, View (*view)(const Result&),
                   Document (*document)(const Result&)) {
  return Report{view(result), document(result)};
}

}  // namespace kspeed::report
