#pragma once
// The workload level (MODEL.md section 9): every request of a log through the chain with its own
// prompt, response, cached prefix and (where the log has them) measured latencies; then the
// aggregates a serving engineer reads — percentiles of TTFT, TPOT and E2E before and after, the
// distribution of per-request speedups, time-weighted versus request-weighted speedups, prompt
// length buckets — and, over arrival times, the continuous-batching replay (serving_replay.hpp).
//
// Memory: a MixRun keeps one RequestOutcome (80 bytes) per request in chunks
// (request_outcomes.hpp), plus the model names seen; summaries copy one double column at a time (8
// bytes per request) to take exact percentiles, and find a bucket's or a model's requests by
// scanning, not by an index.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/analytic_share.hpp"
#include "kspeed/engine/chain/kernel_speedup_table.hpp"
#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/chain/latency_order.hpp"
#include "kspeed/engine/chain/request_outcomes.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/share_table.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/engine/denominator.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/distribution.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/serving/mix_cache.hpp"
#include "kspeed/engine/serving/replica_caches.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "kspeed/engine/warning.hpp"

namespace kspeed::engine {

/// One request of a log, as a reader delivers it. Latencies are the log's own measurements.
struct Request {
  std::optional<double> arrival_s;            ///< seconds since the log's first timestamp
  std::int64_t prompt_tokens = 0;             ///< >= 1
  std::int64_t response_tokens = 0;           ///< >= 0 (0: a prefill-only request)
  std::optional<std::int64_t> cached_tokens;  ///< measured cached prefix, 0..prompt-1
  std::vector<std::uint64_t> block_hashes;    ///< one per 512-token block; empty when absent
  std::optional<double> ttft_ms;              ///< measured time to first token
  std::optional<double> tpot_ms;              ///< measured time per output token after the first
  std::optional<double> itl_ms;               ///< measured mean inter-token latency
  std::optional<double> e2e_ms;               ///< measured request latency
  std::string model;                          ///< empty when the log does not say
  std::int64_t line = 0;                      ///< where the request starts in its file
  /// Reasoning tokens among response_tokens, when the log states them (AIPerf).
  std::optional<std::int64_t> reasoning_tokens;
  /// The request's identity across runs of one benchmark (AIPerf's conversation and turn, the
  /// index of a vLLM --save-detailed array): `kspeed diff` pairs two runs by it. Empty: none.
  std::string id;
  /// Measured wait in the engine's queue before its first step, part of ttft_ms (LLMServingSim's
  /// scheduled - queued): --calibrate keeps a TTFT mostly made of it out of the overhead fit.
  std::optional<double> queue_ms;
};

/// How requests without measured latencies get them: the workload's reference request, scaled
/// to each prompt with the cost model (MODEL.md section 4):
///   a = (1 - p(L_ref)) * TTFT_ref / L_ref       (non-attention ms per new token)
///   TTFT(c, n) = a * n / (1 - p(L_eff)),  L_eff = 2c + n
/// With c = 0 this is scenario.cpp's scaling; with a cached prefix, non-attention work grows with
/// the new tokens only and attention's share is the table's at L_eff.
struct ReferenceLatency {
  std::int64_t prompt_tokens = 0;  ///< L_ref
  WithProvenance<double> ttft_ms;  ///< TTFT_ref and where it came from (workload, given)
};

/// Prefix caching for requests without a measured cached prefix.
struct PrefixCacheOptions {
  enum class Mode {
    off,           ///< no cache: c = 0 (unless the log measured it)
    lru,           ///< LRU over block hash ids with capacity_tokens
    hit_fraction,  ///< a stated fraction of every prompt is cached
  };
  Mode mode = Mode::off;
  std::int64_t capacity_tokens = 0;                  ///< lru: capacity
  std::int64_t block_tokens = kMooncakeBlockTokens;  ///< lru: tokens per hash id
  double hit_fraction = 0;                           ///< hit_fraction: R in [0, 1)
  /// lru: keep each request's block ids (MixRun::block_ids) for the replay, whose replicas
  /// each keep their own cache (replica_caches.hpp). Only a log with ids holds any.
  bool keep_block_ids = false;
};

/// --share-model analytic|calibrated: each request's prefill share from the model's architecture
/// at its effective prompt (analytic_share.hpp), as estimate's at its one prompt.
struct ModelledPrefillShare {
  ModelArch model;  ///< with shapes
  /// calibrated: the analytic curve moved onto the workload's table by one odds factor.
  std::optional<ShareCalibration> calibration;
  /// calibrated on a table that is not the user's (Workload::borrowed_share_table): its workload.
  std::string borrowed_table = {};
};

/// A phase's measured step (Workload::measured_steps): its time under the share tables' kind and
/// its wall time, the profiler idle gap left out (as estimate converts a share, scenario.cpp).
struct StepTimes {
  double table_ms = 0;  ///< kernel_ms or busy_ms, as the tables' kind
  double wall_ms = 0;   ///< wall_ms - profiler_gap_ms, at least table_ms
};

/// Everything the per-request chain needs; built from a workload by make_mix_model.
struct MixModel {
  std::vector<SharePoint> prefill_shares;  ///< the share table (may be empty with prefill_share)
  std::optional<double> prefill_share;     ///< a given share for every request instead
  std::vector<SharePoint> decode_shares;   ///< decode table over context (may be empty)
  std::optional<double> decode_share;      ///< a given decode share instead
  Provenance share_origin = Provenance::workload;  ///< how the tables were obtained
  /// What the tables are fractions of, and what the workload's own latencies (its TTFT, TPOT)
  /// are times of: its share_denominator (wall time when it states none). A log's measured
  /// latency and a flag's (--ttft, --ttft-point, --tpot) are wall times: a table share of kernel
  /// or busy time meets them only converted through the phase's measured step (denominator.hpp).
  TimeBase table_base = TimeBase::wall;
  std::optional<StepTimes>
      prefill_step_times;                      ///< the prefill step, when the workload measured one
  std::optional<StepTimes> decode_step_times;  ///< the decode step, likewise
  bool reference_ttft_wall = false;  ///< the reference TTFT is a flag's (--ttft), a wall time
  bool ttft_points_wall = false;     ///< the fit's points are --ttft-point's, wall times
  bool tpot_wall = false;            ///< tpot_ms is a flag's (--tpot, --tpot-point), a wall time
  Extrapolation extrapolation = Extrapolation::clamp;
  WithProvenance<double> kernel_speedup{kDefaultKernelSpeedup, Provenance::default_value};
  Phase phase = Phase::prefill;
  std::optional<ReferenceLatency> reference;  ///< for requests without a measured TTFT
  /// The reference is the user's --ttft (given at its prompt, carried elsewhere), not the
  /// workload's request (latency_order.hpp ranks the two apart).
  bool reference_given = false;
  /// TTFT fitted to the workload's measured points, TTFT = T0 + a·n·(1 + odds(L_eff)), used
  /// instead of `reference` when the user gave no --ttft (the same logic as estimate and sweep).
  std::optional<TtftModel> ttft_fit;
  std::optional<WithProvenance<double>> tpot_ms;  ///< for requests without a measured TPOT
  /// tpot_ms is the user's (--tpot, or one --tpot-point), not the workload's request's.
  bool tpot_given = false;
  /// The prompt tpot_ms was taken at (the scenario's): the workload's TPOT is its request's own
  /// there, and held elsewhere (mix does not carry it to each context as estimate does).
  std::int64_t tpot_context_tokens = 0;
  /// TPOT = c + b·L fitted to two or more --tpot-point, at each request's prompt L (as estimate
  /// and sweep evaluate it at --ctx), instead of `tpot_ms` for requests without a measured TPOT.
  std::optional<TpotModel> tpot_fit;
  /// The deployment's step model (mix --model/--gpu without --workload): each request's TTFT,
  /// TPOT and both shares from its own prefill step and mean decode step, for what neither the
  /// log nor a flag gives. Then no table, reference or fit of another deployment is used.
  std::optional<CalibratedStepModel> step_model;
  /// --ttft-overhead: TTFT's fixed term (time no attention kernel touches) for every request
  /// whose TTFT is not measured, as estimate's: it replaces a fit's T0 (and the step model's
  /// overhead and fixed step cost); the TTFT itself is unchanged, Amdahl moves TTFT minus it. A
  /// request whose TTFT is below it is all fixed term. 0: none (Amdahl on all of TTFT).
  std::optional<double> ttft_overhead_ms;
  /// --share-model analytic|calibrated: the share Amdahl applies to each request's prefill, in
  /// place of the table's or the step model's (a --share still wins); the TTFT of a request
  /// without a measurement is priced as without it. On a step model the share is of the prefill
  /// step's GPU time, and the overhead and fixed step cost are TTFT's fixed term.
  std::optional<ModelledPrefillShare> share_model;
  /// --kernel-speedup-table (by context): each request's kernel speedup at its prompt length,
  /// in place of `kernel_speedup` (interpolated in log-log between rows, clamped outside).
  std::optional<KernelSpeedupTable> kernel_speedup_table;
  PrefixCacheOptions prefix_cache;
  std::vector<double> percentiles{50, 90, 99};  ///< which percentiles summaries report
  /// The model's context (ModelArch::context_tokens) when the deployment names a model that
  /// states one: requests whose prompt and response outrun it are counted and warned. 0: none.
  std::int64_t context_tokens = 0;
  std::string context_model;  ///< the model it is the context of
};

/// The model of a resolved estimate scenario: its tables, speedup, phase, reference TTFT and TPOT.
/// `tpot_points`: two or more fit `tpot_fit` (pass none when --tpot is given: it wins).
MixModel make_mix_model(const Workload& workload, const Scenario& scenario,
                        Extrapolation extrapolation,
                        const std::vector<LatencyPoint>& tpot_points = {});

/// The chain's shares from the deployment's step model, request by request (MixRun::add), when
/// the deployment answers alone: a decode share `given` states still wins, and no share the
/// scenario took for its one reference request is kept. Which latency the step model prices is
/// latency_order.hpp's.
void price_by_step_model(MixModel& model, const CalibratedStepModel& step,
                         const EstimateOptions& given);

/// Accumulates requests one at a time (streaming: the reader's callback calls add), then
/// summarises. The prefix cache sees requests in the order they are added.
class MixRun {
 public:
  explicit MixRun(MixModel model);

