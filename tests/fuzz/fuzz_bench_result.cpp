// Benchmark results (kspeed diff, kspeed audit): format detection and every format's reader,
// then the conditions through the audit and the latencies through the comparison with a short
// bootstrap, so a value a reader lets through that the engine cannot take is a finding too.
#include <string>

#include "fuzz_common.hpp"
#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/engine/verify/conditions_audit.hpp"
#include "kspeed/io/bench_result.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most([&] {
    const std::vector<kspeed::io::BenchResult> results =
        kspeed::io::parse_bench_results(kspeed::fuzz::as_text(data, size), "fuzz.json");
    std::vector<kspeed::engine::FileConditions> files;
    for (const kspeed::io::BenchResult& result : results) files.push_back(result.conditions);
    (void)kspeed::engine::audit_conditions(files);
    kspeed::engine::BootstrapOptions options;
    options.resamples = 20;
    (void)kspeed::engine::compare_bench(results.front().latencies, results.back().latencies,
                                        options);
  });
  return 0;
}
