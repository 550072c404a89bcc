#include "kspeed/engine/deployment/hardware.hpp"

#include <stdexcept>

#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/engine/deployment/kv_layout.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// Tensor parallelism splits the query heads evenly; GQA KV heads are split too, or replicated
// when tp exceeds them, which needs tp to be a multiple of the KV heads (vLLM's rule).
void check_tensor_parallel(const ModelArch& model, std::int64_t tp) {
  const std::string tp_text = (flag_mark("tp") + " ") + count_mark(tp);
  if (model.query_heads % tp != 0) {
    throw InputError(tp_text + ": " + model.name + " has " + count_mark(model.query_heads) +
                     " query heads, which tensor parallelism cannot split " + count_mark(tp) +
                     " ways: use a divisor of " + count_mark(model.query_heads));
  }
  if (model.attention == AttentionType::gqa && model.kv_heads % tp != 0 &&
      tp % model.kv_heads != 0) {
    throw InputError(tp_text + ": " + model.name + " has " + count_mark(model.kv_heads) +
                     " KV heads: tp must divide them or be a multiple of them");
  }
}

// An NVFP4 checkpoint's GEMMs: the NVFP4 parts at the FP4 peak, the parts it leaves unquantized
// (nvidia/DeepSeek-R1-FP4: the MLA projections and the output head, BF16) at `other`. One peak
// that takes the same time over the active parameters: active / Σ (params_i / peak_i).
double nvfp4_gemm_peak(const ModelArch& model, double fp4, double other) {
  if (!model.shapes) return fp4;
  const ModelShapes& s = *model.shapes;
  const ParamCounts c = count_params(model, s);
  const double nvfp4 = *dtype_bytes("nvfp4");
  const auto peak_of = [&](double bytes) { return bytes == nvfp4 ? fp4 : other; };
  const double ffn = dense_ffn_params(model, s, c);
  const double experts = c.active - c.non_expert_active;
  const double rest = c.non_expert_active - c.embedding - ffn;
  const double seconds =
      experts / peak_of(s.expert_bytes_per_param) + ffn / peak_of(s.dense_ffn_bytes_per_param) +
      rest / peak_of(s.dense_bytes_per_param) + c.embedding / peak_of(s.embedding_bytes_per_param);
  return c.active / seconds;
}

std::string gpu_precisions(const Gpu& gpu) {
  std::string list;
  for (const PeakFigure& figure : gpu.peak_dense_tflops) {
    list += (list.empty() ? "" : ", ") + figure.precision;
  }
  return list;
}

// --kv-layout NAME: the layout's bytes per token and layer (block scales, packed MLA entries)
// over the values a token caches, as bytes per cached element.
void apply_kv_layout(const std::string& name, const PlatformChoice& choice, Platform& platform) {
  if (choice.kv_dtype) {
    throw InputError(flag_mark("kv-layout") + " " + name + " and " + flag_mark("kv-dtype") + " " +
                     *choice.kv_dtype + " both describe the KV cache: give one");
  }
  const std::optional<KvLayout> layout = find_kv_layout(name);
  if (!layout) {
    std::string names;
    for (const KvLayout& known : kv_layouts()) {
      names += (names.empty() ? "" : ", ") + std::string(known.name);
    }
    throw InputError(flag_mark("kv-layout") + " " + name + ": unknown KV layout (kspeed knows " +
                     names + "; kspeed kv-layouts describes them)");
  }
  const ModelArch& model = choice.model.value;
  // bytes per element = bytes per token and layer / values per token and layer
  platform.kv_bytes_per_element =
      kv_bytes_per_token_per_layer(*layout, model) / kv_values_per_token_per_layer(model);
  platform.kv_dtype = {std::string(layout->name), Provenance::given};
}

// Expert parallelism spreads whole experts over the ranks: a MoE model whose routed experts the
// ranks divide evenly (vLLM and SGLang place E/ep experts on each rank).
void check_expert_parallel(const ModelArch& model, std::int64_t ep) {
  const std::string ep_text = (flag_mark("ep") + " ") + count_mark(ep);
  if (ep < 1) {
    throw InputError(ep_text + ": expected the GPUs the routed experts are spread over, >= 1");
  }
  if (ep == 1) return;
  if (!model.shapes || !is_moe(model.shapes->ffn)) {
    throw InputError(ep_text + ": " + model.name +
                     " has no routed experts to spread (a dense model, or a model file without "
                     "its FFN shapes): drop the flag or name a mixture-of-experts model");
  }
  const std::int64_t experts = model.shapes->ffn.experts;
  if (experts % ep != 0) {
    throw InputError(ep_text + ": " + model.name + " has " + count_mark(experts) +
                     " routed experts, which " + count_mark(ep) +
                     " ranks cannot hold evenly: use a divisor of " + count_mark(experts));
  }
}

// The link the collectives cross: --link-bandwidth (given; its latency stays the preset's), else
// the GPU preset's interconnect. None with tp = ep = 1: a single GPU exchanges nothing.
void resolve_link(const PlatformChoice& choice, Platform& platform) {
  if (platform.tensor_parallel.value <= 1 && platform.expert_parallel.value <= 1) return;
  const std::optional<Interconnect>& link = choice.gpu.value.interconnect;
  if (link) {
    platform.link_bandwidth_gbs = {link->per_direction_gbs, Provenance::preset};
    platform.link_latency_us = {link->collective_latency_us, link->collective_latency_us > 0
                                                                 ? Provenance::preset
                                                                 : Provenance::default_value};
    platform.all_to_all_latency_us = {link->all_to_all_latency_us, link->all_to_all_latency_us > 0
                                                                       ? Provenance::preset
                                                                       : Provenance::default_value};
  }
  if (choice.link_bandwidth_gbs) {
    platform.link_bandwidth_gbs = {*choice.link_bandwidth_gbs, Provenance::given};
  }
}

}  // namespace

