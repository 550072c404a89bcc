// Step annotations of each engine (TRACES.md): phase and token counts.
#include <catch2/catch.hpp>

#include "kspeed/error.hpp"
#include "kspeed/profile/steps.hpp"

namespace unit_profile_steps {

using namespace kspeed::profile;

TEST_CASE("vLLM >= 0.14 annotations give phase and tokens", "[profile]") {
  const auto prefill = parse_step_label("execute_context_1(888_788544)_generation_0(0)");
  REQUIRE(prefill);
  CHECK(prefill->style == AnnotationStyle::vllm);
  CHECK(prefill->phase == Phase::prefill);
  CHECK(prefill->context_requests == 1);
  CHECK(prefill->context_tokens == 888);
  CHECK(step_context_tokens(*prefill) == Approx(888));

  const auto decode = parse_step_label("execute_context_0(0)_generation_32(32)");
  REQUIRE(decode);
  CHECK(decode->phase == Phase::decode);
  CHECK(decode->generation_tokens == 32);
  CHECK_FALSE(step_context_tokens(*decode));  // the KV length is not stated

  const auto mixed = parse_step_label("execute_context_2(1024)_generation_30(30)");
  REQUIRE(mixed);
  CHECK(mixed->phase == Phase::mixed);

  const auto idle = parse_step_label("execute_context_0(0)_generation_0(0)");
  REQUIRE(idle);
  CHECK(idle->phase == Phase::unphased);
}

TEST_CASE("TraceLens's execute annotation gives the decode KV length", "[profile]") {
  const auto label = parse_step_label(
      "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)");
  REQUIRE(label);
  CHECK(label->style == AnnotationStyle::tracelens);
  CHECK(label->phase == Phase::decode);
  CHECK(label->generation_kv_tokens == 32785);
  CHECK(step_context_tokens(*label) == Approx(32785.0 / 32));
}

TEST_CASE("vLLM ~0.13 annotations give the phase from request counts", "[profile]") {
  CHECK(parse_step_label("execute_new_1_cached_0")->phase == Phase::prefill);
  CHECK(parse_step_label("execute_new_0_cached_4")->phase == Phase::decode);
  CHECK(parse_step_label("execute_new_2_cached_5")->phase == Phase::mixed);
  CHECK(parse_step_label("execute_new_2_cached_5")->style == AnnotationStyle::vllm_legacy);
}

TEST_CASE("SGLang annotations", "[profile]") {
  const auto extend = parse_step_label("step[EXTEND bs=2 toks=1024]");
  REQUIRE(extend);
  CHECK(extend->style == AnnotationStyle::sglang);
  CHECK(extend->phase == Phase::prefill);
  CHECK(extend->context_tokens == 1024);
  CHECK(step_context_tokens(*extend) == Approx(512));
  const auto decode = parse_step_label("step[DECODE bs=32]");
  REQUIRE(decode);
  CHECK(decode->phase == Phase::decode);
  CHECK(decode->generation_requests == 32);
  CHECK(parse_step_label("step[MIXED bs=3 toks=300]")->phase == Phase::mixed);
  CHECK(parse_step_label("step[IDLE]")->phase == Phase::unphased);
}

TEST_CASE("TensorRT-LLM NVTX step annotations", "[profile]") {
  const auto label = parse_step_label("[Executor] _forward_step 17: 1 ctx reqs, 0 gen reqs");
  REQUIRE(label);
  CHECK(label->style == AnnotationStyle::tensorrt_llm);
  CHECK(label->phase == Phase::prefill);
  CHECK(parse_step_label("[Executor] _forward_step 18: 0 ctx reqs, 8 gen reqs")->phase ==
        Phase::decode);
  CHECK(parse_step_label("[Executor] _forward_step 19: 2 ctx reqs, 8 gen reqs")->phase ==
        Phase::mixed);
}

TEST_CASE("ProfilerStep is a step without a phase; other names are no steps", "[profile]") {
  const auto step = parse_step_label("ProfilerStep#12");
  REQUIRE(step);
  CHECK(step->phase == Phase::unphased);
  CHECK_FALSE(parse_step_label("aten::mm"));
  CHECK_FALSE(parse_step_label("execute_model"));
  CHECK_FALSE(parse_step_label("step[decode]"));
}

TEST_CASE("an enclosing annotation lends counts only when the phase agrees", "[profile]") {
  const auto inner = *parse_step_label("step[DECODE bs=32]");
  const auto outer = *parse_step_label(
      "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)");
  CHECK(merge_labels(inner, outer).generation_kv_tokens == 32785);
  CHECK(merge_labels(inner, outer).style == AnnotationStyle::sglang);
  const auto prefill = *parse_step_label("execute_context_1(10)_generation_0(0)");
  CHECK_FALSE(merge_labels(inner, prefill).context_tokens);
}

TEST_CASE("a count past 2^40 or past int64 is refused, never read as 0", "[profile]") {
  // from_chars leaves 0 on overflow: before this check the step read as an empty decode step.
  CHECK_THROWS_WITH(parse_step_label("execute_context_1(99999999999999999999)_generation_0(0)"),
                    Catch::Matchers::Contains("'99999999999999999999'"));
  CHECK_THROWS_AS(parse_step_label("execute_context_1(1099511627777)_generation_0(0)"),
                  kspeed::InputError);
  CHECK(parse_step_label("execute_context_1(1099511627776)_generation_0(0)")->context_tokens ==
        1099511627776);
}

}  // namespace unit_profile_steps
