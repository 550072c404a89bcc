#include "kspeed/engine/roofline/measured_roofline.hpp"

#include <algorithm>
#include <array>

namespace kspeed::engine {

namespace {

// TFLOP/s and TB/s are 10^12 per second.
constexpr double kTera = 1e12;

// The first of `names` that holds a number, and its name.
std::optional<std::pair<double, std::string>> first_number(
    const ProfiledKernel& kernel, std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    if (const std::optional<double> value = kernel.number(name)) {
      return std::pair{*value, std::string(name)};
    }
  }
  return std::nullopt;
}

// Duration: gpu__time_duration.sum (the SpeedOfLight section shows it as "Duration"; legacy
// versions drop the .sum). Without it, sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second:
// elapsed SM cycles over the SM clock during the launch (seconds = cycles / (cycles/s)).
MeasuredQuantity measure_duration(const ProfiledKernel& kernel) {
  MeasuredQuantity out;
  if (const auto direct =
          first_number(kernel, {"gpu__time_duration.sum", "Duration", "gpu__time_duration"})) {
    out.value = direct->first;
    out.derivation = direct->second;
    return out;
  }
  const std::optional<double> cycles = kernel.number("sm__cycles_elapsed.avg");
  const std::optional<double> rate = kernel.number("sm__cycles_elapsed.avg.per_second");
  if (cycles && rate && *rate > 0) {
    out.value = *cycles / *rate;
    out.derivation = "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second";
    return out;
  }
  out.missing = {"gpu__time_duration.sum"};
  return out;
}

// DRAM bytes = read + write. Current names dram__bytes_read.sum + dram__bytes_write.sum, or
// their total dram__bytes.sum; legacy (2019) dram__read_bytes + dram__write_bytes.
MeasuredQuantity measure_dram_bytes(const ProfiledKernel& kernel) {
  MeasuredQuantity out;
  constexpr std::array<std::array<std::string_view, 2>, 2> pairs = {{
      {"dram__bytes_read.sum", "dram__bytes_write.sum"},
      {"dram__read_bytes", "dram__write_bytes"},
  }};
  for (const auto& [read, write] : pairs) {
    const std::optional<double> r = kernel.number(read);
    const std::optional<double> w = kernel.number(write);
    if (r && w) {
      out.value = *r + *w;
      out.derivation = std::string(read) + " + " + std::string(write);
      return out;
    }
  }
  if (const std::optional<double> total = kernel.number("dram__bytes.sum")) {
    out.value = *total;
    out.derivation = "dram__bytes.sum";
    return out;
  }
  out.missing = {"dram__bytes_read.sum", "dram__bytes_write.sum"};
  return out;
}

// FLOPs from the SASS thread-instruction counters, per precision (h: fp16, f: fp32, d: fp64):
// FLOPs = 2·fma + add + mul (an FMA is a multiply and an add). A precision counts when its three
// counters are present (the sm__ or the older smsp__ spelling); absent ones are listed.
MeasuredQuantity measure_sass_flops(const ProfiledKernel& kernel) {
  MeasuredQuantity out;
  double total = 0;
  bool any_precision = false;
  for (const char precision : {'h', 'f', 'd'}) {
    double flops = 0;
    bool complete = true;
    std::vector<std::string> absent;
    for (const auto& [op, weight] : {std::pair{"fma", 2.0}, {"add", 1.0}, {"mul", 1.0}}) {
      const std::string tail =
          std::string("__sass_thread_inst_executed_op_") + precision + op + "_pred_on.sum";
      const auto count = first_number(kernel, {"sm" + tail, "smsp" + tail});
      if (count) {
        flops += weight * count->first;
      } else {
        complete = false;
        absent.push_back("sm" + tail);
      }
    }
    if (complete) {
      total += flops;
      any_precision = true;
      out.derivation +=
          std::string(out.derivation.empty() ? "" : " + ") + precision + "{add,mul,fma}";
    } else {
      out.missing.insert(out.missing.end(), absent.begin(), absent.end());
    }
  }
  if (any_precision) {
    out.value = total;
    out.derivation = "sm__sass_thread_inst_executed_op_" + out.derivation + "_pred_on.sum (fma x2)";
  }
  return out;
}

// Tensor-pipe warp instructions. A count is not FLOPs: one instruction is 2·m·n·k FLOPs for its
// MMA shape, which the counter does not record (Ampere's HMMA.16816 is 4096, HMMA.1688 2048).
TensorWork measure_tensor(const ProfiledKernel& kernel, const MeasureOptions& options) {
  TensorWork out;
  const auto count = first_number(
      kernel,
      {"sm__inst_executed_pipe_tensor.sum", "smsp__inst_executed_pipe_tensor.sum",
       "sm__inst_executed_pipe_tensor_op_hmma.sum", "smsp__inst_executed_pipe_tensor_op_hmma.sum"});
  if (!count) return out;
  out.warp_instructions = count->first;
  out.metric = count->second;
  if (count->first == 0) {
    out.conversion = TensorConversion::none_executed;
  } else if (options.mma_shape && options.mma_shape->flops_per_instruction() > 0) {
    out.conversion = TensorConversion::converted;
    out.flops = count->first * options.mma_shape->flops_per_instruction();
  } else {
    out.conversion = TensorConversion::not_converted;
  }
  return out;
}

// Speed-of-Light: the section's display names and their metrics, as fractions of peak.
SpeedOfLight measure_speed_of_light(const ProfiledKernel& kernel) {
  SpeedOfLight out;
  const auto fraction = [&](std::initializer_list<std::string_view> names,
                            std::optional<double>& into) {
    if (const auto percent = first_number(kernel, names)) {
      into = percent->first / 100.0;
    } else {
      out.missing.emplace_back(*names.begin());
    }
  };
  fraction({"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput",
            "sm__sol_pct"},
           out.compute);
  fraction({"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput",
            "gpu__compute_memory_sol_pct"},
           out.memory);
  fraction({"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput",
            "fbpa__sol_pct"},
           out.dram);
  return out;
}

}  // namespace

