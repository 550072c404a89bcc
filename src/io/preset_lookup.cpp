#include "kspeed/io/preset_lookup.hpp"

#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::io {

namespace {

// A typo gets the edit-distance suggestion; a shortened name ("h100") gets the one preset it
// starts, when exactly one does.
std::string preset_suggestion(std::string_view name, const std::vector<std::string>& names) {
  if (!closest_match(name, names)) {
    std::vector<std::string> extensions;
    for (const std::string& candidate : names) {
      if (!name.empty() && candidate.starts_with(name)) {
        extensions.push_back(candidate);
      }
    }
    if (extensions.size() == 1) {
      return ", did you mean '" + extensions.front() + "'?";
    }
  }
  return suggestion_suffix(name, names);
}

}  // namespace

bool looks_like_path(const std::string& file_or_name) {
  std::error_code ec;
  return std::filesystem::exists(file_or_name, ec) || file_or_name.find('/') != std::string::npos ||
         file_or_name.ends_with(".json");
}

std::string unknown_name_message(const NamedKind& kind, std::string_view name) {
  return "unknown " + std::string(kind.unknown_label) + " '" + excerpt(name) + "'" +
         preset_suggestion(name, builtin_names(kind.folder)) + " (" +
         std::string(kind.list_command) + " lists them; a path to a " + std::string(kind.kind) +
         " file works too)";
}

std::string_view builtin_text(const NamedKind& kind, std::string_view name) {
  if (auto content = builtin_content(kind.folder, name)) {
    return *content;
  }
  throw InputError(unknown_name_message(kind, name));
}

}  // namespace kspeed::io
