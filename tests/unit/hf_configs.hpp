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

}  // namespace kspeed::test
