#pragma once
// Workload JSON (docs/workload-format.md): parse, then validate, then hand the engine plain values.

#include <string>
#include <string_view>

#include "kspeed/engine/chain/workload.hpp"

namespace kspeed::io {

/// Parses and validates a workload document. `source` names it in errors (a path or
/// "built-in workload 'x'").
engine::Workload parse_workload(std::string_view text, std::string_view source);

/// `file_or_name` is a path to a workload file, or the name of a built-in workload.
engine::Workload load_workload(const std::string& file_or_name);

/// The names of the built-in workloads.
std::vector<std::string> builtin_workload_names();

/// The JSON text of a built-in workload. Throws InputError (with did-you-mean) for unknown names.
std::string_view builtin_workload_text(std::string_view name);

}  // namespace kspeed::io
