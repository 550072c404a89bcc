#include "kspeed/profile/steps.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "kspeed/profile/regex.hpp"
#include "kspeed/profile/trace.hpp"

namespace kspeed::profile {

namespace {

using Groups = std::vector<std::string>;

std::int64_t to_int(const std::string& digits) {
  std::int64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return value;
}

// The groups of `pattern` (POSIX ERE) matched against `name`, or nullopt.
std::optional<Groups> match(const Regex& pattern, std::string_view name) {
  return pattern.captures(std::string(name));
}

std::optional<std::int64_t> named_count(const std::string& fields, const char* key) {
  const Regex pattern(std::string("(^|[[:space:]])") + key + "=([0-9]+)");
  const auto groups = pattern.captures(fields);
  if (!groups) return std::nullopt;
  return to_int((*groups)[2]);
}

// vLLM >= 0.14: execute_context_{nCtxReqs}({ctxTokens}[_...])_generation_{nGen}({genTokens}[_...])
std::optional<StepLabel> parse_vllm(std::string_view name) {
  static const Regex pattern(
      R"(^execute_context_([0-9]+)\(([0-9]+)[^)]*\)_generation_([0-9]+)\(([0-9]+)[^)]*\))");
  const auto m = match(pattern, name);
  if (!m) return std::nullopt;
  StepLabel label;
  label.style = AnnotationStyle::vllm;
  label.context_requests = to_int((*m)[1]);
  label.context_tokens = to_int((*m)[2]);
  label.generation_requests = to_int((*m)[3]);
  label.generation_tokens = to_int((*m)[4]);
  label.phase = phase_from_counts(*label.context_tokens, *label.generation_tokens);
  return label;
}

// TraceLens: execute_{n}_context_{c}(sq{q}sk{k}...)_generation_{g}(sq{q}sk{k}...); sq are query
// tokens, sk the keys attended to (the KV length, summed over requests).
std::optional<StepLabel> parse_tracelens(std::string_view name) {
  static const Regex pattern(R"(^execute_([0-9]+)_context_([0-9]+)\(sq([0-9]+)sk([0-9]+)[^)]*\))"
                             R"(_generation_([0-9]+)\(sq([0-9]+)sk([0-9]+)[^)]*\))");
  const auto m = match(pattern, name);
  if (!m) return std::nullopt;
  StepLabel label;
  label.style = AnnotationStyle::tracelens;
  label.context_requests = to_int((*m)[2]);
  label.context_tokens = to_int((*m)[3]);
  label.generation_requests = to_int((*m)[5]);
  label.generation_tokens = to_int((*m)[6]);
  label.generation_kv_tokens = to_int((*m)[7]);
  label.phase = phase_from_counts(*label.context_tokens, *label.generation_tokens);
  return label;
}

// vLLM ~0.13: execute_new_{n}_cached_{m}: n newly scheduled requests (prefill), m running ones
// (decode, or the next chunk of a chunked prefill). No token counts.
std::optional<StepLabel> parse_vllm_legacy(std::string_view name) {
  static const Regex pattern(R"(^execute_new_([0-9]+)_cached_([0-9]+))");
  const auto m = match(pattern, name);
  if (!m) return std::nullopt;
  StepLabel label;
  label.style = AnnotationStyle::vllm_legacy;
  label.context_requests = to_int((*m)[1]);
  label.generation_requests = to_int((*m)[2]);
  label.phase = phase_from_counts(*label.context_requests, *label.generation_requests);
  return label;
}

// SGLang >= 0.5.13: step[EXTEND bs=N toks=T], step[DECODE bs=N], step[MIXED ...].
std::optional<StepLabel> parse_sglang(std::string_view name) {
  static const Regex pattern(R"(^step\[([A-Z_]+)([^]]*)\])");
  const auto m = match(pattern, name);
  if (!m) return std::nullopt;
  const std::string& mode = (*m)[1];
  const std::string& fields = (*m)[2];
  StepLabel label;
  label.style = AnnotationStyle::sglang;
  const auto batch = named_count(fields, "bs");
  const auto tokens = named_count(fields, "toks");
  if (mode == "EXTEND" || mode == "PREFILL") {
    label.phase = Phase::prefill;
    label.context_requests = batch;
    label.context_tokens = tokens;
  } else if (mode == "DECODE") {
    label.phase = Phase::decode;
    label.generation_requests = batch;
    label.generation_tokens = batch;  // one token per request per decode step
  } else if (mode == "MIXED") {
    label.phase = Phase::mixed;
    label.context_tokens = tokens;
  } else {
    label.phase = Phase::unphased;  // IDLE and modes SGLang may add later
  }
  return label;
}

// TensorRT-LLM PyTorch backend (NVTX): [Executor] _forward_step {i}: {c} ctx reqs, {g} gen reqs
std::optional<StepLabel> parse_tensorrt_llm(std::string_view name) {
  static const Regex pattern(
      R"(^\[Executor\] _forward_step ([0-9]+): ([0-9]+) ctx reqs, ([0-9]+) gen reqs)");
  const auto m = match(pattern, name);
  if (!m) return std::nullopt;
  StepLabel label;
  label.style = AnnotationStyle::tensorrt_llm;
  label.context_requests = to_int((*m)[2]);
  label.generation_requests = to_int((*m)[3]);
  label.phase = phase_from_counts(*label.context_requests, *label.generation_requests);
  return label;
}

std::optional<StepLabel> parse_profiler_step(std::string_view name) {
  static const Regex pattern(R"(^ProfilerStep#[0-9]+$)");
  if (!match(pattern, name)) return std::nullopt;
  return StepLabel{};
}

}  // namespace

std::string_view to_string(AnnotationStyle style) {
  switch (style) {
    case AnnotationStyle::vllm:
      return "vllm";
    case AnnotationStyle::vllm_legacy:
      return "vllm-legacy";
    case AnnotationStyle::tracelens:
      return "tracelens";
    case AnnotationStyle::sglang:
      return "sglang";
    case AnnotationStyle::tensorrt_llm:
      return "tensorrt-llm";
    case AnnotationStyle::profiler_step:
      return "profiler-step";
  }
  return "profiler-step";
}

std::string_view engine_name(AnnotationStyle style) {
  switch (style) {
    case AnnotationStyle::vllm:
    case AnnotationStyle::vllm_legacy:
    case AnnotationStyle::tracelens:
      return "vLLM";
    case AnnotationStyle::sglang:
      return "SGLang";
    case AnnotationStyle::tensorrt_llm:
      return "TensorRT-LLM";
    case AnnotationStyle::profiler_step:
      return "PyTorch";
  }
  return "PyTorch";
}

Phase phase_from_counts(std::int64_t context_work, std::int64_t generation_work) {
  if (context_work > 0 && generation_work > 0) return Phase::mixed;
  if (context_work > 0) return Phase::prefill;
  if (generation_work > 0) return Phase::decode;
  return Phase::unphased;  // an idle step
}

std::optional<StepLabel> parse_step_label(std::string_view name) {
  if (!looks_like_step_annotation(name)) return std::nullopt;
  for (auto parse : {parse_vllm, parse_tracelens, parse_vllm_legacy, parse_sglang,
                     parse_tensorrt_llm, parse_profiler_step}) {
    if (auto label = parse(name)) return label;
  }
  return std::nullopt;
}

StepLabel merge_labels(const StepLabel& inner, const StepLabel& outer) {
  if (inner.phase != outer.phase) return inner;
  StepLabel merged = inner;
  auto fill = [](std::optional<std::int64_t>& to, const std::optional<std::int64_t>& from) {
    if (!to && from) to = from;
  };
  fill(merged.context_requests, outer.context_requests);
  fill(merged.context_tokens, outer.context_tokens);
  fill(merged.generation_requests, outer.generation_requests);
  fill(merged.generation_tokens, outer.generation_tokens);
  fill(merged.generation_kv_tokens, outer.generation_kv_tokens);
  return merged;
}

std::optional<double> step_context_tokens(const StepLabel& label) {
  // Prefill: prompt tokens computed per request (the prompt length when nothing was cached or
  // chunked). Decode: keys attended to per request (the KV length).
  if (label.phase == Phase::prefill && label.context_tokens && label.context_requests &&
      *label.context_requests > 0 && *label.context_tokens > 0) {
    return static_cast<double>(*label.context_tokens) /
           static_cast<double>(*label.context_requests);
  }
  if (label.phase == Phase::decode && label.generation_kv_tokens && label.generation_requests &&
      *label.generation_requests > 0 && *label.generation_kv_tokens > 0) {
    return static_cast<double>(*label.generation_kv_tokens) /
           static_cast<double>(*label.generation_requests);
  }
  return std::nullopt;
}

}  // namespace kspeed::profile
