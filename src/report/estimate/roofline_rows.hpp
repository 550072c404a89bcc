#pragma once
// The estimate's roofline additions for the text and Markdown reporters: the platform and lever
// inputs, each phase's bound, and the name of a change described by levers.

#include <string>

#include "kspeed/engine/scenario.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::report::estimate_rows {

/// "A 2.00× attention kernel", or with levers "A change of 2.00× fewer bytes (prefill attention
/// 1.00×, decode attention 2.00×)".
std::string change_name(const engine::Scenario& scenario);

/// Input rows of the levers and the effective attention speedups they give (lever mode only).
void add_lever_inputs(Table& inputs, const engine::Scenario& scenario);

/// Input rows of the model, GPU, batch, tp, KV type, precision and each phase's intensity, and
/// TPOT after the change when decode is targeted (when a platform is known).
void add_platform_inputs(Table& inputs, const engine::Estimate& estimate);

/// Inserts a "bound" column after "share" in the chain table, filled on the attention rows,
/// when a platform places the phases on the roofline; leaves the table alone otherwise.
void add_bound_column(Table& chain, const engine::Scenario& scenario);

}  // namespace kspeed::report::estimate_rows
