#pragma once
// A format-neutral view of one command's result: what a person reads, in order. Each command
// builds one (estimate_view, roofline_view, profile_view); each people-format renderer (text,
// markdown) draws any view. The renderers own the syntax and the spacing; the view owns the words.

#include <string>
#include <vector>

#include "kspeed/report/table.hpp"

namespace kspeed::report {

enum class BlockKind {
  title,          ///< the heading of the document or of one section of it
  answer,         ///< the point in one sentence; Markdown leads with it, text puts it where it is
  table,          ///< aligned rows with units already in the cells
  caption,        ///< lines that belong to the table above them (where the numbers come from)
  fact,           ///< "label: text", e.g. the workload's conditions
  subheading,     ///< introduces the table below it
  note,           ///< something worth knowing that changes no number
  warning,        ///< something that may make a number wrong; also written to stderr
  verdict,        ///< a pass/fail line (a --min-* gate)
  section_break,  ///< the end of one section (one trace file) when more may follow
};

/// How a verdict reads: passed or failed.
enum class Tone { neutral, good, bad };

struct Block {
  BlockKind kind = BlockKind::caption;
  std::string text;           ///< the words (title, sentence, caption lines separated by '\n')
  std::string markdown_text;  ///< other words for Markdown, when the terminal's do not fit there
  std::string label;          ///< fact: its label ("conditions")
  Table table;                ///< table blocks only
  Tone tone = Tone::neutral;  ///< verdicts
  bool hang = true;           ///< text: wrapped lines of a caption start with two spaces
};

struct View {
  std::vector<Block> blocks;

  void title(std::string text, std::string markdown_text = "");
  void answer(std::string text);
  void table(Table table);
  void caption(std::string text, std::string markdown_text = "", bool hang = true);
  void fact(std::string label, std::string text);
  void subheading(std::string text, std::string markdown_text = "");
  void note(std::string text);
  void warning(std::string text);
  void verdict(std::string text, bool passed);
  void section_break();

  /// The warning sentences, in order (for stderr when the report is not read on a terminal).
  std::vector<std::string> warnings() const;
};

}  // namespace kspeed::report
