#pragma once
// The command line: flags to options, options to the engine, results to a reporter.

namespace kspeed::cli {

/// Runs kspeed with the given arguments and returns the process exit code (see error.hpp).
/// Prints results on stdout and errors on stderr; never throws.
int run(int argc, const char* const* argv);

}  // namespace kspeed::cli
