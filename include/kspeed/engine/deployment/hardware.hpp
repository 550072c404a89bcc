#pragma once
// What sets an attention kernel's cost: the GPU (its roof) and the model's architecture (its
// shapes). Read from JSON by io::parse_gpu / io::parse_model and validated there.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kspeed/engine/deployment/ffn_shapes.hpp"
#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// A figure's own citation when it differs from the file's: (field name, source text).
using FigureSources = std::vector<std::pair<std::string, std::string>>;

/// One dense peak: sparse (2:4) figures are never stored here.
struct PeakFigure {
  std::string precision;  ///< "bf16", "fp8", ...
  double tflops = 0;      ///< dense Tensor Core peak, TFLOP/s (> 0)
};

/// Deployment defaults: one sequence per step on one GPU (the latency case).
inline constexpr std::int64_t kDefaultBatch = 1;
inline constexpr std::int64_t kDefaultTensorParallel = 1;

/// The compute precision when none is given: every GPU file states a bf16 peak.
inline constexpr std::string_view kDefaultPrecision = "bf16";

/// The GPU-to-GPU link tensor parallelism's all-reduces cross (NVLink, Infinity Fabric, PCIe).
struct Interconnect {
  std::string name;                  ///< e.g. "NVLink 4", "PCIe Gen5 x16"
  double per_direction_gbs = 0;      ///< one GPU's bandwidth in one direction, GB/s (10^9 B/s)
  double collective_latency_us = 0;  ///< fixed cost of one small all-reduce, µs (0: not cited)
  /// Fixed cost of one small MoE dispatch or combine all-to-all over this link, µs (0: not
  /// cited): a one-token all-to-all is all latency, far above an all-reduce's (it waits for
  /// every peer's counts before the payload moves).
  double all_to_all_latency_us = 0;
  std::string source;  ///< citation of the figures
};

/// The memory technology of a GPU: the step model's prior bandwidth efficiency is per family
/// (step_calibration.hpp's bandwidth_prior), since what a decode step achieves of the datasheet
/// bandwidth differs between stacked HBM and GDDR cards.
enum class MemoryKind {
  unstated,  ///< the file does not say: the prior pooled over both families
  hbm,       ///< HBM2e, HBM3, HBM3e (data-centre parts)
  gddr,      ///< GDDR6, GDDR6X, GDDR7 (GeForce and workstation cards, L4, L40S)
};

constexpr std::string_view to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::hbm:
      return "hbm";
    case MemoryKind::gddr:
      return "gddr";
    case MemoryKind::unstated:
      break;
  }
  return "unstated";
}

struct Gpu {
  std::string name;                           ///< preset name or file stem, e.g. "h100-sxm"
  std::string description;                    ///< one line for people
  std::string source;                         ///< citation of the figures
  std::vector<PeakFigure> peak_dense_tflops;  ///< per precision, at least bf16
  double hbm_bandwidth_tbs = 0;               ///< peak HBM bandwidth, TB/s (10^12 bytes/s)
  double memory_gb = 0;                       ///< HBM capacity, GB (10^9 bytes)
  MemoryKind memory = MemoryKind::unstated;   ///< the file's "memory_type"
  /// The memory the driver lets a process use (cudaMemGetInfo's total, as vLLM logs it as
  /// total_gpu_memory), GiB; absent: not cited (KV sizing then uses memory_gb). Its source is
  /// figure_sources' "memory_visible_gib".
  std::optional<double> memory_visible_gib;
  FigureSources figure_sources;
  std::optional<Interconnect> interconnect;  ///< absent: no cited link (tp > 1 then needs a flag)
};

/// The dense peak at `precision`, if the GPU has one.
std::optional<double> peak_tflops(const Gpu& gpu, std::string_view precision);

enum class AttentionType {
  gqa,  ///< grouped-query (multi-head when kv_heads = query_heads, multi-query when 1)
  mla,  ///< DeepSeek's multi-head latent attention
};

constexpr std::string_view to_string(AttentionType type) {
  return type == AttentionType::mla ? "mla" : "gqa";
}

/// MLA's shapes (DeepSeek-V3 config.json names).
struct MlaDims {
  std::int64_t kv_lora_rank = 0;      ///< latent width r: the cached compressed K/V per token
  std::int64_t qk_rope_head_dim = 0;  ///< decoupled RoPE key width, cached beside the latent
  std::int64_t qk_nope_head_dim = 0;  ///< per-head query/key width without RoPE
  std::int64_t v_head_dim = 0;        ///< per-head value width
};

