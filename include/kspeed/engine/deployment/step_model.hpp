#pragma once
// The time of one engine step from its batch composition: the one model of the user's deployment
// that every command evaluates (estimate is one request, sweep a curve of them, mix --replay a
// continuous-batching replay of many).
//
// A serving engine (vLLM, SGLang) runs the model once per step over every scheduled token: some
// prefill tokens (whole prompts or chunks of them) and one token for each running decode. The
// step's time is a sum of parts, each through the roofline:
//
//     step = fixed                                   per-step CPU/launch cost (scheduler, sampling)
//          + max(weights_ms + all_experts_ms · f(t)  non-attention: weights read once per step
//                + launch_floor_ms,                  (MoE: the routed experts its t tokens chose,
//                ms_per_token · tokens)              f below) beside the layers' small kernels;
//                                                    GEMM FLOPs per token beyond that
//          + ms_per_prefill_pair · causal pairs      prefill attention: query-key pairs computed
//          + ms_per_kv_token · decode KV tokens      decode attention: cached tokens read
//          + sliding-window layers' attention        W keys per prefill token / decode sequence
//          + chunked local layers' attention         pairs within each chunk of C tokens /
//                                                    ((p mod C) + 1) keys per decode sequence
//          + ms_per_sequence · decode sequences      per running sequence: sampling, scheduling,
//                                                    input preparation, detokenization
//          + tp_ms_per_token · tokens + tp_fixed_ms  tensor parallelism's all-reduces (tp_comm.hpp)
//          + ep_ms_per_token · tokens + ep_fixed_ms  expert parallelism's all-to-alls (ep_comm.hpp)
//
// With speculative decoding each decode sequence verifies q tokens in a step: q tokens of GEMM
// work each, while attention still reads the sequence's cached KV once for its q queries. The
// step emits τ <= q tokens per sequence on average, so a token's time is the step's over τ
// (step_calibration.hpp's RequestLatency::tpot_ms).
//
// A mixture-of-experts layer reads only the routed experts some token of the step chose: f(t) is
// the fraction of one GPU's resident routed experts the step reads, the expected union over its
// t tokens (moe.hpp: U(t)/E with every expert split by tp; with expert parallelism the busiest
// rank's, which every rank waits for). A prefill step of 128 tokens reads nearly every expert; a
// decode step of one sequence reads k of E.
//
// A kernel speedup divides the attention parts (or the part it targets); nothing else moves.
// The coefficients come from a calibration (step_calibration.hpp); this header only evaluates.

#include <cmath>
#include <cstdint>

namespace kspeed::engine {

/// The routed experts of a mixture-of-experts model as one GPU holds them (experts = 0: dense,
/// the weights are all in weights_ms).
struct StepExperts {
  std::int64_t experts = 0;          ///< E: routed experts per MoE layer
  std::int64_t top_k = 0;            ///< k: routed experts each token uses
  std::int64_t expert_parallel = 1;  ///< ranks the experts are spread over, E/ep whole experts
                                     ///< each (1: every expert split by tensor parallelism)
  /// Reading every routed expert this GPU holds once, all MoE layers, ms: a step reads the
  /// fraction routed_expert_fraction(tokens) of it.
  double all_experts_ms = 0;
};

/// The fraction of one GPU's routed experts a step of `tokens` tokens reads, in [0, 1], under
/// uniform independent top-k routing: U(t)/E = 1 - (1 - k/E)^t without expert parallelism; with
/// it, the expected busiest rank's distinct experts over its E/ep (moe.hpp). 0 for a dense model.
double routed_expert_fraction(const StepExperts& experts, double tokens);

/// What one step carries, as the sums the model needs (the replay keeps them incrementally, so a
/// step costs O(1) to time whatever its batch).
struct BatchComposition {
  double prefill_tokens = 0;  ///< prompt tokens computed in this step (all chunks)
  /// Σ over prefill chunks of the (query, key) pairs the chunk computes causally: a chunk of c
  /// tokens after p already-cached tokens of its prompt computes c·p + c·(c+1)/2 pairs.
  double prefill_pairs = 0;
  std::int64_t decode_sequences = 0;  ///< sequences producing one token each in this step
  double decode_kv_tokens = 0;        ///< Σ over those sequences of the KV tokens each reads
  /// Chunked local layers (StepModel::attention_chunk_tokens C > 0): Σ over prefill chunks of the
  /// causal pairs within the model's chunks (chunked_causal_pairs), and Σ over the decode
  /// sequences of the keys of their current chunk (chunk_attended_tokens). 0 without them.
  double chunked_prefill_pairs = 0;
  double chunked_decode_kv_tokens = 0;
  /// q: tokens each decode sequence verifies in this step (1 + draft tokens; 1 without
  /// speculative decoding). Each is GEMM work; the KV is read once for all q queries.
  double decode_queries = 1;

