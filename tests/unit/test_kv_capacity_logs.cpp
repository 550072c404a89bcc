// The KV cache sizing (engine/deployment/kv_capacity) against public vLLM start-up logs. Every
// term is derived from vLLM's code (kv_capacity.hpp); the logs only check it. Each case takes
// from its log what the log states about the deployment (the GPU, model, dtype,
// gpu_memory_utilization, the profile run's tokens and the vLLM version, whose accounting rule
// VllmMemoryRule follows); the GPU's visible memory is its preset's (the 80 GB logs state none:
// PR 10511's own total and an A100's PyTorch message stand in), and the non-torch default comes
// from another run (vLLM PR 14447). No log here set a number. docs/validation.md section 6
// tabulates these cases and prints the same predictions from the binary.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fixtures.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace unit_kv_capacity_logs {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// One public start-up log: what it states, and the blocks it logged.
struct VllmStartupLog {
  const char* gpu;                  // the GPU preset
  double visible_gib;               // 0: the preset's memory_visible_gib; else the log's own
  double utilization;               // gpu_memory_utilization
  std::int64_t max_batched_tokens;  // the profile run's tokens
  std::int64_t max_seqs;
  std::int64_t context_tokens;  // the model's max_position_embeddings (its rotary cache)
  VllmMemoryRule rule;          // the accounting of the vLLM version that wrote the log
  std::int64_t logged_blocks;
};

// Llama-3.1-8B in BF16 (the preset; Meta-Llama-3-8B has the same shapes) on the log's GPU.
std::int64_t predicted_blocks(const VllmStartupLog& log, Platform platform) {
  if (log.visible_gib > 0) platform.gpu.value.memory_visible_gib = log.visible_gib;
  REQUIRE(platform.gpu.value.memory_visible_gib);
  platform.model.value.context_tokens = log.context_tokens;
  KvSizing sizing;
  sizing.rule = log.rule;
  sizing.memory_utilization = log.utilization;
  sizing.max_batched_tokens = log.max_batched_tokens;
  sizing.max_seqs = log.max_seqs;
  return kv_cache_capacity(platform, sizing).blocks;
}

std::int64_t predicted_blocks(const VllmStartupLog& log) {
  return predicted_blocks(log, test::platform_for("llama-3.1-8b", log.gpu));
}

// Llama-2-7B (meta-llama/Llama-2-7b-hf config.json: 32 layers, 32 query and 32 KV heads of 128,
// hidden 4,096, intermediate 11,008, vocabulary 32,000, untied, max_position_embeddings 4,096)
// in FP16, built from the Llama-3.1-8B preset's shapes.
Platform llama2_7b_on(const char* gpu) {
  Platform platform = test::platform_for("llama-3.1-8b", gpu);
  ModelArch& model = platform.model.value;
  model.name = "llama-2-7b";
  model.kv_heads = 32;
  model.total_params_billions = 6.74;
  model.active_params_billions = 6.74;
  model.shapes->vocab_size = 32000;
  model.shapes->ffn.intermediate_size = 11008;
  return platform;
}

double relative_error(std::int64_t predicted, std::int64_t logged) {
  return static_cast<double>(predicted - logged) / static_cast<double>(logged);
}

}  // namespace

