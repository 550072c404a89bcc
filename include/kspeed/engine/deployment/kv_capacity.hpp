#pragma once
// How many KV cache blocks one GPU of a deployment holds, sized the way vLLM sizes its cache.
// vLLM's worker runs one forward pass at the scheduler's token budget before it allocates the
// cache ("profile run": vllm/worker/worker.py determine_num_available_blocks in V0,
// vllm/v1/worker/gpu_worker.py determine_available_memory in V1) and gives the cache
//
//   total visible memory × gpu_memory_utilization − (weights + activation peak + non-torch)
//
// where the activation peak is PyTorch's allocated-bytes high-water mark of that pass above the
// weights and non-torch memory is what the device holds outside PyTorch's allocator (cuBLAS
// workspaces, NCCL buffers). CUDA graphs are captured after the cache is sized (V0
// Worker._warm_up_model after _init_cache_engine; V1 compile_or_warm_up_model after
// initialize_from_config), so up to vLLM 0.20 they come out of the (1 − utilization) margin;
// from v0.21 vLLM profiles them first and subtracts them too (its start-up log says so).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/scheduler_settings.hpp"
#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// vLLM's default --gpu-memory-utilization: 0.9 of each GPU's memory goes to the engine
/// (vllm-project/vllm, vllm/engine/arg_utils.py: EngineArgs.gpu_memory_utilization = 0.90; the
/// engine arguments page of docs.vllm.ai lists the same default).
inline constexpr double kDefaultGpuMemoryUtilization = 0.9;

/// Memory a vLLM worker holds outside PyTorch's allocator, per GPU, when nothing better is
/// known: 0.20 GiB, the non_torch_memory a vLLM 0.8 V0 worker logged on an RTX 3090
/// (vllm-project/vllm pull request 14447, "model weights take 21.21GiB; non_torch_memory takes
/// 0.20GiB"). One figure from a run not used to check the sizing (docs/validation.md); vLLM
/// versions and tensor-parallel NCCL buffers move it (PR 10511 logs 1.79 GiB at tp 1 and 3.58 GiB
/// at tp 2 after its profiler overhaul).
inline constexpr double kDefaultNonTorchGib = 0.20;

/// vLLM's fused MoE kernel works through at most this many tokens at once
/// (VLLM_FUSED_MOE_CHUNK_SIZE, vllm/envs.py: 32768), so its intermediate caches stop growing
/// there.
inline constexpr std::int64_t kVllmFusedMoeChunkTokens = 32768;

inline constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

/// What vLLM's profile run subtracts besides the weights and PyTorch's activation peak. The rule
/// changed between versions (vllm-project/vllm, the worker's sizing function at each tag):
enum class VllmMemoryRule {
  /// Before pull request 2031 (December 2023; kspeed reads v0.2.4 and earlier as before it):
  /// vllm/worker/worker.py profile_num_available_blocks takes peak =
  /// torch.cuda.max_memory_allocated(), so nothing outside PyTorch is subtracted.
  torch_only,
  /// Pull request 2031 to v0.6.4: peak = total − free after the profile run (2031), later
  /// PyTorch's peak plus mem_get_info's used bytes less PyTorch's allocated bytes (pull request
  /// 9352, October 2024; worker.py determine_num_available_blocks): everything on the device
  /// outside PyTorch's allocated bytes, the CUDA context included. kspeed has no public figure
  /// for the CUDA context, so its non-torch reserve is a lower bound here.
  device_wide,
  /// v0.6.5 to v0.20 (pull requests 10511, 11809 and 12126, vllm/utils memory_profiling; V1's
  /// vllm/v1/worker/gpu_worker.py determine_available_memory): only what grew outside PyTorch since
  /// the worker's start, the CUDA context excluded. CUDA graphs are captured after the cache is
  /// sized. kspeed's default.
  growth_since_start,
  /// v0.21 on (pull request 30515; VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default): as
  /// growth_since_start, less vLLM's CUDA graph estimate, which kspeed does not model.
  with_cuda_graph_estimate,
};

/// The rule of vLLM version `version` ("0.6.4", "v0.19.0", "0.11.1rc2"): major.minor[.patch]
/// compared by number. Throws InputError naming `flag` on anything else.
VllmMemoryRule vllm_memory_rule_of(std::string_view version, std::string_view flag);

/// One line naming the rule's versions, for the report.
std::string_view describe_vllm_rule(VllmMemoryRule rule);

