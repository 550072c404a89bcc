// GPU JSON.
#include "fuzz_common.hpp"
#include "kspeed/io/gpu_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most(
      [&] { (void)kspeed::io::parse_gpu(kspeed::fuzz::as_text(data, size), "fuzz.json"); });
  return 0;
}
