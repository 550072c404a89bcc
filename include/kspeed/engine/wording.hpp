#pragma once
// The few number-to-text conversions the engine needs for its warning sentences. The engine does
// no I/O and uses no formatting library; people-facing tables are the reporters' job.

#include <string>

namespace kspeed::engine {

/// Shortest text that reads back as the same double ("0.18", "4096", "1e+30").
std::string plain_number(double value);

/// A token count with thousands separators: 131072 -> "131,072".
std::string count_text(double tokens);

/// A share as a percentage with one decimal: 0.18 -> "18.0%".
std::string percent_text(double share);

}  // namespace kspeed::engine
