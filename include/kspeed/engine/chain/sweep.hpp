#pragma once
// `kspeed sweep`: the estimate at every combination of a few inputs (context, kernel speedup,
// batch, share, response length, levers). Each point is exactly `kspeed estimate` with those
// inputs given (resolve_scenario + estimate_chain); only the loop is new here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/kernel_speedup_table.hpp"
#include "kspeed/engine/chain/scenario.hpp"

namespace kspeed::engine {

/// The swept values of each input; an empty list leaves the input to the base options.
struct SweepAxes {
  std::vector<std::int64_t> prompt_tokens;    ///< --ctx
  std::vector<double> kernel_speedup;         ///< --kernel-speedup
  std::vector<std::int64_t> batch;            ///< --batch (needs a platform)
  std::vector<double> prefill_share;          ///< --share
  std::vector<std::int64_t> response_tokens;  ///< --response-tokens
  std::vector<double> compute_speedup;        ///< --compute-speedup (needs levers)
  std::vector<double> bytes_reduction;        ///< --bytes-reduction (needs levers)
};

/// The inputs of one point that a sweep may vary, as resolved.
struct SweepRow {
  WithProvenance<std::int64_t> prompt_tokens;
  WithProvenance<std::int64_t> response_tokens;
  WithProvenance<double> ttft_ms;
  WithProvenance<double> tpot_ms;
  std::optional<WithProvenance<double>> kernel_speedup;  ///< absent when levers describe it
  WithProvenance<double> prefill_share;
  std::optional<WithProvenance<double>> decode_share;
  std::optional<std::int64_t> batch;      ///< with a platform
  std::optional<double> compute_speedup;  ///< with levers
  std::optional<double> bytes_reduction;  ///< with levers
  EstimateResult result;
  std::optional<WithProvenance<double>> tpot_after_ms;
  std::vector<Warning> warnings;
  bool ttft_from_workload = false;  ///< Scenario's: the workload's request's TTFT
  bool tpot_from_workload = false;  ///< Scenario's: the workload's request's TPOT
};

struct Sweep {
  Workload workload;
  Phase phase = Phase::prefill;
  std::optional<Platform> platform;  ///< the base platform (its batch is the first swept one)
  std::vector<std::string> swept;    ///< the varied inputs, outermost first ("kernel_speedup", ...)
  std::vector<SweepRow> rows;        ///< every combination; the context varies fastest
  /// The deployment's step model's provenance and source (EstimateOptions::step_model): a chart
  /// says "calibrated from FILE" when it was fitted or measured. modelled without one.
  Provenance step_calibration = Provenance::modelled;
  std::string step_calibration_source;
};

/// How many points the axes make (the product of the non-empty lists' sizes).
std::int64_t sweep_size(const SweepAxes& axes);

/// Every combination of the axes over `base`. With a speedup table (and no kernel speedup
/// axis), each point's kernel speedup is the table's at its context or batch. Throws InputError
/// (flag-marked) when an axis needs what the options lack (batch without a platform, a lever
/// without levers).
Sweep run_sweep(const Workload& workload, const EstimateOptions& base, const SweepAxes& axes,
                const std::optional<KernelSpeedupTable>& speedup_table = std::nullopt);

}  // namespace kspeed::engine
