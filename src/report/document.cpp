#include "kspeed/report/document.hpp"

namespace kspeed::report {

void flatten_into(ordered_json& record, const std::string& prefix, const ordered_json& object) {
  for (const auto& [key, value] : object.items()) {
    const std::string column = prefix.empty() ? key : prefix + "_" + key;
    if (value.is_object()) {
      flatten_into(record, column, value);
    } else if (!value.is_array()) {
      record[column] = value;
    }
  }
}

std::string joined(const ordered_json& array, const char* key) {
  std::string out;
  for (const auto& item : array) {
    out += (out.empty() ? "" : ";") + (key == nullptr ? item : item[key]).get<std::string>();
  }
  return out;
}

}  // namespace kspeed::report
