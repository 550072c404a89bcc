#pragma once
// Errors that reach the user. Thrown anywhere below main, caught once in cli::run, printed as
// `kspeed: error: <message>` on stderr and turned into a documented exit code.

#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>

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

/// Error messages from the engine and the trace analysis name flags and numbers by marks that the
/// CLI words when it prints the error (report::worded_error): flag_mark("tp") becomes "--tp",
/// count_mark(131072) becomes "131,072" (the one number formatter). So the engine and the
/// analysis hold no flag names and format no numbers, yet their errors say what to pass.
inline std::string flag_mark(std::string_view flag) {
  return "{flag:" + std::string(flag) + "}";
}

inline std::string count_mark(long long count) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), count);
  return "{count:" + std::string(digits.data(), ec == std::errc{} ? end : digits.data()) + "}";
}

}  // namespace kspeed
