#pragma once
// The public config.json of each built-in model preset (and a few MoE checkpoints), with the
// values typed from the Hugging Face model pages; keys kspeed does not read are kept where they
// show the reader ignores them. Shared by the config.json, MoE and analytic-share tests.

namespace kspeed::test {

// deepseek-ai/DeepSeek-R1 config.json (model_type deepseek_v3).
inline constexpr const char* kDeepSeekR1Config = R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "model_type": "deepseek_v3",
  "first_k_dense_replace": 3,
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_group": 8,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "norm_topk_prob": true,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "quantization_config": {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [128, 128]
  },
  "rope_theta": 10000,
  "routed_scaling_factor": 2.5,
  "tie_word_embeddings": false,
  "topk_group": 4,
  "torch_dtype": "bfloat16",
  "v_head_dim": 128,
  "vocab_size": 129280
})";

// meta-llama/Llama-3.1-8B config.json (no head_dim: hidden_size / heads = 128).
inline constexpr const char* kLlama31_8bConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
})";

// meta-llama/Llama-3.1-70B config.json.
inline constexpr const char* kLlama31_70bConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 8192,
  "intermediate_size": 28672,
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
})";

// Qwen/Qwen3-8B config.json.
inline constexpr const char* kQwen3_8bConfig = R"({
  "architectures": ["Qwen3ForCausalLM"],
  "model_type": "qwen3",
  "head_dim": 128,
  "hidden_size": 4096,
  "intermediate_size": 12288,
  "max_window_layers": 36,
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 151936
})";

// openai/gpt-oss-120b config.json: layer_types alternate, starting with a sliding layer.
inline constexpr const char* kGptOss120bConfig = R"({
  "architectures": ["GptOssForCausalLM"],
  "model_type": "gpt_oss",
  "experts_per_token": 4,
  "head_dim": 64,
  "hidden_size": 2880,
  "intermediate_size": 2880,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
  "num_attention_heads": 64,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "num_local_experts": 128,
  "quantization_config": {
    "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                               "model.embed_tokens", "lm_head"],
    "quant_method": "mxfp4"
  },
  "sliding_window": 128,
  "swiglu_limit": 7.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 201088
})";

// mistralai/Mixtral-8x7B-v0.1 config.json.
inline constexpr const char* kMixtral8x7bConfig = R"({
  "architectures": ["MixtralForCausalLM"],
  "model_type": "mixtral",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 32000
})";

// Qwen/Qwen3-30B-A3B config.json.
inline constexpr const char* kQwen3_30bA3bConfig = R"({
  "architectures": ["Qwen3MoeForCausalLM"],
  "model_type": "qwen3_moe",
  "decoder_sparse_step": 1,
  "head_dim": 128,
  "hidden_size": 2048,
  "intermediate_size": 6144,
  "mlp_only_layers": [],
  "moe_intermediate_size": 768,
  "num_attention_heads": 32,
  "num_experts": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 48,
  "num_key_value_heads": 4,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 151936
})";

// Qwen/Qwen1.5-MoE-A2.7B config.json (Qwen2-MoE: one shared expert 5632 wide).
inline constexpr const char* kQwen15MoeConfig = R"({
  "architectures": ["Qwen2MoeForCausalLM"],
  "model_type": "qwen2_moe",
  "decoder_sparse_step": 1,
  "hidden_size": 2048,
  "intermediate_size": 5632,
  "moe_intermediate_size": 1408,
  "num_attention_heads": 16,
  "num_experts": 60,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 24,
  "num_key_value_heads": 16,
  "shared_expert_intermediate_size": 5632,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 151936
})";

// deepseek-ai/DeepSeek-V3 config.json: for every key kspeed reads it states what DeepSeek-R1's
// does (R1 is post-trained from DeepSeek-V3-Base; both model_type deepseek_v3, 61 layers, 256
// routed experts top-8, block-scaled FP8, max_position_embeddings 163840).
inline constexpr const char* kDeepSeekV3Config = kDeepSeekR1Config;

// nvidia/DeepSeek-R1-FP4: DeepSeek-R1's config.json with the quantization a TensorRT Model
// Optimizer NVFP4 export states, in the flat form config.json carries for quant_method modelopt
// (hf_quant_config.json holds the same keys under "quantization"). NOT a verbatim copy of the
// checkpoint's file, which the searched public sources did not hold: the values are the ones
// the recipe that produced it writes (github.com/NVIDIA/TensorRT-Model-Optimizer,
// examples/deepseek/ptq.py: quant_cfg NVFP4_DEFAULT_CFG with group size 16, "*attn*" and
// "*head*" disabled so every layer's self_attn and lm_head are excluded, the MTP layer 61
// excluded, kv_cache_quant_algo FP8 by default). Three layers' exclusions are written out; the
// reader needs one.
inline constexpr const char* kDeepSeekR1Fp4Config = R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "model_type": "deepseek_v3",
  "first_k_dense_replace": 3,
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "quantization_config": {
    "quant_method": "modelopt",
    "quant_algo": "NVFP4",
    "group_size": 16,
    "kv_cache_quant_algo": "FP8",
    "exclude_modules": ["model.layers.0.self_attn*", "model.layers.1.self_attn*",
                        "model.layers.60.self_attn*", "lm_head", "model.layers.61*"]
  },
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "v_head_dim": 128,
  "vocab_size": 129280
})";

