#pragma once
// JSON helpers of the JSONL and JSON request-log readers: a tolerant line parser (Python's bare
// Infinity/NaN become null) and field getters that say what was wrong with a value.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "request_readers.hpp"

namespace kspeed::io::requests {

/// The JSON value of `text`, or nullopt with `problem` set ("not a complete JSON object").
std::optional<nlohmann::json> parse_json_text(std::string_view text, RowProblem& problem);

/// nlohmann::json::parse without exceptions (discarded on an error); a text of a megabyte or
/// more has each array trimmed to its size as it closes, so a whole document's tree (a vLLM
/// --save-detailed file's 10^5 `itls` lists) holds no doubling slack.
nlohmann::json parse_json_tight(std::string_view text);

/// The number in `text` that is beyond a double (1e400), when that is why `text` does not parse
/// as JSON; nullopt when it parses or fails for another reason.
std::optional<std::string> number_beyond_double(std::string_view text);

/// The key whose value is `number` in `text` ("ttft" for {"ttft": 1e309}), or empty.
std::string number_field(std::string_view text, std::string_view number);

/// Whether `text` parses as a JSON object (for sniffing a first line).
std::optional<nlohmann::json> json_object_or_none(std::string_view text);

/// Every line of a JSONL log, the sniffed head first, through `read_record(input, text, line)`;
/// blank lines are skipped. One loop for the line-per-record formats (AIPerf, Mooncake,
/// LLMServingSim), each of which only says how to read one record.
template <typename ReadRecord>
void read_jsonl_records(LogInput& input, ReadRecord read_record) {
  read_record(input, input.head, input.head_line);
  std::string line;
  while (input.rest->next(line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    read_record(input, line, input.rest->line_number());
  }
}

/// The first of `keys` that `object` has (renamed keys across tool versions), or nullptr.
const nlohmann::json* member(const nlohmann::json& object, std::initializer_list<const char*> keys);

/// A token count from a JSON number (integers, or floats with no fraction).
std::optional<std::int64_t> json_tokens(const nlohmann::json* value, std::string_view field,
                                        std::int64_t minimum, RowProblem& problem);

/// A finite number >= 0 times `scale`.
std::optional<double> json_duration(const nlohmann::json* value, std::string_view field,
                                    double scale, RowProblem& problem);

/// An integer timestamp times `unit_ns`, read exactly (64-bit nanoseconds exceed 2^53).
std::optional<std::int64_t> json_timestamp_ns(const nlohmann::json* value, double unit_ns);

/// Short text of a JSON value for error messages.
std::string json_excerpt(const nlohmann::json& value);

// Readers of logs that are one JSON document, handed the parsed document by read_json_document;
// each declines (false) what is not its format.
bool read_vllm_json(LogInput& input, const nlohmann::json& document);
/// GuideLLM's benchmarks.json: one benchmark's per-request stats (benchmark_report_json.cpp).
bool read_guidellm_json(LogInput& input, const nlohmann::json& document);
/// An llm-d benchmark report states aggregates only: throws the error that says so.
bool refuse_llmd_report(const LogInput& input, const nlohmann::json& document);
/// vLLM without --save-detailed, AIPerf's aggregate JSON, an SGLang run: aggregates only, so
/// throws the error that names the per-request output to give instead; false for anything else.
bool refuse_aggregate_result(const LogInput& input, const nlohmann::json& document);

}  // namespace kspeed::io::requests
