#pragma once
// The rows that the text and Markdown estimate reporters share; only the syntax differs.

#include <string>

#include "kspeed/engine/scenario.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::report::estimate_rows {

/// The dilution chain: level, share of its parent, before, after, saved, speedup, ceiling.
Table chain_table(const engine::Estimate& estimate);

/// Every input with its value and source.
Table inputs_table(const engine::Estimate& estimate);

/// The point in one sentence: "A 2.00× faster attention kernel makes the request ...".
std::string summary_sentence(const engine::Estimate& estimate);

/// "model DeepSeek-R1; precision FP8 ..." and the list of unstated checklist items.
std::string conditions_line(const engine::Workload& workload);
std::string missing_conditions_line(const engine::Workload& workload);

/// "PASS min-request-speedup: 1.0066× >= 1.0100×" style lines, one per gate.
std::string gate_line(const engine::GateCheck& gate);

}  // namespace kspeed::report::estimate_rows