/// What the profile run is sized by: the engine's settings.
struct KvSizing {
  VllmMemoryRule rule = VllmMemoryRule::growth_since_start;
  double memory_utilization = kDefaultGpuMemoryUtilization;
  std::int64_t block_tokens = 16;
  std::int64_t max_batched_tokens = 8192;  ///< the profile run's tokens
  std::int64_t max_seqs = 256;             ///< the profile run's sequences (sampler rows)
};

/// The sizing a scheduler's settings imply, at `memory_utilization`.
inline KvSizing kv_sizing_of(const SchedulerOptions& scheduler,
                             double memory_utilization = kDefaultGpuMemoryUtilization) {
  KvSizing sizing;
  sizing.memory_utilization = memory_utilization;
  sizing.block_tokens = scheduler.block_tokens;
  sizing.max_batched_tokens = scheduler.max_batched_tokens;
  sizing.max_seqs = scheduler.max_seqs;
  return sizing;
}

/// One GPU's KV cache, with every term it came from.
struct KvCapacity {
  /// The memory the engine sees (cudaMemGetInfo's total): the GPU file's memory_visible_gib
  /// (preset), else its datasheet memory_gb in 10^9 bytes (preset; an upper bound).
  double total_bytes = 0;
  bool total_is_visible = false;  ///< true: memory_visible_gib; false: the datasheet figure
  double budget_bytes = 0;        ///< total × utilization
  double weight_bytes = 0;        ///< this GPU's share of the resident weights (all experts)
  double rope_cache_bytes = 0;    ///< the rotary cos/sin cache (rotary_cache_bytes below)
  /// The profile run's activation peak at max_batched_tokens (activation_peak_bytes below).
  double activation_bytes = 0;
  double cuda_graph_bytes = 0;    ///< 0: captured after the cache is sized (vLLM up to 0.20)
  double non_torch_bytes = 0;     ///< kDefaultNonTorchGib; 0 under VllmMemoryRule::torch_only
  double kv_bytes_per_token = 0;  ///< this GPU's KV bytes of one token, every attention layer
  std::int64_t block_tokens = 0;
  /// floor((budget − weights − rotary cache − activation − graphs − non-torch) / (KV bytes per
  /// token · block tokens)); 0 when nothing is left.
  std::int64_t blocks = 0;
};

/// PyTorch's activation high-water mark of vLLM's profile run, one GPU, from the model's
/// shapes (0 without them). The larger of two moments that do not overlap:
/// - the FFN of one layer over all `max_batched_tokens` tokens T. Dense (LlamaMLP.forward):
///   the residual and the normed input (h each), gate_up's output (2·I/tp), kept alive by its
///   local name while the activation's output (I/tp) and the down projection's (h) are made:
///   T·(3h + 3I/tp). MoE (fused_moe's intermediate_cache1..3, chunks of at most 32,768 tokens
///   C): 2h·T + C·k·(2·I/tp + I/tp + h).
/// - the sampler's float32 logits of min(max_seqs, T) rows over the vocabulary.
/// Activations are 2-byte (BF16/FP16) whatever the weights' type.
double activation_peak_bytes(const Platform& platform, std::int64_t max_batched_tokens,
                             std::int64_t max_seqs);

/// The rotary embedding's cos/sin cache vLLM builds when it loads the model, one GPU, bytes: a
/// [max_position_embeddings × rotary width] buffer in the model's 2-byte dtype, one per model
/// (vllm/model_executor/layers/rotary_embedding.py, RotaryEmbedding._compute_cos_sin_cache: cos and
/// sin halves of rotary_dim / 2 each, registered as the buffer cos_sin_cache after .to(dtype);
/// get_rope shares one instance across layers), replicated on every tensor-parallel rank. vLLM
/// counts it in "model weights take". The rotary width is the head dimension (GQA) or
/// qk_rope_head_dim (MLA); partial rotary factors are not in kspeed's shapes, so this is an upper
/// bound for models that rotate part of each head. 0 when the model's context is not known.
double rotary_cache_bytes(const ModelArch& model);

/// The KV capacity of one GPU of `platform`. Sliding-window layers are counted like full ones
/// (vLLM's paged cache gives every layer a block per block_tokens tokens). So are chunked local
/// layers (Llama 4): vLLM turns its hybrid KV cache manager off for a model with
/// attention_chunk_size unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1
/// (vllm/config/vllm.py, "There is a latency regression when using chunked local attention with
/// the hybrid KV cache manager. Disabling it, by default."; the variable defaults to 0 in
/// vllm/envs.py of the v0.10-v0.11 releases), and without that manager every attention layer
/// keeps the whole sequence's KV (ChunkedLocalAttentionSpec merged into FullAttentionSpec).
KvCapacity kv_cache_capacity(const Platform& platform, const KvSizing& sizing);

}  // namespace kspeed::engine
