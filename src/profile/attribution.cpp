// Kernel attribution: each kernel to the step that launched it, and each kernel name to its
// class.
#include "analysis_parts.hpp"

namespace kspeed::profile::detail {

KernelAttributor::KernelAttributor(const Trace& trace, const StepIndex& index) : index_(index) {
  launches_.reserve(trace.launches.size());
  for (const LaunchEvent& launch : trace.launches) {
    launches_.emplace(LaunchKey{launch.process, launch.correlation}, &launch);
  }
}

// Kernel -> step: correlation id -> launching runtime call -> the step annotation around that
// call on its CPU thread. Right for CUDA/HIP graph replay, where every kernel of the graph
// shares the cudaGraphLaunch's correlation id and runs after the CPU annotation has closed.
// Fallback: the GPU-side projection of an annotation that contains the kernel (eager only).
std::size_t KernelAttributor::step_of(const KernelEvent& kernel, AttributionCounts& counts) const {
  if (kernel.correlation != 0 && !index_.cpu_ranges.empty()) {
    const auto launch = launches_.find({kernel.process, kernel.correlation});
    if (launch != launches_.end()) {
      const auto ranges =
          index_.cpu_ranges.find({launch->second->cpu_process, launch->second->thread});
      if (ranges != index_.cpu_ranges.end()) {
        const std::size_t step = step_at(ranges->second, launch->second->start_ns);
        if (step != kNoStep) {
          ++counts.via_launch;
          return step;
        }
      }
    }
  }
  const auto gpu = index_.gpu_ranges.find(static_cast<std::uint64_t>(kernel.device));
  if (gpu != index_.gpu_ranges.end()) {
    const std::size_t step = step_at(gpu->second, kernel.start_ns);
    if (step != kNoStep) {
      ++counts.via_gpu_annotation;
      return step;
    }
  }
  ++counts.outside_steps;
  return kNoStep;
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
