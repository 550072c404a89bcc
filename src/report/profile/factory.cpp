#include "kspeed/report/profile_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

std::unique_ptr<Reporter<profile::ProfileResult>> make_profile_reporter(Format format,
                                                                        const Style& style) {
  switch (format) {
    case Format::text:
      return make_profile_text_reporter(style);
    case Format::json:
      return make_profile_json_reporter();
    case Format::csv:
      return make_profile_csv_reporter();
    case Format::markdown:
      return make_profile_markdown_reporter();
  }
  return make_profile_text_reporter(style);
}

}  // namespace kspeed::report
