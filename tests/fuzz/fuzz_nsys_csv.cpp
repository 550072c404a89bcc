// The `nsys stats` CSV reader: quoting, preambles, counts and their checked sums.
#include "fuzz_common.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kspeed::io::trace;
  const std::string_view text = kspeed::fuzz::as_text(data, size);
  kspeed::fuzz::expect_input_error_at_most([&] {
    TraceInput input;
    input.source = "fuzz.csv";
    input.head = std::string(text.substr(0, kHeadBytes));
    input.rest = memory_source(text.substr(input.head.size()));
    input.options.max_value_bytes = std::uint64_t{1} << 20;
    (void)try_read_nsys_stats_csv(input);
  });
  return 0;
}