std::optional<double> peak_tflops(const Gpu& gpu, std::string_view precision) {
  for (const PeakFigure& figure : gpu.peak_dense_tflops) {
    if (figure.precision == precision) {
      return figure.tflops;
    }
  }
  return std::nullopt;
}

Platform make_platform(const PlatformChoice& choice) {
  const ModelArch& model = choice.model.value;
  check_tensor_parallel(model, choice.tensor_parallel.value);
  Platform platform;
  platform.model = choice.model;
  platform.gpu = choice.gpu;
  platform.batch = choice.batch;
  platform.tensor_parallel = choice.tensor_parallel;
  check_expert_parallel(model, choice.expert_parallel.value);
  platform.expert_parallel = choice.expert_parallel;
  // --kv-dtype, else the workload's KV type (its shares were measured with it), else the model's.
  platform.kv_dtype =
      choice.kv_dtype ? WithProvenance<std::string>{*choice.kv_dtype, Provenance::given}
      : choice.workload_kv_dtype
          ? WithProvenance<std::string>{*choice.workload_kv_dtype, Provenance::workload}
          : WithProvenance<std::string>{model.kv_dtype, Provenance::default_value};
  const std::optional<double> kv_bytes = dtype_bytes(platform.kv_dtype.value);
  if (!kv_bytes) {
    // Checked where it is read (--kv-dtype in the CLI, kv_dtype in a model file): a bug here.
    throw std::invalid_argument("make_platform: unknown KV cache type " + platform.kv_dtype.value);
  }
  platform.kv_bytes_per_element = *kv_bytes;
  if (choice.kv_layout) {
    apply_kv_layout(*choice.kv_layout, choice, platform);
  }
  platform.precision =
      choice.precision
          ? WithProvenance<std::string>{*choice.precision, Provenance::given}
          : WithProvenance<std::string>{std::string(kDefaultPrecision), Provenance::default_value};
  const std::optional<double> peak = peak_tflops(choice.gpu.value, platform.precision.value);
  if (!peak) {
    throw InputError((flag_mark("precision") + " ") + platform.precision.value + ": " +
                     choice.gpu.value.name + " has no dense " + platform.precision.value +
                     " peak (it has: " + gpu_precisions(choice.gpu.value) + ")");
  }
  platform.peak_tflops = *peak;
  // The GEMMs compute in the weights' type where the GPU has a peak for it: DeepSeek-V3/R1's
  // checkpoint is block-scaled E4M3 and its linear layers run FP8 GEMMs with per-token-group
  // activation scales (DeepSeek-V3 Technical Report, arXiv:2412.19437, section 3.3; vLLM and
  // SGLang serve it with block-scaled W8A8 FP8 GEMMs), while attention stays in the activation
  // type. The model file states the type, so the GEMM precision is the preset's; --precision
  // sets both.
  // NVFP4 checkpoints (TensorRT Model Optimizer's NVFP4 recipe) quantize the activations of
  // their linear layers to FP4 too (each layer stores an input_scale), so on a GPU with an FP4
  // peak (Blackwell) those GEMMs run at it.
  platform.gemm_precision = platform.precision;
  platform.gemm_peak_tflops = *peak;
  if (!choice.precision && model.weight_dtype == "fp8") {
    if (const std::optional<double> fp8 = peak_tflops(choice.gpu.value, "fp8")) {
      platform.gemm_precision = {"fp8", Provenance::preset};
      platform.gemm_peak_tflops = *fp8;
    }
  }
  if (!choice.precision && model.weight_dtype == "nvfp4") {
    if (const std::optional<double> fp4 = peak_tflops(choice.gpu.value, "fp4")) {
      // "fp4+bf16" when some GEMMs stay at the platform's precision.
      platform.gemm_peak_tflops = nvfp4_gemm_peak(model, *fp4, *peak);
      platform.gemm_precision = {platform.gemm_peak_tflops == *fp4
                                     ? std::string("fp4")
                                     : "fp4+" + platform.precision.value,
                                 Provenance::preset};
    }
  }
  // Speculation: what q tokens per step are worth depends on how many are accepted, so q > 1
  // needs τ; check_speculation words q < 1 and τ outside [1, q]. The example in the message is
  // DeepSeek-V3's: its MTP module's second token is accepted 85-90% of the time (DeepSeek-V3
  // Technical Report, arXiv:2412.19437, section 5.4.3), so τ ≈ 1.85 at q = 2.
  if (choice.spec_tokens && *choice.spec_tokens > 1 && !choice.spec_accept) {
    throw InputError(flag_mark("spec-tokens") + " " + number_mark(*choice.spec_tokens) +
                     " needs the mean accepted length per step: pass " + flag_mark("spec-accept") +
                     " TAU (between 1 and the tokens verified per step; e.g. 1.7 to 1.9 for "
                     "DeepSeek-V3's one-token MTP, whose second token is accepted 85-90% of the "
                     "time)");
  }
  platform.spec_tokens_per_step = given_or_default(choice.spec_tokens, 1.0);
  platform.spec_mean_accepted = given_or_default(choice.spec_accept, 1.0);
  check_speculation({platform.spec_tokens_per_step.value, platform.spec_mean_accepted.value});
  resolve_link(choice, platform);
  return platform;
}

}  // namespace kspeed::engine