  double tokens() const {
    return prefill_tokens + static_cast<double>(decode_sequences) * decode_queries;
  }
};

/// Causal pairs of a chunk of `chunk` tokens after `cached` tokens of its prompt.
constexpr double causal_pairs(double chunk, double cached) {
  return chunk * cached + chunk * (chunk + 1) / 2;
}

/// Σ_{L=1..n} (((L - 1) mod C) + 1): the keys the first n tokens of a sequence attend to in a
/// chunked local layer with chunks of C tokens, each token its own chunk's keys up to itself.
/// q = floor(n/C) whole chunks of C(C+1)/2, then the r = n - q·C tokens of the last, r(r+1)/2.
inline double chunked_keys_prefix(double n, double chunk_tokens) {
  const double whole = std::floor(n / chunk_tokens);
  const double rest = n - whole * chunk_tokens;
  return whole * chunk_tokens * (chunk_tokens + 1) / 2 + rest * (rest + 1) / 2;
}

/// Causal pairs a prefill chunk of `chunk` tokens after `cached` tokens computes in a chunked
/// local layer with chunks of C tokens: Σ_{p=cached}^{cached+chunk-1} ((p mod C) + 1). The same
/// sum is the keys a decode sequence reads over `chunk` steps after `cached` tokens. 0 when
/// C <= 0 (the model has no chunked layers).
inline double chunked_causal_pairs(double chunk, double cached, double chunk_tokens) {
  if (!(chunk_tokens > 0)) return 0;
  return chunked_keys_prefix(cached + chunk, chunk_tokens) -
         chunked_keys_prefix(cached, chunk_tokens);
}

/// The coefficients of the step model (all >= 0, times in ms).
struct StepModel {
  double fixed_ms = 0;  ///< per step, whatever it carries
  /// The layers' kernels the roofline does not price (norms, RoPE, activation, KV write, MoE
  /// routing), each at least one short kernel (step_calibration.hpp's LaunchFloor). It sits with
  /// the reads, inside the max(): a compute-bound step's GEMM efficiency is an end-to-end one
  /// that already holds those kernels. Not a read: scale_reads leaves it.
  double launch_floor_ms = 0;
  /// Non-attention floor: reading the weights every step reads once, whatever its tokens (a
  /// dense model's weights; a MoE model's attention, dense layers, router, shared experts and
  /// output head). The routed experts are in `experts`.
  double weights_ms = 0;
  StepExperts experts;             ///< MoE: the routed experts, read as the tokens choose them
  double ms_per_token = 0;         ///< non-attention compute per scheduled token
  double ms_per_prefill_pair = 0;  ///< prefill attention per causal (query, key) pair
  double ms_per_kv_token = 0;      ///< decode attention per cached token read
  /// Sliding-window layers attend to at most W keys, so their attention is a cost per token: per
  /// prefill token (its W pairs) and per decode sequence (its W cached tokens). 0 without them.
  double ms_per_window_prefill_token = 0;
  double ms_per_window_decode_sequence = 0;
  /// Chunked local layers (Llama 4): C, and their attention per causal pair within a chunk
  /// (prefill) and per key of a decode sequence's current chunk. 0 without them.
  std::int64_t attention_chunk_tokens = 0;
  double ms_per_chunked_prefill_pair = 0;
  double ms_per_chunked_kv_token = 0;
  /// Hybrid models (Qwen3-Next): each running sequence's linear-attention state, read and
  /// written once per step in every linear layer. Not softmax attention: no attention kernel
  /// speedup moves it. 0 without linear-attention layers.
  double ms_per_linear_state_sequence = 0;
  /// Per decode sequence in the step, whatever its context: the engine's work for each running
  /// request (vLLM's input preparation, sampling, output processing and detokenization; per-token
  /// kernels the roofline's max() hides). A roofline has none (0); only a calibration on
  /// measurements at more than one batch size can separate it from the per-step terms.
  double ms_per_sequence = 0;
  /// Tensor parallelism's communication (tp_comm.hpp): two ring all-reduces of the step's hidden
  /// states per layer, a cost per scheduled token (link bandwidth) and per step (the
  /// collectives' latency). 0 with tp = 1. No kernel speedup moves it.
  double tp_ms_per_token = 0;
  double tp_fixed_ms = 0;
  /// Expert parallelism's dispatch and combine all-to-alls (ep_comm.hpp): per scheduled token
  /// and per step. 0 with ep = 1.
  double ep_ms_per_token = 0;
  double ep_fixed_ms = 0;
};

/// The bandwidth side of a model scaled by `factor` (a fitted η_bw = η / factor): the weights,
/// the routed experts and the KV reads.
inline void scale_reads(StepModel& model, double factor) {
  model.weights_ms *= factor;
  model.experts.all_experts_ms *= factor;
  model.ms_per_kv_token *= factor;
  model.ms_per_window_decode_sequence *= factor;
  model.ms_per_chunked_kv_token *= factor;
  model.ms_per_linear_state_sequence *= factor;
}

/// One step's time by part.
struct StepTime {
  double fixed_ms = 0;
  double sequence_ms = 0;  ///< the per-sequence cost: outside the roofline's GPU parts, as fixed
  double other_ms = 0;     ///< non-attention GPU work
  double prefill_attention_ms = 0;
  double decode_attention_ms = 0;
  double communication_ms = 0;  ///< TP all-reduces and EP all-to-alls (0 on one GPU)

