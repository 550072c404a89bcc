// The unit parsers behind flags and JSON strings: `128k`, `0.5s`, `85%`, lever values, and
// sweep's lists and ranges (`4k..128k`, `1.25,1.5,2`). The first byte picks the parser, the rest
// is the text.
#include "fuzz_common.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/sweep_values.hpp"
#include "kspeed/io/units.hpp"

namespace {

double token_count(std::string_view text, std::string_view what) {
  return static_cast<double>(kspeed::io::parse_token_count(text, what));
}

const kspeed::io::SweepAxisKind kTokenAxis{token_count, kspeed::io::SweepSpacing::log, true};
const kspeed::io::SweepAxisKind kShareAxis{kspeed::io::parse_share,
                                           kspeed::io::SweepSpacing::linear, false};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = kspeed::fuzz::as_text(data + 1, size - 1);
  kspeed::fuzz::expect_input_error_at_most([&] {
    switch (data[0] % 9) {
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
      case 6:
        (void)kspeed::io::parse_count(text, "--batch");
        break;
      case 7: {
        // A token axis: log-spaced, rounded, repeats dropped; points from the second byte.
        const std::int64_t points = size > 1 ? 1 + data[1] % 64 : 8;
        (void)kspeed::io::parse_sweep_values(text, "--ctx", points, kTokenAxis);
        break;
      }
      default:
        (void)kspeed::io::parse_sweep_values(text, "--share", 5, kShareAxis);
        break;
    }
  });
  return 0;
}
