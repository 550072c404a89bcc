#pragma once
// Built-in presets (data/<folder>/<name>.json) found by name, or user files found by path: the
// one rule every preset kind shares (workloads, GPUs, models), in one load_named().

#include <filesystem>
#include <string>
#include <string_view>

#include "kspeed/io/files.hpp"

namespace kspeed::io {

/// What a kind of named input is called, where its built-ins live, and how to list them.
struct NamedKind {
  std::string_view folder;         ///< data/<folder>: "gpus"
  std::string_view kind;           ///< in messages: "GPU" ("GPU file", "built-in GPU 'x'")
  std::string_view unknown_label;  ///< "unknown <label> 'x'": "GPU", "built-in workload"
  std::string_view list_command;   ///< the command that lists the built-ins: "kspeed gpus"
};

inline constexpr NamedKind kWorkloadKind{"workloads", "workload", "built-in workload",
                                         "kspeed workloads"};
inline constexpr NamedKind kGpuKind{"gpus", "GPU", "GPU", "kspeed gpus"};
inline constexpr NamedKind kModelKind{"models", "model", "model", "kspeed models"};

/// True when `file_or_name` names a file rather than a built-in: it exists, contains '/', or
/// ends with ".json".
bool looks_like_path(const std::string& file_or_name);

/// "unknown GPU 'h100', did you mean 'h100-sxm'? (kspeed gpus lists them; a path to a GPU file
/// works too)": a typo gets the edit-distance suggestion, a shortened name the one built-in it
/// starts, when exactly one does.
std::string unknown_name_message(const NamedKind& kind, std::string_view name);

/// The text of data/<folder>/<name>.json. Throws InputError with unknown_name_message().
std::string_view builtin_text(const NamedKind& kind, std::string_view name);

/// A file (when `file_or_name` looks like a path) or a built-in, parsed by `parse(text,
/// source)`; a value without a name takes the file's stem or the built-in's name.
template <class Value>
Value load_named(const std::string& file_or_name, const NamedKind& kind,
                 Value (*parse)(std::string_view text, std::string_view source)) {
  const bool is_path = looks_like_path(file_or_name);
  Value value =
      is_path ? parse(read_text_file(file_or_name, std::string(kind.kind) + " file"), file_or_name)
              : parse(builtin_text(kind, file_or_name),
                      "built-in " + std::string(kind.kind) + " '" + file_or_name + "'");
  if (value.name.empty()) {
    value.name = is_path ? std::filesystem::path(file_or_name).stem().string() : file_or_name;
  }
  return value;
}

}  // namespace kspeed::io
