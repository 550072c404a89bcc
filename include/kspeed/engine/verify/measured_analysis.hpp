#pragma once
// `kspeed roofline --ncu`: a kernel profiler's launches placed on a GPU's roofs, one of them
// beside the model's cost for the same work, and the levers priced from its measured position.
// The readers (io::load_ncu_csv) give the launches; measured_roofline.hpp measures and prices one.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/roofline/measured_roofline.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/engine/warning.hpp"

namespace kspeed::engine {

/// Which launches the report looks at.
enum class KernelSelection {
  pattern,    ///< the launches whose name matches the user's pattern
  attention,  ///< the default: the attention-core launches, as `kspeed profile` classifies them
  all,        ///< the default when the file has no attention launch
};

constexpr std::string_view to_string(KernelSelection selection) {
  switch (selection) {
    case KernelSelection::pattern:
      return "pattern";
    case KernelSelection::attention:
      return "attention";
    case KernelSelection::all:
      return "all";
  }
  return "all";
}

struct MeasuredRooflineQuery {
  std::string file;                     ///< the export, as named
  std::string page;                     ///< "details" or "raw"
  std::vector<MeasuredKernel> kernels;  ///< every launch in the file, in file order
  /// The launches matching the user's pattern (parallel to kernels); empty: no pattern given.
  std::vector<bool> pattern_matches;
  std::string pattern;                ///< the pattern, for the report
  std::optional<std::string> launch;  ///< the launch ID to price; empty: the longest selected
  std::string gpu_name;
  /// The roof's GPU's compute capability ("9.0"), empty when unknown (a custom roof, AMD).
  std::string gpu_compute_capability;
  /// The preset the export's device name is (io::gpu_preset_for_device), empty when none.
  std::string export_preset;
  bool gpu_from_export = false;  ///< no --gpu: the roof is the preset the export names
  std::string precision;
  WithProvenance<double> peak_tflops;    ///< the roof: preset, or given
  WithProvenance<double> bandwidth_tbs;  ///< the roof: preset, or given
  MeasuredLevers levers;                 ///< the change to price
  /// --bandwidth-efficiency BEFORE:AFTER as AFTER / BEFORE: the export measures BEFORE, so the
  /// change is relative (with_measured_bandwidth sets levers' AFTER per launch)
  std::optional<double> bandwidth_efficiency_gain;
  bool levers_given = false;             ///< false: 2x compute and 2x fewer bytes, illustrative
  /// The model's attention for the same work (--model), per GPU and step, and its name.
  std::optional<KernelCost> modelled;
  std::string model_name;
};

/// One priced lever (or all given together) on the priced launch.
struct MeasuredLeverRow {
  LeverKind kind = LeverKind::compute;
  MeasuredLevers levers;
  MeasuredLeverOutcome outcome;
};

struct MeasuredRooflineResult {
  MeasuredRooflineQuery query;
  Roof roof;
  KernelSelection selection = KernelSelection::all;
  std::vector<bool> selected;               ///< parallel to query.kernels
  std::vector<MeasuredPosition> positions;  ///< parallel to query.kernels
  std::optional<std::size_t> priced;        ///< the launch whose levers are priced
  std::vector<MeasuredLeverRow> levers;     ///< empty when the priced launch lacks metrics
  bool levers_illustrative = false;
  std::optional<ModelComparison> comparison;  ///< with a modelled cost and a priced launch
  /// The metrics the priced launch lacks for a position and a price (duration, bytes, FLOPs,
  /// Speed-of-Light), in that order, without repeats; the report names the flags collecting them.
  std::vector<std::string> missing_metrics;
  std::vector<Warning> warnings;
};

/// The selected launches: the pattern's matches when one was given, else the attention-core
/// launches, else all of them.
std::vector<bool> select_launches(const MeasuredRooflineQuery& query, KernelSelection& selection);

/// Places every launch, prices the levers on the priced one (query.launch, else the selected
/// launch that ran longest) and compares it with the model. Throws InputError when the pattern
/// matches nothing or no selected launch has the requested ID (the message lists the launches).
MeasuredRooflineResult analyse_measured_roofline(const MeasuredRooflineQuery& query);

/// The attention kernel speedup for `kspeed estimate --ncu`: the combined levers' measured
/// price on the priced launch, provenance measured by "ncu". Throws InputError, naming the
/// metrics to collect, when the launch cannot be priced.
WithProvenance<double> measured_kernel_speedup(const MeasuredRooflineResult& result);

}  // namespace kspeed::engine
