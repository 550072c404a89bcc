#pragma once
// A table of already-formatted cells (a block of a View), and the terminal's layout helpers:
// aligned columns and word-wrapped prose. The Markdown syntax is markdown_renderer.cpp's.

#include <string>
#include <vector>

namespace kspeed::report {

enum class Align { left, right };

struct Table {
  std::vector<std::string> header;
  std::vector<Align> align;  ///< one per column; missing columns align left
  std::vector<std::vector<std::string>> rows;
};

/// Columns padded to their widest cell (by displayed characters, so "×" counts as one),
/// separated by two spaces, no trailing spaces. `bold_header` wraps the header in ANSI bold.
std::string render_text_table(const Table& table, bool bold_header = false);

/// Number of displayed characters in UTF-8 text (code points).
std::size_t display_width(const std::string& text);

/// Terminal prose (sentences, notes, warnings) is wrapped to this many columns; tables are as
/// wide as their cells.
inline constexpr std::size_t kProseWidth = 100;

/// Word-wraps `text` to `width` displayed characters; continuation lines start with `indent`.
/// Ends with a newline.
std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent = "");

}  // namespace kspeed::report
