#pragma once
// The parts of analyse_trace (analysis.cpp), one file per section: steps from annotations
// (steps_index.cpp) and kernel attribution (attribution.cpp). Private to src/profile.

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kspeed/profile/analysis.hpp"

namespace kspeed::profile::detail {

inline constexpr std::size_t kNoStep = static_cast<std::size_t>(-1);

struct ParsedAnnotation {
  const AnnotationEvent* event = nullptr;
  StepLabel label;
};

// A step's range on one CPU thread (or, for GPU-side ranges, one device).
struct Range {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::size_t step = kNoStep;
};

struct StepIndex {
  std::vector<StepResult> steps;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<Range>> cpu_ranges;  // (pid, tid)
  std::map<std::uint64_t, std::vector<Range>> gpu_ranges;                            // device
  std::vector<std::string> styles;
};

/// The steps of a trace from its engine annotations, with their CPU and GPU ranges.
StepIndex build_steps(const Trace& trace);

/// The step whose range holds `time_ns` on one thread or device; kNoStep when none does.
std::size_t step_at(const std::vector<Range>& ranges, std::int64_t time_ns);

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

/// Finds each kernel's step as the analysis walks the kernels, counting how each was attributed.
/// Nothing is kept per kernel: the launch table and the step ranges are what it holds.
class KernelAttributor {
 public:
  KernelAttributor(const Trace& trace, const StepIndex& index);
  /// The step `kernel` belongs to; kNoStep when none.
  std::size_t step_of(const KernelEvent& kernel, AttributionCounts& counts) const;

 private:
  const StepIndex& index_;
  std::unordered_map<LaunchKey, const LaunchEvent*, LaunchKeyHash> launches_;
};

// Each distinct name is classified once (regex search is the slow part of the analysis).
struct NameClasses {
  std::vector<KernelClass> class_of_name;
  std::vector<std::size_t> rule_of_name;  // npos: no rule matched
};

NameClasses classify_names(const Trace& trace, const KernelClassifier& classifier);

}  // namespace kspeed::profile::detail
