// Terminal output of `kspeed roofline`: the kernel against the roof, what each lever is worth on
// it, and the point in one sentence.
#include <fmt/format.h>

#include "reporters.hpp"
#include "roofline_rows.hpp"

namespace kspeed::report {

namespace {

class RooflineTextReporter final : public Reporter<engine::RooflineResult> {
 public:
  explicit RooflineTextReporter(Style style) : style_(style) {}

  void write(const engine::RooflineResult& result, std::ostream& out) const override {
    out << roofline_rows::heading(result) << "\n\n";
    out << render_text_table(roofline_rows::figures_table(result), style_.color) << "\n";
    out << render_text_table(roofline_rows::levers_table(result), style_.color);
    const std::string note = roofline_rows::illustrative_note(result);
    if (!note.empty()) {
      out << wrap_text(note, kProseWidth);
    }
    std::string summary = wrap_text(roofline_rows::summary_sentence(result), kProseWidth);
    summary.pop_back();  // the colour reset goes before the line break
    out << "\n" << paint(style_, summary, Ansi::bold) << "\n";
    for (const auto& warning : result.warnings) {
      out << paint(style_, "warning", Ansi::yellow) << ": "
          << wrap_text(warning.message, kProseWidth - 9, "  ");
    }
  }

 private:
  Style style_;
};

}  // namespace

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_text_reporter(const Style& style) {
  return std::make_unique<RooflineTextReporter>(style);
}

}  // namespace kspeed::report
