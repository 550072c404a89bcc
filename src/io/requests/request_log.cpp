// The request-log detector: reads the first record, offers it to each format's reader in turn,
// and turns "nobody took it" into an error that lists the formats and shows what was seen.
#include "kspeed/io/requests/request_log.hpp"

#include <algorithm>
#include <string_view>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "request_json.hpp"
#include "request_readers.hpp"

namespace kspeed::io {

namespace {

constexpr std::size_t kChunkBytes = 1 << 16;

}  // namespace

const std::vector<RequestFormatInfo>& request_formats() {
  static const std::vector<RequestFormatInfo> formats = {
      {RequestFormat::azure_csv, "azure",
       "Azure LLM inference trace CSV (TIMESTAMP,ContextTokens,GeneratedTokens)"},
      {RequestFormat::burstgpt_csv, "burstgpt",
       "BurstGPT CSV (Timestamp,Model,Request tokens,Response tokens,...)"},
      {RequestFormat::mooncake_jsonl, "mooncake",
       "Mooncake JSONL (timestamp, input_length, output_length, hash_ids)"},
      {RequestFormat::vllm_json, "vllm",
       "vllm bench serve --save-detailed JSON (input_lens, output_lens, ttfts, itls)"},
      {RequestFormat::aiperf_jsonl, "aiperf",
       "AIPerf profile_export.jsonl (metadata, metrics, error per request)"},
      {RequestFormat::guidellm_json, "guidellm",
       "GuideLLM benchmarks.json (one benchmark, its requests' stats kept)"},
      {RequestFormat::trace_replay_csv, "trace-replay",
       "per-request CSV (input_tokens, output_tokens_actual, cache_hit_blocks, ttft, itl)"},
      {RequestFormat::llmservingsim_jsonl, "llmservingsim",
       "LLMServingSim vLLM requests.jsonl (input_toks, output_toks, queued_ts, first_token_ts, "
       "last_token_ts)"},
      {RequestFormat::mapped_csv, "columns",
       "any CSV with a column mapping (prompt=COLUMN,response=COLUMN,...)"},
  };
  return formats;
}

std::string_view to_string(RequestFormat format) {
  for (const RequestFormatInfo& info : request_formats()) {
    if (info.format == format) return info.name;
  }
  return "unknown";
}

namespace requests {

TextLines::TextLines(std::unique_ptr<trace::ByteSource> source, std::string name)
    : source_(std::move(source)), name_(std::move(name)), limit_(max_input_bytes()) {}

void TextLines::refuse_long(std::int64_t line) const {
  refuse_too_large(name_ + ":" + std::to_string(line) + ": one line or record", limit_,
                   "one request per line (a whole-file JSON log is one record)");
}

bool TextLines::fill() {
  if (at_end_) return false;
  buffer_.erase(0, position_);
  scanned_ -= position_;
  position_ = 0;
  if (buffer_.size() > limit_) refuse_long(line_number_ + 1);
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + kChunkBytes);
  const std::size_t got = source_->read(buffer_.data() + old_size, kChunkBytes);
  buffer_.resize(old_size + got);
  if (const std::size_t nul = std::string_view(buffer_).find('\0', old_size);
      nul != std::string_view::npos) {
    // Before the first line, the buffer holds the file from its first byte: name what the bytes
    // are (UTF-16, a zip, ...). A gzip never gets here: it is inflated by its magic bytes.
    if (const std::string found = describe_binary(buffer_);
        line_number_ == 0 && consumed_ == old_size && !found.starts_with("binary")) {
      throw InputError(name_ + ": the file is " + found + "; expected a text request log");
    }
    throw InputError(name_ + ": the file is binary (a NUL byte at byte " +
                     std::to_string(consumed_ + (nul - old_size)) +
                     "): expected a text request log (CSV or JSON, gzip too)");
  }
  consumed_ += got;
  at_end_ = got == 0;
  return got > 0;
}

bool TextLines::next(std::string& line) {
  for (;;) {
    const std::size_t available = buffer_.size() - position_;
    const std::size_t newline = std::string_view(buffer_).find('\n', std::max(scanned_, position_));
    const bool found = newline != std::string_view::npos;
    scanned_ = found ? newline : buffer_.size();
    if (found || (at_end_ && available > 0)) {
      const std::size_t length = found ? newline - position_ : available;
      if (length > limit_) refuse_long(line_number_ + 1);
      line.assign(buffer_, position_, length);
      position_ += length + (found ? 1 : 0);
      scanned_ = position_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (first_) {
        first_ = false;
        if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 byte-order mark
      }
      ++line_number_;
      return true;
    }
    if (at_end_) return false;
    fill();
  }
}

void LogInput::skip(std::int64_t line, const RowProblem& problem) const {
  if (options->strict) {
    throw InputError(source + ":" + std::to_string(line) + ": " + problem.detail +
                     " (strict mode: the first bad row is fatal; without it, bad rows are "
                     "skipped and counted)");
  }
  auto& skipped = report->skipped;
  auto found = std::find_if(skipped.begin(), skipped.end(),
                            [&](const SkippedRows& rows) { return rows.reason == problem.reason; });
  if (found == skipped.end()) {
    skipped.push_back({problem.reason, 0, {}, problem.detail});
    found = skipped.end() - 1;
  }
  ++found->count;
  if (found->first_lines.size() < kKeptLines) found->first_lines.push_back(line);
}

void LogInput::deliver(engine::Request& request) {
  if (request.response_tokens == 0) ++report->zero_response;
  ++report->requests;
  (*sink)(request);
}

std::optional<double> LogInput::arrival_from_ns(std::optional<std::int64_t> timestamp_ns,
                                                std::int64_t line) {
  if (!timestamp_ns) return std::nullopt;
  if (!origin_ns_) origin_ns_ = *timestamp_ns;
  if (previous_ns_ && *timestamp_ns < *previous_ns_) {
    if (report->out_of_order == 0) report->first_out_of_order_line = line;
    ++report->out_of_order;
  }
  previous_ns_ = *timestamp_ns;
  return static_cast<double>(*timestamp_ns - *origin_ns_) * 1e-9;
}

}  // namespace requests

