// NVIDIA AIPerf's per-request export, profile_export.jsonl (github.com/ai-dynamo/aiperf,
// docs/reference/json-export-schema.md): one record a line, {metadata, metrics: {tag: {value,
// unit}}, error}. Records with an error (a cancelled or failed request) are skipped and counted
// with their error type. Early versions stamp `metadata.timestamp_ns`, later ones
// `request_start_ns`; nanosecond timestamps are read as integers.
#include "request_json.hpp"

namespace kspeed::io::requests {

namespace {

bool is_aiperf(const nlohmann::json& object) {
  return member(object, {"metrics"}) != nullptr && member(object, {"metadata"}) != nullptr;
}

// ms per unit of an AIPerf metric ("ms", "ns", "us", "s", "sec"); nullopt for another unit.
std::optional<double> ms_per_unit(const nlohmann::json& metric) {
  const nlohmann::json* unit = member(metric, {"unit"});
  const std::string name = unit != nullptr && unit->is_string() ? unit->get<std::string>() : "ms";
  if (name == "ms") return 1.0;
  if (name == "ns") return 1e-6;
  if (name == "us") return 1e-3;
  if (name == "s" || name == "sec") return 1000.0;
  return std::nullopt;
}

const nlohmann::json* metric_value(const nlohmann::json& metrics,
                                   std::initializer_list<const char*> tags) {
  const nlohmann::json* metric = member(metrics, tags);
  return metric != nullptr ? member(*metric, {"value"}) : nullptr;
}

// An optional duration metric: absent is fine, present must be valid.
bool duration_metric(const nlohmann::json& metrics, std::initializer_list<const char*> tags,
                     const char* field, std::optional<double>& out, RowProblem& problem) {
  const nlohmann::json* metric = member(metrics, tags);
  if (metric == nullptr) return true;
  const std::optional<double> scale = ms_per_unit(*metric);
  if (!scale) {
    problem = {std::string(field) + " has an unknown unit",
               std::string(field) + " has unit " + json_excerpt(*member(*metric, {"unit"})) +
                   ": expected ms, ns, us or s"};
    return false;
  }
  out = json_duration(member(*metric, {"value"}), field, *scale, problem);
  return out.has_value();
}

// The dataset entry a record measured: its conversation and turn (the same prompt in a rerun
// with the same dataset), else the request id; empty when the metadata has neither.
std::string request_identity(const nlohmann::json& metadata) {
  const nlohmann::json* conversation = member(metadata, {"conversation_id"});
  const nlohmann::json* turn = member(metadata, {"turn_index"});
  if (conversation != nullptr && conversation->is_string()) {
    return conversation->get<std::string>() + "/" +
           (turn != nullptr && turn->is_number_integer() ? turn->dump() : std::string("0"));
  }
  const nlohmann::json* request = member(metadata, {"x_request_id"});
  return request != nullptr && request->is_string() ? request->get<std::string>() : "";
}

std::string error_text(const nlohmann::json& error) {
  const nlohmann::json* type = member(error, {"type"});
  return type != nullptr && type->is_string() ? type->get<std::string>() : "error";
}

void read_aiperf_record(LogInput& input, std::string_view text, std::int64_t line) {
  ++input.report->records;
  RowProblem problem;
  const std::optional<nlohmann::json> object = parse_json_text(text, problem);
  if (!object || !object->is_object() || !is_aiperf(*object)) {
    if (object) {
      problem = {"not an AIPerf record", "'" + excerpt(text, 40) +
                                             "' has no metadata and metrics: expected an AIPerf "
                                             "record"};
    }
    input.skip(line, problem);
    return;
  }
  const nlohmann::json* error = member(*object, {"error"});
  if (error != nullptr && !error->is_null()) {
    const nlohmann::json* code = member(*error, {"code"});
    input.skip(line,
               {"error record: " + error_text(*error),
                "the request ended in an error (" + error_text(*error) +
                    (code != nullptr ? ", code " + json_excerpt(*code) : std::string()) + ")"});
    return;
  }
  const nlohmann::json& metrics = *member(*object, {"metrics"});
  engine::Request request;
  request.line = line;
  const std::optional<std::int64_t> prompt = json_tokens(
      metric_value(metrics, {"input_sequence_length", "isl"}), "input_sequence_length", 1, problem);
  const std::optional<std::int64_t> response =
      prompt ? json_tokens(metric_value(metrics, {"output_sequence_length", "osl"}),
                           "output_sequence_length", 0, problem)
             : std::nullopt;
  if (!prompt || !response ||
      !duration_metric(metrics, {"ttft", "time_to_first_token"}, "ttft", request.ttft_ms,
                       problem) ||
      !duration_metric(metrics, {"inter_token_latency"}, "inter_token_latency", request.tpot_ms,
                       problem) ||
      !duration_metric(metrics, {"request_latency"}, "request_latency", request.e2e_ms, problem)) {
    input.skip(line, problem);
    return;
  }
  request.prompt_tokens = *prompt;
  request.response_tokens = *response;
  // Optional token details: reasoning tokens (reasoning_token_count) and the prompt tokens the
  // server reported as read from its prefix cache (usage_prompt_cache_read_tokens, from the
  // response's usage.prompt_tokens_details.cached_tokens).
  if (const nlohmann::json* reasoning = metric_value(metrics, {"reasoning_token_count"})) {
    request.reasoning_tokens = json_tokens(reasoning, "reasoning_token_count", 0, problem);
    if (!request.reasoning_tokens) {
      input.skip(line, problem);
      return;
    }
  }
  if (const nlohmann::json* cached =
          metric_value(metrics, {"usage_prompt_cache_read_tokens", "usage_cached_tokens"})) {
    const std::optional<std::int64_t> tokens =
        json_tokens(cached, "usage_prompt_cache_read_tokens", 0, problem);
    if (!tokens || *tokens > *prompt) {
      if (tokens) {
        problem = {"more cached tokens than prompt tokens",
                   "usage_prompt_cache_read_tokens " + std::to_string(*tokens) +
                       " exceeds input_sequence_length " + std::to_string(*prompt)};
      }
      input.skip(line, problem);
      return;
    }
    // A full hit still computes the last prompt token (the one whose logits start the answer):
    // the engine models c <= prompt - 1.
    request.cached_tokens = *tokens == *prompt ? *prompt - 1 : *tokens;
  }
  const nlohmann::json* metadata = member(*object, {"metadata"});
  const nlohmann::json* start = member(*metadata, {"request_start_ns", "timestamp_ns"});
  if (start == nullptr) start = metric_value(metrics, {"min_request_timestamp"});
  request.arrival_s = input.arrival_from_ns(json_timestamp_ns(start, 1), line);
  request.id = request_identity(*metadata);
  if (const nlohmann::json* model = member(*metadata, {"model_name", "model"});
      model != nullptr && model->is_string()) {
    request.model = model->get<std::string>();
  }
  input.deliver(request);
}

}  // namespace

bool read_aiperf_jsonl(LogInput& input) {
  const std::optional<nlohmann::json> head = json_object_or_none(input.head);
  if (!head || !is_aiperf(*head)) return false;
  input.report->format = RequestFormat::aiperf_jsonl;
  read_jsonl_records(input, read_aiperf_record);
  return true;
}

}  // namespace kspeed::io::requests
