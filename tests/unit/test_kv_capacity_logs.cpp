// The KV cache sizing (engine/deployment/kv_capacity) against public vLLM start-up logs. Every
// term is derived from vLLM's code (kv_capacity.hpp); the logs only check it. Each case takes
// from its log what the log states about the deployment (the GPU, model, dtype,
// gpu_memory_utilization and the profile run's tokens); the GPU's visible memory is its preset's
// (the 80 GB log names no GPU: its own total stands in), and the non-torch default comes from
// another run (vLLM PR 14447). docs/validation.md section 6 tabulates these cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fixtures.hpp"
#include "kspeed/engine/deployment/kv_capacity.hpp"
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
  std::int64_t logged_blocks;
};

// Llama-3.1-8B in BF16 (the preset; Meta-Llama-3-8B has the same shapes) on the log's GPU.
std::int64_t predicted_blocks(const VllmStartupLog& log) {
  Platform platform = test::platform_for("llama-3.1-8b", log.gpu);
  if (log.visible_gib > 0) platform.gpu.value.memory_visible_gib = log.visible_gib;
  REQUIRE(platform.gpu.value.memory_visible_gib);
  KvSizing sizing;
  sizing.memory_utilization = log.utilization;
  sizing.max_batched_tokens = log.max_batched_tokens;
  sizing.max_seqs = log.max_seqs;
  return kv_cache_capacity(platform, sizing).blocks;
}

double relative_error(std::int64_t predicted, std::int64_t logged) {
  return static_cast<double>(predicted - logged) / static_cast<double>(logged);
}

}  // namespace

TEST_CASE("KV blocks against public vLLM start-up logs of Llama-3(.1)-8B", "[kv_capacity_logs]") {
  // V0 without chunked prefill: the profile run is max_model_len tokens over 256 sequences.
  // https://github.com/vllm-project/vllm/pull/10511 (Meta-Llama-3-8B, an 80 GB GPU the PR does
  // not name, 79.22 GiB visible, 0.90, max_model_len 8,192): available_kv_cache_memory
  // 53.29 GiB = 27,284 blocks of 16 tokens × 128 KiB.
  // The PR names no GPU: its 79.22 GiB stands in for the preset's memory.
  const VllmStartupLog h100{"h100-sxm", 79.22, 0.9, 8192, 256, 27284};
  // https://github.com/vllm-project/vllm/issues/10517 (RTX 3090, Llama-3.1-8B-Instruct, 0.90,
  // --max-model-len 20000 and 29000): "# GPU blocks: 1952" and 1478. The rtx-3090 preset's
  // 23.58 GiB visible comes from another log (PR 14447); these print the same.
  const VllmStartupLog rtx3090_20k{"rtx-3090", 0, 0.9, 20000, 256, 1952};
  const VllmStartupLog rtx3090_29k{"rtx-3090", 0, 0.9, 29000, 256, 1478};
  // Predictions (checked in python over the same arithmetic): 28,312, 2,050 and 1,575.
  CHECK(predicted_blocks(h100) == 28312);
  CHECK(predicted_blocks(rtx3090_20k) == 2050);
  CHECK(predicted_blocks(rtx3090_29k) == 1575);
  // Errors: +3.8%, +5.0%, +6.6%. The 80 GB case, whose cache is 70% of the memory, is within 5%;
  // on the 24 GB card the cache is a sixth of the memory and the non-torch default (0.20 GiB,
  // another run's; these logs print 0.35) moves it by 4%.
  CHECK(std::abs(relative_error(predicted_blocks(h100), h100.logged_blocks)) < 0.05);
  CHECK(relative_error(predicted_blocks(rtx3090_20k), rtx3090_20k.logged_blocks) ==
        Approx(0.0502).margin(0.001));
  CHECK(relative_error(predicted_blocks(rtx3090_29k), rtx3090_29k.logged_blocks) ==
        Approx(0.0656).margin(0.001));
  // The activation term moves the count the way the logs do: 9,000 more profile tokens cost
  // 9,000 · 110,592 bytes = 0.93 GiB (the logs' peak_torch_memory 17.06 → 17.98 GiB: 0.92).
  CHECK(predicted_blocks(rtx3090_20k) - predicted_blocks(rtx3090_29k) ==
        rtx3090_20k.logged_blocks - rtx3090_29k.logged_blocks + 1);
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
  const VllmStartupLog rtx4090{"rtx-4090", 25250627584.0 / kBytesPerGib, 0.9, 2048, 256, 2588};
  // 2,967 predicted: +14.7%. vLLM V1 (0.19) reserves ~0.8 GB more than the V0 profile run this
  // models (its sampler and persistent buffers, torch.compile's workspace, CUDA graphs once
  // profiled): a known miss, stated in docs/validation.md.
  CHECK(predicted_blocks(rtx4090) == 2967);
}

}  // namespace unit_kv_capacity_logs
