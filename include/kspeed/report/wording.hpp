#pragma once
// Words and fields that more than one command's report uses: warning sentences (the engine
// returns warnings as values; only the report words them and names the flag that fixes them),
// lever names and the levers object.

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/run_conditions.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/profile/analysis.hpp"
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

/// How a deployment's step model was calibrated, for a headline (the source is part of the
/// answer): "fitted to FILE", "measured from FILE", "modelled at default efficiencies".
std::string calibration_phrase(const engine::CalibratedStepModel& model);

/// The deployment's one name, wherever an answer names it: "llama-3.1-8b on h100-sxm", with
/// " tp N" and " ep N" when more than one GPU shares the layers or the experts.
std::string deployment_name(const engine::Platform& platform);

/// Where a deployment's step model came from, led by its provenance: "given: --step-model",
/// "fitted: llama-3.1-8b on h100-sxm to result.json", "measured: ... calibrated on the steps of
/// FILE", "modelled: ... roofline at the cited default efficiencies".
std::string step_model_source(const engine::Deployment& deployment);

/// Where its KV capacity came from: "given: --kv-blocks", "default: unlimited", or "modelled:
/// (80 GB × 0.9 (vLLM's default) − 16.06 GB weights) / 131,072 bytes per token / 16 tokens".
std::string kv_capacity_source(const engine::Deployment& deployment);

/// The error for a served deployment whose weights leave no KV cache (kv.modelled->blocks 0).
std::string no_kv_room_error(const engine::Deployment& deployment);

/// A run condition for people: the workload's text, "8 × h100-sxm", "fp8 weights, bf16 KV
/// cache, bf16 compute", "2 tokens verified per step, 1.8 accepted on average".
std::string condition_text(const engine::Condition& condition);

/// The token_counts condition of a workload emitted by kspeed profile: "prefill measured at 512,
/// 1024 prompt tokens per request; decode measured at a KV length of 1025 tokens per request".
std::string token_counts_condition(const engine::Workload& workload);

/// "device: AMD Instinct MI300X (ROCm) vs NVIDIA B200 (CUDA); engine: SGLang vs vLLM": the values
/// each file states for the fields that differ ("-" where a file does not state it).
std::string setup_differences_text(const std::vector<profile::SetupField>& fields,
                                   const std::vector<profile::FileResult>& files);

/// "ridge 153 FLOP/byte", or "effective ridge 107 FLOP/byte (ridge 153 × η_compute /
/// η_bandwidth)" when the efficiencies move the corner.
std::string ridge_text(double ridge, double effective_ridge);

/// The near-the-ridge caveat for `kernel` ("Decode attention"), within 1.5× of the ridge.
std::string near_ridge_note(std::string_view kernel, double intensity, double ridge,
                            double effective_ridge);

/// "memory" / "compute": plain words for programs; people get "memory-bound".
const char* bound_name(engine::Bound bound);

/// "compute", "bytes", "bandwidth", "combined": the lever names in JSON and CSV.
const char* lever_kind_name(engine::LeverKind kind);

/// "bandwidth efficiency 0.5 → 0.8"
std::string bandwidth_efficiency_text(const engine::Levers& levers);

/// The Nsight Compute flag that collects `metric` (a name from
/// engine/roofline/measured_roofline.cpp):
/// "--section SpeedOfLight" for duration and the Speed-of-Light percentages, else
/// "--metrics NAME".
std::string ncu_collect_flag(const std::string& metric);

/// `metrics` with the nine SASS FLOP counters folded into one ncu "regex:" name, for people and
/// for --metrics (ncu accepts regex: names; Nsight Compute CLI, "--metrics").
std::vector<std::string> compact_metrics(const std::vector<std::string>& metrics);

/// One `ncu` option that collects all of `metrics`: the sections, then one --metrics list.
std::string ncu_collect_flags(const std::vector<std::string>& metrics);

/// The five lever fields, in docs/json-format.md order.
ordered_json levers_json(const engine::Levers& levers);

/// The assumption behind a MoE model's decode weights (MODEL.md section 8), for a view's note.
std::string expert_union_note();

}  // namespace kspeed::report
