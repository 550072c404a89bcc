// LLMServingSim's per-request vLLM records (github.com/casys-kaist/LLMServingSim,
// bench/examples/<GPU>/<model>/vllm/requests.jsonl): one JSON object a line, `input_toks`,
// `output_toks`, `arrival_time` (client, epoch s) and the engine's `queued_ts`, `scheduled_ts`,
// `first_token_ts`, `last_token_ts` (s). The record is parsed where the measured-run reader
// parses it (serving/llmservingsim.cpp); here each becomes a request: arriving at queued_ts
// (arrival_time when the engine's is absent), with the measured server-side TTFT, TPOT and E2E,
// and its queue wait, which --calibrate keeps out of the request overhead.
#include "../serving/llmservingsim_record.hpp"
#include "request_json.hpp"

namespace kspeed::io::requests {

namespace {

void read_llmservingsim_record(LogInput& input, std::string_view text, std::int64_t line) {
  ++input.report->records;
  RowProblem problem;
  const std::optional<nlohmann::json> object = parse_json_text(text, problem);
  if (object && (!object->is_object() || !is_llmservingsim_record(*object))) {
    problem = {"not an LLMServingSim record",
               "'" + excerpt(text, 40) +
                   "' has no input_toks and output_toks: expected an LLMServingSim per-request "
                   "record"};
  }
  const std::optional<LlmServingSimRecord> record =
      problem.reason.empty() && object ? parse_llmservingsim_record(*object, problem)
                                       : std::nullopt;
  if (!record) {
    input.skip(line, problem);
    return;
  }
  engine::Request request;
  request.line = line;
  request.prompt_tokens = record->prompt_tokens;
  request.response_tokens = record->output_tokens;
  request.ttft_ms = record->ttft_ms;
  request.tpot_ms = record->tpot_ms;
  request.e2e_ms = record->e2e_ms;
  request.queue_ms = record->queue_ms;
  request.arrival_s =
      input.arrival_from_ns(record->queued_ns ? record->queued_ns : record->arrival_ns, line);
  if (const nlohmann::json* id = member(*object, {"request_id"});
      id != nullptr && id->is_string()) {
    request.id = id->get<std::string>();
  }
  input.deliver(request);
}

}  // namespace

bool read_llmservingsim_jsonl(LogInput& input) {
  const std::optional<nlohmann::json> head = json_object_or_none(input.head);
  if (!head || !is_llmservingsim_record(*head)) return false;
  input.report->format = RequestFormat::llmservingsim_jsonl;
  read_jsonl_records(input, read_llmservingsim_record);
  return true;
}

}  // namespace kspeed::io::requests
