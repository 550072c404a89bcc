#include "kspeed/report/csv.hpp"

namespace kspeed::report {

std::string csv_escape(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) {
    return cell;
  }
  std::string quoted = "\"";
  for (char c : cell) {
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return quoted + "\"";
}

std::string csv_cell(const nlohmann::ordered_json& value) {
  if (value.is_null()) {
    return "";
  }
  if (value.is_string()) {
    return csv_escape(value.get<std::string>());
  }
  return csv_escape(value.dump());
}

void CsvRow::add(const std::string& column, const nlohmann::ordered_json& value) {
  columns_.push_back(column);
  cells_.push_back(csv_cell(value));
}

void CsvRow::add(const std::string& column, const std::string& value) {
  columns_.push_back(column);
  cells_.push_back(csv_escape(value));
}

namespace {
std::string join_line(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    line += (i == 0 ? "" : ",") + cells[i];
  }
  return line + "\n";
}
}  // namespace

std::string CsvRow::header_line() const {
  std::vector<std::string> escaped;
  for (const std::string& column : columns_) {
    escaped.push_back(csv_escape(column));
  }
  return join_line(escaped);
}

std::string CsvRow::value_line() const {
  return join_line(cells_);
}

}  // namespace kspeed::report
