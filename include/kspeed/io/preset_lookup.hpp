#pragma once
// Built-in presets (data/<folder>/<name>.json) found by name, or user files found by path: the
// rule every preset kind shares (workloads, GPUs, models).

#include <string>
#include <string_view>

namespace kspeed::io {

/// True when `file_or_name` names a file rather than a built-in: it exists, contains '/', or
/// ends with ".json".
bool looks_like_path(const std::string& file_or_name);

/// The text of data/<folder>/<name>.json. Throws InputError naming `kind` ("GPU"), with a
/// did-you-mean (a unique prefix counts: "h100" -> "h100-sxm") and the command that lists them.
std::string_view builtin_preset_text(std::string_view folder, std::string_view kind,
                                     std::string_view name, std::string_view list_command);

}  // namespace kspeed::io
