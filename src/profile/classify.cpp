#include "kspeed/profile/classify.hpp"

#include <stdexcept>

#include "kspeed/error.hpp"

namespace kspeed::profile {

const std::vector<KernelPattern>& builtin_patterns() {
  using C = KernelClass;
  // Neighbours first: a fused RoPE + KV-cache write (applyBiasRopeUpdateKVCache) is a KV write,
  // and none of these may fall through to a core pattern. Names from TRACES.md.
  static const std::vector<KernelPattern> patterns = {
      {C::kv_write, "reshape_and_cache", "vLLM"},
      {C::kv_write, "concat_and_cache_mla", "vLLM (MLA)"},
      {C::kv_write, "store_kvcache", "SGLang"},
      {C::kv_write, "applyBiasRopeUpdateKVCache", "TensorRT-LLM (RoPE fused in)"},
      {C::rope, "rotary_embedding", "vLLM / SGLang"},
      {C::rope, "QKApplyRotary", "FlashInfer"},
      {C::attention_metadata, "prepare_varlen_num_blocks", "FlashAttention 3"},
      {C::attention_metadata, "get_mla_metadata", "FlashMLA"},
      {C::attention_metadata, "create_flashinfer_kv_indices", "SGLang"},
      // Core attention. FlashAttention 2/3 (and forks), FlashMLA: flash_fwd_* covers
      // flash_fwd_kernel, flash_fwd_splitkv(_mla)_kernel and their combine kernels.
      {C::attention_core, "flash_fwd_(splitkv_)?(mla_)?(combine_)?kernel", "FlashAttention"},
      {C::attention_core, "FlashAttnFwd", "FlashAttention 3"},
      // FlashAttention v1 (csrc/flash_attn/src/fmha_fwd_launch_template.h): fmha_fwd_kernel and
      // fmha_fwd_loop_kernel; still what older BERT-style stacks run.
      {C::attention_core, "fmha_fwd_(loop_)?kernel", "FlashAttention v1"},
      {C::attention_core, "fmha_cutlassF", "PyTorch SDPA (memory-efficient)"},
      {C::attention_core, "native_sdpa_sm[0-9]+_flash_fprop", "cuDNN SDPA"},
      {C::attention_core,
       "(Batch|Single)(Prefill|Decode)With(Paged|Ragged)?KVCache|BatchMLAPagedAttention|"
       "MergeStates",
       "FlashInfer"},
      {C::attention_core, "fmha_v2_|fmhaSm[0-9]+[a-z]*Kernel", "TensorRT-LLM / trtllm-gen"},
      {C::attention_core, "(^|[^A-Za-z0-9_])kernel_mha($|[^A-Za-z0-9_])|masked_multihead_attention",
       "TensorRT-LLM XQA / MMHA"},
      {C::attention_core, "paged_attention", "vLLM / ROCm paged attention"},
      {C::attention_core, "kernel_unified_attention_[23]d|reduce_segments", "vLLM Triton"},
      {C::attention_core, "FmhaFwd|FmhaBatchPrefill|aiter[0-9A-Za-z_:]*fmha", "ROCm CK / aiter"},
      {C::attention_core, "(^|[^A-Za-z0-9])attn_fwd", "AOTriton / Triton"},
      {C::attention_core, "^_fwd_(grouped_)?kernel(_stage[12])?$", "Triton (generic name)"},
      // SageAttention (github.com/thu-ml/SageAttention): its core kernels are sage_fwd and the
      // qk_int(8)_sv_f8/f16 family: SM90's qk_int8_sv_f8_attn_kernel, and SM80's and SM89's
      // qk_int_sv_f16_attn_kernel and qk_int_sv_f8_attn_kernel (csrc/qattn/*_sm80.cu, *_sm89.cu),
      // with their _varlen_ variants. sage_quant_kernel quantizes Q and K to INT8 before them: work
      // a faster attention kernel does not remove, so attention metadata, in no share scope.
      {C::attention_metadata, "sage_quant", "SageAttention (Q/K quantization)"},
      {C::attention_core, "sage_fwd|qk_int8?_sv_f(8|16)_", "SageAttention"},
      // TensorRT-LLM XQA as FlashInfer and vLLM ship it (xqa_kernel*), CUTLASS's Blackwell MLA
      // (Sm100FmhaMlaKernel...) and its generation kernel.
      {C::attention_core, "(^|[^A-Za-z0-9])xqa_kernel|[^A-Za-z0-9]xqa::", "TensorRT-LLM XQA"},
      {C::attention_core, "Fmha(Mla|Gen)Kernel|FmhaMla", "CUTLASS FMHA (MLA, generation)"},
  };
  return patterns;
}

KernelClassifier::KernelClassifier(std::vector<KernelPattern> patterns)
    : patterns_(std::move(patterns)) {
  compiled_.reserve(patterns_.size());
  for (const KernelPattern& pattern : patterns_) {
    try {
      compiled_.emplace_back(pattern.regex);
    } catch (const std::invalid_argument& error) {
      throw InputError("kernel pattern '" + pattern.regex + "' (" + pattern.library +
                       ") is not a valid regular expression: " + error.what() +
                       ": use POSIX extended syntax, e.g. \"flash_fwd|paged_attention\"");
    }
  }
}

KernelClass KernelClassifier::classify(const std::string& name, std::size_t* rule) const {
  for (std::size_t i = 0; i < compiled_.size(); ++i) {
    if (compiled_[i].search(name)) {
      if (rule != nullptr) *rule = i;
      return patterns_[i].kernel_class;
    }
  }
  if (rule != nullptr) *rule = std::string::npos;
  return KernelClass::other;
}

}  // namespace kspeed::profile
