#pragma once
// Two traces of the same workload, before and after a change, compared: kernels matched by name
// (and their class), steps matched by phase and token counts, and per phase the realized
// attention speedup, kspeed's prediction of the phase speedup from it (Amdahl on the before
// share) and the measured phase speedup, with the difference attributed. Pure: no I/O.
//
// Per phase, under the chosen denominator (analysis.hpp), with A the attention time (the share's
// scope), K the other kernels' time and R = T - A - K the rest of the denominator (idle time for
// wall-time, minus overlap for busy-time, 0 for kernel-time):
//   p = A_b / T_b,  s = A_b / A_a                      (realized attention speedup)
//   predicted = 1 / ((1 - p) + p / s) = T_b / (T_b - A_b + A_a)     (Amdahl)
//   measured  = T_b / T_a
//   T_a - (T_b - A_b + A_a) = (K_a - K_b) + (R_a - R_b)
// so the prediction is exact when only attention changed, and what it misses is the change in
// other kernels and in idle time, which the result states in ns.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/profile/analysis.hpp"

namespace kspeed::profile {

/// One kernel name in either trace.
struct KernelChange {
  std::string name;
  KernelClass kernel_class = KernelClass::other;
  std::int64_t before_ns = 0;
  std::int64_t after_ns = 0;
  std::int64_t before_count = 0;  ///< executions
  std::int64_t after_count = 0;
  bool is_new() const { return before_count == 0; }
  bool vanished() const { return after_count == 0; }
};

/// One kernel class's time before and after (whole trace, kernel time).
struct ClassChange {
  KernelClass kernel_class = KernelClass::other;
  std::int64_t before_ns = 0;
  std::int64_t after_ns = 0;
  /// before / after; nullopt when either is 0.
  std::optional<double> speedup() const;
};

/// Step kinds of one phase: how many steps with the same token counts are in both traces.
struct StepMatch {
  std::int64_t before_steps = 0;
  std::int64_t after_steps = 0;
  std::int64_t matched_steps = 0;  ///< same phase and token counts (multiset intersection)
};

/// One phase before and after.
struct PhaseChange {
  Phase phase = Phase::unphased;
  bool whole_trace = false;  ///< every kernel, whatever its step
  StepMatch steps;
  std::int64_t attention_before_ns = 0;     ///< A_b
  std::int64_t attention_after_ns = 0;      ///< A_a
  std::int64_t other_before_ns = 0;         ///< K_b: other kernels' time
  std::int64_t other_after_ns = 0;          ///< K_a
  std::int64_t total_before_ns = 0;         ///< T_b: the denominator
  std::int64_t total_after_ns = 0;          ///< T_a
  double share_before = 0;                  ///< p = A_b / T_b
  std::optional<double> attention_speedup;  ///< s = A_b / A_a; nullopt without attention
  std::optional<double> predicted_speedup;  ///< Amdahl(p, s)
  double measured_speedup = 0;              ///< T_b / T_a
  /// predicted / measured - 1: 0 when only attention changed.
  std::optional<double> prediction_error;
  /// Where T_a - T_b comes from: attention, other kernels, the rest (idle or overlap), ns.
  std::int64_t attention_change_ns() const { return attention_after_ns - attention_before_ns; }
  std::int64_t other_change_ns() const { return other_after_ns - other_before_ns; }
  std::int64_t rest_change_ns() const;
};

struct TraceDiffOptions {
  Denominator denominator = Denominator::kernel_time;
  ShareScope scope = ShareScope::core;  ///< which kernels count as attention
};

struct TraceDiff {
  TraceDiffOptions options;
  FileResult before;
  FileResult after;
  std::vector<ClassChange> classes;     ///< one per class, enum order
  std::vector<PhaseChange> phases;      ///< phases with kernels in both traces; whole trace last
  std::vector<KernelChange> kernels;    ///< every name, largest |after - before| first
  std::vector<SetupField> differences;  ///< setup fields that differ (device, engine, ...)
};

/// Per-name kernel totals of a trace, with their classes (name order of the trace).
std::vector<KernelChange> kernel_totals(const Trace& trace, const KernelClassifier& classifier,
                                        bool as_after);

/// False when steps carry a phase in either trace but no phase (prefill, decode, mixed) is in
/// both: a prefill trace against a decode trace compares different work, so no speedup is
/// stated. True also when neither trace has phased steps (the unphased steps compare).
bool has_common_phase(const TraceDiff& diff);

/// Compares two analysed traces; `before_trace`/`after_trace` give the per-name kernel totals.
TraceDiff diff_traces(const Trace& before_trace, const Trace& after_trace,
                      const KernelClassifier& classifier, const TraceDiffOptions& options);

}  // namespace kspeed::profile
