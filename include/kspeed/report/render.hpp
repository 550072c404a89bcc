#pragma once
// From a command's report to the bytes of one output format. The formats are rows of one
// registry (src/report/render.cpp): a new format is one new writer file and one registry row.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/report/document.hpp"
#include "kspeed/report/view.hpp"

namespace kspeed::report {

/// What a command's result looks like to people (view) and to programs (document).
struct Report {
  View view;
  Document document;
};

/// Presentation choices that do not change the numbers.
struct Style {
  bool color = false;  ///< ANSI colour (text format only; never in files or pipes)
};

/// One --format value: an index into the registry.
class Format {
 public:
  static Format text() { return Format(0); }
  std::string_view name() const;
  /// True for formats a person reads (text, markdown): warnings are in the output itself.
  bool for_people() const;
  bool operator==(const Format& other) const { return index_ == other.index_; }

 private:
  friend std::optional<Format> parse_format(std::string_view name);
  friend std::string render(const Report& report, Format format, const Style& style);
  explicit Format(std::size_t index) : index_(index) {}
  std::size_t index_;
};

/// "json" -> the json format; nullopt for an unknown name.
std::optional<Format> parse_format(std::string_view name);

/// The names accepted by --format, in help order.
std::vector<std::string> format_names();

/// "text (a table for people), json (...)": the --format help.
std::string format_help();

/// The report in `format`.
std::string render(const Report& report, Format format, const Style& style);

/// The few ANSI attributes kspeed uses, by meaning.
enum class Ansi {
  bold,    ///< headings and the one-sentence answer
  red,     ///< a failed gate
  green,   ///< a passed gate
  yellow,  ///< warnings and notes
};

/// `text` in the attribute when style.color is on; unchanged otherwise.
std::string paint(const Style& style, const std::string& text, Ansi attribute);

}  // namespace kspeed::report
