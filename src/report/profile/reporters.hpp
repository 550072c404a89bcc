#pragma once
// The profile reporters, one per file; make_profile_reporter picks one.

#include <memory>

#include "kspeed/profile/analysis.hpp"
#include "kspeed/report/reporter.hpp"

namespace kspeed::report {

using ProfileReporter = Reporter<profile::ProfileResult>;

std::unique_ptr<ProfileReporter> make_profile_text_reporter(const Style& style);
std::unique_ptr<ProfileReporter> make_profile_json_reporter();
std::unique_ptr<ProfileReporter> make_profile_csv_reporter();
std::unique_ptr<ProfileReporter> make_profile_markdown_reporter();

}  // namespace kspeed::report
