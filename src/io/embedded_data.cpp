#include "kspeed/io/embedded_data.hpp"

namespace kspeed::io {

namespace {
constexpr std::string_view kJsonSuffix = ".json";
}

std::vector<std::string> builtin_names(std::string_view folder) {
  std::vector<std::string> names;
  const std::string prefix = std::string(folder) + "/";
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path.starts_with(prefix) && file.path.ends_with(kJsonSuffix)) {
      const std::string_view stem =
          file.path.substr(prefix.size(), file.path.size() - prefix.size() - kJsonSuffix.size());
      if (stem.find('/') == std::string_view::npos) {
        names.emplace_back(stem);
      }
    }
  }
  return names;
}

std::optional<std::string_view> builtin_content(std::string_view folder, std::string_view name) {
  const std::string path = std::string(folder) + "/" + std::string(name) + std::string(kJsonSuffix);
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) {
      return file.content;
    }
  }
  return std::nullopt;
}

}  // namespace kspeed::io
