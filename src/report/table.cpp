#include "kspeed/report/table.hpp"

#include <algorithm>

namespace kspeed::report {

std::size_t display_width(const std::string& text) {
  // Count code points: every byte that is not a UTF-8 continuation byte (10xxxxxx).
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() || line == indent) ? word : " " + word;
    start = end + 1;
  }
  return out + line + "\n";
}

namespace {

Align column_align(const Table& table, std::size_t column) {
  return column < table.align.size() ? table.align[column] : Align::left;
}

std::vector<std::size_t> column_widths(const Table& table) {
  std::vector<std::size_t> widths(table.header.size(), 0);
  auto widen = [&widths](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  };
  widen(table.header);
  std::for_each(table.rows.begin(), table.rows.end(), widen);
  return widths;
}

std::string text_row(const Table& table, const std::vector<std::string>& row,
                     const std::vector<std::size_t>& widths) {
  std::string line;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const std::string cell = i < row.size() ? row[i] : std::string();
    const std::string padding(widths[i] - display_width(cell), ' ');
    line += i == 0 ? "" : "  ";
    line += column_align(table, i) == Align::right ? padding + cell : cell + padding;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

std::string render_text_table(const Table& table, bool bold_header) {
  const std::vector<std::size_t> widths = column_widths(table);
  std::string header = text_row(table, table.header, widths);
  if (bold_header) {
    header = "\x1b[1m" + header.substr(0, header.size() - 1) + "\x1b[0m\n";
  }
  std::string out = header;
  for (const auto& row : table.rows) {
    out += text_row(table, row, widths);
  }
  return out;
}

}  // namespace kspeed::report
