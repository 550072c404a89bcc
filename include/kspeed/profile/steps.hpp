#pragma once
// Engine step annotations: one range per engine step, whose name says how much prefill
// (context) and decode (generation) work the step did. TRACES.md lists the formats.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kspeed/engine/phase.hpp"

namespace kspeed::profile {

/// Which kind of work a step did: prefill, decode, mixed or unphased (the program's one Phase).
using engine::Phase;

/// Which engine's annotation format a step came from.
enum class AnnotationStyle {
  vllm,           ///< execute_context_{n}({toks})_generation_{m}({toks}) (vLLM >= 0.14)
  vllm_legacy,    ///< execute_new_{n}_cached_{m} (vLLM ~0.13)
  tracelens,      ///< execute_{n}_context_{c}(sq..sk..)_generation_{g}(sq..sk..) (TraceLens)
  sglang,         ///< step[EXTEND bs=N toks=T], step[DECODE bs=N], step[MIXED ...]
  tensorrt_llm,   ///< [Executor] _forward_step {i}: {c} ctx reqs, {g} gen reqs
  profiler_step,  ///< ProfilerStep#N: a step boundary without a phase
};
/// "vllm", "vllm-legacy", "tracelens", "sglang", "tensorrt-llm", "profiler-step".
std::string_view to_string(AnnotationStyle style);
/// The engine the style belongs to: "vLLM", "SGLang", "TensorRT-LLM", "PyTorch".
std::string_view engine_name(AnnotationStyle style);

/// What a step annotation says. Counts are optional: each format states a different subset.
struct StepLabel {
  AnnotationStyle style = AnnotationStyle::profiler_step;
  Phase phase = Phase::unphased;
  std::optional<std::int64_t> context_requests;     ///< requests doing prefill work
  std::optional<std::int64_t> context_tokens;       ///< prompt tokens computed in the step
  std::optional<std::int64_t> generation_requests;  ///< requests generating a token
  std::optional<std::int64_t> generation_tokens;    ///< tokens generated in the step
  /// Keys attended to by the generation requests, summed (TraceLens's sk): their KV length.
  std::optional<std::int64_t> generation_kv_tokens;
};

/// Parses a step annotation; nullopt when `name` is no step annotation.
std::optional<StepLabel> parse_step_label(std::string_view name);

/// The phase implied by the amount of context and generation work.
Phase phase_from_counts(std::int64_t context_work, std::int64_t generation_work);

/// Fills what `inner` leaves unstated from `outer` (an enclosing annotation of the same step,
/// e.g. TraceLens's execute_… around SGLang's step[DECODE …]) when both agree on the phase.
StepLabel merge_labels(const StepLabel& inner, const StepLabel& outer);

/// The context length a step's share was measured at, tokens: prompt tokens per prefill request,
/// or KV length per decode request; nullopt when the annotation does not say.
std::optional<double> step_context_tokens(const StepLabel& label);

}  // namespace kspeed::profile
