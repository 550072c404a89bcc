// Markdown output of `kspeed roofline`, for PR comments and reports.
#include "reporters.hpp"
#include "roofline_rows.hpp"

namespace kspeed::report {

namespace {

class RooflineMarkdownReporter final : public Reporter<engine::RooflineResult> {
 public:
  void write(const engine::RooflineResult& result, std::ostream& out) const override {
    out << "### " << roofline_rows::heading(result) << "\n\n";
    out << roofline_rows::summary_sentence(result) << "\n\n";
    out << render_markdown_table(roofline_rows::figures_table(result)) << "\n";
    out << render_markdown_table(roofline_rows::levers_table(result));
    const std::string note = roofline_rows::illustrative_note(result);
    if (!note.empty()) {
      out << "\n" << note << "\n";
    }
    for (const auto& warning : result.warnings) {
      out << "\n> **Warning:** " << warning.message << "\n";
    }
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_markdown_reporter() {
  return std::make_unique<RooflineMarkdownReporter>();
}

}  // namespace kspeed::report
