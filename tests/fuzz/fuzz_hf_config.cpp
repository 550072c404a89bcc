// Hugging Face config.json (--model path/config.json).
#include <string>

#include "fuzz_common.hpp"
#include "kspeed/io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most([&] {
    (void)kspeed::io::parse_hf_config(kspeed::fuzz::as_text(data, size), "config.json", "fuzz");
  });
  return 0;
}