/// Linear-attention layers (Qwen3-Next's gated DeltaNet, config.json's linear_* keys): each keeps
/// a constant state per sequence instead of a KV cache, read and written once per decode step.
struct LinearAttentionDims {
  std::int64_t layers = 0;          ///< layers with linear attention (0: none)
  std::int64_t key_heads = 0;       ///< linear_num_key_heads
  std::int64_t value_heads = 0;     ///< linear_num_value_heads
  std::int64_t key_head_dim = 0;    ///< linear_key_head_dim
  std::int64_t value_head_dim = 0;  ///< linear_value_head_dim
  std::int64_t conv_kernel = 0;     ///< linear_conv_kernel_dim (short causal convolution)
};

/// One sequence's state in one linear-attention layer, bytes, in a 2-byte (BF16) state: the
/// recurrent state (value heads × key dim × value dim) and the convolution's last kernel − 1
/// inputs over q, k and v (2·key heads·key dim + value heads·value dim channels). vLLM keeps both
/// in the model's dtype unless --mamba-ssm-cache-dtype says otherwise (vllm/config/cache.py:
/// mamba_cache_dtype and mamba_ssm_cache_dtype default "auto").
inline double linear_state_bytes_per_layer(const LinearAttentionDims& d) {
  const double recurrent = static_cast<double>(d.value_heads * d.key_head_dim * d.value_head_dim);
  const double channels =
      static_cast<double>(2 * d.key_heads * d.key_head_dim + d.value_heads * d.value_head_dim);
  const double conv = static_cast<double>(std::max<std::int64_t>(d.conv_kernel - 1, 0)) * channels;
  return 2.0 * (recurrent + conv);
}

/// Parameters of one gated-DeltaNet layer (vLLM's Qwen3NextGatedDeltaNet): in_proj_qkvz
/// (hidden × (2·key + 2·value channels)), in_proj_ba (hidden × 2·value heads), the depthwise
/// convolution (channels × kernel) and out_proj (value channels × hidden).
inline double linear_params_per_layer(const LinearAttentionDims& d, std::int64_t hidden) {
  const double h = static_cast<double>(hidden);
  const double key = static_cast<double>(d.key_heads * d.key_head_dim);
  const double value = static_cast<double>(d.value_heads * d.value_head_dim);
  return h * (2 * key + 2 * value) + h * 2.0 * static_cast<double>(d.value_heads) +
         (2 * key + value) * static_cast<double>(d.conv_kernel) + value * h;
}

struct ModelArch {
  std::string name;         ///< preset name or file stem, e.g. "llama-3.1-70b"
  std::string description;  ///< one line for people
  std::string source;       ///< citation (config.json, model card)
  std::int64_t layers = 0;  ///< transformer layers with attention
  AttentionType attention = AttentionType::gqa;
  std::int64_t query_heads = 0;            ///< attention (query) heads
  std::int64_t kv_heads = 0;               ///< GQA: key/value heads (0 for MLA)
  std::int64_t head_dim = 0;               ///< GQA: per-head width (0 for MLA)
  MlaDims mla;                             ///< MLA only
  std::int64_t sliding_window_layers = 0;  ///< layers that attend to the last window only
  std::int64_t sliding_window_tokens = 0;  ///< their window, tokens (0: no sliding window)
  /// Chunked local attention (Llama 4's attention_chunk_size): the sequence is cut into chunks of
  /// C tokens and a token at position p attends to its own chunk's keys [floor(p/C)·C, p] only.
  std::int64_t chunked_attention_layers = 0;  ///< layers with chunked local attention
  std::int64_t attention_chunk_tokens = 0;    ///< C, tokens (0: no chunked layers)
  LinearAttentionDims linear;         ///< linear-attention layers (hybrid models); layers 0: none
  double total_params_billions = 0;   ///< all parameters, 10^9
  double active_params_billions = 0;  ///< parameters read per token (MoE: the routed subset)
  std::string weight_dtype;           ///< e.g. "bf16", "fp8", "mxfp4"
  double weight_bytes_per_param = 0;  ///< average over the active parameters
  std::string kv_dtype;               ///< the default KV cache type, e.g. "bf16"
  FigureSources figure_sources;
  /// Hidden width, FFN / MoE and weight storage, when known (presets, config.json): the decode
  /// model then reads the weights from them, MoE expert union included (moe.hpp); without
  /// them, from active_params_billions · weight_bytes_per_param.
  std::optional<ModelShapes> shapes;
  bool from_hf_config = false;  ///< read from a Hugging Face config.json (io/hf_config)
  /// The longest sequence, prompt and output tokens together, the model takes: config.json's
  /// max_position_embeddings, or the model card's context length (figure_sources says which).
  /// A server refuses a request beyond it (vLLM: "This model's maximum context length is ...").
  /// 0: not known.
  std::int64_t context_tokens = 0;
};

