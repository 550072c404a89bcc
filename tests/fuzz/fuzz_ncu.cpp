// The Nsight Compute CSV reader (details and raw pages), then what kspeed computes from it: every
// launch measured, placed on a roof and priced, so a number the reader lets through cannot crash
// or poison the measured roofline.
#include "fuzz_common.hpp"
#include "kspeed/engine/roofline/measured_roofline.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/profile/classify.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = kspeed::fuzz::as_text(data, size);
  kspeed::fuzz::expect_input_error_at_most([&] {
    const auto report = kspeed::io::try_parse_ncu_csv(text, "fuzz.csv");
    if (!report) return;
    static const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
    const kspeed::engine::Roof roof{989.4, 3.35};
    for (const auto& kernel : report->kernels) {
      const auto measured =
          kspeed::engine::measure_kernel(kernel, classifier.classify(kernel.name));
      (void)kspeed::engine::place_on_roof(measured, roof);
      (void)kspeed::engine::price_levers(measured, roof, {2, 2, 0.8});
    }
  });
  return 0;
}
