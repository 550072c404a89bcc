#pragma once
// Request logs: the traffic a team serves, one request at a time, in the formats users have.
// Every format has one reader (src/io/requests/, one file each) that declines what is not its
// format; read_request_log tries them in turn on the file's first record and streams requests
// to a callback, holding one request in memory at a time (the vLLM JSON document, a single JSON
// value, is the exception: it is parsed whole).
//
// Decisions, the same for every format:
// - A row with an error (non-numeric or negative length, a truncated JSON line, a failed or
//   cancelled request) is skipped and counted by reason with its first line numbers; it is never
//   dropped silently. In strict mode the first one is fatal (InputError with file:line).
// - A zero-length response is kept: the request still ran its prefill (a cancelled stream, a
//   classification or embedding call). It has a TTFT and no TPOT; the report counts them.
// - A zero-length prompt is skipped: there is no prefill to speed up.
// - Timestamps going backwards are kept and counted: logs merged from several clients or written
//   in completion order (AIPerf) are not sorted by arrival; the queue replay sorts by arrival.
//   Arrival times are seconds since the first record's timestamp, so they may be negative.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/serving/request_log_counts.hpp"

namespace kspeed::io {

class InputFile;

/// The formats kspeed reads request logs in.
enum class RequestFormat {
  azure_csv,     ///< Azure LLM inference traces 2023/2024: TIMESTAMP,ContextTokens,GeneratedTokens
  burstgpt_csv,  ///< BurstGPT: Timestamp,Model,Request tokens,Response tokens,...
  mooncake_jsonl,  ///< Mooncake: {"timestamp" (ms), "input_length", "output_length", "hash_ids"}
  vllm_json,       ///< vllm bench serve --save-detailed: input_lens, output_lens, ttfts, itls (s)
  aiperf_jsonl,   ///< AIPerf profile_export.jsonl: {metadata, metrics: {tag: {value, unit}}, error}
  guidellm_json,  ///< GuideLLM benchmarks.json: one benchmark's requests.successful stats
  trace_replay_csv,  ///< per-request CSV as InferenceX trace replay writes it
  mapped_csv,        ///< any CSV through a column mapping
  /// LLMServingSim's vLLM records: {input_toks, output_toks, queued_ts, ..., last_token_ts} (s)
  llmservingsim_jsonl,
};

/// Name and one-line description, for errors and --help.
struct RequestFormatInfo {
  RequestFormat format;
  std::string_view name;
  std::string_view description;
};
const std::vector<RequestFormatInfo>& request_formats();
std::string_view to_string(RequestFormat format);

/// A request field read from a named CSV column, with its unit.
struct ColumnSpec {
  std::string column;  ///< header name, exact (case-insensitive, spaces trimmed)
  /// Multiplier to the record's unit: ms per unit for durations, tokens per unit for counts (a
  /// block size for cached blocks), nanoseconds per unit for arrival times.
  double scale = 1;
  bool datetime = false;     ///< arrival as "YYYY-MM-DD HH:MM:SS[.fffffff][+hh:mm]"
  bool nanoseconds = false;  ///< arrival as integer nanoseconds (read exactly)
};

/// Which CSV column holds each field. prompt and response are required.
struct ColumnMapping {
  std::optional<ColumnSpec> arrival;  ///< arrival time; unit s (default), ms, us, ns, datetime
  ColumnSpec prompt;                  ///< prompt tokens
  ColumnSpec response;                ///< response tokens
  std::optional<ColumnSpec> cached;   ///< cached prefix; unit tokens, or a block size (:64)
  std::optional<ColumnSpec> ttft;     ///< durations: unit s, ms (default), us, ns
  std::optional<ColumnSpec> tpot;
  std::optional<ColumnSpec> itl;
  std::optional<ColumnSpec> e2e;
  std::optional<ColumnSpec> model;    ///< model name (text)
  std::optional<ColumnSpec> success;  ///< rows whose value is false/0/no are failed requests
  /// A response of 0 tokens is a failed request, not a prefill-only one (BurstGPT's convention).
  bool zero_response_failed = false;
};

/// Parses "prompt=input_tokens,response=output_tokens_actual,ttft=ttft:s". Keys: arrival,
/// prompt, response, cached, ttft, tpot, itl, e2e, model, success. Units after ':' as above.
/// Throws InputError naming `what` (e.g. the flag) for an unknown key, unit or a missing field.
ColumnMapping parse_column_mapping(std::string_view text, std::string_view what);

struct ReadOptions {
  bool strict = false;                   ///< the first bad row is fatal
  std::optional<ColumnMapping> columns;  ///< read a CSV through this mapping
};

using engine::kKeptLines;
using engine::SkippedRows;

/// What reading a log found: the counts the result carries, and the format this reader found.
struct RequestLogReport : engine::RequestLogCounts {
  RequestFormat format = RequestFormat::mapped_csv;
};

using RequestSink = std::function<void(const engine::Request&)>;

/// Reads the log at `path` (gzip-compressed too), detecting its format by content.
RequestLogReport read_request_log(const std::string& path, const ReadOptions& options,
                                  const RequestSink& sink);
/// The same over a file already open (its head perhaps sniffed): read from that descriptor.
RequestLogReport read_request_log(InputFile& file, const ReadOptions& options,
                                  const RequestSink& sink);

/// The same over text in memory (tests, fuzzing); `source_name` names it in errors.
RequestLogReport read_request_log_text(std::string_view text, const std::string& source_name,
                                       const ReadOptions& options, const RequestSink& sink);

}  // namespace kspeed::io