TEST_CASE("KV blocks against public vLLM start-up logs of Llama-3(.1)-8B", "[kv_capacity_logs]") {
  // V0 without chunked prefill: the profile run is max_model_len tokens over 256 sequences.
  // https://github.com/vllm-project/vllm/pull/10511 (Meta-Llama-3-8B, max_position_embeddings
  // 8,192; an 80 GB GPU the PR does not name, 79.22 GiB visible, 0.90, max_model_len 8,192; the
  // PR's own code, vLLM 0.6.5's rule): available_kv_cache_memory 53.29 GiB = 27,284 blocks of
  // 16 tokens × 128 KiB. The PR names no GPU: its 79.22 GiB stands in for the preset's memory.
  const VllmStartupLog h100{
      "h100-sxm", 79.22, 0.9, 8192, 256, 8192, VllmMemoryRule::growth_since_start, 27284};
  // https://github.com/vllm-project/vllm/issues/10517 (RTX 3090, Llama-3.1-8B-Instruct,
  // max_position_embeddings 131,072, 0.90, --max-model-len 20000 and 29000, vLLM 0.6.4):
  // "# GPU blocks: 1952" and 1478. The rtx-3090 preset's 23.58 GiB visible comes from another
  // log (PR 14447); these print the same.
  const VllmStartupLog rtx3090_20k{
      "rtx-3090", 0, 0.9, 20000, 256, 131072, VllmMemoryRule::device_wide, 1952};
  const VllmStartupLog rtx3090_29k{
      "rtx-3090", 0, 0.9, 29000, 256, 131072, VllmMemoryRule::device_wide, 1478};
  // The rotary cache: 131,072 positions × 128 × 2 bytes = 32 MiB for Llama 3.1 (vLLM logs its
  // weights as 14.99 GiB against 14.96 GiB for Meta-Llama-3-8B's 8,192 positions).
  CHECK(rotary_cache_bytes(test::platform_for("llama-3.1-8b", "rtx-3090").model.value) ==
        Approx(131072.0 * 128 * 2));
  // Predictions (checked in python over the same arithmetic): 28,311, 2,034 and 1,559.
  CHECK(predicted_blocks(h100) == 28311);
  CHECK(predicted_blocks(rtx3090_20k) == 2034);
  CHECK(predicted_blocks(rtx3090_29k) == 1559);
  // Errors: +3.8%, +4.2%, +5.5%. On the 24 GB card the cache is a sixth of the memory, and
  // vLLM 0.6.4 counts the CUDA context as non-torch memory (these logs print 0.35 GiB) where
  // kspeed's reserve (0.20 GiB, another run's, after the context left the count) does not.
  CHECK(std::abs(relative_error(predicted_blocks(h100), h100.logged_blocks)) < 0.05);
  CHECK(relative_error(predicted_blocks(rtx3090_20k), rtx3090_20k.logged_blocks) ==
        Approx(0.0420).margin(0.001));
  CHECK(relative_error(predicted_blocks(rtx3090_29k), rtx3090_29k.logged_blocks) ==
        Approx(0.0548).margin(0.001));
  // The activation term moves the count the way the logs do: 9,000 more profile tokens cost
  // 9,000 · 110,592 bytes = 0.93 GiB (the logs' peak_torch_memory 17.06 → 17.98 GiB: 0.92).
  CHECK(predicted_blocks(rtx3090_20k) - predicted_blocks(rtx3090_29k) ==
        rtx3090_20k.logged_blocks - rtx3090_29k.logged_blocks + 1);
}

TEST_CASE("KV blocks against vLLM pull request 2031's Llama-2-7B logs, before and after it",
          "[kv_capacity_logs]") {
  // https://github.com/vllm-project/vllm/pull/2031 (December 2023): Llama-2-7B, TP 1, one
  // A100-80GB, vLLM's defaults then (0.90; max_num_batched_tokens max(max_model_len 4,096,
  // 2,048) = 4,096 profile tokens over 256 sequences): "# GPU blocks: 7449" on the main branch
  // before the PR (peak = torch.cuda.max_memory_allocated(): nothing outside PyTorch counted)
  // and 7351 with it (peak = total − free: everything on the device). The A100-80GB's visible
  // memory: 79.25 GiB, a PyTorch out-of-memory message on an A100 ("79.25 GiB total capacity",
  // https://github.com/levihsu/OOTDiffusion/issues/235); the PR names neither the driver nor the
  // A100's form factor. A block: 16 tokens × 32 layers × 2 × 32 heads × 128 × 2 bytes = 8 MiB.
  const VllmStartupLog before{
      "a100-sxm-80gb", 79.25, 0.9, 4096, 256, 4096, VllmMemoryRule::torch_only, 7449};
  const VllmStartupLog after{
      "a100-sxm-80gb", 79.25, 0.9, 4096, 256, 4096, VllmMemoryRule::device_wide, 7351};
  // (79.25 GiB · 0.9 − 13,476,298,752 weights − 1 MiB rotary − 4,096 · 45,312 · 2 activation
  // [− 0.20 GiB]) / 8 MiB: python gives 7,478 and 7,453.
  CHECK(predicted_blocks(before, llama2_7b_on(before.gpu)) == 7478);
  CHECK(predicted_blocks(after, llama2_7b_on(after.gpu)) == 7453);
  // +0.4% and +1.4%: within 5% on an 80 GB card, where the cache is 73% of the memory. The
  // second misses the CUDA context vLLM then counted (0.80 GiB more than kspeed's reserve would
  // close it; no independent figure for it is used).
  CHECK(relative_error(predicted_blocks(before, llama2_7b_on(before.gpu)), before.logged_blocks) ==
        Approx(0.0039).margin(0.001));
  CHECK(relative_error(predicted_blocks(after, llama2_7b_on(after.gpu)), after.logged_blocks) ==
        Approx(0.0139).margin(0.001));
}

