// Kernel classes: the built-in patterns on names as they appear in real traces (TRACES.md),
// including the traps that look like attention but are not.
#include <catch2/catch.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/pattern_reader.hpp"
#include "kspeed/profile/classify.hpp"

namespace unit_profile_classify {

using kspeed::profile::KernelClass;
using kspeed::profile::KernelClassifier;

namespace {

KernelClass builtin_class(const std::string& name) {
  static const KernelClassifier classifier(kspeed::profile::builtin_patterns());
  return classifier.classify(name);
}

}  // namespace

TEST_CASE("core attention kernels of every library are recognised", "[profile]") {
  const std::vector<std::string> names = {
      "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, "
      "true>(Flash_fwd_params)",
      "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>(Flash_fwd_params)",
      "void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128>, "
      "4>(Flash_fwd_params)",
      "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
      "flash::CollectiveMainloopFwdSm90<2>>>>(T1::Params)",
      "void flash::FlashAttnFwdCombine<cute::tuple<>>(T1::Params)",
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64>>(Params)",
      "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<>::Params)",
      "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x64_4x1x1_kernel0_0",
      "void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<128>>(Params)",
      "void flashinfer::BatchPrefillWithRaggedKVCacheKernel<1>(Params)",
      "void flashinfer::BatchDecodeWithPagedKVCacheKernel<1>(Params)",
      "void flashinfer::SinglePrefillWithKVCacheKernel<1>(Params)",
      "void flashinfer::SingleDecodeWithKVCacheKernel<1>(Params)",
      "void flashinfer::mla::BatchMLAPagedAttentionKernel<1>(Params)",
      "void flashinfer::MergeStatesKernel<8, 16, 4>(half*)",
      "fmha_v2_flash_attention_fp16_64_128_S_q_paged_kv_128_sm90_kernel",
      "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
      "fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvP32VarSeqQ8Kv128StaticSwapsAbForGen",
      "void tensorrt_llm::kernels::kernel_mha<128, 8>(XQAParams)",
      "kernel_mha",
      "void tensorrt_llm::kernels::mmha::masked_multihead_attention_kernel<half, 128>(Params)",
      "void vllm::paged_attention_v1_kernel<__nv_bfloat16, 128>(float*)",
      "void vllm::paged_attention_v2_reduce_kernel<__nv_bfloat16, 128, 128, 512>(float*)",
      "kernel_unified_attention_2d",
      "kernel_unified_attention_3d",
      "reduce_segments",
      "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, 128>(int)",
      "void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, 128>(int)",
      "_ZN7ck_tile6kentryILi64ENS_13FmhaFwdKernelINS_26BlockFmhaPipelineQRKSVSAsyncEEEEEvT_",
      "_ZN7ck_tile6kentryINS_33FmhaBatchPrefillWithPagedKVCacheKernelIS1_EEEEvT_",
      "attn_fwd",
      "_ZN5aiter19fmha_fwd_hd128_bf16E",
      "void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576>>(Params)",
      "void flash::flash_fwd_splitkv_mla_combine_kernel<cutlass::bfloat16_t, 576>(Params)",
      "_attn_fwd",
      "void fmha_fwd_loop_kernel<FMHA_kernel_traits<256, 64, 16, 1, 4, 8u, __half>, false, "
      "false>(Params)",
      "void fmha_fwd_kernel<FMHA_kernel_traits<128, 64, 16, 1, 4, 8u, __half>, true, "
      "false>(Params)",
      "_fwd_kernel_stage1",
      "_fwd_grouped_kernel_stage1",
  };
  for (const std::string& name : names) {
    INFO(name);
    CHECK(builtin_class(name) == KernelClass::attention_core);
  }
}

TEST_CASE("attention's neighbours are their own classes, even when fused", "[profile]") {
  CHECK(builtin_class("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>(int)") ==
        KernelClass::kv_write);
  CHECK(builtin_class("void vllm::reshape_and_cache_kernel<float>(int)") == KernelClass::kv_write);
  CHECK(builtin_class("void vllm::concat_and_cache_mla_kernel<bf16>(int)") ==
        KernelClass::kv_write);
  CHECK(builtin_class("void (anonymous namespace)::store_kvcache<2048l, 4>(Params)") ==
        KernelClass::kv_write);
  // RoPE and KV write fused: a KV write, never attention or RoPE.
  CHECK(builtin_class("void tensorrt_llm::kernels::applyBiasRopeUpdateKVCache<half>(P)") ==
        KernelClass::kv_write);
  CHECK(builtin_class("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)") ==
        KernelClass::rope);
  CHECK(builtin_class("void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<true>(float*)") ==
        KernelClass::rope);
  CHECK(builtin_class("void flash::prepare_varlen_num_blocks_kernel<1>(Params)") ==
        KernelClass::attention_metadata);
  CHECK(builtin_class("void get_mla_metadata_kernel<64>(Params)") ==
        KernelClass::attention_metadata);
  CHECK(builtin_class("create_flashinfer_kv_indices_triton") == KernelClass::attention_metadata);
}

TEST_CASE("GEMMs, sampling and norms are not attention (TRACES.md traps)", "[profile]") {
  const std::vector<std::string> names = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
      "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT",
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1",
      "triton_tem_fused_mm_0",
      "void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024>(float*)",
      "void flashinfer::norm::FusedAddRMSNormKernel<8, half>(half*)",
      "void vllm::cross_device_reduce_1stage<half, 8>(RankData*)",
      "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b",
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)",
      "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
  };
  for (const std::string& name : names) {
    INFO(name);
    CHECK(builtin_class(name) == KernelClass::other);
  }
}

