#pragma once
// Entry points of the format readers that take more than the TraceReader interface offers.

#include "kspeed/io/trace/trace_reader.hpp"

namespace kspeed::io::trace {

/// The Kineto reader with a progress callback (called every few thousand events).
void read_kineto_json(ByteSource& input, profile::Trace& trace, const ProgressCallback& progress);

}  // namespace kspeed::io::trace