  /// Puts one request through the chain and keeps its outcome.
  const RequestOutcome& add(const Request& request);

  const MixModel& model() const { return model_; }
  const RequestOutcomes& outcomes() const { return outcomes_; }
  const std::vector<std::string>& models() const { return models_; }
  std::int64_t prompt_tokens_total() const { return prompt_tokens_total_; }
  std::int64_t cached_tokens_total() const { return cached_tokens_total_; }
  /// Each request's block ids, in the order added, when the model keeps them
  /// (PrefixCacheOptions::keep_block_ids): a request whose cached prefix the log measured has
  /// none (its measurement stands wherever it runs).
  const RequestBlockIds& block_ids() const { return block_ids_; }
  /// Frees the block ids once the replay has its own copy in its order.
  void release_block_ids() { block_ids_ = {}; }
  std::vector<Warning> warnings() const;
  /// Requests whose speedup --kernel-speedup-table interpolated, or held at its edge (clamped).
  std::int64_t speedups_interpolated() const { return speedups_interpolated_; }
  std::int64_t speedups_clamped() const { return speedups_clamped_; }

  /// Frees the whole chunks of outcomes before `index` (80 bytes a request) once nothing reads
  /// them any more: the summary is taken and the replay has built its requests from them
  /// (replay_run_releasing). outcomes().size() is unchanged; release_outcomes frees the rest.
  void release_outcomes_before(std::size_t index) { outcomes_.release_before(index); }
  /// Frees every outcome.
  void release_outcomes() { outcomes_.clear(); }

