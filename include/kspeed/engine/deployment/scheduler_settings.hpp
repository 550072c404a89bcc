#pragma once
// How the deployment's serving engine forms its steps: the scheduler's settings (vLLM's
// `vllm serve` flags and their defaults). They belong to the deployment (engine::Deployment),
// and the replay (serving/batch_replay.hpp) runs by them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kspeed::engine {

/// vLLM's defaults for `vllm serve` on GPUs with >= 70 GiB other than A100 (H100, H200, MI300X):
/// EngineArgs.get_batch_defaults in vllm/engine/arg_utils.py. On smaller GPUs and A100 vLLM uses
/// 2048 tokens and 256 sequences.
inline constexpr std::int64_t kVllmMaxBatchedTokens = 8192;
inline constexpr std::int64_t kVllmMaxSeqs = 1024;
/// vLLM's CacheConfig.block_size default for CUDA (vllm/config/cache.py).
inline constexpr std::int64_t kVllmBlockTokens = 16;

/// Which requests share a step.
enum class SchedulerPolicy : std::uint8_t {
  /// vLLM V1: one step carries the running decodes and prefill chunks together, decodes first
  /// (vllm/v1/core/sched/scheduler.py).
  mixed,
  /// Prefill first, steps of one kind: whenever a prompt is waiting and fits, the step runs
  /// prefills only and the running decodes stall; otherwise a decode-only step. SGLang's default
  /// (mixed chunks only with --enable-mixed-chunk: python/sglang/srt/managers/scheduler.py,
  /// get_next_batch_to_run) and vLLM's V0 scheduler without chunked prefill
  /// (vllm/core/scheduler.py,
  /// _schedule_default).
  prefill_first,
};

/// The name a SchedulerPolicy's built-in StepPolicy is registered under (serving/step_policy.hpp).
constexpr std::string_view scheduler_policy_name(SchedulerPolicy policy) {
  return policy == SchedulerPolicy::mixed ? "mixed" : "prefill_first";
}

/// How each step is formed: every assumption the replay makes about the engine.
struct SchedulerOptions {
  SchedulerPolicy policy = SchedulerPolicy::mixed;
  std::int64_t max_batched_tokens = kVllmMaxBatchedTokens;  ///< token budget of one step
  std::int64_t max_seqs = kVllmMaxSeqs;                     ///< running requests at most
  bool chunked_prefill = true;  ///< vLLM V1 default: on (a prompt may span steps)
  std::int64_t block_tokens = kVllmBlockTokens;
  std::optional<std::int64_t> kv_blocks;  ///< KV capacity per replica; nullopt: unlimited
  double request_overhead_ms = 0;         ///< per request, outside the engine, never queued
  /// A policy registered by name (register_step_policy); empty: `policy`'s built-in.
  std::string policy_name;
};

}  // namespace kspeed::engine
