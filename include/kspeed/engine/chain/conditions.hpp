#pragma once
// Which model a workload's measurements belong to, and whether two names name the same model:
// the workload's KV type is the deployment's default only for that model, and the run's
// conditions (engine/chain/run_conditions.hpp) follow the deployment the user chose. Here too, the
// values a condition can state.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "kspeed/engine/chain/workload.hpp"

namespace kspeed::engine {

/// The model a workload's measurements belong to: its deployment's `model`, else its stated
/// `model` condition; nullopt when it names none.
std::optional<std::string> workload_model_label(const Workload& workload);

/// True when two model names name the same model, compared by letters and digits only, one
/// containing the other ("DeepSeek-R1" and "deepseek-r1", "Llama-3.1-70B-Instruct" and
/// "llama-3.1-70b").
bool same_model(const std::string& a, const std::string& b);

/// The deployment's hardware: `gpus` of one kind (tensor parallelism).
struct HardwareCondition {
  std::int64_t gpus = 1;
  std::string gpu;  ///< the GPU's name, e.g. "h100-sxm"
};

/// The three data types the decode model prices.
struct PrecisionCondition {
  std::string weights;   ///< e.g. "fp8"
  std::string kv_cache;  ///< e.g. "bf16"
  std::string compute;   ///< e.g. "bf16"
};

/// Speculative decoding: tokens verified per step and accepted on average.
struct SpeculationCondition {
  double tokens_per_step = 1;
  double mean_accepted = 1;
};

/// What a condition states: the workload's own text, the model's name as a string, or the
/// deployment's values for the report to word.
using ConditionValue =
    std::variant<std::string, HardwareCondition, PrecisionCondition, SpeculationCondition>;

}  // namespace kspeed::engine
