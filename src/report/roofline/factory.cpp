#include "kspeed/report/roofline_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_reporter(Format format,
                                                                         const Style& style) {
  switch (format) {
    case Format::text:
      return make_roofline_text_reporter(style);
    case Format::json:
      return make_roofline_json_reporter();
    case Format::csv:
      return make_roofline_csv_reporter();
    case Format::markdown:
      return make_roofline_markdown_reporter();
  }
  return make_roofline_text_reporter(style);
}

const char* lever_kind_name(engine::LeverKind kind) {
  switch (kind) {
    case engine::LeverKind::compute:
      return "compute";
    case engine::LeverKind::bytes:
      return "bytes";
    case engine::LeverKind::bandwidth:
      return "bandwidth";
    case engine::LeverKind::combined:
      return "combined";
  }
  return "unknown";
}

}  // namespace kspeed::report
