// --format text: any view for a terminal. Blocks are separated by a blank line, except where one
// continues the block above it (a caption under its table, a table under its subheading, a run of
// facts or notes, warnings and verdicts, which close the report as a list).
#include <string>

#include "kspeed/report/render.hpp"

namespace kspeed::report {

namespace {

constexpr std::size_t kWarningLabelWidth = 9;  // "warning: "
constexpr std::size_t kNoteLabelWidth = 6;     // "note: "

bool continues(const Block& above, const Block& block) {
  switch (block.kind) {
    case BlockKind::caption:
    case BlockKind::warning:
    case BlockKind::verdict:
      return true;
    case BlockKind::table:
      return above.kind == BlockKind::subheading;
    case BlockKind::fact:
    case BlockKind::note:
      return above.kind == block.kind;
    default:
      return false;
  }
}

// Each line of a caption wrapped on its own: "measured from ...\nkernel classes: ...".
std::string wrapped_lines(const std::string& text, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += wrap_text(text.substr(start, end - start), kProseWidth, indent);
    start = end + 1;
  }
  return out;
}

std::string bold_line(const Style& style, const std::string& wrapped) {
  // The colour reset goes before the final line break.
  return paint(style, wrapped.substr(0, wrapped.size() - 1), Ansi::bold) + "\n";
}

std::string draw(const Block& block, const Style& style) {
  switch (block.kind) {
    case BlockKind::title:
      return bold_line(style, block.text + "\n");
    case BlockKind::answer:
      return bold_line(style, wrap_text(block.text, kProseWidth));
    case BlockKind::table:
      return render_text_table(block.table, style.color);
    case BlockKind::caption:
      return wrapped_lines(block.text, block.hang ? "  " : "");
    case BlockKind::fact:
      return wrap_text(block.label + ": " + block.text, kProseWidth, "  ");
    case BlockKind::subheading:
      return block.text + "\n";
    case BlockKind::note:
      // wrapped like a warning: the first line shares its width with "note: " (6 columns)
      return paint(style, "note", Ansi::yellow) + ": " +
             wrap_text(block.text, kProseWidth - kNoteLabelWidth, "  ");
    case BlockKind::warning:
      return paint(style, "warning", Ansi::yellow) + ": " +
             wrap_text(block.text, kProseWidth - kWarningLabelWidth, "  ");
    case BlockKind::verdict:
      return paint(style, block.text, block.tone == Tone::good ? Ansi::green : Ansi::red) + "\n";
    case BlockKind::section_break:
      return "";
  }
  return "";
}

}  // namespace

std::string render_text(const Report& report, const Style& style) {
  std::string out;
  const Block* above = nullptr;
  for (const Block& block : report.view.blocks) {
    if (block.kind == BlockKind::section_break) continue;
    if (above != nullptr && !continues(*above, block)) out += "\n";
    out += draw(block, style);
    above = &block;
  }
  return out;
}

}  // namespace kspeed::report