// meta-llama/Llama-3.3-70B-Instruct config.json (the shapes of Llama 3.1 70B).
inline constexpr const char* kLlama33_70bConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 8192,
  "intermediate_size": 28672,
  "max_position_embeddings": 131072,
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
})";

// Qwen/Qwen2.5-7B-Instruct config.json.
inline constexpr const char* kQwen25_7bConfig = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "model_type": "qwen2",
  "hidden_size": 3584,
  "intermediate_size": 18944,
  "max_position_embeddings": 32768,
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rope_theta": 1000000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 152064
})";

// Qwen/Qwen2.5-72B-Instruct config.json.
inline constexpr const char* kQwen25_72bConfig = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "model_type": "qwen2",
  "hidden_size": 8192,
  "intermediate_size": 29568,
  "max_position_embeddings": 32768,
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "rope_theta": 1000000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 152064
})";

// mistralai/Mistral-7B-v0.3 config.json (sliding_window null: no window since v0.2).
inline constexpr const char* kMistral7bV03Config = R"({
  "architectures": ["MistralForCausalLM"],
  "model_type": "mistral",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rope_theta": 1000000.0,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 32768
})";

// mistralai/Mistral-Small-24B-Instruct-2501 config.json (head_dim 128 stated: 32 · 128 = 4096,
// not hidden_size 5120).
inline constexpr const char* kMistralSmall24bConfig = R"({
  "architectures": ["MistralForCausalLM"],
  "model_type": "mistral",
  "head_dim": 128,
  "hidden_size": 5120,
  "intermediate_size": 32768,
  "max_position_embeddings": 32768,
  "num_attention_heads": 32,
  "num_hidden_layers": 40,
  "num_key_value_heads": 8,
  "rope_theta": 100000000.0,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 131072
})";

// google/gemma-3-27b-it config.json (Gemma3ForConditionalGeneration): the language model's keys
// in text_config, the vision tower's in vision_config (not read). It states no vocab_size,
// max_position_embeddings, tie_word_embeddings or sliding_window_pattern: transformers'
// Gemma3TextConfig defaults (262208, 131072, true, 6) apply.
inline constexpr const char* kGemma3_27bConfig = R"({
  "architectures": ["Gemma3ForConditionalGeneration"],
  "boi_token_index": 255999,
  "eoi_token_index": 256000,
  "eos_token_id": [1, 106],
  "image_token_index": 262144,
  "initializer_range": 0.02,
  "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {
    "head_dim": 128,
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "model_type": "gemma3_text",
    "num_attention_heads": 32,
    "num_hidden_layers": 62,
    "num_key_value_heads": 16,
    "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window": 1024
  },
  "torch_dtype": "bfloat16",
  "transformers_version": "4.50.0.dev0",
  "vision_config": {
    "hidden_size": 1152,
    "image_size": 896,
    "intermediate_size": 4304,
    "model_type": "siglip_vision_model",
    "num_attention_heads": 16,
    "num_hidden_layers": 27,
    "patch_size": 14,
    "vision_use_head": false
  }
})";

// meta-llama/Llama-4-Scout-17B-16E-Instruct and meta-llama/Llama-4-Maverick-17B-128E-Instruct
// config.json (Llama4ForConditionalGeneration,
// https://huggingface.co/<repo>/blob/main/config.json): the language model's keys kspeed reads, in
// text_config; the vision config, token ids, rope scaling and router settings left out. Scout: 16
// experts, every layer MoE; Maverick: 128 experts on every other layer (interleave_moe_layer_step
// 2), a 16,384-wide dense FFN between.
inline constexpr const char* kLlama4ScoutConfig = R"({
  "architectures": ["Llama4ForConditionalGeneration"],
  "model_type": "llama4",
  "text_config": {
    "attention_chunk_size": 8192,
    "head_dim": 128,
    "hidden_size": 5120,
    "interleave_moe_layer_step": 1,
    "intermediate_size": 8192,
    "intermediate_size_mlp": 16384,
    "max_position_embeddings": 10485760,
    "model_type": "llama4_text",
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
    "num_attention_heads": 40,
    "num_experts_per_tok": 1,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "num_local_experts": 16,
    "torch_dtype": "bfloat16",
    "vocab_size": 202048
  },
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"
})";

inline constexpr const char* kLlama4MaverickConfig = R"({
  "architectures": ["Llama4ForConditionalGeneration"],
  "model_type": "llama4",
  "text_config": {
    "attention_chunk_size": 8192,
    "head_dim": 128,
    "hidden_size": 5120,
    "interleave_moe_layer_step": 2,
    "intermediate_size": 8192,
    "intermediate_size_mlp": 16384,
    "max_position_embeddings": 1048576,
    "model_type": "llama4_text",
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
    "num_attention_heads": 40,
    "num_experts_per_tok": 1,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "num_local_experts": 128,
    "torch_dtype": "bfloat16",
    "vocab_size": 202048
  },
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"
})";

}  // namespace kspeed::test
