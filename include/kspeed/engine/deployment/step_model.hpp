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
//          + max(weights_ms, ms_per_token · tokens)  non-attention: weights read once per step,
//                                                    GEMM FLOPs per token beyond that
//          + ms_per_prefill_pair · causal pairs      prefill attention: query-key pairs computed
//          + ms_per_kv_token · decode KV tokens      decode attention: cached tokens read
//          + sliding-window layers' attention        W keys per prefill token / decode sequence
//          + ms_per_sequence · decode sequences      per running sequence: sampling, scheduling,
//                                                    input preparation, detokenization
//          + tp_ms_per_token · tokens + tp_fixed_ms  tensor parallelism's all-reduces (tp_comm.hpp)
//
// With speculative decoding each decode sequence verifies q tokens in a step: q tokens of GEMM
// work each, while attention still reads the sequence's cached KV once for its q queries. The
// step emits τ <= q tokens per sequence on average, so a token's time is the step's over τ
// (step_calibration.hpp's RequestLatency::tpot_ms).
//
// A kernel speedup divides the attention parts (or the part it targets); nothing else moves.
// The coefficients come from a calibration (step_calibration.hpp); this header only evaluates.

#include <cstdint>

namespace kspeed::engine {

/// What one step carries, as the sums the model needs (the replay keeps them incrementally, so a
/// step costs O(1) to time whatever its batch).
struct BatchComposition {
  double prefill_tokens = 0;  ///< prompt tokens computed in this step (all chunks)
  /// Σ over prefill chunks of the (query, key) pairs the chunk computes causally: a chunk of c
  /// tokens after p already-cached tokens of its prompt computes c·p + c·(c+1)/2 pairs.
  double prefill_pairs = 0;
  std::int64_t decode_sequences = 0;  ///< sequences producing one token each in this step
  double decode_kv_tokens = 0;        ///< Σ over those sequences of the KV tokens each reads
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

/// The coefficients of the step model (all >= 0, times in ms).
struct StepModel {
  double fixed_ms = 0;             ///< per step, whatever it carries
  double weights_ms = 0;           ///< non-attention floor: reading the weights once
  double ms_per_token = 0;         ///< non-attention compute per scheduled token
  double ms_per_prefill_pair = 0;  ///< prefill attention per causal (query, key) pair
  double ms_per_kv_token = 0;      ///< decode attention per cached token read
  /// Sliding-window layers attend to at most W keys, so their attention is a cost per token: per
  /// prefill token (its W pairs) and per decode sequence (its W cached tokens). 0 without them.
  double ms_per_window_prefill_token = 0;
  double ms_per_window_decode_sequence = 0;
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
};

/// One step's time by part.
struct StepTime {
  double fixed_ms = 0;
  double sequence_ms = 0;  ///< the per-sequence cost: outside the roofline's GPU parts, as fixed
  double other_ms = 0;     ///< non-attention GPU work
  double prefill_attention_ms = 0;
  double decode_attention_ms = 0;
  double communication_ms = 0;  ///< tensor-parallel all-reduces (0 with tp = 1)

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
  time.other_ms = compute_ms > model.weights_ms ? compute_ms : model.weights_ms;
  time.prefill_attention_ms = (model.ms_per_prefill_pair * batch.prefill_pairs +
                               model.ms_per_window_prefill_token * batch.prefill_tokens) /
                              attention_speedup;
  time.decode_attention_ms =
      (model.ms_per_kv_token * batch.decode_kv_tokens +
       model.ms_per_window_decode_sequence * static_cast<double>(batch.decode_sequences)) /
      attention_speedup;
  time.communication_ms = model.tp_ms_per_token * batch.tokens() + model.tp_fixed_ms;
  return time;
}

}  // namespace kspeed::engine
