#pragma once
// Model architecture JSON (docs/presets.md): parse, then validate, then hand the engine plain
// values.

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"

namespace kspeed::io {

/// Parses and validates a model document. `source` names it in errors.
engine::ModelArch parse_model(std::string_view text, std::string_view source);

/// `file_or_name` is a path to a model file, or the name of a built-in model.
engine::ModelArch load_model(const std::string& file_or_name);

/// The names of the built-in models.
std::vector<std::string> builtin_model_names();

/// The JSON text of a built-in model. Throws InputError (with did-you-mean) for unknown names.
std::string_view builtin_model_text(std::string_view name);

}  // namespace kspeed::io
