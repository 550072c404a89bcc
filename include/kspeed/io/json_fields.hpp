#pragma once
// Field readers shared by the preset and workload readers, beside JsonReader's own.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "kspeed/io/json_document.hpp"

namespace kspeed::io {

/// A whole number >= 1 (layers, heads, batch sizes, GPU counts); fails naming `path`.
std::int64_t positive_count(const JsonReader& reader, const nlohmann::json& value,
                            const std::string& path);

}  // namespace kspeed::io
