#pragma once
// A workload: the request shape a team serves and the attention share measured on it. Read from
// JSON by io::parse_workload; validated there, so the engine can trust every field.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/phase.hpp"
#include "kspeed/engine/profiled_step.hpp"
#include "kspeed/engine/chain/share_table.hpp"

namespace kspeed::engine {

/// The reference request: the shape at which TTFT and TPOT were measured. A workload may leave
/// any field out (a profile-derived workload knows shares, not latencies); the command line
/// must then supply it.
struct RequestShape {
  std::optional<std::int64_t> prompt_tokens;    ///< prompt length, tokens (>= 1)
  std::optional<std::int64_t> response_tokens;  ///< response length, tokens (>= 1)
  std::optional<double> ttft_ms;  ///< time to first token (the prefill step), ms (> 0)
  std::optional<double> tpot_ms;  ///< time per output token after the first, ms (> 0)
  /// Measured TTFT at several prompt lengths (request.ttft_points): TTFT at a prompt other than
  /// prompt_tokens is fitted to them, TTFT = T0 + a·L·(1 + odds(L)) (latency_model.hpp).
  std::vector<LatencyPoint> ttft_points;
  /// Where and how the points were measured (request.ttft_points_conditions), for the output.
  std::string ttft_points_conditions;
  /// request.illustrative: the shape and latencies are an example (the source analysis's
  /// request), not a measurement; every value taken from them is labelled illustrative.
  bool illustrative = false;
};

/// The ten conditions of MODEL.md section 6, in checklist order. A workload states any subset.
inline constexpr const char* kConditionKeys[] = {
    "model",        "hardware",          "engine",      "precision",
    "token_counts", "prefix_caching",    "concurrency", "speculative_decoding",
    "goodput",      "metric_definitions"};

/// Steps a profiler trace measured, as kspeed profile emits them: the times behind the request's
/// TTFT or TPOT under each denominator, so a reader sees how much of the step the GPU was busy.
struct MeasuredStep {
  Phase phase = Phase::prefill;
  std::int64_t context_tokens = 0;  ///< prompt length (prefill) or KV length (decode); 0: unstated
  std::int64_t steps = 0;           ///< steps averaged
  double kernel_ms = 0;             ///< mean sum of kernel durations
  double busy_ms = 0;               ///< mean GPU-busy time (union of kernel intervals)
  double wall_ms = 0;               ///< mean first-kernel-start to last-kernel-end
  std::optional<std::int64_t> batch;  ///< requests decoded together, when stated
  /// Profiler idle gap inside the steps (mean), ms: excluded from a wall-time denominator
  /// (ProfiledStep::profiler_gap_ms). 0 in files of format 1, which did not record it.
  double profiler_gap_ms = 0;
};

/// A request latency a profiled step's time can stand for.
enum class StepMeasures {
  ttft,  ///< a prefill request's share of the step
  tpot,  ///< the whole step: every decode sequence waits for it
};

/// What one request sees of a profiled step, under the share's denominator: a prefill request
/// its share of the step's tokens (its prompt tokens over every token the step computed, one
/// per decode sequence), a decode sequence the whole step (it waits for the step to emit its
/// token).
double request_latency_ms(const ProfiledStep& step, StepMeasures latency);

/// The workload file format kspeed writes: 2 added the profiled steps (`steps`), profiler idle
/// gaps and the per-request TTFT; files without format_version are format 1 and still read.
inline constexpr int kWorkloadFormatVersion = 2;

struct Workload {
  std::string name;         ///< short identifier, e.g. "deepseek-r1-fp8"
  std::string description;  ///< one line for people
  std::string source;       ///< citation of the measurements
  /// How the share tables were obtained: Provenance::workload (cited from `source`) or
  /// Provenance::measured (reduced from a profiler trace by kspeed profile).
  Provenance share_origin = Provenance::workload;
  RequestShape request;
  std::vector<SharePoint> prefill_shares;  ///< sorted by context, may be empty
  std::vector<SharePoint> decode_shares;   ///< sorted by context, may be empty
  /// Stated conditions as (key, value) in checklist order; keys are from kConditionKeys.
  std::vector<std::pair<std::string, std::string>> conditions;
  /// The deployment, for the roofline and the decode model (docs/presets.md); each optional.
  std::optional<std::string> model;     ///< a model preset name or file path (kspeed models)
  std::optional<std::string> gpu;       ///< a GPU preset name or file path (kspeed gpus)
  std::optional<std::int64_t> batch;    ///< sequences decoded together in one step (>= 1)
  std::optional<std::int64_t> tp;       ///< tensor parallelism (>= 1)
  std::optional<std::string> kv_dtype;  ///< the KV cache type the shares were measured with
  /// What the shares (and a measured TTFT/TPOT) are fractions of: "kernel-time", "busy-time" or
  /// "wall-time" (kspeed profile); empty when the workload does not say.
  std::string share_denominator;
  std::vector<MeasuredStep> measured_steps;  ///< kspeed profile's steps; informative
  /// Every step the trace measured (format 2; empty in older files and cited workloads).
  std::vector<ProfiledStep> profiled_steps;
  /// The trace files the steps came from, for a step model calibrated on them (format 2).
  std::string profiled_from;
  /// The workload whose prefill share table this one carries only for --share-model calibrated
  /// to fit to, when the user gave none (the built-in example's: another deployment's
  /// measurement); empty when the table is the user's own.
  std::string borrowed_share_table;
};

/// Checklist keys the workload does not state, in checklist order.
std::vector<std::string> missing_conditions(const Workload& workload);

/// What remains of an illustrative workload when the user names a deployment (a model and a GPU,
/// no workload): the request's prompt and response lengths, labelled illustrative. Its latencies,
/// shares, points, KV type and conditions were measured on another deployment, so they go: the
/// deployment's step model answers instead.
Workload request_lengths_only(const Workload& workload);


}  // namespace kspeed::engine