  /// Room for `requests` outcomes, when the caller knows how many will come.
  void reserve(std::size_t requests) { outcomes_.reserve(requests); }

 private:
  std::int64_t cached_prefix(const Request& request);
  /// What the request's TTFT could come from, for latency_source (latency_order.hpp).
  LatencyCandidates ttft_candidates(const Request& request, std::int64_t cached,
                                    double latency_share,
                                    const std::optional<RequestLatency>& modelled) const;
  /// What the request's TPOT could come from, likewise.
  LatencyCandidates tpot_candidates(const Request& request,
                                    const std::optional<RequestLatency>& modelled) const;
  /// --share-model's prefill share at L_eff.
  double modelled_share(double effective_tokens) const;
  /// `steps`: how many of the phase's steps `moved_ms` spans (1 for TTFT and TPOT).
  double amdahl_moved(double moved_ms, double share, bool from_table, bool wall_latency,
                      Phase phase, double speedup, double steps = 1) const;
  /// A measured TTFT split (issue 27): `fixed_ms` becomes what the modelled GPU time of the
  /// request's prefill leaves of `measured_ms`; with the deployment, `share` becomes attention's
  /// share of that GPU time. Counted unsplit when nothing models the prefill.
  void split_measured_ttft(std::int64_t fresh, double latency_share,
                           const std::optional<RequestLatency>& modelled, double measured_ms,
                           double& fixed_ms, double& share, bool& share_from_table, bool& wall);
  template <TimeBase To>
  Share<To> table_share_as(double fraction, Phase phase, double step_latency_ms) const;
  std::uint16_t model_index(const std::string& name);

