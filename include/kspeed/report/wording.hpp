#pragma once
// Words and fields that more than one command's report uses: warning sentences (the engine
// returns warnings as values; only the report words them and names the flag that fixes them),
// lever names and the levers object.

#include <string>
#include <vector>

#include "kspeed/engine/roofline.hpp"
#include "kspeed/engine/scenario.hpp"
#include "kspeed/report/document.hpp"

namespace kspeed::report {

/// The warning as one sentence for people, naming the flag that addresses it.
std::string warning_sentence(const engine::Warning& warning);

/// The code scripts read: "prefill_share_clamped", "decode_attention_compute_speedup_no_gain".
std::string warning_code(const engine::Warning& warning);

/// [{"code", "input", "values": {the numbers and names involved}, "message"}]
ordered_json warnings_json(const std::vector<engine::Warning>& warnings);

/// An error message with its marks worded (kspeed/error.hpp): {flag:tp} -> "--tp",
/// {count:131072} -> "131,072".
std::string worded_error(const std::string& message);

/// The token_counts condition of a workload emitted by kspeed profile: "prefill measured at 512,
/// 1024 prompt tokens per request; decode measured at a KV length of 1025 tokens per request".
std::string token_counts_condition(const engine::Workload& workload);

/// "memory" / "compute": plain words for programs; people get "memory-bound".
const char* bound_name(engine::Bound bound);

/// "compute", "bytes", "bandwidth", "combined": the lever names in JSON and CSV.
const char* lever_kind_name(engine::LeverKind kind);

/// "bandwidth efficiency 0.5 → 0.8"
std::string bandwidth_efficiency_text(const engine::Levers& levers);

/// The five lever fields, in docs/json-format.md order.
ordered_json levers_json(const engine::Levers& levers);

}  // namespace kspeed::report
