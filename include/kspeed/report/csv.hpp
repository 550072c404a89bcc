#pragma once
// One CSV record built field by field (RFC 4180 quoting), so every reporter writes the same
// dialect: comma-separated, a header line, "\n" line ends, null as an empty cell.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kspeed::report {

/// A cell as CSV text: quoted when it holds a comma, quote or line break.
std::string csv_escape(const std::string& cell);

/// A JSON scalar as a CSV cell: numbers at full precision, null empty, strings escaped.
std::string csv_cell(const nlohmann::ordered_json& value);

class CsvRow {
 public:
  void add(const std::string& column, const nlohmann::ordered_json& value);
  void add(const std::string& column, const std::string& value);
  std::string header_line() const;
  std::string value_line() const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::string> cells_;
};

}  // namespace kspeed::report
