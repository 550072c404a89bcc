#include "kspeed/report/estimate_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_reporter(Format format,
                                                                   const Style& style) {
  switch (format) {
    case Format::text:
      return make_estimate_text_reporter(style);
    case Format::json:
      return make_estimate_json_reporter();
    case Format::csv:
      return make_estimate_csv_reporter();
    case Format::markdown:
      return make_estimate_markdown_reporter();
  }
  return make_estimate_text_reporter(style);
}

}  // namespace kspeed::report
