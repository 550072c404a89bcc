// The ncu CSV reader and the measured roofline in isolation: parsing an export (bytes per second)
// and measuring every launch in it. The real A100 details export (605 KB, 618 metric rows) comes
// from ../shared/data/ncu when present; otherwise the details fixture.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kspeed/engine/roofline/measured_roofline.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/profile/classify.hpp"

namespace {

std::string source_dir() {
#ifdef KSPEED_SOURCE_DIR
  return KSPEED_SOURCE_DIR;
#else
  const char* from_environment = std::getenv("KSPEED_SOURCE_DIR");
  return from_environment != nullptr ? from_environment : ".";
#endif
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::string& export_text() {
  static const std::string text = [] {
    const std::string real =
        source_dir() + "/../shared/data/ncu/a100-flashattn-v1-bert-details.csv";
    return slurp(std::filesystem::exists(real)
                     ? real
                     : source_dir() + "/tests/fixtures/ncu/details-flash-fwd.csv");
  }();
  return text;
}

void BM_ParseNcuDetails(benchmark::State& state) {
  const std::string& text = export_text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::io::parse_ncu_csv(text, "bench.csv"));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ParseNcuDetails);

void BM_MeasureAllLaunches(benchmark::State& state) {
  const kspeed::io::NcuReport report = kspeed::io::parse_ncu_csv(export_text(), "bench.csv");
  const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  for (auto _ : state) {
    for (const auto& kernel : report.kernels) {
      benchmark::DoNotOptimize(
          kspeed::engine::measure_kernel(kernel, classifier.classify(kernel.name)));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(report.kernels.size()));
}
BENCHMARK(BM_MeasureAllLaunches);

}  // namespace

BENCHMARK_MAIN();
