// kspeed profile's parts in isolation: the streaming Kineto scanner (plain and gzip, bytes per
// second), the analysis of a parsed trace, and kernel classification. Whole-process ratios
// against zcat and python's json.load are measured by bench/profile_vs_limits.sh.
// The real traces come from ../shared/data/traces when present; otherwise the fixtures.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/profile/analysis.hpp"

namespace {

// The project root: the KSPEED_SOURCE_DIR compile definition when bench/CMakeLists.txt sets
// it, else the environment variable of that name, else the current folder.
std::string source_dir() {
#ifdef KSPEED_SOURCE_DIR
  return KSPEED_SOURCE_DIR;
#else
  const char* from_environment = std::getenv("KSPEED_SOURCE_DIR");
  return from_environment != nullptr ? from_environment : ".";
#endif
}

const std::string kSource = source_dir();

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The real vLLM trace (gzip), or the gzip fixture when ../shared is absent.
std::string gzip_trace_path() {
  const std::string real =
      kSource + "/../shared/data/traces/vllm-b200-gptoss-prefill.trace.json.gz";
  return std::filesystem::exists(real)
             ? real
             : kSource + "/tests/fixtures/profile/sglang-graph.trace.json.gz";
}

// The same trace uncompressed, produced once by kspeed's own reader path (gzip source).
const std::string& plain_trace_text() {
  static const std::string text = [] {
    const std::string compressed = slurp(gzip_trace_path());
    auto source =
        kspeed::io::trace::gzip_source(kspeed::io::trace::memory_source(compressed), "bench");
    std::string out;
    char chunk[1 << 16];
    while (const std::size_t n = source->read(chunk, sizeof chunk)) out.append(chunk, n);
    return out;
  }();
  return text;
}

void BM_ScanKinetoPlain(benchmark::State& state) {
  const std::string& text = plain_trace_text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::io::trace::read_trace_bytes(text, "bench.json"));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ScanKinetoPlain)->Unit(benchmark::kMillisecond);

// Bytes processed counts the uncompressed text, so the rate compares with the plain scan.
void BM_ScanKinetoGzip(benchmark::State& state) {
  const std::string compressed = slurp(gzip_trace_path());
  const std::size_t inflated = plain_trace_text().size();
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::io::trace::read_trace_bytes(compressed, "bench.json.gz"));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(inflated));
}
BENCHMARK(BM_ScanKinetoGzip)->Unit(benchmark::kMillisecond);

void BM_AnalyseTrace(benchmark::State& state) {
  const auto trace = kspeed::io::trace::read_trace_bytes(plain_trace_text(), "bench.json");
  const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::profile::analyse_trace(trace, classifier, {}));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(trace.kernels.size()));
}
BENCHMARK(BM_AnalyseTrace)->Unit(benchmark::kMicrosecond);

void BM_ClassifyKernelNames(benchmark::State& state) {
  const auto trace = kspeed::io::trace::read_trace_bytes(plain_trace_text(), "bench.json");
  const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  for (auto _ : state) {
    for (const std::string& name : trace.kernel_names) {
      benchmark::DoNotOptimize(classifier.classify(name));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(trace.kernel_names.size()));
}
BENCHMARK(BM_ClassifyKernelNames)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
