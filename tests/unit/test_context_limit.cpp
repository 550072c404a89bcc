// A request longer than the model's context (issue 30): no server of the model runs it (vLLM
// refuses a prompt and max_tokens beyond max_model_len), so estimate, sweep and mix say so, and
// --strict refuses the answer.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_context_limit {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

std::vector<Warning> with_code(const std::vector<Warning>& warnings, WarningCode code) {
  std::vector<Warning> out;
  for (const Warning& w : warnings) {
    if (w.code == code) out.push_back(w);
  }
  return out;
}

// kspeed estimate --model qwen3-8b --gpu h100-sxm --ctx PROMPT --response-tokens RESPONSE
Scenario qwen_scenario(std::int64_t prompt, std::int64_t response) {
  PlatformChoice choice;
  choice.model = {io::load_model("qwen3-8b"), Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Provenance::given};
  choice.batch = {1, Provenance::given};
  EstimateOptions options;
  options.platform = make_platform(choice);
  options.prompt_tokens = prompt;
  options.response_tokens = response;
  return resolve_scenario(io::load_workload("deepseek-r1-fp8"), options);
}

}  // namespace

TEST_CASE("estimate: a prompt and response past the model's context are warned and refused",
          "[context]") {
  // Qwen3-8B: max_position_embeddings 40,960. 40,000 + 960 fits exactly; one token more does not.
  CHECK(with_code(qwen_scenario(40000, 960).warnings, WarningCode::context_beyond_model).empty());
  const Scenario over = qwen_scenario(40000, 961);
  const std::vector<Warning> found = with_code(over.warnings, WarningCode::context_beyond_model);
  REQUIRE(found.size() == 1);
  CHECK(found[0].number("prompt_tokens") == 40000);
  CHECK(found[0].number("response_tokens") == 961);
  CHECK(found[0].number("context_tokens") == 40960);
  CHECK(found[0].text("model") == "qwen3-8b");
  CHECK_THROWS_AS(refuse_beyond_context(over.warnings, "--strict"), InputError);
  CHECK_NOTHROW(refuse_beyond_context(qwen_scenario(40000, 960).warnings, "--strict"));
  CHECK(strict_filter().within_context);
}

TEST_CASE("mix: requests past the model's context are counted, with the longest", "[context]") {
  MixModel model;
  model.prefill_share = 0.5;
  model.kernel_speedup = {2.0, Provenance::given};
  model.reference = ReferenceLatency{1024, {500.0, Provenance::given}};
  model.tpot_ms = WithProvenance<double>{20.0, Provenance::given};
  model.context_tokens = 1000;
  model.context_model = "tiny";
  MixRun run(model);
  for (const auto& [prompt, response] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{900, 100}, {990, 20}, {2000, 1}}) {
    Request r;
    r.prompt_tokens = prompt;
    r.response_tokens = response;
    run.add(r);
  }
  const std::vector<Warning> found =
      with_code(run.warnings(), WarningCode::requests_beyond_context);
  REQUIRE(found.size() == 1);
  CHECK(found[0].number("requests") == 2);  // 1,010 and 2,001 tokens; 1,000 fits
  CHECK(found[0].number("longest_tokens") == 2001);
  CHECK(found[0].number("context_tokens") == 1000);
  CHECK(found[0].text("model") == "tiny");
  CHECK_THROWS_AS(refuse_beyond_context(found, "--strict"), InputError);
  CHECK(report::warning_sentence(found[0]).rfind(
            "2 requests (the longest 2,001 tokens) have a prompt and response longer than tiny's "
            "context of 1,000 tokens",
            0) == 0);
  Warning one = found[0];  // one request: said in the singular
  for (auto& [name, value] : one.numbers) {
    if (name == "requests") value = 1;
  }
  CHECK(report::warning_sentence(one).rfind("1 request of 2,001 tokens has a prompt", 0) == 0);
  // No model context (a log priced without --model): nothing is counted.
  model.context_tokens = 0;
  MixRun unchecked(model);
  Request r;
  r.prompt_tokens = 5000;
  r.response_tokens = 1;
  unchecked.add(r);
  CHECK(with_code(unchecked.warnings(), WarningCode::requests_beyond_context).empty());
}

}  // namespace unit_context_limit