const ProfiledMetric* ProfiledKernel::find(std::string_view metric) const {
  const auto it = metrics.find(metric);
  return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> ProfiledKernel::number(std::string_view metric) const {
  const ProfiledMetric* found = find(metric);
  return found == nullptr ? std::nullopt : found->value;
}

MeasuredKernel measure_kernel(const ProfiledKernel& kernel, KernelClass kernel_class,
                              const MeasureOptions& options) {
  MeasuredKernel out;
  out.id = kernel.id;
  out.name = kernel.name;
  out.device = kernel.device;
  out.compute_capability = kernel.compute_capability;
  out.kernel_class = kernel_class;
  out.duration_s = measure_duration(kernel);
  out.dram_bytes = measure_dram_bytes(kernel);
  out.flops = measure_sass_flops(kernel);
  out.tensor = measure_tensor(kernel, options);
  out.speed_of_light = measure_speed_of_light(kernel);
  if (out.tensor.flops) {
    // FLOPs = SASS FLOPs + tensor instructions · 2·m·n·k
    out.flops.value = out.flops.value.value_or(0) + *out.tensor.flops;
    out.flops.derivation +=
        (out.flops.derivation.empty() ? "" : " + ") + out.tensor.metric + " x 2mnk";
  }
  // Tensor instructions counted and not converted; or not collected for an attention kernel,
  // whose QK^T and PV run on tensor cores (FlashAttention, FlashInfer, cuDNN): either way the
  // SASS counters miss the kernel's main work.
  out.flops_miss_tensor_work = out.tensor.conversion == TensorConversion::not_converted ||
                               (out.tensor.conversion == TensorConversion::not_collected &&
                                out.kernel_class == KernelClass::attention_core && out.flops.value);
  const auto& t = out.duration_s.value;
  const auto& f = out.flops.value;
  const auto& b = out.dram_bytes.value;
  if (f && b && *b > 0) out.intensity_flop_per_byte = *f / *b;  // AI = FLOPs / bytes
  if (t && *t > 0) {
    if (f) out.achieved_flop_per_s = *f / *t;
    if (b) out.achieved_byte_per_s = *b / *t;
  }
  return out;
}

std::optional<Roof> gpu_roof(const Gpu& gpu, std::string_view precision) {
  const std::optional<double> peak = peak_tflops(gpu, precision);
  if (!peak) return std::nullopt;
  return Roof{*peak, gpu.hbm_bandwidth_tbs};
}

MeasuredPosition place_on_roof(const MeasuredKernel& kernel, const Roof& roof) {
  MeasuredPosition out;
  out.ridge_flop_per_byte = ridge_flop_per_byte(roof);
  // η_compute = (F/t) / P, η_bandwidth = (B/t) / BW
  const auto& t = kernel.duration_s.value;
  if (t && *t > 0) {
    if (kernel.flops.value) {
      out.compute_fraction = *kernel.flops.value / *t / (roof.peak_tflops * kTera);
    }
    if (kernel.dram_bytes.value) {
      out.bandwidth_fraction = *kernel.dram_bytes.value / *t / (roof.bandwidth_tbs * kTera);
    }
  }
  const auto& f = kernel.flops.value;
  const auto& b = kernel.dram_bytes.value;
  if (f && b) {
    // bound_of at η = 1: memory-bound when B/BW > F/P (AI < ridge); no byte moved: compute.
    out.bound = bound_of(KernelCost{*f, *b}, roof, Efficiency{});
    // FLOPs missing the tensor-core work make the intensity a lower bound: below the ridge it
    // does not say memory-bound (the true intensity may be past the ridge); above, it does.
    if (kernel.flops_miss_tensor_work && out.bound == Bound::memory) out.bound.reset();
  }
  if (out.compute_fraction && out.bandwidth_fraction) {
    // max(F/P, B/BW) / t = max(η_c, η_bw)
    out.roof_fraction = std::max(*out.compute_fraction, *out.bandwidth_fraction);
    if (*out.roof_fraction > 0) out.headroom = 1.0 / *out.roof_fraction;
  }
  out.above_roof = out.compute_fraction.value_or(0) > 1 || out.bandwidth_fraction.value_or(0) > 1;
  return out;
}

MeasuredLevers with_measured_bandwidth(const MeasuredLevers& levers, std::optional<double> gain,
                                       const MeasuredPosition& position) {
  MeasuredLevers out = levers;
  if (gain && position.bandwidth_fraction) {
    // η_after = η_measured · AFTER / BEFORE: then t_m / η_after = t / gain, the measured time
    // shortened by the gain, so a 0.6:0.66 change is a 10% gain on the measured kernel
    out.bandwidth_efficiency_after = *position.bandwidth_fraction * *gain;
  }
  return out;
}

std::optional<MeasuredLeverOutcome> price_levers(const MeasuredKernel& kernel, const Roof& roof,
                                                 const MeasuredLevers& levers) {
  const auto& t = kernel.duration_s.value;
  const auto& f = kernel.flops.value;
  const auto& b = kernel.dram_bytes.value;
  if (!t || !f || !b || *t <= 0) return std::nullopt;
  const double t_m = *b / (roof.bandwidth_tbs * kTera);  // bytes at peak bandwidth
  const double t_c = *f / (roof.peak_tflops * kTera);    // FLOPs at peak
  const double t_roof = std::max(t_m, t_c);
  if (t_roof > *t) return std::nullopt;  // above the roof: the roof is not the profiled GPU's
  MeasuredLeverOutcome out;
  out.time_before_s = *t;
  out.exposed_s = *t - t_roof;  // t_x = t - max(t_m, t_c)
  const double t_c_after = t_c / levers.compute_speedup;
  if (levers.bandwidth_efficiency_after) {
    // t' = max(t_c / s, t_m / (r · η_after)): the new kernel's own achieved bandwidth
    out.time_after_s =
        std::max(t_c_after, t_m / (levers.bytes_reduction * *levers.bandwidth_efficiency_after));
  } else {
    // t' = max(t_m / r, t_c / s) + t_x: what neither roof explains stays
    out.time_after_s = std::max(t_m / levers.bytes_reduction, t_c_after) + out.exposed_s;
  }
  out.speedup = out.time_before_s / out.time_after_s;
  Levers ideal;
  ideal.compute_speedup = levers.compute_speedup;
  ideal.bytes_reduction = levers.bytes_reduction;
  out.ideal_speedup = apply_levers(KernelCost{*f, *b}, roof, ideal).speedup;
  return out;
}

ModelComparison compare_with_model(const MeasuredKernel& kernel, const KernelCost& modelled,
                                   const Roof& roof, const MeasuredLevers& levers) {
  ModelComparison out;
  out.modelled_intensity_flop_per_byte = intensity(modelled);
  out.measured_intensity_flop_per_byte = kernel.intensity_flop_per_byte;
  out.modelled_bound = bound_of(modelled, roof, Efficiency{});
  out.measured_bound = place_on_roof(kernel, roof).bound;
  out.modelled_attainable_fraction =
      attainable_fraction_of_peak(out.modelled_intensity_flop_per_byte, roof);
  if (kernel.dram_bytes.value && modelled.bytes > 0) {
    out.bytes_ratio = *kernel.dram_bytes.value / modelled.bytes;
  }
  if (kernel.flops.value && modelled.flops > 0) {
    out.flops_ratio = *kernel.flops.value / modelled.flops;
  }
  Levers ideal;
  ideal.compute_speedup = levers.compute_speedup;
  ideal.bytes_reduction = levers.bytes_reduction;
  out.modelled_price = apply_levers(modelled, roof, ideal);
  out.measured_price = price_levers(kernel, roof, levers);
  return out;
}

}  // namespace kspeed::engine
