// Workload JSON: the strict document reader (depth, duplicate keys, number range), then fields.
#include "fuzz_common.hpp"
#include "kspeed/io/workload_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most(
      [&] { (void)kspeed::io::parse_workload(kspeed::fuzz::as_text(data, size), "fuzz.json"); });
  return 0;
}
