#pragma once
// The engine settings a run's own files state, so that a user does not type them again as flags
// (issue 29): vLLM server arguments as a Kubernetes manifest, a shell script or a compose file
// writes them (`vllm serve ... --max-num-seqs 128`, `- "--max-num-seqs=128"` in a container's
// args). Each setting keeps the file and line it came from, which the answer prints.
//
// vLLM's argument parser (vllm/utils FlexibleArgumentParser) accepts `--name=value` and
// `--name value`, and reads underscores as dashes (`--gpu_memory_utilization=0.9`); boolean
// settings are `--enable-X` / `--no-enable-X` (argparse.BooleanOptionalAction).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

/// One setting as a file states it.
template <class T>
struct StatedSetting {
  T value{};
  std::string where;  ///< "manifests.yaml:25"
};

/// One setting stated with two values: the run does not say which one served.
struct StatedConflict {
  std::string flag;    ///< "--max-num-seqs"
  std::string detail;  ///< "128 at a.yaml:25, 256 at b.yaml:9"
};

/// The vLLM server arguments kspeed's replay and memory model use, as a run's files state them.
struct StatedEngineArguments {
  std::optional<StatedSetting<std::int64_t>> max_num_seqs;            ///< --max-num-seqs
  std::optional<StatedSetting<std::int64_t>> max_num_batched_tokens;  ///< --max-num-batched-tokens
  std::optional<StatedSetting<bool>> chunked_prefill;           ///< --[no-]enable-chunked-prefill
  std::optional<StatedSetting<bool>> prefix_caching;            ///< --[no-]enable-prefix-caching
  std::optional<StatedSetting<double>> gpu_memory_utilization;  ///< --gpu-memory-utilization
  std::optional<StatedSetting<std::int64_t>> tensor_parallel_size;  ///< --tensor-parallel-size
  std::optional<StatedSetting<std::int64_t>> max_model_len;         ///< --max-model-len
  std::optional<StatedSetting<std::int64_t>> block_size;            ///< --block-size
  /// Settings stated twice with different values. The first statement stays in its field; a
  /// caller must not take a conflicted setting unless a flag gives it (conflict_on).
  std::vector<StatedConflict> conflicts;

  [[nodiscard]] bool empty() const;
  /// The conflict on `flag` ("--max-num-seqs"), if the files state it twice.
  [[nodiscard]] const StatedConflict* conflict_on(std::string_view flag) const;
};

/// The vLLM arguments in one file's text; `file` names it in `where`. Values that do not parse
/// (`--max-num-seqs=$(SEQS)`, a template) are not taken.
StatedEngineArguments scan_vllm_arguments(std::string_view text, const std::string& file);

/// The vLLM arguments stated by the deployment files in `folder` (`*.yaml`, `*.yml`, `*.sh`,
/// read in name order; the run's result files are not scanned). Missing folder or no such
/// files: empty. A setting stated in two files with different values is a conflict.
StatedEngineArguments read_engine_arguments(const std::string& folder);

}  // namespace kspeed::io
