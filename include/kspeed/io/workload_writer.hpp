#pragma once
// Writing a workload as JSON that io::parse_workload reads back (docs/workload-format.md).

#include <string>

#include "kspeed/engine/chain/workload.hpp"

namespace kspeed::io {

/// The workload as a JSON document (keys in the reader's order, ending with a newline).
std::string workload_to_json_text(const engine::Workload& workload);

}  // namespace kspeed::io
