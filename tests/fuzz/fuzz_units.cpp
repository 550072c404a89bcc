// The unit parsers behind flags and JSON strings: `128k`, `0.5s`, `85%`, lever values. The
// first byte picks the parser, the rest is the text.
#include "fuzz_common.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = kspeed::fuzz::as_text(data + 1, size - 1);
  kspeed::fuzz::expect_input_error_at_most([&] {
    switch (data[0] % 7) {
      case 0:
        (void)kspeed::io::parse_token_count(text, "--ctx");
        break;
      case 1:
        (void)kspeed::io::parse_duration_ms(text, "--ttft");
        break;
      case 2:
        (void)kspeed::io::parse_share(text, "--share");
        break;
      case 3:
        (void)kspeed::io::parse_positive_number(text, "--kernel-speedup");
        break;
      case 4:
        (void)kspeed::io::parse_efficiency(text, "--compute-efficiency");
        break;
      case 5:
        (void)kspeed::io::parse_efficiency_change(text, "--bandwidth-efficiency");
        break;
      default:
        (void)kspeed::io::parse_count(text, "--batch");
        break;
    }
  });
  return 0;
}
