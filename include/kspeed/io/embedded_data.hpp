#pragma once
// The files under data/, compiled into the binary by cmake/embed_data.cmake.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

struct EmbeddedFile {
  std::string_view path;     ///< relative to data/, e.g. "workloads/deepseek-r1-fp8.json"
  std::string_view content;  ///< the file's bytes
};

/// Every embedded file, sorted by path.
std::span<const EmbeddedFile> embedded_files();

/// The names (file stems) of the built-ins in one folder of data/, e.g. "workloads".
std::vector<std::string> builtin_names(std::string_view folder);

/// The content of data/<folder>/<name>.json, if it is built in.
std::optional<std::string_view> builtin_content(std::string_view folder, std::string_view name);

}  // namespace kspeed::io
