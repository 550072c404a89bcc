// kspeed profile's parts in isolation: the streaming Kineto scanner (plain and gzip, bytes per
// second), the analysis of a parsed trace, and kernel classification. Whole-process ratios
// against zcat and python's json.load are measured by bench/profile_vs_limits.sh.
// The real traces come from ../shared/data/traces when present; otherwise the fixtures.
#include <benchmark/benchmark.h>

#include <algorithm>
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

// A dense trace in memory: the SGLang MI300X decode trace (HIP-graph replay, 555 kernels per
// step; the graph fixture when ../shared is absent) replicated to a million kernels, each copy
// shifted past the previous one with fresh correlation ids: what bench/make_dense_trace.py writes
// as a 1.08 GB file for the whole-process figures in docs/performance.md.
kspeed::profile::Trace dense_trace() {
  const std::string real =
      kSource + "/../shared/data/traces/sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  const auto base = kspeed::io::trace::read_trace_file(
      std::filesystem::exists(real)
          ? real
          : kSource + "/tests/fixtures/profile/sglang-graph.trace.json.gz");
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  std::uint64_t correlation_step = 1;
  for (const auto& kernel : base.kernels) {
    first = std::min(first, kernel.start_ns);
    last = std::max(last, kernel.start_ns + kernel.duration_ns);
    correlation_step = std::max(correlation_step, kernel.correlation + 1);
  }
  for (const auto& annotation : base.annotations) first = std::min(first, annotation.start_ns);
  const std::int64_t span = last - first + 1'000'000;
  kspeed::profile::Trace dense;
  dense.source = "dense";
  dense.kernel_names = base.kernel_names;
  dense.info = base.info;
  const std::size_t copies = (1'000'000 + base.kernels.size() - 1) / base.kernels.size();
  for (std::size_t c = 0; c < copies; ++c) {
    const auto shift = static_cast<std::int64_t>(c) * span;
    const auto renumber = static_cast<std::uint64_t>(c) * correlation_step;
    for (auto kernel : base.kernels) {
      kernel.start_ns += shift;
      if (kernel.correlation != 0) kernel.correlation += renumber;
      dense.kernels.push_back(kernel);
    }
    for (auto launch : base.launches) {
      launch.start_ns += shift;
      launch.correlation += renumber;
      dense.launches.push_back(launch);
    }
    for (auto annotation : base.annotations) {
      annotation.start_ns += shift;
      annotation.end_ns += shift;
      dense.annotations.push_back(annotation);
    }
  }
  return dense;
}

// The analysis of a million kernels: one walk, per-step sums and busy intervals merged as they
// stream. "kept" is what the trace holds per kernel record (the analysis adds nothing per kernel
// when the file lists kernels in time order).
void BM_AnalyseDenseTrace(benchmark::State& state) {
  const auto trace = dense_trace();
  const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  for (auto _ : state) {
    benchmark::DoNotOptimize(kspeed::profile::analyse_trace(trace, classifier, {}));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(trace.kernels.size()));
  state.counters["kernels"] = static_cast<double>(trace.kernels.size());
  state.counters["kept_bytes_per_kernel"] = sizeof(kspeed::profile::KernelEvent);
}
BENCHMARK(BM_AnalyseDenseTrace)->Unit(benchmark::kMillisecond);

// The scanner on the dense trace file itself (bench/make_dense_trace.py's 1.08 GB output, named
// by KSPEED_DENSE_TRACE; skipped when unset): the whole read, page cache to kernel records.
void BM_ScanDenseTrace(benchmark::State& state) {
  const char* path = std::getenv("KSPEED_DENSE_TRACE");
  if (path == nullptr || !std::filesystem::exists(path)) {
    state.SkipWithError("set KSPEED_DENSE_TRACE to bench/make_dense_trace.py's output");
    return;
  }
  std::uint64_t bytes = 0;
  std::size_t kernels = 0;
  for (auto _ : state) {
    const auto trace = kspeed::io::trace::read_trace_file(path);
    bytes = trace.bytes_read;
    kernels = trace.kernels.size();
    benchmark::DoNotOptimize(trace.kernels.size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
  state.counters["kernels"] = static_cast<double>(kernels);
}
BENCHMARK(BM_ScanDenseTrace)->Unit(benchmark::kMillisecond)->Iterations(3);

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
