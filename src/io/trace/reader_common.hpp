#pragma once
// What every trace reader shares: the new trace's identity and the limits each applies, so no
// trace can make the analysis overflow or a reader hold more than one bounded value in memory.

#include <cstdint>
#include <limits>

#include "kspeed/io/files.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

namespace kspeed::io::trace {

/// Timestamps beyond +-1e18 ns (31 years from the trace's epoch) are corrupt: within it, a
/// start plus a duration and the span between two starts stay inside int64.
inline constexpr std::int64_t kMaxTimestampNs = 1'000'000'000'000'000'000;
/// A kernel runs for 0 ns to hours: more than 1e15 ns (11.6 days) is a corrupt record.
inline constexpr std::int64_t kMaxKernelNs = 1'000'000'000'000'000;

/// The largest single value a reader holds in memory.
inline std::uint64_t value_limit(const TraceReadOptions& options) {
  return options.max_value_bytes != 0 ? options.max_value_bytes : max_input_bytes();
}

/// Sums of kernel times and counts, as the analysis will add them: a reader adds each record
/// here and refuses the trace when a sum would pass int64 (a negative total otherwise).
class CheckedTotal {
 public:
  /// False when the sum would overflow (the total is then unchanged).
  bool add(std::int64_t value) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(total_, value, &sum)) return false;
    total_ = sum;
    return true;
  }
  std::int64_t value() const { return total_; }

 private:
  std::int64_t total_ = 0;
};

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

/// An empty trace of `format` named after `input`, for a reader that accepted it.
inline profile::Trace new_trace(const TraceInput& input, profile::TraceFormat format) {
  profile::Trace trace;
  trace.source = input.source;
  trace.compressed = input.compressed;
  trace.format = format;
  return trace;
}

}  // namespace kspeed::io::trace
