#pragma once
// Errors that reach the user. Thrown anywhere below main, caught once in cli::run, printed as
// `kspeed: error: <message>` on stderr and turned into a documented exit code.

#include <stdexcept>
#include <string>

namespace kspeed {

/// Exit codes: the contract with scripts and CI (documented in README and --help).
enum ExitCode : int {
  kExitOk = 0,          ///< success
  kExitGateFailed = 1,  ///< a --min-* gate was not met
  kExitBadInput = 2,    ///< bad usage or bad input; nothing was written
  kExitInternal = 3,    ///< a bug in kspeed (please report it)
};

/// Bad input from the user: a flag value, a workload file, a trace. The message says what was
/// wrong, where, what was expected and how to fix it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kspeed