  double attention_ms() const { return prefill_attention_ms + decode_attention_ms; }
  double gpu_ms() const { return other_ms + communication_ms + attention_ms(); }
  double total_ms() const { return fixed_ms + sequence_ms + gpu_ms(); }
};

/// The step's parts; `attention_speedup` (>= 1 for a faster kernel, > 0) divides both attention
/// parts.
inline StepTime step_time(const StepModel& model, const BatchComposition& batch,
                          double attention_speedup = 1.0) {
  StepTime time;
  time.fixed_ms = model.fixed_ms;
  time.sequence_ms = model.ms_per_sequence * static_cast<double>(batch.decode_sequences);
  const double compute_ms = model.ms_per_token * batch.tokens();
  const double read_ms =
      model.weights_ms + model.launch_floor_ms +
      (model.experts.experts > 0
           ? model.experts.all_experts_ms * routed_expert_fraction(model.experts, batch.tokens())
           : 0.0);
  time.other_ms = (compute_ms > read_ms ? compute_ms : read_ms) +
                  model.ms_per_linear_state_sequence * static_cast<double>(batch.decode_sequences);
  time.prefill_attention_ms = (model.ms_per_prefill_pair * batch.prefill_pairs +
                               model.ms_per_window_prefill_token * batch.prefill_tokens +
                               model.ms_per_chunked_prefill_pair * batch.chunked_prefill_pairs) /
                              attention_speedup;
  time.decode_attention_ms =
      (model.ms_per_kv_token * batch.decode_kv_tokens +
       model.ms_per_window_decode_sequence * static_cast<double>(batch.decode_sequences) +
       model.ms_per_chunked_kv_token * batch.chunked_decode_kv_tokens) /
      attention_speedup;
  time.communication_ms = (model.tp_ms_per_token + model.ep_ms_per_token) * batch.tokens() +
                          model.tp_fixed_ms + model.ep_fixed_ms;
  return time;
}

}  // namespace kspeed::engine
