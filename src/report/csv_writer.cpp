// --format csv: the document's records as RFC 4180 CSV: a header line from the first record's
// keys, then one line per record; "\n" line ends, null as an empty cell, numbers at full
// precision.
#include "kspeed/report/render.hpp"

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

namespace {

std::string csv_cell(const ordered_json& value) {
  if (value.is_null()) {
    return "";
  }
  if (value.is_string()) {
    return csv_escape(value.get<std::string>());
  }
  return csv_escape(value.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
}

std::string line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += (i == 0 ? "" : ",") + cells[i];
  }
  return out + "\n";
}

}  // namespace

std::string write_csv(const Report& report, const Style& /*style*/) {
  const std::vector<ordered_json>& records = report.document.records;
  if (records.empty()) {
    return "";
  }
  std::vector<std::string> header;
  for (const auto& [key, value] : records.front().items()) header.push_back(csv_escape(key));
  std::string out = line(header);
  for (const ordered_json& record : records) {
    std::vector<std::string> cells;
    for (const auto& [key, value] : record.items()) cells.push_back(csv_cell(value));
    out += line(cells);
  }
  return out;
}

}  // namespace kspeed::report
