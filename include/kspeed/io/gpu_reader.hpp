#pragma once
// GPU JSON (docs/presets.md): parse, then validate, then hand the engine plain values.

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"

namespace kspeed::io {

/// Parses and validates a GPU document. `source` names it in errors.
engine::Gpu parse_gpu(std::string_view text, std::string_view source);

/// `file_or_name` is a path to a GPU file, or the name of a built-in GPU.
engine::Gpu load_gpu(const std::string& file_or_name);

/// The names of the built-in GPUs.
std::vector<std::string> builtin_gpu_names();

/// The JSON text of a built-in GPU. Throws InputError (with did-you-mean) for unknown names.
std::string_view builtin_gpu_text(std::string_view name);

}  // namespace kspeed::io
