// Markdown output of `kspeed profile`, for PR comments and reports.
#include "kspeed/report/profile_report.hpp"
#include "profile_rows.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class ProfileMarkdownReporter final : public ProfileReporter {
 public:
  void write(const profile::ProfileResult& result, std::ostream& out) const override {
    for (const profile::FileResult& file : result.files) {
      out << "### kspeed profile: " << profile_rows::file_heading(file) << "\n\n";
      out << render_markdown_table(profile_rows::phase_table(file, result.options.denominator))
          << "\n";
      out << profile_rows::provenance_line(file, result.options.denominator)
          << "; kernel classes: " << result.patterns_source << " patterns.\n";
      for (const profile::PhaseResult& phase : file.phases) {
        const std::string label = profile_rows::phase_label(phase, false);
        if (!phase.top_attention.empty()) {
          out << "\n**" << label << ": attention kernels**\n\n"
              << render_markdown_table(profile_rows::kernel_table(phase.top_attention, true));
        }
        if (!phase.top_unclassified.empty()) {
          out << "\n**" << label << ": largest unclassified kernels**\n\n"
              << render_markdown_table(profile_rows::kernel_table(phase.top_unclassified, false));
        }
      }
      for (const std::string& note : file.notes) out << "\n> **Note:** " << note << "\n";
      out << "\n";
    }
    if (!result.aggregate.empty()) {
      out << "### All " << result.files.size() << " files (ranks), time-weighted\n\n"
          << render_markdown_table(profile_rows::aggregate_table(result));
    }
  }
};

}  // namespace

std::unique_ptr<ProfileReporter> make_profile_markdown_reporter() {
  return std::make_unique<ProfileMarkdownReporter>();
}

}  // namespace kspeed::report