namespace {

std::string known_formats() {
  std::string out;
  for (const RequestFormatInfo& info : request_formats()) {
    out += "\n  ";
    out += info.name;
    out += ": ";
    out += info.description;
  }
  return out;
}

// A file of per-request results one run a line (SGLang bench_serving --output-details appends
// each run to its output file): every line is a whole document, which no reader of one document
// takes. Named, with the way to pick a run, instead of "not a request log".
void refuse_runs_a_line(const requests::LogInput& input) {
  const std::optional<nlohmann::json> head = requests::json_object_or_none(input.head);
  if (!head || !head->contains("input_lens")) return;
  throw InputError(input.source + ":" + std::to_string(input.head_line) +
                   ": per-request results of one benchmark run a line (SGLang bench_serving "
                   "--output-details appends each run to its file), and this command reads one "
                   "run: pick one with kspeed mix FILE --run N, or, for the other commands, write "
                   "the run's line to a file of its own (sed -n 'Np' FILE > run.jsonl)");
}

RequestLogReport read_log(std::unique_ptr<trace::ByteSource> source, const std::string& name,
                          const ReadOptions& options, const RequestSink& sink) {
  using namespace requests;
  RequestLogReport report;
  report.source = name;
  TextLines lines(std::move(source), name);
  LogInput input;
  input.source = name;
  input.rest = &lines;
  input.options = &options;
  input.sink = &sink;
  input.report = &report;
  bool found_head = false;
  while (lines.next(input.head)) {
    if (input.head.find_first_not_of(" \t") != std::string::npos) {
      found_head = true;
      break;
    }
  }
  if (!found_head) {
    throw InputError(name + ": the request log is empty: expected one of" + known_formats());
  }
  input.head_line = lines.line_number();
  const bool json = input.head.find_first_not_of(" \t") == input.head.find('{');
  bool read = false;
  if (options.columns) {
    if (json) {
      throw InputError(name + ":" + std::to_string(input.head_line) +
                       ": a column mapping applies to CSV files, and this one starts with '" +
                       excerpt(input.head, 40) + "': drop the mapping to read it by content");
    }
    read = read_mapped_csv(input, *options.columns, true);
  } else if (json) {
    read = read_aiperf_jsonl(input) || read_mooncake_jsonl(input) ||
           read_llmservingsim_jsonl(input) || refuse_aggregate_line(input) ||
           read_json_document(input);
  } else {
    read = read_azure_csv(input) || read_burstgpt_csv(input) || read_trace_replay_csv(input) ||
           refuse_aggregate_csv(input);
  }
  if (!read && json) {
    if (const std::optional<std::size_t> at = json_nesting_beyond(input.head, kMaxRecordDepth)) {
      throw InputError(name + ":" + std::to_string(input.head_line) +
                       ": the JSON nests deeper than " + std::to_string(kMaxRecordDepth) +
                       " levels (at character " + std::to_string(*at + 1) +
                       "): expected one flat request record a line (real logs nest under 10 "
                       "levels)");
    }
    if (const std::optional<std::string> number = number_beyond_double(input.head)) {
      const std::string field = number_field(input.head, *number);
      throw InputError(name + ":" + std::to_string(input.head_line) + ": the number " +
                       excerpt(*number) +
                       (field.empty() ? std::string() : " (field " + excerpt(field) + ")") +
                       " is beyond the range of a double (about 1.8e308): expected a plausible "
                       "figure");
    }
  }
  if (!read && json) refuse_runs_a_line(input);
  if (!read) {
    throw InputError(
        name + ":" + std::to_string(input.head_line) +
        ": not a request log kspeed knows; it starts with '" + excerpt(input.head) +
        "'. Known formats:" + known_formats() +
        "\nFor another CSV, map its columns: --columns prompt=COLUMN,response=COLUMN,...");
  }
  if (report.records == 0) {
    const bool csv = report.format == RequestFormat::azure_csv ||
                     report.format == RequestFormat::burstgpt_csv ||
                     report.format == RequestFormat::trace_replay_csv ||
                     report.format == RequestFormat::mapped_csv;
    throw InputError(name + ": the " + std::string(to_string(report.format)) + " log " +
                     (csv ? "has a header but no requests: expected at least one data row"
                          : "holds no requests: expected at least one request record"));
  }
  if (report.requests == 0) {
    const SkippedRows& first = report.skipped.front();
    throw InputError(name + ":" + std::to_string(first.first_lines.front()) +
                     ": no usable request: all " + std::to_string(report.records) +
                     " rows were skipped; the first: " + first.first_detail);
  }
  return report;
}

}  // namespace

RequestLogReport read_request_log(const std::string& path, const ReadOptions& options,
                                  const RequestSink& sink) {
  InputFile file(path, "request log", "a log file (*.csv, *.jsonl, *.json, gzip too)");
  return read_request_log(file, options, sink);
}

RequestLogReport read_request_log(InputFile& file, const ReadOptions& options,
                                  const RequestSink& sink) {
  // gzip by its magic bytes, whatever the name
  const bool gzip = file.head(2).starts_with("\x1f\x8b");
  std::unique_ptr<trace::ByteSource> source = file.stream();
  if (gzip) source = trace::gzip_source(std::move(source), file.path());
  return read_log(std::move(source), file.path(), options, sink);
}

RequestLogReport read_request_log_text(std::string_view text, const std::string& source_name,
                                       const ReadOptions& options, const RequestSink& sink) {
  return read_log(trace::memory_source(text), source_name, options, sink);
}

}  // namespace kspeed::io
