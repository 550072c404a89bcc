#pragma once
// Where a step model's coefficients come from (step_model.hpp evaluates them). Three sources,
// least trusted first, each one refining the last:
//
//   modelled   the platform's roofline (model + GPU + tp + KV type) at default efficiencies that
//              are cited below, never tuned;
//   fitted     measured request latencies (TTFT and TPOT at known prompt / response lengths and
//              concurrency: a benchmark file, a one-at-a-time run, explicit points);
//   measured   a profiler trace's steps (kernel time by class at a known batch composition).
//
// Every coefficient keeps its origin (provenance + the source it came from) and a calibration
// returns the residual of every point it was fitted to, so an answer can say what it stands on.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/deployment/scheduler_settings.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/engine/profiled_step.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/residual.hpp"

namespace kspeed::engine {

// The per-layer launch floor: the kernels of a layer the roofline does not price (norms, RoPE,
// the activation, the KV-cache write, quantisation, MoE routing and finalize; the GEMMs,
// attention and collectives are priced) each cost a whole kernel however little they do, and at
// small batches they do almost nothing. Measured by scripts/launch_floor.py in two public traces
// (AMD-AGI/TraceLens @ 171dd747, MIT, tests/traces/): SGLang's Qwen3-8B decode at batch 32 on
// MI300X in HIP-graph replay runs 9 of them per dense layer (47.7 µs a layer, the shortest
// 4.33 µs); vLLM's gpt-oss prefill on B200 runs 13 per MoE layer (the shortest 2.59 µs). Under
// CUDA/HIP graphs the kernels run back to back (that trace's median gap between kernels is
// 0.001 µs), so a layer costs at least its count times the shortest kernel. A floor must not
// overstate: the prior takes the lower of the two GPUs' shortest kernels for every GPU.

/// The shortest kernel that runs once per layer in the public traces (B200 2.59 µs, MI300X
/// 4.33 µs: the lower).
inline constexpr double kLaunchFloorKernelUs = 2.59;
/// The unpriced kernels of one dense layer (SGLang, Qwen3-8B, MI300X trace).
inline constexpr std::int64_t kUnpricedKernelsPerDenseLayer = 9;
/// The unpriced kernels of one MoE layer (vLLM, gpt-oss, B200 trace).
inline constexpr std::int64_t kUnpricedKernelsPerMoeLayer = 13;

/// A model's per-step launch floor: every layer's unpriced kernels at the shortest kernel.
struct LaunchFloor {
  std::int64_t dense_layers = 0;
  std::int64_t moe_layers = 0;
  double kernel_us = kLaunchFloorKernelUs;
  std::int64_t kernels() const {
    return dense_layers * kUnpricedKernelsPerDenseLayer + moe_layers * kUnpricedKernelsPerMoeLayer;
  }
  double ms() const { return static_cast<double>(kernels()) * kernel_us / 1000.0; }
};

/// The launch floor of `model`: its MoE layers (shapes with a mixture of experts) at the MoE
/// count, every other layer at the dense count.
LaunchFloor launch_floor(const ModelArch& model);

// The prior's bandwidth efficiency and request overhead: set by public one-at-a-time runs and by
// nothing else (docs/validation.md section 7 names the runs that set them and the different runs
// that check them). The setting runs: AccelMark suite A
// (github.com/FreedomIntelligence/AccelMark @ 5797fc42, results/verified/nvidia_<gpu>x1_suite_A_
// nvidia_vllm_47f5d58e_*/interactive/result.json): Meta-Llama-3-8B-Instruct BF16, one GPU, one
// request at a time, input p50 280 and output p50 310 tokens. A decode step reads 7,504,658,432
// weights · 2 bytes + 435 cached tokens · 131,072 bytes = 15.07 GB, beside the launch floor of
// its 32 dense layers (0.746 ms); each run's achieved fraction is those bytes / (datasheet
// bandwidth · (its TPOT p50 − the floor)):
//   HBM   H100 SXM 0.643, A100-SXM4-80GB 0.594, A800 0.632, H200 0.457, H20-3e 0.260
//   GDDR  RTX 3090 0.777, RTX 4090 0.771, RTX 5090 0.887, RTX 6000 Ada 0.850
// The default of a family is its median (robust to one run: the H20-3e's bandwidth is inferred,
// not printed by NVIDIA); the range is the prior's uncertainty.

/// η_bandwidth of an HBM GPU's weight and KV reads: 0.59, the median of the five HBM runs above
/// (the A100's 0.594; range 0.260 to 0.643).
inline constexpr double kPriorBandwidthEfficiencyHbm = 0.59;
inline constexpr double kPriorBandwidthEfficiencyHbmLow = 0.260;
inline constexpr double kPriorBandwidthEfficiencyHbmHigh = 0.643;
/// η_bandwidth of a GDDR card's: 0.81, the median of the four GDDR runs (range 0.771 to 0.887).
inline constexpr double kPriorBandwidthEfficiencyGddr = 0.81;
inline constexpr double kPriorBandwidthEfficiencyGddrLow = 0.771;
inline constexpr double kPriorBandwidthEfficiencyGddrHigh = 0.887;
/// A GPU file that does not state its memory: the median of all nine runs (0.643, the H100's).
inline constexpr double kPriorBandwidthEfficiencyPooled = 0.64;
/// The step model's bandwidth efficiency when none is given: the HBM prior.
inline constexpr double kDefaultStepBandwidthEfficiency = kPriorBandwidthEfficiencyHbm;
/// TTFT time outside the engine's steps (tokenization, the API server, the wait for a step):
/// 19.0 ms, the median over the nine runs of TTFT p50 − the prior's prefill step of 280 tokens
/// (the launch floor beside its reads, at the family's η_bandwidth and the cited compute
/// efficiencies below; the A800's); range 2.3 ms (RTX 5090) to 32.3 ms (RTX 4090).
inline constexpr double kPriorRequestOverheadMs = 19.0;
inline constexpr double kPriorRequestOverheadLowMs = 2.3;
inline constexpr double kPriorRequestOverheadHighMs = 32.3;
// No per-step fixed cost beyond the launch floor: the nine runs do not identify one. TPOT = f +
// bytes / (BW · η_family), least squares in relative error, wants f = 3.98 ms with η_GDDR = 1.04
// (> 1), which puts the H100 and RTX 5090 runs above their memory roofs; held to the physics
// (every run's TPOT − f ≥ its bytes / BW, so f ≤ 1.81 ms) the fit sits on that bound, set by one
// run. The launch floor, measured elsewhere, is within it (0.746 ms).

/// The prior bandwidth efficiency of one memory family, with its spread and where it came from.
struct BandwidthPrior {
  double efficiency = kPriorBandwidthEfficiencyHbm;
  double low = kPriorBandwidthEfficiencyHbmLow;
  double high = kPriorBandwidthEfficiencyHbmHigh;
  std::string_view set_by;  ///< for people: which runs set it
};

/// The prior for `memory` (MemoryKind::unstated: pooled over both families).
BandwidthPrior bandwidth_prior(MemoryKind memory);

/// η_compute of the dense GEMMs: 0.72, the model FLOPs utilization FlashAttention-2 reports for
/// end-to-end GPT training on A100 (Dao 2023, arXiv:2307.08691: 225 TFLOP/s, 72% MFU).
inline constexpr double kDefaultGemmComputeEfficiency = 0.72;
/// η_compute of prefill attention: 0.75, FlashAttention-3's forward pass on H100 in BF16 (Shah
/// et al. 2024, arXiv:2407.08608: up to 740 TFLOP/s, 75% of peak).
inline constexpr double kDefaultAttentionComputeEfficiency = 0.75;

/// Achieved fractions of the GPU's roofs, each in (0, 1].
struct StepEfficiency {
  double bandwidth = kDefaultStepBandwidthEfficiency;             ///< weights and KV reads
  double gemm_compute = kDefaultGemmComputeEfficiency;            ///< non-attention FLOPs
  double attention_compute = kDefaultAttentionComputeEfficiency;  ///< prefill attention FLOPs
};

/// Where one coefficient came from.
struct CoefficientOrigin {
  Provenance provenance = Provenance::modelled;
  std::string source;  ///< for people: the formula, the cited default or the file it was fit to
};

/// The origin of each StepModel coefficient, and of the request overhead.
struct StepModelOrigins {
  CoefficientOrigin fixed;
  CoefficientOrigin weights;
  CoefficientOrigin per_token;
  CoefficientOrigin prefill_pair;
  CoefficientOrigin kv_token;
  CoefficientOrigin request_overhead;
  /// The per-sequence cost: default 0 until a calibration at several batch sizes sets it.
  CoefficientOrigin per_sequence{Provenance::default_value,
                                 "0: a roofline has no per-sequence engine cost; calibrate to "
                                 "measurements at more than one number of running sequences"};
};

/// A step model for one deployment, with the origin of every coefficient.
struct CalibratedStepModel {
  StepModel model;
  /// TTFT time outside the engine's steps (tokenization, detokenization, API, the scheduler's
  /// wait for the step to start), ms >= 0; added once per request.
  double request_overhead_ms = 0;
  StepModelOrigins origins;
  /// Speculative decoding of the deployment (the platform's --spec-tokens, --spec-accept): each
  /// decode step verifies q tokens per sequence and accepts τ of them on average (1 and 1
  /// without), so a request's TPOT is its decode step over τ.
  double spec_tokens_per_step = 1;  ///< q >= 1
  double spec_mean_accepted = 1;    ///< τ in [1, q]
  /// The roofline efficiencies the coefficients imply: the defaults when modelled; divided by
  /// each fitted factor after a calibration (a fit to latencies keeps each <= 1).
  StepEfficiency efficiency;
  /// The bandwidth prior the model started from (modelled_step_model at the GPU's prior; absent
  /// when an efficiency was given): shown with its range while calibration is modelled.
  std::optional<BandwidthPrior> prior;
  /// The layer and kernel counts behind the model's launch_floor_ms (modelled_step_model).
  LaunchFloor launch_floor;
  std::string calibration_source;  ///< the most trusted source that set a coefficient
  /// What the calibration run's reader left out of the fit (queued TTFTs, the server's warm-up
  /// requests), for the lines that name the source; empty when nothing.
  std::string calibration_note;
  Provenance calibration = Provenance::modelled;  ///< modelled, fitted or measured
  std::vector<PointResidual> residuals;           ///< every point the calibration used
  /// The prompt lengths (per request) of the prefill steps calibrate_to_steps measured prefill
  /// attention on, and how many steps: outside [min, max] the attention cost is extrapolated
  /// (quadratically, with the causal pairs). Absent when no profiled prefill step set it.
  struct CalibratedRange {
    double min_tokens = 0;
    double max_tokens = 0;
    std::int64_t steps = 0;
    double scale = 1;  ///< measured attention over the roofline's on those steps
  };
  std::optional<CalibratedRange> prefill_attention_range;
};

/// The prior efficiencies of `gpu`: its memory family's bandwidth prior, the cited compute ones.
StepEfficiency prior_efficiency(const Gpu& gpu);

/// The step model from the platform's roofline: (model, GPU, tp, KV type, precision; not the
/// platform's batch: each step's own tokens set the MoE experts it reads). Per GPU:
///   weights_ms          = weight bytes / (BW · η_bw); MoE: the weights every step reads
///                         (attention, dense layers, router, shared experts, head), and
///   experts             = every routed expert's bytes / tp / (BW · η_bw), of which a step of t
///                         tokens reads the expected union U(t)/E (step_model.hpp)
///   ms_per_token        = 2 · P_active / tp FLOPs / (peak · η_gemm)
///   ms_per_window_*     = sliding-window layers · W positions: a prefill token's FLOPs / (peak ·
///                         η_attn), a decode sequence's KV bytes / (BW · η_bw); origins as the
///                         full layers' prefill_pair and kv_token
///   ms_per_prefill_pair = full-attention layers · FLOPs per (q, k) pair / (peak · η_attn)
///   ms_per_kv_token     = full-attention layers · KV bytes per token / (BW · η_bw)
///   launch_floor_ms     = the model's launch floor (launch_floor), beside the reads
///   fixed_ms = 0 (the setting runs identify no per-step cost beyond the floor);
///   request_overhead_ms = the prior's kPriorRequestOverheadMs, labelled default with the runs
///   that set it.
/// q and τ are the platform's. Without `efficiency`, the GPU's prior (prior_efficiency).
CalibratedStepModel modelled_step_model(const Platform& platform);
CalibratedStepModel modelled_step_model(const Platform& platform, const StepEfficiency& efficiency);

/// One measured latency of identical requests: `concurrency` requests of `prompt_tokens` in and
/// `response_tokens` out, with their mean (or median) TTFT and/or TPOT.
struct LatencyObservation {
  std::string label;  ///< which statistic of which file, for the residual table
  double prompt_tokens = 0;
  double response_tokens = 0;
  double concurrency = 1;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
};

/// Request-level latency of `concurrency` identical requests started together:
///   TTFT = request overhead + one step prefilling all c prompts (c·L tokens, c·L(L+1)/2 pairs)
///   TPOT = one decode step of c sequences at the mean context over the response, L + n_out/2
///          (the step time is linear in the KV tokens, so that is the mean over the steps),
///          verifying q tokens per sequence, over the τ tokens it emits per sequence.
struct RequestLatency {
  StepTime prefill_step;
  StepTime decode_step;  ///< the mean decode step
  double overhead_ms = 0;
  double mean_accepted = 1;  ///< τ: output tokens per sequence per decode step
  double ttft_ms() const { return overhead_ms + prefill_step.total_ms(); }
  double tpot_ms() const { return decode_step.total_ms() / mean_accepted; }
};

/// Prefill and decode batch compositions of `concurrency` identical requests.
BatchComposition prefill_batch(double prompt_tokens, double concurrency);
/// Each decode sequence verifies `tokens_per_step` (q) tokens in its step. With chunked local
/// layers (`chunk_tokens` C > 0) each sequence also reads its current chunk's keys, the mean over
/// the response's steps.
BatchComposition decode_batch(double prompt_tokens, double response_tokens, double concurrency,
                              double tokens_per_step = 1, std::int64_t chunk_tokens = 0);

/// The requests' latencies under the model (with its q and τ); `attention_speedup` divides the
/// attention parts.
RequestLatency request_latency(const CalibratedStepModel& calibrated, double prompt_tokens,
                               double response_tokens, double concurrency = 1,
                               double attention_speedup = 1.0);

/// How one request's prompt is prefilled under continuous batching (vLLM V1's mixed steps, as
/// the replay runs them: serving/batch_replay.hpp). `--batch` is the decode concurrency: the
/// request's prompt goes in chunks of what the step's token budget leaves after the other
/// running decodes, each chunk in a step beside them; what the budget leaves after its own chunk
/// is filled from the prompts queued with it (a loaded engine: a closed loop of `concurrency`
/// identical clients keeps their arrivals together), at most the other requests' prompts.
/// `prompts_together` > 0 is the old whole-batch prefill instead (--prefill-batch N): N prompts
/// in one step, no decode beside them.
struct PrefillScheduling {
  double concurrency = 1;  ///< requests in flight: concurrency - 1 decode beside
  /// The step's token budget (max_batched_tokens): vLLM's default unless the user gives one.
  double budget_tokens = static_cast<double>(kVllmMaxBatchedTokens);
  std::optional<double> prompts_together;  ///< --prefill-batch N: one step of N prompts
};

/// A request's prefill steps, summed (StepTime is additive), and what they carried.
struct PrefillSteps {
  StepTime time;                    ///< Σ over the steps of the request's prefill
  std::int64_t steps = 1;           ///< how many steps the prompt took
  double chunk_tokens = 0;          ///< the prompt tokens a step carries at most
  double decodes_beside = 0;        ///< running decode sequences in each step
  double queued_prompt_tokens = 0;  ///< other prompts' tokens the steps carried, in all
};

/// The request's prefill steps under `scheduling`, the decodes beside it at the mean context
/// over the response (decode_batch); `attention_speedup` divides the attention parts.
PrefillSteps scheduled_prefill(const CalibratedStepModel& calibrated, double prompt_tokens,
                               double response_tokens, const PrefillScheduling& scheduling,
                               double attention_speedup = 1.0);

/// request_latency with the prefill scheduled (scheduled_prefill) rather than `concurrency`
/// prompts in one step; the decode step as request_latency's.
RequestLatency scheduled_request_latency(const CalibratedStepModel& calibrated,
                                         double prompt_tokens, double response_tokens,
                                         const PrefillScheduling& scheduling,
                                         double attention_speedup = 1.0);

/// Fits `prior` to measured latencies, labelled with `source` (a file name); a TPOT point is per
/// output token, so it is fitted as the decode step (q tokens verified) over τ. TPOT points fit the
/// bandwidth side (weights_ms and ms_per_kv_token by one factor) and, with two or more points of
/// different modelled decode time, the per-step fixed cost; TTFT points then fit the request
/// overhead and, with two or more prompt lengths (or when one point is below the modelled prefill
/// step), the compute side (ms_per_token and ms_per_prefill_pair by one factor). Least squares;
/// the fixed cost and overhead are held >= 0. What no point constrains keeps its prior origin.
/// Throws InputError when there is no point or a point is not positive.
CalibratedStepModel calibrate_to_latencies(const CalibratedStepModel& prior,
                                           const std::vector<LatencyObservation>& observations,
                                           std::string_view source);

/// A prompt's prefill step as a decoding request saw it: the prompt's length and the requests
/// decoding in that step (whose decode spans the prompt's first token).
struct PromptStep {
  double prompt_tokens = 0;
  double decode_sequences = 0;
};

/// One measured per-token decode time with the number of sequences decoding alongside it (itself
/// included): one request of a per-request log (its (E2E - TTFT) / (out - 1) and the mean
/// number of requests decoding during its decode, mean_decoding_alongside), or a whole load
/// level (its mean per-token time and mean batch).
struct RunningDecodeObservation {
  std::string label;
  double running_sequences = 1;  ///< mean decode sequences per step over the decode, > 0
  double prompt_tokens = 0;
  double response_tokens = 0;
  double per_token_ms = 0;  ///< measured decode time per output token
  /// The prompts prefilled while this request decoded, their steps shared with its decode
  /// (prompts_prefilled_during; none for a level's aggregate): the fit takes their work out of
  /// per_token_ms before fitting the decode line.
  std::vector<PromptStep> prompts_alongside{};
};

/// Fits `prior`'s decode side to decode times at different numbers of running sequences,
/// labelled with `source`: per token = (step at N sequences, weights and KV reads scaled by one
/// factor s, ms_per_sequence = c) / τ, least squares in s (the fitted η_bw = η / s stays <= 1)
/// and c >= 0. A point's prompts_alongside come off its per-token time first: each prompt as
/// one mixed step (vLLM V1: its tokens and causal pairs with the decodes open at its first
/// token) costs the step model's difference to those decodes alone, and that work over the point's
/// out - 1 tokens is not the sequences' (else the replay, which schedules those prompts again,
/// charges it twice; docs/validation.md section 3). The slope over N separates c (with the KV read
/// per sequence) from the per-step intercept (the weights read), so the points must span different
/// batches: the running sequences must differ by at least one between the points. The per-step
/// fixed cost keeps the prior's (it and the weights read are both per step: no decode time tells
/// them apart). Throws InputError when there are fewer than two points, a point is not positive, or
/// the points do not span a range of running sequences.
CalibratedStepModel calibrate_to_running_sequences(
    const CalibratedStepModel& prior, const std::vector<RunningDecodeObservation>& observations,
    std::string_view source);

/// One request's decode, from a per-request log's timestamps (seconds, any common origin).
struct DecodeInterval {
  double first_token_s = 0;
  double last_token_s = 0;  ///< >= first_token_s
};

/// For each interval, the time-averaged number of intervals open during it, itself included
/// (how many requests decoded alongside it, on average over its decode): the x of a
/// per-request calibration (calibrate_to_running_sequences). A zero-length interval counts the
/// intervals open at its instant. O(n log n).
std::vector<double> mean_decoding_alongside(const std::vector<DecodeInterval>& intervals);

/// One prompt of a per-request log: when its prefill ended (its first token) and its length.
struct PrefilledPrompt {
  double first_token_s = 0;
  double prompt_tokens = 0;
};

/// For each decode interval, the prompts whose first token came after the interval's first
/// token and at or before its last (their prefill ran while it decoded; its own prompt ended at
/// its first token and is not counted), in first-token order, each with the decodes open at its
/// first token. Each prompt, not a sum: a step rises above the weights floor by max(), so a mean
/// length or batch would miss most of it. O((n + m) log(n + m) + the prompts returned).
std::vector<std::vector<PromptStep>> prompts_prefilled_during(
    const std::vector<DecodeInterval>& decodes, std::vector<PrefilledPrompt> prompts);

/// Whether `decode` can identify the per-sequence cost: two or more points whose running
/// sequences differ by at least one.
bool identifies_per_sequence_cost(const std::vector<RunningDecodeObservation>& decode);

/// A calibration to one measured run: calibrate_to_latencies on its points, then, when its
/// per-request decode points identify it, the per-sequence cost and bandwidth side from them
/// (calibrate_to_running_sequences) and the request overhead refitted to the TTFT points. The
/// residuals are the latency points' under the final model.
CalibratedStepModel calibrate_to_run(const CalibratedStepModel& prior,
                                     const std::vector<LatencyObservation>& latencies,
                                     const std::vector<RunningDecodeObservation>& decode,
                                     std::string_view source);

/// One engine step from a profiler trace: its batch composition and its times by class.
struct StepObservation {
  std::string label;  ///< e.g. "step 3 (execute_context_1(888)...)"
  BatchComposition batch;
  double attention_kernel_ms = 0;  ///< prefill + decode attention kernels
  double other_kernel_ms = 0;      ///< every other kernel
  double wall_ms = 0;              ///< the step's wall time, profiler idle gaps excluded (>= busy)
};

/// The profiled steps of a workload (kspeed profile --emit-workload) as observations: each
/// step's batch composition (a prefill request's chunk counted from the start of its prompt:
/// the trace does not say what was cached), its attention and other kernel time, and its time
/// on the workload's share denominator (ProfiledStep::time_ms), the one its TTFT and TPOT are
/// on: kernel or busy time leave the step's idle part out, wall time keeps it less the
/// profiler idle gap.
std::vector<StepObservation> step_observations(const std::vector<ProfiledStep>& steps);

/// Fits `prior` to profiled steps, labelled with `source`: the attention coefficients by the
/// ratio of measured to modelled attention time, the non-attention ones by that of the other
/// kernels, and the fixed cost as the mean of wall - kernel time (>= 0). Residuals are per step
/// (wall time). Throws InputError when there is no step or a step has no kernel time.
CalibratedStepModel calibrate_to_steps(const CalibratedStepModel& prior,
                                       const std::vector<StepObservation>& steps,
                                       std::string_view source);

}  // namespace kspeed::engine