TEST_CASE("vLLM versions map to the memory accounting their worker used", "[kv_capacity_logs]") {
  CHECK(vllm_memory_rule_of("0.2.4", "--vllm-version") == VllmMemoryRule::torch_only);
  CHECK(vllm_memory_rule_of("0.2.5", "--vllm-version") == VllmMemoryRule::device_wide);
  CHECK(vllm_memory_rule_of("v0.6.4.post1", "--vllm-version") == VllmMemoryRule::device_wide);
  CHECK(vllm_memory_rule_of("0.6.5", "--vllm-version") == VllmMemoryRule::growth_since_start);
  CHECK(vllm_memory_rule_of("0.19.0", "--vllm-version") == VllmMemoryRule::growth_since_start);
  CHECK(vllm_memory_rule_of("0.20.2rc1", "--vllm-version") == VllmMemoryRule::growth_since_start);
  CHECK(vllm_memory_rule_of("0.21", "--vllm-version") == VllmMemoryRule::with_cuda_graph_estimate);
  CHECK(vllm_memory_rule_of("1.0.0", "--vllm-version") == VllmMemoryRule::with_cuda_graph_estimate);
  CHECK_THROWS_AS(vllm_memory_rule_of("latest", "--vllm-version"), InputError);
  CHECK_THROWS_AS(vllm_memory_rule_of("0", "--vllm-version"), InputError);
  // Only the oldest rule changes kspeed's count: it drops the non-torch reserve.
  const Platform platform = test::platform_for("llama-3.1-8b", "h100-sxm");
  KvSizing old_rule;
  old_rule.rule = VllmMemoryRule::torch_only;
  CHECK(kv_cache_capacity(platform, old_rule).non_torch_bytes == 0);
  CHECK(kv_cache_capacity(platform, KvSizing{}).non_torch_bytes == Approx(0.2 * kBytesPerGib));
}

TEST_CASE("KV blocks against the LLMServingSim RTX 4090 run's recorded vLLM 0.19 cache",
          "[kv_capacity_logs][real]") {
  const std::string folder = std::string(KSPEED_SOURCE_DIR) +
                             "/../shared/data/serving/llmservingsim-vllm0.19-per-request/"
                             "RTX4090_Llama-3.1-8B";
  if (!std::filesystem::exists(folder)) return;
  // meta.json: device_total_memory_bytes 25,250,627,584, gpu_memory_utilization 0.9,
  // max_num_batched_tokens 2,048, max_num_seqs 256, num_gpu_blocks 2,588.
  REQUIRE(*io::read_llmservingsim_run(folder).kv_blocks == 2588);
  // The rtx-4090 preset's visible memory is this run's (23.52 GiB); the exact bytes here.
  const VllmStartupLog rtx4090{"rtx-4090", 25250627584.0 / kBytesPerGib,       0.9, 2048, 256,
                               131072,     VllmMemoryRule::growth_since_start, 2588};
  // 2,951 predicted: +14.0%. vLLM V1 (0.19) reserves ~0.8 GB more than the V0 profile run this
  // models (its sampler and persistent buffers, torch.compile's workspace, CUDA graphs once
  // profiled): a known miss, stated in docs/validation.md.
  CHECK(predicted_blocks(rtx4090) == 2951);
}

}  // namespace unit_kv_capacity_logs
