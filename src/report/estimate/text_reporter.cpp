// Terminal output of `kspeed estimate`: the chain as an aligned table, the point in one
// sentence, then where each number came from.
#include <fmt/format.h>

#include "chain_rows.hpp"
#include "kspeed/report/estimate_report.hpp"
#include "kspeed/report/human.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class EstimateTextReporter final : public Reporter<engine::Estimate> {
 public:
  explicit EstimateTextReporter(Style style) : style_(style) {}

  void write(const engine::Estimate& estimate, std::ostream& out) const override {
    out << heading(estimate) << "\n\n";
    out << render_text_table(estimate_rows::chain_table(estimate), style_.color) << "\n";
    std::string summary = wrap_text(estimate_rows::summary_sentence(estimate), kProseWidth);
    summary.pop_back();  // the colour reset goes before the line break
    out << paint(style_, summary, Ansi::bold) << "\n\n";
    out << render_text_table(estimate_rows::inputs_table(estimate), style_.color) << "\n";
    out << wrap_text("conditions: " + estimate_rows::conditions_line(estimate.workload),
                     kProseWidth, "  ");
    const std::string missing = estimate_rows::missing_conditions_line(estimate.workload);
    if (!missing.empty()) {
      out << wrap_text("not stated: " + missing, kProseWidth, "  ");
    }
    for (const auto& warning : estimate.scenario.warnings) {
      out << paint(style_, "warning", Ansi::yellow) << ": "
          << wrap_text(warning.message, kProseWidth - 9, "  ");
    }
    for (const auto& gate : estimate.gates) {
      out << paint(style_, estimate_rows::gate_line(gate), gate.passed ? Ansi::green : Ansi::red)
          << "\n";
    }
  }

 private:
  std::string heading(const engine::Estimate& estimate) const {
    const engine::Scenario& s = estimate.scenario;
    return fmt::format("kspeed estimate · workload {} · {} prompt, {} response",
                       estimate.workload.name, human_count(s.prompt_tokens.value),
                       human_count(s.response_tokens.value));
  }

  Style style_;
};

}  // namespace

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_text_reporter(const Style& style) {
  return std::make_unique<EstimateTextReporter>(style);
}

}  // namespace kspeed::report
