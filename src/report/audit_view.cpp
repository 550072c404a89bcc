// `kspeed audit` for people: per file, the ten conditions (MODEL.md section 6) it states, with
// the value, and those it omits; for several files, which conditions differ and whether the
// figures are comparable.
#include "kspeed/report/reports.hpp"

namespace kspeed::report {

namespace {

using engine::Audit;
using engine::ConditionEntry;
using engine::ConditionStatus;

constexpr const char* kMissing = "—";

// "prefix_caching" -> "prefix caching".
std::string condition_label(const std::string& key) {
  std::string label = key;
  for (char& c : label) {
    if (c == '_') c = ' ';
  }
  return label;
}

std::string label_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) out += (out.empty() ? "" : ", ") + condition_label(key);
  return out;
}

// "concurrency differs", "model, concurrency differ".
std::string differ_text(const std::vector<std::string>& keys) {
  return label_list(keys) + (keys.size() == 1 ? " differs" : " differ");
}

std::int64_t count_status(const engine::FileConditions& file, ConditionStatus status) {
  std::int64_t count = 0;
  for (const ConditionEntry& entry : file.conditions) count += entry.status == status ? 1 : 0;
  return count;
}

Table file_table(const engine::FileConditions& file) {
  Table table;
  table.header = {"condition", "status", "value"};
  for (const ConditionEntry& entry : file.conditions) {
    std::string value = entry.value.empty() ? std::string(kMissing) : entry.value;
    if (entry.status == ConditionStatus::partial) value += " (missing: " + entry.missing + ")";
    table.rows.push_back({condition_label(entry.key), std::string(to_string(entry.status)), value});
  }
  return table;
}

Table comparison_table(const Audit& audit) {
  Table table;
  table.header = {"condition", "across the files"};
  for (const engine::ConditionComparison& comparison : audit.comparisons) {
    std::string text;
    if (comparison.differs) {
      text = "DIFFERS";
    } else if (comparison.omitted_by.size() == audit.files.size()) {
      text = "unchecked: no file states it";
    } else if (!comparison.omitted_by.empty()) {
      text = "unchecked: " + std::to_string(comparison.omitted_by.size()) + " of " +
             std::to_string(audit.files.size()) + " files omit it";
    } else {
      text = "same";
    }
    if (comparison.differs && !comparison.omitted_by.empty()) {
      text += " (" + std::to_string(comparison.omitted_by.size()) + " files omit it)";
    }
    table.rows.push_back({condition_label(comparison.key), text});
  }
  return table;
}

}  // namespace

View audit_view(const Audit& audit) {
  View view;
  view.title("kspeed audit: the ten conditions of a benchmark figure");
  if (audit.files.size() >= 2) {
    if (!audit.comparable) {
      view.answer("Not comparable: " + differ_text(audit.differing) +
                  " between the files, so their latency and throughput figures measure "
                  "different things.");
    } else if (!audit.unchecked.empty()) {
      view.answer("No stated condition differs, but " + label_list(audit.unchecked) +
                  " cannot be checked (omitted by some file): comparable only as far as the "
                  "files say.");
    } else {
      view.answer("Comparable: every condition is stated in every file, with the same value.");
    }
  } else if (!audit.files.empty()) {
    const engine::FileConditions& file = audit.files.front();
    view.answer(file.source + " states " +
                std::to_string(count_status(file, ConditionStatus::stated)) +
                " of 10 conditions (" +
                std::to_string(count_status(file, ConditionStatus::partial)) + " more in part).");
  }
  for (const engine::FileConditions& file : audit.files) {
    view.subheading(file.source + " (" + file.format + "): " +
                    std::to_string(count_status(file, ConditionStatus::stated)) + " stated, " +
                    std::to_string(count_status(file, ConditionStatus::partial)) + " partial, " +
                    std::to_string(count_status(file, ConditionStatus::omitted)) + " omitted");
    view.table(file_table(file));
  }
  if (audit.files.size() >= 2) {
    view.subheading("Across the files");
    view.table(comparison_table(audit));
    view.caption(
        "a condition differs when two files state different values; token counts are compared "
        "per request (means to two significant digits), not as totals");
    view.verdict(audit.comparable ? "comparable (as far as the stated conditions go)"
                                  : "not comparable: " + differ_text(audit.differing),
                 audit.comparable);
  }
  view.note(
      "The conditions are kspeed's checklist (docs/audit.md): a figure that omits one cannot be "
      "compared with another on it.");
  return view;
}

}  // namespace kspeed::report
