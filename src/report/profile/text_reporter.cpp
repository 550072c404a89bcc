// Terminal output of `kspeed profile`: per file, the shares per phase, where they come from,
// then the kernels behind them and the largest kernels kspeed did not classify.
#include <fmt/format.h>

#include "kspeed/report/profile_report.hpp"
#include "profile_rows.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class ProfileTextReporter final : public ProfileReporter {
 public:
  explicit ProfileTextReporter(Style style) : style_(style) {}

  void write(const profile::ProfileResult& result, std::ostream& out) const override {
    bool first = true;
    for (const profile::FileResult& file : result.files) {
      if (!first) out << "\n";
      first = false;
      write_file(file, result, out);
    }
    if (!result.aggregate.empty()) {
      out << "\n"
          << paint(style_, fmt::format("all {} files (ranks): time-weighted", result.files.size()),
                   Ansi::bold)
          << "\n\n";
      out << render_text_table(profile_rows::aggregate_table(result), style_.color);
    }
  }

 private:
  void write_file(const profile::FileResult& file, const profile::ProfileResult& result,
                  std::ostream& out) const {
    out << paint(style_, "kspeed profile · " + profile_rows::file_heading(file), Ansi::bold)
        << "\n\n";
    out << render_text_table(profile_rows::phase_table(file, result.options.denominator),
                             style_.color);
    out << wrap_text(profile_rows::provenance_line(file, result.options.denominator), kProseWidth,
                     "  ");
    out << "kernel classes: " << result.patterns_source << " patterns\n";
    for (const profile::PhaseResult& phase : file.phases) {
      const std::string label = profile_rows::phase_label(phase, false);
      if (!phase.top_attention.empty()) {
        out << "\n" << label << ": attention kernels\n";
        out << render_text_table(profile_rows::kernel_table(phase.top_attention, true),
                                 style_.color);
      }
      if (!phase.top_unclassified.empty()) {
        out << "\n" << label << ": largest unclassified kernels (check none is attention)\n";
        out << render_text_table(profile_rows::kernel_table(phase.top_unclassified, false),
                                 style_.color);
      }
    }
    for (const std::string& note : file.notes)
      out << "\n" << paint(style_, "note", Ansi::yellow) << ": " << note;
    if (!file.notes.empty()) out << "\n";
  }

  Style style_;
};

}  // namespace

std::unique_ptr<ProfileReporter> make_profile_text_reporter(const Style& style) {
  return std::make_unique<ProfileTextReporter>(style);
}

}  // namespace kspeed::report
