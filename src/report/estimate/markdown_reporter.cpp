// Markdown output of `kspeed estimate`, for PR comments and reports.
#include "chain_rows.hpp"
#include "kspeed/report/estimate_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class EstimateMarkdownReporter final : public Reporter<engine::Estimate> {
 public:
  void write(const engine::Estimate& estimate, std::ostream& out) const override {
    out << "### kspeed estimate: " << estimate.workload.name << "\n\n";
    out << estimate_rows::summary_sentence(estimate) << "\n\n";
    out << render_markdown_table(estimate_rows::chain_table(estimate)) << "\n";
    out << render_markdown_table(estimate_rows::inputs_table(estimate)) << "\n";
    out << "**Conditions:** " << estimate_rows::conditions_line(estimate.workload) << "\n";
    const std::string missing = estimate_rows::missing_conditions_line(estimate.workload);
    if (!missing.empty()) {
      out << "**Not stated:** " << missing << "\n";
    }
    for (const auto& warning : estimate.scenario.warnings) {
      out << "\n> **Warning:** " << warning.message << "\n";
    }
    for (const auto& gate : estimate.gates) {
      out << "\n**" << estimate_rows::gate_line(gate) << "**\n";
    }
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_markdown_reporter() {
  return std::make_unique<EstimateMarkdownReporter>();
}

}  // namespace kspeed::report
