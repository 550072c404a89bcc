// Kernel attribution: each kernel to the step that launched it, and each kernel name to its
// class.
#include <unordered_map>

#include "analysis_parts.hpp"

namespace kspeed::profile::detail {

namespace {

struct LaunchKey {
  std::uint64_t process;
  std::uint64_t correlation;
  bool operator==(const LaunchKey&) const = default;
};
struct LaunchKeyHash {
  std::size_t operator()(const LaunchKey& key) const {
    return std::hash<std::uint64_t>()(key.correlation * 0x9E3779B97F4A7C15ULL ^ key.process);
  }
};

}  // namespace

// Kernel -> step: correlation id -> launching runtime call -> the step annotation around that
// call on its CPU thread. Right for CUDA/HIP graph replay, where every kernel of the graph
// shares the cudaGraphLaunch's correlation id and runs after the CPU annotation has closed.
// Fallback: the GPU-side projection of an annotation that contains the kernel (eager only).
std::vector<std::size_t> attribute_kernels(const Trace& trace, const StepIndex& index,
                                           AttributionCounts& counts) {
  std::unordered_map<LaunchKey, const LaunchEvent*, LaunchKeyHash> launches;
  launches.reserve(trace.launches.size());
  for (const LaunchEvent& launch : trace.launches) {
    launches.emplace(LaunchKey{launch.process, launch.correlation}, &launch);
  }
  std::vector<std::size_t> step_of(trace.kernels.size(), kNoStep);
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const KernelEvent& kernel = trace.kernels[k];
    if (kernel.correlation != 0 && !index.cpu_ranges.empty()) {
      const auto launch = launches.find({kernel.process, kernel.correlation});
      if (launch != launches.end()) {
        const auto ranges =
            index.cpu_ranges.find({launch->second->cpu_process, launch->second->thread});
        if (ranges != index.cpu_ranges.end()) {
          step_of[k] = step_at(ranges->second, launch->second->start_ns);
          if (step_of[k] != kNoStep) {
            ++counts.via_launch;
            continue;
          }
        }
      }
    }
    const auto gpu = index.gpu_ranges.find(static_cast<std::uint64_t>(kernel.device));
    if (gpu != index.gpu_ranges.end()) {
      step_of[k] = step_at(gpu->second, kernel.start_ns);
      if (step_of[k] != kNoStep) {
        ++counts.via_gpu_annotation;
        continue;
      }
    }
    ++counts.outside_steps;
  }
  return step_of;
}

NameClasses classify_names(const Trace& trace, const KernelClassifier& classifier) {
  NameClasses out;
  out.class_of_name.reserve(trace.kernel_names.size());
  out.rule_of_name.reserve(trace.kernel_names.size());
  for (const std::string& name : trace.kernel_names) {
    std::size_t rule = std::string::npos;
    out.class_of_name.push_back(classifier.classify(name, &rule));
    out.rule_of_name.push_back(rule);
  }
  return out;
}

}  // namespace kspeed::profile::detail
