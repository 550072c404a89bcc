#include "kspeed/report/view.hpp"

#include <utility>

namespace kspeed::report {

namespace {

Block block(BlockKind kind, std::string text, std::string markdown_text = "") {
  Block out;
  out.kind = kind;
  out.text = std::move(text);
  out.markdown_text = std::move(markdown_text);
  return out;
}

}  // namespace

void View::title(std::string text, std::string markdown_text) {
  blocks.push_back(block(BlockKind::title, std::move(text), std::move(markdown_text)));
}

void View::answer(std::string text) {
  blocks.push_back(block(BlockKind::answer, std::move(text)));
}

void View::table(Table table) {
  Block out = block(BlockKind::table, "");
  out.table = std::move(table);
  blocks.push_back(std::move(out));
}

void View::caption(std::string text, std::string markdown_text, bool hang) {
  Block out = block(BlockKind::caption, std::move(text), std::move(markdown_text));
  out.hang = hang;
  blocks.push_back(std::move(out));
}

void View::fact(std::string label, std::string text) {
  Block out = block(BlockKind::fact, std::move(text));
  out.label = std::move(label);
  blocks.push_back(std::move(out));
}

void View::subheading(std::string text, std::string markdown_text) {
  blocks.push_back(block(BlockKind::subheading, std::move(text), std::move(markdown_text)));
}

void View::note(std::string text) {
  blocks.push_back(block(BlockKind::note, std::move(text)));
}

void View::warning(std::string text) {
  blocks.push_back(block(BlockKind::warning, std::move(text)));
}

void View::verdict(std::string text, bool passed) {
  Block out = block(BlockKind::verdict, std::move(text));
  out.tone = passed ? Tone::good : Tone::bad;
  blocks.push_back(std::move(out));
}

void View::section_break() {
  blocks.push_back(block(BlockKind::section_break, ""));
}

std::vector<std::string> View::warnings() const {
  std::vector<std::string> out;
  for (const Block& b : blocks) {
    if (b.kind == BlockKind::warning) out.push_back(b.text);
  }
  return out;
}

}  // namespace kspeed::report