TEST_CASE("user patterns come first and may replace the built-ins", "[profile]") {
  const auto extended = kspeed::io::parse_pattern_file(
      R"({"patterns": [{"class": "attention_core", "regex": "my_attention_v[0-9]+", "library": "ours"},
                       {"class": "other", "regex": "reshape_and_cache"}]})",
      "p.json");
  REQUIRE(extended.patterns.size() == 2);
  std::vector<kspeed::profile::KernelPattern> rules = extended.patterns;
  rules.insert(rules.end(), kspeed::profile::builtin_patterns().begin(),
               kspeed::profile::builtin_patterns().end());
  const KernelClassifier classifier(rules);
  std::size_t rule = 99;
  CHECK(classifier.classify("void my_attention_v2<128>(int)", &rule) ==
        KernelClass::attention_core);
  CHECK(rule == 0);
  CHECK(classifier.classify("void vllm::reshape_and_cache_flash_kernel<bf16>()") ==
        KernelClass::other);
  CHECK(classifier.classify("void flash::flash_fwd_kernel<1>()") == KernelClass::attention_core);

  const auto replaced = kspeed::io::parse_pattern_file(
      R"({"replace_builtin": true, "patterns": [{"class": "rope", "regex": "^rope$"}]})", "p.json");
  CHECK(replaced.replace_builtin);
}

TEST_CASE("bad pattern files say what is wrong", "[profile]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kspeed::io::parse_pattern_file(
                        R"({"patterns": [{"class": "attention", "regex": "x"}]})", "p.json"),
                    Contains("p.json: patterns[0].class: unknown class 'attention'"));
  CHECK_THROWS_WITH(kspeed::io::parse_pattern_file(R"({"pattern": []})", "p.json"),
                    Contains("did you mean 'patterns'"));
  CHECK_THROWS_WITH(
      KernelClassifier({{KernelClass::attention_core, "flash_fwd(", "mine"}}),
      Contains("kernel pattern 'flash_fwd(' (mine) is not a valid regular expression"));
}

TEST_CASE("SageAttention, XQA and CUTLASS MLA kernels (issue 9)", "[profile]") {
  // Names as the libraries' sources spell them (thu-ml/SageAttention, FlashInfer's XQA port,
  // CUTLASS example 77 for Blackwell MLA).
  CHECK(builtin_class("sage_fwd_kernel<128, true>") == KernelClass::attention_core);
  CHECK(builtin_class("void qk_int8_sv_f8_accum_f32_attn_inst_buf<128, 64>(...)") ==
        KernelClass::attention_core);
  // SM80 and SM89 (csrc/qattn/qk_int_sv_f16_cuda_sm80.cu, qk_int_sv_f8_cuda_sm89.cu): "int",
  // not "int8" (issue 20)
  CHECK(builtin_class("void qk_int_sv_f16_attn_kernel<128, 64, 32, 64, 128>(signed char*)") ==
        KernelClass::attention_core);
  CHECK(builtin_class("void qk_int_sv_f8_attn_kernel<128, 64, 32, 64, 128>(signed char*)") ==
        KernelClass::attention_core);
  CHECK(builtin_class("void qk_int_sv_f16_attn_varlen_kernel<128>(signed char*)") ==
        KernelClass::attention_core);
  CHECK(builtin_class("void sage_quant_kernel<64, __nv_bfloat16>(...)") ==
        KernelClass::attention_metadata);  // quantization: no share scope counts it
  CHECK(builtin_class("void flashinfer::xqa::xqa_kernel_mha<128>(...)") ==
        KernelClass::attention_core);
  CHECK(builtin_class("xqa_kernel_sm90") == KernelClass::attention_core);
  CHECK(builtin_class("cutlass::fmha::kernel::Sm100FmhaMlaKernelTmaWarpspecialized<...>") ==
        KernelClass::attention_core);
  CHECK(builtin_class("attn_fwd") == KernelClass::attention_core);  // AOTriton
  // Not attention: a GEMM whose name merely contains "sage" or "xqa" as part of a word.
  CHECK(builtin_class("massage_gemm_kernel") == KernelClass::other);
  CHECK(builtin_class("maxqa_reduce") == KernelClass::other);
}

}  // namespace unit_profile_classify
