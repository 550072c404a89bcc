// Mooncake traces (Qin et al., "Mooncake: A KVCache-centric Disaggregated Architecture for LLM
// Serving", FAST 2025; github.com/kvcache-ai/Mooncake, FAST25-release/traces): one JSON object a
// line, `timestamp` in ms from the trace start, `input_length`, `output_length` and `hash_ids`,
// one id per 512-token block of the prompt (equal ids: a shared prefix block).
#include "request_json.hpp"

namespace kspeed::io::requests {

namespace {

constexpr double kNsPerMs = 1e6;

bool is_mooncake(const nlohmann::json& object) {
  return member(object, {"input_length"}) != nullptr &&
         member(object, {"output_length"}) != nullptr;
}

bool read_mooncake_record(LogInput& input, std::string_view text, std::int64_t line) {
  ++input.report->records;
  RowProblem problem;
  const std::optional<nlohmann::json> object = parse_json_text(text, problem);
  if (object && !object->is_object()) {
    problem = {"not a JSON object", "'" + excerpt(text, 40) + "' is not a JSON object"};
  }
  if (!object || !object->is_object()) {
    input.skip(line, problem);
    return false;
  }
  engine::Request request;
  request.line = line;
  const std::optional<std::int64_t> prompt =
      json_tokens(member(*object, {"input_length"}), "input_length", 1, problem);
  const std::optional<std::int64_t> response =
      prompt ? json_tokens(member(*object, {"output_length"}), "output_length", 0, problem)
             : std::nullopt;
  if (!prompt || !response) {
    input.skip(line, problem);
    return false;
  }
  request.prompt_tokens = *prompt;
  request.response_tokens = *response;
  if (const nlohmann::json* hashes = member(*object, {"hash_ids"}); hashes != nullptr) {
    if (!hashes->is_array()) {
      input.skip(line, {"hash_ids is not a list of block ids",
                        "hash_ids is " + json_excerpt(*hashes) + ": expected a list of integers"});
      return false;
    }
    request.block_hashes.reserve(hashes->size());
    for (const nlohmann::json& id : *hashes) {
      if (!id.is_number_integer()) {
        input.skip(line, {"hash_ids is not a list of block ids",
                          "hash_ids holds " + json_excerpt(id) + ": expected integers"});
        return false;
      }
      request.block_hashes.push_back(id.is_number_unsigned()
                                         ? id.get<std::uint64_t>()
                                         : static_cast<std::uint64_t>(id.get<std::int64_t>()));
    }
  }
  const nlohmann::json* timestamp = member(*object, {"timestamp"});
  if (timestamp != nullptr) {
    const std::optional<std::int64_t> ns = json_timestamp_ns(timestamp, kNsPerMs);
    if (!ns) {
      input.skip(line, {"timestamp is not a number",
                        "timestamp is " + json_excerpt(*timestamp) + ": expected milliseconds"});
      return false;
    }
    request.arrival_s = input.arrival_from_ns(ns, line);
  }
  input.deliver(request);
  return true;
}

}  // namespace

bool read_mooncake_jsonl(LogInput& input) {
  const std::optional<nlohmann::json> head = json_object_or_none(input.head);
  if (!head || !is_mooncake(*head)) return false;
  input.report->format = RequestFormat::mooncake_jsonl;
  read_jsonl_records(input, read_mooncake_record);
  return true;
}

}  // namespace kspeed::io::requests
