// `kspeed audit` for people: per file, the ten conditions (MODEL.md section 6) it states, with
// the value, and those it omits; for several files, which conditions differ and whether the
// figures are comparable.
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"

namespace kspeed::report {

namespace {

using engine::Audit;
using engine::ConditionEntry;
using engine::ConditionStatus;

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
    } else if (comparison.omitted == audit.file_count) {
      text = "unchecked: no file states it";
    } else if (comparison.omitted > 0) {
      text = "unchecked: " + std::to_string(comparison.omitted) + " of " +
             std::to_string(audit.file_count) + " files omit it";
    } else {
      text = "same";
    }
    if (comparison.differs && comparison.omitted > 0) {
      text += " (" + std::to_string(comparison.omitted) + " files omit it)";
    }
    table.rows.push_back({condition_label(comparison.key), text});
  }
  return table;
}

}  // namespace

View audit_head_view(const Audit& summary, const engine::FileConditions* only) {
  View view;
  view.title("kspeed audit: the ten conditions of a benchmark figure");
  if (summary.file_count >= 2) {
    if (!summary.comparable) {
      view.answer("Not comparable: " + differ_text(summary.differing) +
                  " between the files, so their latency and throughput figures measure "
                  "different things.");
    } else if (!summary.unchecked.empty()) {
      view.answer("No stated condition differs, but " + label_list(summary.unchecked) +
                  " cannot be checked (omitted by some file): comparable only as far as the "
                  "files say.");
    } else {
      view.answer("Comparable: every condition is stated in every file, with the same value.");
    }
  } else if (only != nullptr) {
    view.answer(only->source + " states " +
                std::to_string(count_status(*only, ConditionStatus::stated)) +
                " of 10 conditions (" +
                std::to_string(count_status(*only, ConditionStatus::partial)) + " more in part).");
  }
  return view;
}

View audit_file_view(const engine::FileConditions& file) {
  View view;
  view.subheading(file.source + " (" + file.format + "): " +
                  std::to_string(count_status(file, ConditionStatus::stated)) + " stated, " +
                  std::to_string(count_status(file, ConditionStatus::partial)) + " partial, " +
                  std::to_string(count_status(file, ConditionStatus::omitted)) + " omitted");
  view.table(file_table(file));
  return view;
}

View audit_tail_view(const Audit& summary) {
  View view;
  if (summary.file_count >= 2) {
    view.subheading("Across the files");
    view.table(comparison_table(summary));
    view.caption(
        "a condition differs when two files state different values; token counts are compared "
        "per request (means to two significant digits), not as totals");
    view.verdict(summary.comparable ? "comparable (as far as the stated conditions go)"
                                    : "not comparable: " + differ_text(summary.differing),
                 summary.comparable);
  }
  view.note(
      "The conditions are kspeed's checklist (docs/audit.md): a figure that omits one cannot be "
      "compared with another on it.");
  return view;
}

View audit_view(const Audit& audit) {
  View view = audit_head_view(audit, audit.files.size() == 1 ? &audit.files.front() : nullptr);
  const auto append = [&view](View part) {
    for (Block& block : part.blocks) view.blocks.push_back(std::move(block));
  };
  for (const engine::FileConditions& file : audit.files) append(audit_file_view(file));
  append(audit_tail_view(audit));
  return view;
}

}  // namespace kspeed::report
