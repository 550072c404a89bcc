#pragma once
// One report per command: a view for people and a document for programs, each built in its own
// file (estimate_view.cpp, estimate_document.cpp, ...). A new command's report: two files and
// three declarations here.

#include "kspeed/engine/chain/mix_result.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/engine/verify/conditions_audit.hpp"
#include "kspeed/engine/verify/measured_analysis.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/profile/trace_diff.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/render.hpp"

namespace kspeed::report {

View estimate_view(const engine::Estimate& estimate);
Document estimate_document(const engine::Estimate& estimate);

View roofline_view(const engine::RooflineResult& result);
Document roofline_document(const engine::RooflineResult& result);

View sweep_view(const engine::Sweep& sweep);
/// Only the sweep's warnings: the view of a sweep written for programs (stderr reads it).
View sweep_warnings_view(const engine::Sweep& sweep);
Document sweep_document(const engine::Sweep& sweep);
/// Which parts of a sweep's document to build: a large sweep in one format needs one of them.
enum class SweepParts { both, tree, records };
Document sweep_document(const engine::Sweep& sweep, SweepParts parts);

/// The sweep as a chart of speedup against a swept input (plots.cpp): `plot_x` (sweep
/// --plot-x), else the context when it varies, else the batch, else the innermost varying
/// input; the other swept inputs make one series each. nullopt when nothing is swept. Throws
/// InputError when `plot_x` is not swept.
std::optional<chart::SweepChart> sweep_chart(const engine::Sweep& sweep,
                                             const std::string& plot_x = {});
/// The compact Unicode chart for a terminal, or "" when there is no chart to draw.
std::string sweep_terminal_chart(const engine::Sweep& sweep);
/// The sweep chart as SVG. Throws InputError when nothing is swept or `plot_x` is not.
std::string sweep_svg(const engine::Sweep& sweep, const std::string& title = {},
                      const std::string& plot_x = {});

/// The charts below take a title for --title; empty keeps the chart's own.

/// The estimate's dilution chain as a waterfall SVG (plots.cpp).
std::string estimate_svg(const engine::Estimate& estimate, const std::string& title = {});
/// The roofline with the kernel and each lever as an SVG (plots.cpp).
std::string roofline_svg(const engine::RooflineResult& result, const std::string& title = {});
/// The priced launch of an Nsight Compute export on the roofline, with each lever (plots.cpp).
/// Throws InputError when the launch has no position (the export lacks FLOPs, bytes or time).
std::string measured_roofline_svg(const engine::MeasuredRooflineResult& result,
                                  const std::string& title = {});
View ncu_view(const engine::MeasuredRooflineResult& result);
Document ncu_document(const engine::MeasuredRooflineResult& result);

View profile_view(const profile::ProfileResult& result);
Document profile_document(const profile::ProfileResult& result);

View trace_diff_view(const profile::TraceDiff& diff);
Document trace_diff_document(const profile::TraceDiff& diff);
View bench_diff_view(const engine::BenchDiff& diff);
Document bench_diff_document(const engine::BenchDiff& diff);

View audit_view(const engine::Audit& audit);
/// audit_view in three parts, for a report written as its files are read: the title and the
/// answer (from the summary; `only` is the file when there is one), one file's section, and the
/// comparison across the files with the closing note. In text, the parts joined by a blank line
/// are audit_view's text.
View audit_head_view(const engine::Audit& summary, const engine::FileConditions* only);
View audit_file_view(const engine::FileConditions& file);
View audit_tail_view(const engine::Audit& summary);
Document audit_document(const engine::Audit& audit);

View mix_view(const engine::MixResult& result);
Document mix_document(const engine::MixResult& result);
/// One request of `kspeed mix --per-request` as an NDJSON line (ends with a newline).
std::string per_request_line(const engine::RequestOutcome& outcome, const std::string& model,
                             const engine::MixModel& mix);
/// The replay's fields of one request's --per-request line (appended to per_request_line's
/// object): queue, TTFT, TPOT, E2E and preemptions before and after, as replayed.
std::string per_request_replay_line(const engine::RequestOutcome& outcome, const std::string& model,
                                    const engine::MixModel& mix,
                                    const engine::RequestTiming& before,
                                    const engine::RequestTiming& after);

/// The view and the document of one result.
template <class Result>
Report make_report(const Result& result, View (*view)(const Result&),
                   Document (*document)(const Result&)) {
  return Report{view(result), document(result)};
}

}  // namespace kspeed::report
