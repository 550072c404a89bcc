#pragma once
// What every kspeed fuzz target shares. A target feeds bytes to one reader; InputError (bad
// input, exit 2) is the expected outcome for most inputs, and anything else that escapes (an
// uncaught exception, exit 3 in the CLI), a sanitizer report or a timeout is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kspeed/error.hpp"

namespace kspeed::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `read` and swallows InputError only.
template <class Read>
void expect_input_error_at_most(Read read) {
  try {
    read();
  } catch (const InputError&) {
  }
}

}  // namespace kspeed::fuzz
