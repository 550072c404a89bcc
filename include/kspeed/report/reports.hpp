#pragma once
// One report per command: a view for people and a document for programs, each built in its own
// file (estimate_view.cpp, estimate_document.cpp, ...). A new command's report: two files and
// three declarations here.

#include "kspeed/engine/roofline_analysis.hpp"
#include "kspeed/engine/scenario.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/report/mix_result.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

View estimate_view(const engine::Estimate& estimate);
Document estimate_document(const engine::Estimate& estimate);

View roofline_view(const engine::RooflineResult& result);
Document roofline_document(const engine::RooflineResult& result);

View profile_view(const profile::ProfileResult& result);
Document profile_document(const profile::ProfileResult& result);

View mix_view(const MixResult& result);
Document mix_document(const MixResult& result);
/// One request of `kspeed mix --per-request` as an NDJSON line (ends with a newline).
std::string per_request_line(const engine::RequestOutcome& outcome, const std::string& model,
                             const engine::MixModel& mix);

/// The view and the document of one result.
template <class Result>
Report make_report(const Result& result, View (*view)(const Result&),
                   Document (*document)(const Result&)) {
  return Report{view(result), document(result)};
}

}  // namespace kspeed::report
