#pragma once
// Shared machinery of the request-log readers: a line source over a byte stream, CSV records,
// tolerant field parsing, row-problem accounting and timestamp bookkeeping. Each format's reader
// (one file each) is a function that declines (returns false) a log whose first record is not its
// format, before consuming anything, and otherwise reads the whole log.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/trace/byte_source.hpp"

namespace kspeed::io::requests {

/// Physical lines of a byte stream, without "\n" or a trailing "\r"; a UTF-8 BOM at the start is
/// dropped. Memory: one chunk plus the longest line, which is refused past io::max_input_bytes()
/// (so /dev/zero or a sparse file ends in an error, not in all the memory there is); a NUL byte
/// is refused where it is read, since no text log holds one. Each byte is scanned once, so a
/// long line costs its length, not its length squared.
class TextLines {
 public:
  explicit TextLines(std::unique_ptr<trace::ByteSource> source, std::string name = "input");
  /// The next line; false at the end of the stream.
  bool next(std::string& line);
  /// 1-based number of the line `next` returned last.
  std::int64_t line_number() const { return line_number_; }
  /// The most bytes one line or record may hold (io::max_input_bytes()).
  std::uint64_t limit() const { return limit_; }
  /// Throws the too-large error for a record of more than limit() bytes at `line`.
  [[noreturn]] void refuse_long(std::int64_t line) const;

 private:
  bool fill();
  std::unique_ptr<trace::ByteSource> source_;
  std::string name_;
  std::uint64_t limit_;
  std::string buffer_;
  std::size_t position_ = 0;
  std::size_t scanned_ = 0;     ///< buffer_ before this holds no newline after position_
  std::uint64_t consumed_ = 0;  ///< bytes read from the source so far, for the NUL message
  std::int64_t line_number_ = 0;
  bool at_end_ = false;
  bool first_ = true;
};

/// A row that cannot be used: what is wrong with it (`reason`, the category the report counts)
/// and the full sentence (`detail`, with the offending value and what was expected).
struct RowProblem {
  std::string reason;
  std::string detail;
};

/// Everything a reader works with.
struct LogInput {
  std::string source;          ///< file name, for errors
  std::string head;            ///< the first non-empty line (the CSV header, or a JSON line)
  std::int64_t head_line = 1;  ///< its line number
  TextLines* rest = nullptr;   ///< the lines after the head
  const ReadOptions* options = nullptr;
  const RequestSink* sink = nullptr;
  RequestLogReport* report = nullptr;

  /// Counts a skipped row, or throws InputError("source:line: detail") in strict mode.
  void skip(std::int64_t line, const RowProblem& problem) const;
  /// Hands a request over, keeping the report's counts (zero responses, timestamps going back).
  void deliver(engine::Request& request);
  /// Arrival in seconds since the first timestamp delivered, from integer nanoseconds.
  std::optional<double> arrival_from_ns(std::optional<std::int64_t> timestamp_ns,
                                        std::int64_t line);

 private:
  std::optional<std::int64_t> origin_ns_;
  std::optional<std::int64_t> previous_ns_;
};

// The readers, tried in this order by read_request_log.
bool read_aiperf_jsonl(LogInput& input);
bool read_mooncake_jsonl(LogInput& input);
bool read_llmservingsim_jsonl(LogInput& input);
/// A log that is one JSON document (vLLM --save-detailed, a GuideLLM report): reads it whole and
/// offers it to the document readers in request_json.hpp.
bool read_json_document(LogInput& input);
/// A first line (an SGLang bench_serving run) or a CSV header (AIPerf's aggregate CSV) of a
/// result that states aggregates only: throws the error that says what mix needs instead.
bool refuse_aggregate_line(const LogInput& input);
bool refuse_aggregate_csv(const LogInput& input);
bool read_azure_csv(LogInput& input);
bool read_burstgpt_csv(LogInput& input);
bool read_trace_replay_csv(LogInput& input);
/// Reads a CSV through `mapping` (the built-in CSV formats are mappings too); declines when the
/// header lacks a mapped column and `force` is false, throws when `force` is true.
bool read_mapped_csv(LogInput& input, const ColumnMapping& mapping, bool force);

// CSV
/// Splits one CSV record into fields: commas, double quotes with "" escapes. `record` may hold
/// newlines (quoted fields spanning lines).
void split_csv(std::string_view record, std::vector<std::string>& fields);
/// Reads the next record, joining lines while a quote is open; false at the end. `first_line`
/// is the record's first line number.
bool next_csv_record(TextLines& lines, std::string& record, std::int64_t& first_line);
/// Header names compared case-insensitively with spaces and quotes trimmed.
std::string header_key(std::string_view name);
/// Whether the CSV header in `input.head` has every one of `columns`.
bool header_has(const LogInput& input, std::initializer_list<const char*> columns);

// Fields. Each returns the value or sets `problem`.
/// A token count: a whole number >= `minimum` (decimals like "550.0" are accepted).
std::optional<std::int64_t> parse_tokens(std::string_view text, std::string_view field,
                                         std::int64_t minimum, RowProblem& problem);
/// A finite duration >= 0 in the field's unit, times `scale` to ms.
std::optional<double> parse_duration(std::string_view text, std::string_view field, double scale,
                                     RowProblem& problem);
/// "2023-11-16 18:15:46.6805900" (T or space; up to 9 fractional digits; optional Z or +hh:mm)
/// as nanoseconds since 1970-01-01 UTC.
std::optional<std::int64_t> parse_datetime_ns(std::string_view text);
/// A number of seconds (or of `unit_ns` nanoseconds) as integer nanoseconds; integers are read
/// exactly (64-bit nanosecond timestamps exceed a double's 2^53).
std::optional<std::int64_t> parse_timestamp_ns(std::string_view text, double unit_ns);

/// Printable, escaped, at most `limit` characters: for errors that show what was seen.
std::string excerpt(std::string_view text, std::size_t limit = 60);

/// JSON text with the bare tokens Infinity, -Infinity and NaN (Python's json.dumps) outside
/// strings replaced by null, which strict parsers accept; a field that needs a number then says
/// it got null.
std::string without_nonfinite_literals(std::string_view json);

}  // namespace kspeed::io::requests
