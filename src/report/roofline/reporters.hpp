#pragma once
// The roofline reporters, one per file; make_roofline_reporter picks one.

#include <memory>

#include "kspeed/engine/roofline_analysis.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_text_reporter(const Style& style);
std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_json_reporter();
std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_csv_reporter();
std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_markdown_reporter();

}  // namespace kspeed::report
