#include "platform_flags.hpp"

#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::cli {

namespace {

// The CLI parses; the engine's resolve_input decides given, workload or default.
template <class T>
engine::WithProvenance<T> flag_or_default(const std::string& flag_text,
                                          const std::optional<T>& fallback, T kspeed_default,
                                          T (*parse)(std::string_view, std::string_view),
                                          const char* flag) {
  const std::optional<T> given =
      flag_text.empty() ? std::nullopt : std::optional<T>(parse(flag_text, flag));
  return *engine::resolve_input<T>(given, fallback, kspeed_default);
}

std::optional<engine::WithProvenance<std::string>> name_from(
    const std::string& flag_text, const std::optional<std::string>& fallback) {
  return engine::resolve_input<std::string>(
      flag_text.empty() ? std::nullopt : std::optional(flag_text), fallback);
}

// The deployment around a resolved model and GPU: batch, tp, KV type and precision.
engine::Platform finish_platform(const PlatformFlags& flags, const PlatformDefaults& defaults,
                                 engine::WithProvenance<engine::ModelArch> model,
                                 engine::WithProvenance<engine::Gpu> gpu) {
  engine::PlatformChoice choice;
  choice.model = std::move(model);
  choice.gpu = std::move(gpu);
  choice.batch = flag_or_default<std::int64_t>(flags.batch, defaults.batch, engine::kDefaultBatch,
                                               io::parse_count, "--batch");
  choice.tensor_parallel = flag_or_default<std::int64_t>(
      flags.tp, defaults.tp, engine::kDefaultTensorParallel, io::parse_count, "--tp");
  if (!flags.ep.empty()) {
    choice.expert_parallel = {io::parse_count(flags.ep, "--ep"), engine::Provenance::given};
  }
  if (!flags.kv_dtype.empty()) {
    if (!engine::dtype_bytes(flags.kv_dtype)) {
      throw InputError("--kv-dtype: unknown data type '" + flags.kv_dtype + "'" +
                       io::suggestion_suffix(flags.kv_dtype, engine::dtype_names()));
    }
    choice.kv_dtype = flags.kv_dtype;
  }
  // The workload's KV type is the default for the model its shares were measured on (or any
  // model when it names none): another model's KV type says nothing about this one.
  if (!defaults.measured_model ||
      engine::same_model(*defaults.measured_model, choice.model.value.name)) {
    choice.workload_kv_dtype = defaults.kv_dtype;
  }
  if (!flags.kv_layout.empty()) {
    choice.kv_layout = flags.kv_layout;
  }
  if (!flags.precision.empty()) {
    choice.precision = flags.precision;
  }
  if (!flags.spec_tokens.empty()) {
    choice.spec_tokens = io::parse_positive_number(flags.spec_tokens, "--spec-tokens");
  }
  if (!flags.spec_accept.empty()) {
    choice.spec_accept = io::parse_positive_number(flags.spec_accept, "--spec-accept");
  }
  if (!flags.link_bandwidth.empty()) {
    choice.link_bandwidth_gbs = io::parse_positive_number(flags.link_bandwidth, "--link-bandwidth");
  }
  return engine::make_platform(choice);
}

}  // namespace

void add_platform_flags(CLI::App& command, PlatformFlags& flags) {
  command
      .add_option("--model", flags.model,
                  "Model architecture: a built-in name (kspeed models lists them), a model "
                  "JSON file, or a Hugging Face config.json (Llama, Mistral, Qwen2/3, Mixtral, "
                  "Qwen-MoE, DeepSeek-V2/V3/R1, gpt-oss)")
      ->type_name("NAME|FILE");
  command
      .add_option("--gpu", flags.gpu,
                  "GPU: a built-in name (kspeed gpus lists them) or a GPU JSON file")
      ->type_name("NAME|FILE");
  command
      .add_option("--batch", flags.batch,
                  "Sequences decoded together in one step (>= 1). Default: 1")
      ->type_name("N");
  command
      .add_option("--tp", flags.tp,
                  "Tensor parallelism: GPUs sharing each layer (>= 1). Default: 1")
      ->type_name("N");
  command
      .add_option("--ep", flags.ep,
                  "Expert parallelism: GPUs the routed experts of a MoE model are spread over, "
                  "E/N whole experts each; a step waits for the busiest GPU. Above --tp the "
                  "attention is data-parallel and each MoE layer adds a dispatch and a combine "
                  "all-to-all. Default: 1 (experts split by --tp)")
      ->type_name("N");
  command
      .add_option("--kv-dtype", flags.kv_dtype,
                  "KV cache type: bf16, fp16, fp8, int8, fp4, int4. Default: the model's")
      ->type_name("TYPE");
  command
      .add_option("--precision", flags.precision,
                  "Compute precision, which picks the GPU's dense peak: bf16 or fp8. "
                  "Default: bf16")
      ->type_name("TYPE");
  command
      .add_option("--kv-layout", flags.kv_layout,
                  "KV cache layout, block scales included: bf16, fp8, fp8-ds-mla (vLLM's "
                  "656-byte MLA entry), nvfp4, mxfp4 (kspeed kv-layouts lists them); instead "
                  "of --kv-dtype")
      ->type_name("NAME");
  command
      .add_option("--spec-tokens", flags.spec_tokens,
                  "Speculative decoding / MTP: tokens verified per sequence per decode step "
                  "(1 + draft tokens, >= 1); decode attention intensity grows q-fold. Default: 1")
      ->type_name("Q");
  command
      .add_option("--spec-accept", flags.spec_accept,
                  "Speculative decoding: mean tokens accepted per step, between 1 and "
                  "--spec-tokens; a response of n tokens takes about n / TAU steps, so TAU "
                  "divides the modelled decode time per token (a note shows it), not the shares "
                  "or speedups")
      ->type_name("TAU");
  command
      .add_option("--link-bandwidth", flags.link_bandwidth,
                  "Tensor parallelism: the GPU-to-GPU link's bandwidth per direction, GB/s, that "
                  "each layer's two all-reduces cross (with --tp > 1). Default: the GPU preset's "
                  "interconnect (NVLink, Infinity Fabric or PCIe peak)")
      ->type_name("GB/s");
}

