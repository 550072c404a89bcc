#pragma once
// The error message a call throws, worded as the CLI prints it (flag and number marks resolved),
// so engine tests can assert the sentence a user reads.
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::test {

template <class Call>
std::string worded_throw(Call&& call) {
  try {
    call();
  } catch (const InputError& error) {
    return report::worded_error(error.what());
  }
  return "(no error thrown)";
}

}  // namespace kspeed::test
