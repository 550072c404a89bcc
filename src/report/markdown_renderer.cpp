// --format markdown: any view for PR comments and reports. It leads with the answer (a comment is
// skimmed), then every block is its own paragraph, except a run of facts. Like hyperfine's
// markup.rs, a table is a header row, a divider row and body rows in one syntax.
#include <string>

#include "kspeed/report/render.hpp"

namespace kspeed::report {

namespace {

std::string escape_cell(const std::string& cell) {
  std::string escaped;
  for (char c : cell) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string row(const std::vector<std::string>& cells, std::size_t columns) {
  std::string out = "|";
  for (std::size_t i = 0; i < columns; ++i) {
    out += " " + escape_cell(i < cells.size() ? cells[i] : std::string()) + " |";
  }
  return out + "\n";
}

std::string divider(const Table& table) {
  std::string out = "|";
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const bool right = i < table.align.size() && table.align[i] == Align::right;
    out += right ? " ---: |" : " --- |";
  }
  return out + "\n";
}

std::string markdown_table(const Table& table) {
  std::string out = row(table.header, table.header.size()) + divider(table);
  for (const auto& cells : table.rows) out += row(cells, table.header.size());
  return out;
}

std::string capitalized(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

std::string draw(const Block& block) {
  const std::string& words = block.markdown_text.empty() ? block.text : block.markdown_text;
  switch (block.kind) {
    case BlockKind::title:
      return "### " + words + "\n";
    case BlockKind::answer:
    case BlockKind::caption:
      return words + "\n";
    case BlockKind::table:
      return markdown_table(block.table);
    case BlockKind::fact:
      return "**" + capitalized(block.label) + ":** " + words + "\n";
    case BlockKind::subheading:
    case BlockKind::verdict:
      return "**" + words + "**\n";
    case BlockKind::note:
      return "> **Note:** " + words + "\n";
    case BlockKind::warning:
      return "> **Warning:** " + words + "\n";
    case BlockKind::section_break:
      return "";
  }
  return "";
}

// The answer moves up to follow the first title.
std::vector<const Block*> reading_order(const View& view) {
  std::vector<const Block*> order;
  for (const Block& block : view.blocks) {
    if (block.kind != BlockKind::answer) order.push_back(&block);
  }
  for (const Block& block : view.blocks) {
    if (block.kind != BlockKind::answer) continue;
    const bool titled = !order.empty() && order.front()->kind == BlockKind::title;
    order.insert(order.begin() + (titled ? 1 : 0), &block);
  }
  return order;
}

}  // namespace

std::string render_markdown(const Report& report, const Style& /*style*/) {
  std::string out;
  const Block* above = nullptr;
  for (const Block* block : reading_order(report.view)) {
    if (block->kind == BlockKind::section_break) {
      out += "\n";  // closes the section; the next block starts right after
      above = nullptr;
      continue;
    }
    const bool run_of_facts =
        above != nullptr && above->kind == BlockKind::fact && block->kind == BlockKind::fact;
    if (above != nullptr && !run_of_facts) out += "\n";
    out += draw(*block);
    above = block;
  }
  return out;
}

}  // namespace kspeed::report
