// The streaming Kineto/Chrome-trace scanner, with a 64-byte starting window so that every
// event straddles window refills (and no input pays for zero-filling the default 4 MiB).
#include "fuzz_common.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kspeed::io::trace;
  const std::string_view text = kspeed::fuzz::as_text(data, size);
  kspeed::fuzz::expect_input_error_at_most([&] {
    TraceInput input;
    input.source = "fuzz.json";
    input.head = std::string(text.substr(0, kHeadBytes));
    input.rest = memory_source(text.substr(input.head.size()));
    input.options.window_bytes = 64;
    input.options.max_value_bytes = std::uint64_t{1} << 20;
    (void)try_read_kineto_json(input);
  });
  return 0;
}