/// Layers that attend to the whole context with softmax attention (not the sliding-window ones,
/// not the chunked local ones, not the linear-attention ones).
inline std::int64_t full_attention_layers(const ModelArch& model) {
  return model.layers - model.sliding_window_layers - model.chunked_attention_layers -
         model.linear.layers;
}

/// Keys one token attends to in a chunked local layer when the sequence holds `context` tokens,
/// itself included: its position p = context - 1 sees [floor(p/C)·C, p], (p mod C) + 1 keys.
/// Whole context when C = 0 (no chunking).
inline double chunk_attended_tokens(double context, double chunk) {
  if (!(chunk > 0) || context <= 0) return context;
  return std::fmod(context - 1, chunk) + 1;
}

/// Layers with softmax attention, full, sliding-window or chunked local: what an attention kernel
/// acts on.
inline std::int64_t softmax_attention_layers(const ModelArch& model) {
  return model.layers - model.linear.layers;
}

/// A model on a GPU, as a serving deployment runs it: what the decode model and the roofline
/// need, each figure with its source.
struct Platform {
  WithProvenance<ModelArch> model;
  WithProvenance<Gpu> gpu;
  WithProvenance<std::int64_t> batch;            ///< sequences decoded together in one step (>= 1)
  WithProvenance<std::int64_t> tensor_parallel;  ///< GPUs sharing each layer (>= 1)
  /// Expert parallelism (--ep): GPUs the routed experts are spread over, E/ep whole experts each,
  /// with a dispatch and a combine all-to-all per MoE layer (ep_comm.hpp). 1: every expert is
  /// split by tensor parallelism instead.
  WithProvenance<std::int64_t> expert_parallel{1, Provenance::default_value};
  WithProvenance<std::string> kv_dtype;  ///< KV cache type; bytes in kv_bytes_per_element
  double kv_bytes_per_element = 2;
  WithProvenance<std::string> precision;  ///< compute precision, selects the GPU's peak ("bf16")
  double peak_tflops = 0;                 ///< the GPU's dense peak at `precision`
  /// The non-attention GEMMs' precision: `precision`, or the weights' type when the model's
  /// weights are FP8 and the GPU has an FP8 peak (DeepSeek-V3/R1), and its dense peak.
  WithProvenance<std::string> gemm_precision{std::string(kDefaultPrecision),
                                             Provenance::default_value};
  double gemm_peak_tflops = 0;
  /// Speculative decoding / MTP (MODEL.md section 8): q tokens verified per sequence per step
  /// and τ accepted on average; 1 and 1 without speculation.
  WithProvenance<double> spec_tokens_per_step{1, Provenance::default_value};
  WithProvenance<double> spec_mean_accepted{1, Provenance::default_value};
  /// The tensor-parallel link, per direction (GB/s) and per all-reduce latency (µs): the GPU
  /// preset's interconnect, or --link-bandwidth (given). 0 with tp = 1 (no communication).
  WithProvenance<double> link_bandwidth_gbs{0, Provenance::default_value};
  WithProvenance<double> link_latency_us{0, Provenance::default_value};
  /// Per dispatch or combine all-to-all latency (µs) over the same link: the GPU preset's
  /// interconnect (cited), else 0 (not cited). Only paid with data-parallel attention (ep > tp).
  WithProvenance<double> all_to_all_latency_us{0, Provenance::default_value};
};

/// What the user chose for a platform; empty optionals take the model's or kspeed's default.
struct PlatformChoice {
  WithProvenance<ModelArch> model;
  WithProvenance<Gpu> gpu;
  WithProvenance<std::int64_t> batch{1, Provenance::default_value};
  WithProvenance<std::int64_t> tensor_parallel{1, Provenance::default_value};
  WithProvenance<std::int64_t> expert_parallel{1, Provenance::default_value};  ///< --ep
  std::optional<std::string> kv_dtype;  ///< --kv-dtype; default: the workload's, else the model's
  std::optional<std::string> workload_kv_dtype;  ///< the workload's KV cache type, if it states one
  std::optional<std::string> kv_layout;  ///< --kv-layout: a named layout (kv_layout.hpp) instead
  std::optional<std::string> precision;  ///< --precision; default: bf16
  std::optional<double> spec_tokens;     ///< --spec-tokens q (>= 1); default 1
  std::optional<double> spec_accept;     ///< --spec-accept τ (1 <= τ <= q); needed when q > 1
  std::optional<double> link_bandwidth_gbs;  ///< --link-bandwidth GB/s per direction
};

/// Validates the combination and resolves the defaults. Throws InputError when tp does not split
/// the heads evenly, the KV type is unknown, or the GPU has no peak at the precision.
Platform make_platform(const PlatformChoice& choice);

}  // namespace kspeed::engine
