// `vllm bench serve --save-result --save-detailed` (vllm/benchmarks/serve.py): one JSON object
// whose per-request arrays `input_lens`, `output_lens`, `ttfts` (s), `itls` (a list of
// inter-token gaps per request, s) and `errors` (empty string on success) run in parallel. A
// single JSON value, so this reader is handed the whole document (read_json_document, which
// holds it in memory unlike the line formats).
#include "kspeed/error.hpp"
#include "request_json.hpp"

namespace kspeed::io::requests {

namespace {

constexpr double kVllmMsPerS = 1000;

const nlohmann::json* array_member(const nlohmann::json& document, const char* key,
                                   std::size_t size, const LogInput& input) {
  const nlohmann::json* array = member(document, {key});
  if (array == nullptr) return nullptr;
  if (!array->is_array() || array->size() != size) {
    throw InputError(input.source + ":" + std::to_string(input.head_line) + ": '" + key +
                     "' is not a list of " + std::to_string(size) +
                     " values like input_lens: expected one value per request");
  }
  return array;
}

void read_request(LogInput& input, const nlohmann::json& document, std::size_t i,
                  const nlohmann::json* errors, const nlohmann::json* ttfts,
                  const nlohmann::json* itls, const std::string& model) {
  ++input.report->records;
  const std::string where = "request #" + std::to_string(i + 1) + ": ";
  if (errors != nullptr && (*errors)[i].is_string() && !(*errors)[i].get<std::string>().empty()) {
    input.skip(input.head_line,
               {"failed request",
                where + "the request failed (" + excerpt((*errors)[i].get<std::string>()) + ")"});
    return;
  }
  RowProblem problem;
  engine::Request request;
  request.line = input.head_line;
  request.model = model;
  // vllm bench serve gathers the outputs in the order of its prompts: the index is the prompt.
  request.id = "#" + std::to_string(i + 1);
  const std::optional<std::int64_t> prompt =
      json_tokens(&document["input_lens"][i], "input_lens", 1, problem);
  const std::optional<std::int64_t> response =
      prompt ? json_tokens(&document["output_lens"][i], "output_lens", 0, problem) : std::nullopt;
  if (ttfts != nullptr && prompt && response) {
    request.ttft_ms = json_duration(&(*ttfts)[i], "ttfts", kVllmMsPerS, problem);
  }
  if (!prompt || !response || (ttfts != nullptr && !request.ttft_ms)) {
    problem.detail = where + problem.detail;
    input.skip(input.head_line, problem);
    return;
  }
  request.prompt_tokens = *prompt;
  request.response_tokens = *response;
  // E2E = TTFT + the sum of the inter-token gaps; the engine derives TPOT = (E2E - TTFT)/(n - 1)
  // as vLLM does.
  if (itls != nullptr && (*itls)[i].is_array() && request.ttft_ms) {
    double gaps_ms = 0;
    for (const nlohmann::json& gap : (*itls)[i]) {
      const std::optional<double> ms = json_duration(&gap, "itls", kVllmMsPerS, problem);
      if (!ms) {
        problem.detail = where + problem.detail;
        input.skip(input.head_line, problem);
        return;
      }
      gaps_ms += *ms;
    }
    request.e2e_ms = *request.ttft_ms + gaps_ms;
  }
  input.deliver(request);
}

}  // namespace

bool read_vllm_json(LogInput& input, const nlohmann::json& document) {
  if (!document.is_object() || member(document, {"input_lens"}) == nullptr) return false;
  input.report->format = RequestFormat::vllm_json;
  const nlohmann::json& lens = document["input_lens"];
  if (!lens.is_array()) {
    throw InputError(input.source + ":" + std::to_string(input.head_line) +
                     ": 'input_lens' is not a list: expected one prompt length per request");
  }
  const std::size_t n = lens.size();
  if (array_member(document, "output_lens", n, input) == nullptr) {
    throw InputError(input.source + ":" + std::to_string(input.head_line) +
                     ": 'input_lens' without 'output_lens': expected the --save-detailed "
                     "per-request arrays");
  }
  const nlohmann::json* errors = array_member(document, "errors", n, input);
  const nlohmann::json* ttfts = array_member(document, "ttfts", n, input);
  const nlohmann::json* itls = array_member(document, "itls", n, input);
  const nlohmann::json* model_id = member(document, {"model_id"});
  const std::string model =
      model_id != nullptr && model_id->is_string() ? model_id->get<std::string>() : "";
  for (std::size_t i = 0; i < n; ++i) {
    read_request(input, document, i, errors, ttfts, itls, model);
  }
  return true;
}

}  // namespace kspeed::io::requests