void add_lever_flags(CLI::App& command, LeverFlags& flags) {
  command
      .add_option("--compute-speedup", flags.compute_speedup,
                  "Lever: the kernel's arithmetic is X times faster (> 0)")
      ->type_name("X");
  command
      .add_option("--bytes-reduction", flags.bytes_reduction,
                  "Lever: the kernel moves X times fewer bytes (> 0; FP8 instead of BF16 KV: 2)")
      ->type_name("X");
  command
      .add_option("--bandwidth-efficiency", flags.bandwidth_efficiency,
                  "Lever: fraction of peak bandwidth achieved before and after, each in (0, 1] "
                  "(0.6:0.66 is a 10% gain; one value means unchanged; with --ncu the export "
                  "measures BEFORE, and AFTER / BEFORE scales the measured value)")
      ->type_name("BEFORE:AFTER");
  command
      .add_option("--compute-efficiency", flags.compute_efficiency,
                  "Fraction of the dense peak the kernel's arithmetic achieves, in (0, 1]. "
                  "Default: 1")
      ->type_name("E");
}

std::optional<engine::Levers> parse_levers(const LeverFlags& flags) {
  if (flags.compute_speedup.empty() && flags.bytes_reduction.empty() &&
      flags.bandwidth_efficiency.empty() && flags.compute_efficiency.empty()) {
    return std::nullopt;
  }
  engine::Levers levers;
  if (!flags.compute_speedup.empty()) {
    levers.compute_speedup = io::parse_positive_number(flags.compute_speedup, "--compute-speedup");
  }
  if (!flags.bytes_reduction.empty()) {
    levers.bytes_reduction = io::parse_positive_number(flags.bytes_reduction, "--bytes-reduction");
  }
  if (!flags.bandwidth_efficiency.empty()) {
    const auto [before, after] =
        io::parse_efficiency_change(flags.bandwidth_efficiency, "--bandwidth-efficiency");
    levers.bandwidth_efficiency_before =
        io::check_range("--bandwidth-efficiency", before, flags.bandwidth_efficiency);
    levers.bandwidth_efficiency_after =
        io::check_range("--bandwidth-efficiency", after, flags.bandwidth_efficiency);
  }
  if (!flags.compute_efficiency.empty()) {
    levers.compute_efficiency =
        io::check_range("--compute-efficiency",
                        io::parse_efficiency(flags.compute_efficiency, "--compute-efficiency"),
                        flags.compute_efficiency);
  }
  return levers;
}

std::optional<engine::Platform> resolve_platform(const PlatformFlags& flags,
                                                 const PlatformDefaults& defaults) {
  const auto model = name_from(flags.model, defaults.model);
  const auto gpu = name_from(flags.gpu, defaults.gpu);
  if (!model || !gpu) {
    if (model && model->provenance == engine::Provenance::given) {
      (void)io::load_model(model->value);  // an unknown model is named first, not the GPU
      throw InputError("--model " + model->value +
                       " needs a GPU to place attention on a roofline: pass --gpu NAME (kspeed "
                       "gpus lists them)");
    }
    if (gpu && gpu->provenance == engine::Provenance::given) {
      (void)io::load_gpu(gpu->value);  // an unknown GPU is named first, not the model
      throw InputError("--gpu " + gpu->value +
                       " needs a model to size attention's work: pass --model NAME (kspeed "
                       "models lists them)");
    }
    for (const auto& [text, flag] : {std::pair{flags.batch, "--batch"},
                                     {flags.tp, "--tp"},
                                     {flags.ep, "--ep"},
                                     {flags.kv_dtype, "--kv-dtype"},
                                     {flags.kv_layout, "--kv-layout"},
                                     {flags.precision, "--precision"},
                                     {flags.spec_tokens, "--spec-tokens"},
                                     {flags.spec_accept, "--spec-accept"},
                                     {flags.link_bandwidth, "--link-bandwidth"}}) {
      if (!text.empty()) {
        throw InputError(std::string(flag) + " describes a deployment: it needs --model and --gpu");
      }
    }
    return std::nullopt;
  }
  return finish_platform(flags, defaults, {io::load_model(model->value), model->provenance},
                         {io::load_gpu(gpu->value), gpu->provenance});
}

engine::Platform resolve_platform_on(const PlatformFlags& flags, const engine::Gpu& gpu,
                                     const PlatformDefaults& defaults) {
  if (flags.model.empty()) {
    throw InputError("a model is required: pass --model NAME (kspeed models lists them)");
  }
  return finish_platform(flags, defaults, {io::load_model(flags.model), engine::Provenance::given},
                         {gpu, engine::Provenance::given});
}

}  // namespace kspeed::cli