  MixModel model_;
  std::optional<PrefixCache> cache_;
  RequestBlockIds block_ids_;
  RequestOutcomes outcomes_;
  std::vector<std::string> models_{""};
  std::int64_t prompt_tokens_total_ = 0;
  std::int64_t cached_tokens_total_ = 0;
  std::int64_t clamped_below_ = 0, clamped_above_ = 0, extrapolated_ = 0;
  std::int64_t ttft_missing_ = 0, tpot_missing_ = 0;
  std::int64_t ttft_split_ = 0, ttft_unsplit_ = 0;
  double split_measured_ms_total_ = 0, split_fixed_ms_total_ = 0;
  std::int64_t no_block_hashes_ = 0, too_many_models_ = 0;
  std::int64_t speedups_interpolated_ = 0, speedups_clamped_ = 0;
  /// Modelled TTFTs below --ttft-overhead (all fixed), and the shortest of them.
  std::int64_t ttft_below_overhead_ = 0;
  /// Requests beyond the model's context (MixModel::context_tokens), and the longest of them.
  std::int64_t beyond_context_ = 0;
  std::int64_t longest_beyond_context_ = 0;
  double shortest_below_overhead_ms_ = 0;
  /// This request's kernel speedup: the table's at its prompt, else the model's one.
  double kernel_speedup_for(std::int64_t prompt_tokens);
};

/// A metric before and after the change.
struct BeforeAfter {
  Distribution before;
  Distribution after;
};

/// A group of requests: a prompt-length bucket or a model.
struct MixGroup {
  std::string label;              ///< model name, or empty for a bucket (see lower/upper)
  std::int64_t lower_tokens = 0;  ///< bucket: prompt >= lower
  std::int64_t upper_tokens = 0;  ///< bucket: prompt < upper (0: no upper bound)
  std::int64_t requests = 0;
  double mean_prefill_share = 0;
  double ttft_p50_before_ms = 0;
  double ttft_p50_after_ms = 0;
  double median_e2e_speedup = 0;         ///< request-weighted: the median request's speedup
  double time_weighted_e2e_speedup = 0;  ///< sum E2E before / sum E2E after over the group
};

/// The aggregates of a run.
struct MixSummary {
  std::int64_t requests = 0;
  std::vector<double> percentiles;  ///< the points each Distribution reports
  BeforeAfter ttft_ms;
  BeforeAfter tpot_ms;  ///< over requests with a TPOT
  BeforeAfter e2e_ms;   ///< over requests with an E2E
  Distribution prefill_share;
  Distribution prefill_speedup;  ///< per request: TTFT before / after
  Distribution e2e_speedup;      ///< per request: E2E before / after
  /// Time-weighted: sum before / sum after — how much serving time the whole log saves.
  double time_weighted_ttft_speedup = 1;
  double time_weighted_e2e_speedup = 1;
  /// Request-weighted: the mean of per-request speedups — what the average user sees.
  double request_weighted_e2e_speedup = 1;
  std::vector<HistogramBin> e2e_speedup_histogram;  ///< 10 bins
  std::vector<MixGroup> buckets;   ///< log-spaced prompt-length buckets that hold requests
  std::vector<MixGroup> by_model;  ///< when the log names models
  /// Prefix cache: token hit rate sum(c) / sum(prompt); 0 without caching.
  double cache_hit_rate = 0;
  std::int64_t ttft_measured = 0, ttft_modelled = 0;  ///< requests by TTFT source
  /// Requests whose TPOT is not the log's: the workload's, a flag's or the step model's.
  std::int64_t tpot_from_workload = 0;
  std::vector<Warning> warnings;
};

/// Prompt-length bucket edges: 0, 1k, 2k, 4k, ... 128k, 256k, 512k, 1m (binary k, as context
/// sizes are named), each bucket [edge_i, edge_{i+1}); the last is open.
std::vector<std::int64_t> prompt_bucket_edges();

/// Aggregates of a run.
MixSummary summarise(const MixRun& run);

/// The batching replay of a run (--replay): the same requests before and after the change.
struct MixReplay {
  ServingSetup setup;                ///< the step model, scheduler and arrivals it ran with
  ServingReplay serving;             ///< before, after, alone, capacity
  std::int64_t requests = 0;         ///< replayed
  std::int64_t without_arrival = 0;  ///< left out (open loop only): no arrival time
  std::vector<Warning> warnings;
};

/// The kernel change of a mix model as the replay applies it: the speedup on the attention of the
/// phase(s) it targets.
AttentionSpeedup attention_speedup(const MixModel& model);

/// The per-request chain leaves decode unchanged where no decode share is known; the replay's
/// step model applies `speedup` to decode attention all the same. Each such warning says both
/// (a number "replay_decode_speedup"), so the answer does not contradict its replay (issue 27).
void note_replayed_decode(std::vector<Warning>& warnings, const AttentionSpeedup& speedup);

/// The run's requests for the replay, sorted by arrival (ties in log order), each with its cached
/// prefix; `outcome_index[i]` is the replayed request i's place in run.outcomes(). With
/// `closed_loop` every request is kept (arrival times are not used); otherwise requests without
/// an arrival time are left out.
std::vector<ReplayRequest> replay_requests(const MixRun& run, bool closed_loop,
                                           std::vector<std::int32_t>& outcome_index);

/// Replays the run's requests through `setup` before and after. `per_request` (optional)
/// receives both sides' per-request values in replay order.
MixReplay replay_run(const MixRun& run, const ServingSetup& setup,
                     PerRequestReplay* per_request = nullptr,
                     std::vector<std::int32_t>* outcome_index = nullptr);

/// replay_run for a caller that reads the run's outcomes no more (no per-request output, no
/// plot): they are released once the replay's requests are built, so the replay holds its own
/// 24 bytes a request (and 20 a side while a side is summarised) instead of 80 more.
MixReplay replay_run_releasing(MixRun& run, const ServingSetup& setup);

}  // namespace kspeed::engine
