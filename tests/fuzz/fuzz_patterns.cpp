// `--patterns` files, and each rule compiled and matched the way the classifier does: a slow
// user regex shows up as a timeout.
#include "fuzz_common.hpp"
#include "kspeed/io/pattern_reader.hpp"
#include "kspeed/profile/classify.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most([&] {
    const kspeed::io::PatternFile file =
        kspeed::io::parse_pattern_file(kspeed::fuzz::as_text(data, size), "fuzz.json");
    const kspeed::profile::KernelClassifier classifier(kspeed::io::combined_patterns(file));
    (void)classifier.classify(
        "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
        "cutlass::bfloat16_t>, true>(Flash_fwd_params)");
  });
  return 0;
}
