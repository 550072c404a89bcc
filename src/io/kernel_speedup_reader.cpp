#include "kspeed/io/kernel_speedup_reader.hpp"

#include <cctype>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kFormat =
    "a CSV with the header 'context,speedup' (or 'batch,speedup'), or JSON {\"key\": \"context\", "
    "\"points\": [{\"at\": \"4k\", \"speedup\": 1.8}, ...]}";

std::string_view strip(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);  // a quoted cell, as spreadsheets write them
  }
  return text;
}

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string where(std::string_view source, std::size_t line) {
  return std::string(source) + ":" + std::to_string(line);
}

engine::SpeedupKey parse_key(std::string_view name, const std::string& at) {
  const std::string key = lower(strip(name));
  if (key == "context" || key == "ctx" || key == "context_tokens" || key == "prompt_tokens") {
    return engine::SpeedupKey::context;
  }
  if (key == "batch") {
    return engine::SpeedupKey::batch;
  }
  throw InputError(at + ": '" + excerpt(name) + "' is not a key: expected context or batch (" +
                   std::string(kFormat) + ")");
}

double parse_at(std::string_view text, engine::SpeedupKey key, const std::string& at) {
  return key == engine::SpeedupKey::context
             ? static_cast<double>(parse_token_count(strip(text), at + ": context"))
             : static_cast<double>(parse_token_count(strip(text), at + ": batch"));
}

void add_point(engine::KernelSpeedupTable& table, engine::SpeedupPoint point,
               const std::string& at) {
  if (!table.points.empty() && !(point.at > table.points.back().at)) {
    throw InputError(at + ": the points must be strictly increasing in " +
                     std::string(table.key == engine::SpeedupKey::context ? "context" : "batch") +
                     ": sort the rows and drop repeats");
  }
  if (table.points.size() >= kMaxSpeedupPoints) {
    throw InputError(at + ": more than " + std::to_string(kMaxSpeedupPoints) + " points");
  }
  table.points.push_back(point);
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(
        line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

engine::KernelSpeedupTable read_csv(std::string_view text, std::string_view source) {
  engine::KernelSpeedupTable table;
  bool header_seen = false;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (strip(line).empty()) continue;
    const std::string at = where(source, line_number);
    const std::vector<std::string_view> cells = split(line);
    if (cells.size() != 2) {
      throw InputError(at + ": expected 2 cells, found " + std::to_string(cells.size()) + " (" +
                       std::string(kFormat) + ")");
    }
    if (!header_seen) {
      table.key = parse_key(cells[0], at);
      if (lower(strip(cells[1])) != "speedup") {
        throw InputError(at + ": the second column must be 'speedup', not '" + excerpt(cells[1]) +
                         "'");
      }
      header_seen = true;
      continue;
    }
    add_point(table,
              {parse_at(cells[0], table.key, at),
               parse_positive_number(strip(cells[1]), at + ": speedup")},
              at);
  }
  return table;
}

double json_at(const nlohmann::json& value, engine::SpeedupKey key, const std::string& at) {
  if (value.is_string()) return parse_at(value.get<std::string>(), key, at);
  if (value.is_number()) {
    const double number = value.get<double>();
    const double whole = static_cast<double>(static_cast<std::int64_t>(number));
    if (number >= 1 && number <= static_cast<double>(kMaxTokens) && whole == number) {
      return number;
    }
  }
  throw InputError(at + ": expected a whole number from 1 (or \"4k\"), found " +
                   describe_json_type(value));
}

engine::KernelSpeedupTable read_json(std::string_view text, std::string_view source) {
  const nlohmann::json document = parse_json_document(text, source);
  const std::string name(source);
  if (!document.is_object() || !document.contains("points") || !document["points"].is_array()) {
    throw InputError(name + ": expected " + std::string(kFormat));
  }
  engine::KernelSpeedupTable table;
  if (document.contains("key")) {
    if (!document["key"].is_string()) {
      throw InputError(name + ": key: expected \"context\" or \"batch\"");
    }
    table.key = parse_key(document["key"].get<std::string>(), name + ": key");
  }
  std::size_t index = 0;
  for (const nlohmann::json& point : document["points"]) {
    const std::string at = name + ": points[" + std::to_string(index++) + "]";
    if (!point.is_object() || !point.contains("at") || !point.contains("speedup") ||
        !point["speedup"].is_number()) {
      throw InputError(at + ": expected {\"at\": 4096 or \"4k\", \"speedup\": 1.8}");
    }
    add_point(table,
              {json_at(point["at"], table.key, at + ".at"),
               parse_positive_number(point["speedup"].dump(), at + ".speedup")},
              at);
  }
  return table;
}

}  // namespace

engine::KernelSpeedupTable read_kernel_speedup_table(std::string_view text,
                                                     std::string_view source) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  engine::KernelSpeedupTable table = first != std::string_view::npos && text[first] == '{'
                                         ? read_json(text, source)
                                         : read_csv(text, source);
  if (table.points.empty()) {
    throw InputError(std::string(source) + ": no points: expected " + std::string(kFormat));
  }
  return table;
}

engine::KernelSpeedupTable load_kernel_speedup_table(const std::string& path) {
  return read_kernel_speedup_table(read_text_file(path, "--kernel-speedup-table"), path);
}

}  // namespace kspeed::io
