#pragma once
// Which model a workload's measurements belong to, and whether two names name the same model:
// the workload's KV type is the deployment's default only for that model, and the report's
// conditions (engine/run_conditions.hpp) follow the deployment the user chose.

#include <optional>
#include <string>

#include "kspeed/engine/workload.hpp"

namespace kspeed::engine {

/// The model a workload's measurements belong to: its deployment's `model`, else its stated
/// `model` condition; nullopt when it names none.
std::optional<std::string> workload_model_label(const Workload& workload);

/// True when two model names name the same model, compared by letters and digits only, one
/// containing the other ("DeepSeek-R1" and "deepseek-r1", "Llama-3.1-70B-Instruct" and
/// "llama-3.1-70b").
bool same_model(const std::string& a, const std::string& b);

}  // namespace kspeed::engine
