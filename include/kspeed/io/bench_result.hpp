#pragma once
// Benchmark results as serving benchmarks write them, read for `kspeed diff` and `kspeed audit`:
// the conditions each states (MODEL.md section 6) and its latency figures, per request when the
// file has them. Formats, detected by content (docs/audit.md lists their fields):
// - `vllm bench serve --save-result` JSON (aggregates; per-request `ttfts`/`itls` with
//   --save-detailed), also InferenceX's fork with the key "request_goodput:";
// - AIPerf's aggregate profile_export_aiperf.json and per-request profile_export.jsonl;
// - SGLang `bench_serving` JSONL, one run a line (each line is one result, named FILE:LINE);
//   Python's bare `Infinity` is read as null;
// - kspeed workloads, including the one `kspeed profile --emit-workload` writes.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/engine/verify/conditions_audit.hpp"

namespace kspeed::io {

struct BenchResult {
  std::string source;  ///< the file name, with ":LINE" for one run of a multi-run file
  std::string format;  ///< "vllm-bench-json", "aiperf-json", "aiperf-jsonl", "sglang-bench-jsonl",
                       ///< "guidellm-json", "llm-d-report", "kspeed-workload"
  engine::FileConditions conditions;
  engine::BenchSide latencies;  ///< per-request samples or stated aggregates (source set)
};

/// The results in the text of one file (several for a multi-run SGLang file). Throws
/// InputError naming the file when it is none of the formats above.
std::vector<BenchResult> parse_bench_results(std::string_view text, const std::string& source);

/// The same over a file (read_text_file's limits and checks), or over an AIPerf artifact
/// directory: its profile_export.jsonl for the latencies, its aggregate JSON or CSV for the
/// conditions the records do not state.
std::vector<BenchResult> read_bench_results(const std::string& path);
class InputFile;
/// The same over a file already open (its head perhaps sniffed): read from that descriptor.
std::vector<BenchResult> read_bench_results(InputFile& file);

/// Receives one result at a time (for_each_bench_result).
using BenchResultSink = std::function<void(BenchResult&&)>;

/// As read_bench_results(path), handing each result to `take` as it is read: an SGLang JSONL
/// is streamed a line at a time, so memory holds one run, not the file (kspeed audit).
void for_each_bench_result(const std::string& path, const BenchResultSink& take);

/// `path` itself, or for an AIPerf artifact directory its per-request export (InputError when
/// the directory has none). For readers of per-request logs (kspeed mix).
std::string per_request_export(const std::string& path);

}  // namespace kspeed::io
