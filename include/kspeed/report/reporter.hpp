#pragma once
// One reporter interface; one implementation per output format, each in its own file, and a
// factory per result type (estimate, roofline, profile) that picks the implementation.

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::report {

enum class Format { text, json, csv, markdown };

/// The names accepted by --format, in help order.
const std::vector<std::string>& format_names();

/// "json" -> Format::json; nullopt for an unknown name.
std::optional<Format> parse_format(std::string_view name);

/// Presentation choices that do not change the numbers.
struct Style {
  bool color = false;  ///< ANSI colour (text format only; never in files or pipes)
};

/// The few ANSI attributes kspeed uses, by meaning.
enum class Ansi {
  bold,    ///< headings and the one-sentence answer
  red,     ///< a failed gate
  green,   ///< a passed gate
  yellow,  ///< warnings and notes
};

/// `text` in the attribute when style.color is on; unchanged otherwise.
std::string paint(const Style& style, const std::string& text, Ansi attribute);

/// Writes one kind of result in one format.
template <class Result>
class Reporter {
 public:
  Reporter() = default;
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;
  virtual ~Reporter() = default;
  virtual void write(const Result& result, std::ostream& out) const = 0;
};

}  // namespace kspeed::report
