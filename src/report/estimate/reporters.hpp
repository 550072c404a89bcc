#pragma once
// The estimate reporters, one per file; make_estimate_reporter picks one.

#include <memory>

#include "kspeed/engine/scenario.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_text_reporter(const Style& style);
std::unique_ptr<Reporter<engine::Estimate>> make_estimate_json_reporter();
std::unique_ptr<Reporter<engine::Estimate>> make_estimate_csv_reporter();
std::unique_ptr<Reporter<engine::Estimate>> make_estimate_markdown_reporter();

}  // namespace kspeed::report
