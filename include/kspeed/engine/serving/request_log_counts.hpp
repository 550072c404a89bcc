#pragma once
// What reading a request log found, as counts the engine's results carry (mix_result.hpp): the
// readers (io::RequestLogReport) extend it with the format they detected, so no result depends
// on a reader's type.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace kspeed::engine
