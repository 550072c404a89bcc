#pragma once
// What `kspeed mix` reports: what reading the log found, the model every request went through,
// the aggregates before and after and, with --replay, the queue and goodput. The command fills
// it (src/cli/mix_command.cpp); mix_view.cpp and mix_document.cpp present it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/mix.hpp"

namespace kspeed::engine {

/// Rows of a request log skipped for one reason.
struct SkippedRows {
  std::string reason;  ///< e.g. "prompt length is not a whole number >= 1"
  std::int64_t count = 0;
  std::vector<std::int64_t> first_lines;  ///< up to kKeptLines line numbers, in file order
  std::string first_detail;               ///< the first occurrence, as its error message says it
};
inline constexpr std::size_t kKeptLines = 5;

/// What reading a request log found, for the report beside the numbers. The readers
/// (io::RequestLogReport) extend it with their format; the result needs only the counts, so it
/// carries no reader's type.
struct RequestLogCounts {
  std::string source;                ///< file name (or the name given for text)
  std::int64_t records = 0;          ///< data rows or records seen (headers excluded)
  std::int64_t requests = 0;         ///< delivered to the callback
  std::vector<SkippedRows> skipped;  ///< by reason, in order of first occurrence
  std::int64_t zero_response = 0;    ///< requests kept with a zero-length response
  std::int64_t out_of_order = 0;     ///< requests whose timestamp is before the previous one
  std::int64_t first_out_of_order_line = 0;

  std::int64_t skipped_total() const {
    std::int64_t total = 0;
    for (const SkippedRows& rows : skipped) total += rows.count;
    return total;
  }
};

/// How requests are grouped in the per-group table.
enum class MixGrouping { bucket, model };

struct MixResult {
  RequestLogCounts log;       ///< records, requests, skipped rows by reason
  std::string log_format;     ///< the reader's name for the log's format, e.g. "azure-csv"
  std::string workload_name;  ///< the workload the shares and reference latencies came from
  std::string workload_source;
  engine::MixModel model;  ///< speedup, phase, reference TTFT, TPOT, prefix cache
  engine::MixSummary summary;
  MixGrouping grouping = MixGrouping::bucket;
  std::optional<engine::MixReplay> replay;  ///< with --replay
  std::string step_model_source;  ///< where the replay's step model came from (its provenance)
  std::string kv_blocks_source;   ///< where the replay's KV capacity came from (its provenance)
  engine::Slo slo;
};

}  // namespace kspeed::engine
