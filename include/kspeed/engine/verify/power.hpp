#pragma once
// Can an end-to-end A/B benchmark see a predicted effect? The minimum detectable effect (MDE) of
// a comparison of mean latencies, and the requests or repeated runs needed to detect a given
// effect, from the noise of baseline runs. Pure: no I/O.
//
// A two-sided t test at level alpha with power 1 - beta (Chow, Shao & Wang, "Sample Size
// Calculations in Clinical Research", 2nd ed., 2008, sections 3.1-3.2; docs/plan.md works an
// example). The standard error se and degrees of freedom v of each comparison:
//   unpaired, n requests a side, per-request sd s:   se = s sqrt(2/n),   v = 2n - 2
//   paired, n request pairs, sd of differences s_d:   se = s_d / sqrt(n), v = n - 1
//   r runs a side, sd of the runs' means s_r:          se = s_r sqrt(2/r), v = 2r - 2
// The MDE is delta(v) se / mean, where delta(v) is the difference in standard errors the exact
// t test detects with the power (noncentral t, t_test.hpp; k = z(1 - alpha/2) + z(1 - beta) in
// the normal limit); "needed" is the smallest n or r whose t test reaches the power for
// d = effect x mean, the change to detect in ms. Run-to-run variation beyond the requests' own
// spread (s_r^2 > s^2 / n) is a floor that more requests per run cannot lower.
//
// The spread of the runs' means is estimated from R baseline runs with R - 1 degrees of
// freedom. Two runs give one: at 95% the true spread may be up to 32 times the estimate, so
// the between-run comparison needs 3 or more runs (kMinRunsForSpread) and is left out with
// fewer. With 3 or more, the spread's 95% range from the chi-square, sd sqrt((R-1) / chi2),
// gives the runs needed at its upper end beside the point estimate.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kspeed::engine {

/// z such that P(Z <= z) = p for a standard normal Z; p in (0, 1).
double normal_quantile(double p);

struct PowerOptions {
  double power = 0.8;   ///< 1 - beta
  double alpha = 0.05;  ///< two-sided level
};

/// One baseline run: one metric's per-request values (ms), and the requests' ids when the file
/// identifies them (for a paired estimate from two runs of the same requests).
struct BaselineRun {
  std::string source;
  std::vector<double> values_ms;
  std::vector<std::string> ids;  ///< parallel to values_ms; empty when not identified
};

struct PlanInput {
  std::vector<BaselineRun> runs;         ///< one or more runs of the baseline (repeats)
  double effect = 0.01;                  ///< the predicted relative change of the mean, > 0
  std::optional<std::int64_t> requests;  ///< requests a side in the A/B (default: the first run's)
  std::optional<std::int64_t> repeats;   ///< runs a side in the A/B (default 1)
  PowerOptions options;
};

/// The minimum detectable effect and what detecting the prediction needs, one way of comparing.
struct Detectability {
  double sd_ms = 0;         ///< the spread the comparison fights
  double mde_fraction = 0;  ///< of the mean, at the planned requests or repeats; infinite with
                            ///< one run a side (a t test needs 2)
  std::int64_t needed = 0;  ///< requests (pairs) or runs a side for the predicted effect
  bool detectable = false;  ///< effect >= mde_fraction
  double df = 0;            ///< the planned t test's degrees of freedom
  double power = 0;         ///< the planned t test's power against the predicted effect
  /// Between runs: the 95% range of the spread (chi-square on the baseline runs' R - 1 degrees
  /// of freedom) and the runs needed at its upper end; unset for requests.
  std::optional<double> sd_low_ms;
  std::optional<double> sd_high_ms;
  std::optional<std::int64_t> needed_high;
};

struct Plan {
  PlanInput input;
  double mean_ms = 0;                   ///< the baseline's mean (first run)
  std::int64_t requests = 0;            ///< requests a side planned
  std::int64_t repeats = 1;             ///< runs a side planned
  double k = 0;                         ///< z(1 - alpha/2) + z(power)
  Detectability unpaired;               ///< requests of one run against another's, independent
  std::optional<Detectability> paired;  ///< from two runs sharing request ids
  std::optional<Detectability> between_runs;  ///< from the spread of the runs' means (3+ runs)
  /// True when the run-to-run spread of the means exceeds what the requests' spread explains
  /// (s_r > s / sqrt(n)): more requests alone cannot reach the MDE the formula promises.
  bool run_floor = false;
  /// The detectability that decides: between runs when known, else paired, else unpaired.
  const Detectability& deciding() const;
  /// True when detecting the prediction needs more than kImpractical* of either.
  bool impractical = false;
};

/// Baseline runs the between-run spread needs: two give it one degree of freedom.
inline constexpr std::size_t kMinRunsForSpread = 3;

/// Beyond these a benchmark cannot practically detect the effect (a convention, docs/plan.md).
inline constexpr std::int64_t kImpracticalRequests = 100000;
inline constexpr std::int64_t kImpracticalRepeats = 50;

/// The plan. Throws std::invalid_argument on a bad input (no run, a run with fewer than 2
/// values, effect <= 0, power or alpha outside (0, 1)); the CLI checks them first.
Plan plan_ab(const PlanInput& input);

}  // namespace kspeed::engine
