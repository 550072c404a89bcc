#pragma once
// The measured roofline: where a kernel that a kernel profiler (Nsight Compute) measured really
// sits against a GPU's two roofs, and what a change is worth from that measured position.
//
// The modelled roofline (roofline.hpp) takes FLOPs and bytes from the model's shapes and assumes
// the kernel reaches its roof. A profiled kernel says what it did: its duration, the DRAM bytes it
// moved, the floating-point instructions it executed. From those, its measured intensity and the
// fraction of each roof it achieved. Whatever the profile lacks is a value listing the metrics that
// would have given it, never a guess; the report names the profiler flags that collect them.
//
// Metric names are Nsight Compute's (Kernel Profiling Guide, "Metrics Reference" and
// "Metrics Structure"; https://docs.nvidia.com/nsight-compute/ProfilingGuide/).

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/chain/kernel_class.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::engine {

/// One metric of one profiled kernel launch, as the profiler wrote it.
struct ProfiledMetric {
  std::optional<double> value;   ///< a number, in SI base units (s, byte, Hz, ...); % stays %
  std::vector<double> elements;  ///< a ';'-separated array (legacy raw page), SI base units
  std::string unit;              ///< as written: "nsecond", "Kbyte", "%", "" ...
  std::string text;              ///< the value as written when it is not a number ("n/a", names)
  std::string section;           ///< details page: the "Section Name" ("" on the raw page)
  std::size_t line = 0;          ///< line of the file it was read from (1-based)
};

/// One profiled kernel launch: its identity and its metrics by name.
struct ProfiledKernel {
  std::string id;                     ///< the profiler's launch ID, as written ("7")
  std::string name;                   ///< kernel name, demangled as the profiler printed it
  std::optional<std::string> device;  ///< device index or name, when the file has it
  std::optional<std::string> compute_capability;  ///< "10.0", when the file has it
  std::size_t line = 0;                           ///< first line of the launch in the file
  /// Metric name (e.g. "dram__bytes.sum", or a section's display name such as "Duration") to
  /// value. A name repeated within one launch keeps its first value.
  std::map<std::string, ProfiledMetric, std::less<>> metrics;

  /// The metric named `metric`, or nullptr.
  const ProfiledMetric* find(std::string_view metric) const;
  /// Its numeric scalar value (SI base units), or nullopt when absent, n/a, text or an array.
  std::optional<double> number(std::string_view metric) const;
};

/// A quantity derived from metrics: its value when the profile has what it needs, the metrics it
/// came from, and otherwise the metrics to collect.
struct MeasuredQuantity {
  std::optional<double> value;       ///< SI base units: s, byte, FLOP
  std::string derivation;            ///< the metrics used, e.g. "gpu__time_duration.sum"
  std::vector<std::string> missing;  ///< metrics absent from the profile (empty: complete)
};

/// What happened to the tensor-pipe instruction count.
enum class TensorConversion {
  not_collected,  ///< no sm__inst_executed_pipe_tensor* metric in the profile
  none_executed,  ///< collected and zero: the SASS FLOP counters hold all the arithmetic
  not_converted,  ///< tensor instructions ran but their shape is unknown: the SASS counters miss
                  ///< its tensor-core work, and FLOPs (and intensity) are a lower bound
  converted,      ///< turned into FLOPs with a caller-stated instruction shape
};

constexpr std::string_view to_string(TensorConversion conversion) {
  switch (conversion) {
    case TensorConversion::not_collected:
      return "not collected";
    case TensorConversion::none_executed:
      return "none executed";
    case TensorConversion::not_converted:
      return "not converted";
    case TensorConversion::converted:
      return "converted";
  }
  return "not collected";
}

/// The shape of one warp-level MMA instruction, m×n×k (e.g. Ampere's HMMA.16816: 16×8×16).
/// The counters do not carry it; only a caller who knows the kernel's instructions can state it.
struct MmaShape {
  int m = 0;
  int n = 0;
  int k = 0;
  /// FLOPs of one warp instruction: 2·m·n·k (a multiply-add is 2).
  double flops_per_instruction() const { return 2.0 * m * n * k; }
};

struct TensorWork {
  std::optional<double> warp_instructions;  ///< tensor-pipe warp instructions, as counted
  std::string metric;                       ///< the metric that counted them
  TensorConversion conversion = TensorConversion::not_collected;
  std::optional<double> flops;  ///< only when converted: instructions · 2·m·n·k
};

/// Speed-of-Light throughputs as fractions of peak (ncu's "GPU Speed Of Light Throughput").
struct SpeedOfLight {
  std::optional<double> compute;     ///< "Compute (SM) Throughput" (sm__throughput...)
  std::optional<double> memory;      ///< "Memory Throughput" (gpu__compute_memory_throughput...)
  std::optional<double> dram;        ///< "DRAM Throughput" (gpu__dram_throughput...)
  std::vector<std::string> missing;  ///< the metrics of the three above that are absent
};

/// One kernel launch's measured work, before any GPU roof is applied.
struct MeasuredKernel {
  std::string id;
  std::string name;
  std::optional<std::string> device;
  std::optional<std::string> compute_capability;
  KernelClass kernel_class = KernelClass::other;  ///< as `kspeed profile` sees it
  MeasuredQuantity duration_s;  ///< gpu__time_duration.sum, or elapsed cycles / cycle rate
  MeasuredQuantity dram_bytes;  ///< DRAM read + write
  MeasuredQuantity flops;       ///< from the SASS FLOP counters (an FMA counts 2), + tensor FLOPs
                                ///< when converted
  TensorWork tensor;
  SpeedOfLight speed_of_light;
  /// FLOPs / DRAM bytes, FLOP/byte; empty when either is missing or no byte was moved.
  std::optional<double> intensity_flop_per_byte;
  std::optional<double> achieved_flop_per_s;  ///< FLOPs / duration
  std::optional<double> achieved_byte_per_s;  ///< DRAM bytes / duration
  /// True when tensor instructions ran and were not turned into FLOPs: FLOPs, intensity and
  /// the compute fraction are lower bounds.
  bool flops_miss_tensor_work = false;
};

/// Options for reading work out of a profile.
struct MeasureOptions {
  /// The kernel's MMA instruction shape, when the caller knows it: converts the tensor-pipe
  /// count into FLOPs. Without it the count is shown and not converted.
  std::optional<MmaShape> mma_shape;
};

/// The measured work of one launch of a kernel of `kernel_class` (as `kspeed profile`'s classifier
/// names it; the caller classifies, so the engine needs no regex rules).
MeasuredKernel measure_kernel(const ProfiledKernel& kernel, KernelClass kernel_class,
                              const MeasureOptions& options = {});

/// The roof of `gpu` at `precision` (its dense peak there and its HBM bandwidth), or nullopt when
/// the GPU has no peak at that precision.
std::optional<Roof> gpu_roof(const Gpu& gpu, std::string_view precision);

/// A measured kernel against one GPU's roofs.
struct MeasuredPosition {
  std::optional<double> compute_fraction;    ///< achieved FLOP/s / peak (η_compute)
  std::optional<double> bandwidth_fraction;  ///< achieved DRAM bytes/s / bandwidth (η_bandwidth)
  double ridge_flop_per_byte = 0;            ///< peak / bandwidth
  /// Memory-bound when the measured intensity is below the ridge (roofline.hpp's bound_of at
  /// η = 1). The same as "the bandwidth fraction exceeds the compute fraction", because
  /// η_bw / η_c = (B/BW) / (F/P) = ridge / AI. Empty without FLOPs and bytes.
  std::optional<Bound> bound;
  /// Roofline time over measured time: max(F/P, B/BW) / t = max(η_c, η_bw), in (0, 1] for a
  /// kernel under its roof. Needs duration, FLOPs and bytes.
  std::optional<double> roof_fraction;
  /// How many times faster the roof allows: t / max(F/P, B/BW) = 1 / roof_fraction.
  std::optional<double> headroom;
  /// An achieved fraction above 1: the measurement beats the GPU's stated peaks, so the GPU (or
  /// its precision) is not the one profiled.
  bool above_roof = false;
};

MeasuredPosition place_on_roof(const MeasuredKernel& kernel, const Roof& roof);

/// A change to the measured kernel. Every factor is 1 when not changed.
struct MeasuredLevers {
  double compute_speedup = 1;  ///< FLOP term X times faster
  double bytes_reduction = 1;  ///< DRAM bytes divided by X
  /// η_bandwidth the new kernel reaches on its bytes (better occupancy, deeper pipelining);
  /// empty: the time not explained by the roofs stays as measured.
  std::optional<double> bandwidth_efficiency_after;
};

/// The levers with --bandwidth-efficiency BEFORE:AFTER's relative change `gain` (AFTER / BEFORE;
/// the export measures BEFORE) applied to `position`'s measured η_bandwidth:
/// bandwidth_efficiency_after = η_measured · gain. Unchanged without a gain or a measured η.
MeasuredLevers with_measured_bandwidth(const MeasuredLevers& levers, std::optional<double> gain,
                                       const MeasuredPosition& position);

/// What a change is worth, priced from the measured position. Provenance: measured (ncu).
struct MeasuredLeverOutcome {
  double time_before_s = 0;  ///< the measured duration
  double time_after_s = 0;
  double speedup = 1;  ///< time_before / time_after: the predicted kernel speedup
  /// The same levers on the ideal roofline at the measured FLOPs and bytes (apply_levers at
  /// η = 1), for comparison: what the roof alone says the change is worth.
  double ideal_speedup = 1;
  double exposed_s = 0;  ///< t - max(F/P, B/BW): time neither roof explains (latency, occupancy)
  Provenance provenance = Provenance::measured;  ///< the speedup's provenance: measured ...
  std::string_view instrument = "ncu";           ///< ... by Nsight Compute: "measured (ncu)"
};

/// Prices `levers` on the measured kernel. With t the measured duration, t_m = B/BW and
/// t_c = F/P the times at the roofs, and t_x = max(0, t - max(t_m, t_c)) the exposed time:
///   no η_after:  t' = max(t_m / r, t_c / s) + t_x   (the exposed time stays)
///   η_after:     t' = max(t_c / s, t_m / (r · η_after))   (the new kernel's achieved bandwidth)
///   speedup = t / t'.
/// A kernel at 40% of bandwidth spends 60% of its time exposed, so halving its bytes gives
/// 1 / (0.6 + 0.2) = 1.25×, not the roof's 2×; raising it to 80% of bandwidth gives 2×.
/// Empty when the duration, FLOPs or bytes are missing (`missing` of each lists them).
std::optional<MeasuredLeverOutcome> price_levers(const MeasuredKernel& kernel, const Roof& roof,
                                                 const MeasuredLevers& levers);

/// A measured kernel beside the model's cost for the same work.
struct ModelComparison {
  double modelled_intensity_flop_per_byte = 0;
  std::optional<double> measured_intensity_flop_per_byte;
  Bound modelled_bound = Bound::memory;  ///< modelled intensity against the ridge
  std::optional<Bound> measured_bound;
  double modelled_attainable_fraction = 0;  ///< min(1, AI_model / ridge)
  /// measured bytes / modelled bytes: above 1, the kernel moves more than the formula (paged KV,
  /// re-reads, spills).
  std::optional<double> bytes_ratio;
  std::optional<double> flops_ratio;  ///< measured FLOPs / modelled FLOPs
  LeverOutcome modelled_price;        ///< apply_levers on the modelled cost at η = 1
  std::optional<MeasuredLeverOutcome> measured_price;  ///< price_levers on the measurement
};

ModelComparison compare_with_model(const MeasuredKernel& kernel, const KernelCost& modelled,
                                   const Roof& roof, const MeasuredLevers& levers);

}  // namespace kspeed::engine
