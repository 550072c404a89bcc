#pragma once
// What the text and Markdown roofline reporters share; only the syntax differs.

#include <string>

#include "kspeed/engine/roofline_analysis.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::report::roofline_rows {

/// "decode attention · llama-3.1-70b on h100-sxm (bf16) · context 4,096 · batch 1 · tp 1"
std::string heading(const engine::RooflineResult& result);

/// The kernel and the roof: figure, value, source.
Table figures_table(const engine::RooflineResult& result);

/// What each lever is worth on this kernel: lever, before, after, speedup, bound after.
Table levers_table(const engine::RooflineResult& result);

/// The point in one sentence.
std::string summary_sentence(const engine::RooflineResult& result);

/// The line under the levers table when the levers are illustrative, else empty.
std::string illustrative_note(const engine::RooflineResult& result);

}  // namespace kspeed::report::roofline_rows
