// One latency-resolution order (issue 26): latency_source's rungs, and estimate and a one-request
// mix fed the same inputs take each request's TTFT and TPOT from the same source, with the same
// value, so the two commands cannot drift apart again.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kspeed/engine/chain/latency_order.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_latency_order {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// What each command answered for one request.
struct BothCommands {
  Scenario estimate;
  RequestOutcome mix;
};

// estimate --ctx prompt --response-tokens response [options], and mix over a log of one request
// of those lengths with the same flags, built as mix's command line builds it: its scenario is
// the workload's one reference request (--ctx names the prompt of a --ttft only), and a step
// model prices the shares request by request (price_by_step_model).
BothCommands run_both(const Workload& workload, EstimateOptions options, std::int64_t prompt,
                      std::int64_t response) {
  BothCommands both;
  options.prompt_tokens = prompt;
  options.response_tokens = response;
  both.estimate = resolve_scenario(workload, options);

  EstimateOptions mix_options = options;
  if (!options.ttft_ms) mix_options.prompt_tokens.reset();
  const Scenario scenario = resolve_scenario(workload, mix_options);
  MixModel model =
      make_mix_model(workload, scenario, options.extrapolation,
                     options.tpot_ms ? std::vector<LatencyPoint>{} : options.tpot_points);
  if (options.step_model) price_by_step_model(model, *options.step_model, options);
  MixRun run(model);
  Request request;
  request.prompt_tokens = prompt;
  request.response_tokens = response;
  both.mix = run.add(request);
  return both;
}

// The built-in example: the illustrative request (500 ms at 1,024 tokens, TPOT 50 ms) and
// InferenceX's measured TTFT points (267 ms at 1,024, 474 ms at 8,192).
Workload example() {
  return io::load_workload("deepseek-r1-fp8");
}

// The example without its points: only its one reference request.
Workload reference_only(bool illustrative) {
  Workload workload = example();
  workload.request.ttft_points.clear();
  workload.request.illustrative = illustrative;
  return workload;
}

Workload lengths_only() {
  Workload workload = request_lengths_only(example());
  workload.name = "test";
  return workload;
}

void check_same(const BothCommands& both, LatencySource ttft_source) {
  CHECK(both.estimate.ttft_source == ttft_source);
  CHECK(both.mix.ttft_source == ttft_source);
  CHECK(both.mix.ttft_before_ms == Approx(both.estimate.ttft_ms.value).epsilon(1e-9));
  CHECK(both.mix.tpot_before_ms == Approx(both.estimate.tpot_ms.value).epsilon(1e-9));
}

}  // namespace

TEST_CASE("latency_source: each rung ranks above the next", "[latency_order]") {
  LatencyCandidates all;
  all.measured = all.given_here = all.given_elsewhere = all.points = true;
  all.reference = all.reference_here = all.step_model = true;
  CHECK(latency_source(all) == LatencySource::measured);
  all.measured = false;
  CHECK(latency_source(all) == LatencySource::given);
  all.given_here = false;
  CHECK(latency_source(all) == LatencySource::reference);
  all.reference_here = false;
  CHECK(latency_source(all) == LatencySource::fitted);
  all.points = false;
  CHECK(latency_source(all) == LatencySource::scaled);  // the user's value, carried
  all.given_elsewhere = false;
  CHECK(latency_source(all) == LatencySource::modelled);
  all.step_model = false;
  CHECK(latency_source(all) == LatencySource::scaled);  // the workload's, carried
  all.reference = false;
  CHECK(latency_source(all) == LatencySource::missing);
}

TEST_CASE("is_reference_request: the workload's own request, and no fit to disagree with it",
          "[latency_order]") {
  // estimate with no --ctx: the reference request itself, whatever the workload's points
  CHECK(is_reference_request(true, true, false, false, true));
  // a length asked for (--ctx, a log's request): the workload's points take it
  CHECK_FALSE(is_reference_request(true, true, true, false, true));
  CHECK(is_reference_request(true, true, true, false, false));
  // the user's points beat the workload's one request; a cached prefix is another request
  CHECK_FALSE(is_reference_request(true, true, false, true, false));
  CHECK_FALSE(is_reference_request(true, false, true, false, false));
  CHECK_FALSE(is_reference_request(false, true, true, false, false));
}

TEST_CASE("estimate and a one-request mix take each rung's source and value alike",
          "[latency_order]") {
  SECTION("given: the user's --ttft at this prompt, --tpot") {
    EstimateOptions options;
    options.ttft_ms = 300.0;
    options.tpot_ms = 20.0;
    const BothCommands both = run_both(example(), options, 2048, 128);
    check_same(both, LatencySource::given);
    CHECK(both.mix.ttft_before_ms == 300.0);
    CHECK(both.mix.tpot_before_ms == 20.0);
  }
  SECTION("fitted: the workload's measured points at a length asked for") {
    const BothCommands both = run_both(example(), {}, 4096, 128);
    check_same(both, LatencySource::fitted);
    REQUIRE(both.estimate.ttft_model);
    CHECK(both.estimate.ttft_model->fixed_ms == Approx(242.0).margin(1.0));  // README's T0
  }
  SECTION("reference: the workload's own request, no points to disagree") {
    const BothCommands both = run_both(reference_only(true), {}, 1024, 128);
    check_same(both, LatencySource::reference);
    CHECK(both.mix.ttft_before_ms == 500.0);
  }
  SECTION("scaled: the workload's reference carried to another prompt") {
    const BothCommands both = run_both(reference_only(true), {}, 4096, 128);
    check_same(both, LatencySource::scaled);
    // (1 - 0.18) · 500 · (4096 / 1024) / (1 - 0.18): the table's first point at both lengths
    CHECK(both.mix.ttft_before_ms == Approx(2000.0).epsilon(1e-12));
  }
  SECTION("modelled: the deployment's step model, nothing else") {
    const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm");
    const BothCommands both = run_both(lengths_only(), test::options_on(deployment), 2048, 128);
    check_same(both, LatencySource::modelled);
    CHECK(both.estimate.ttft_ms.value ==
          Approx(request_latency(*deployment.step, 2048, 128).ttft_ms()).epsilon(1e-9));
  }
  SECTION("reference beats modelled: a measured request of its own, and a step model") {
    // Fails on the ladders before issue 26: mix's step model reset every reference it was not
    // given (price_by_step_model), so mix priced the workload's own request by the step model
    // where estimate took the workload's measured 500 ms.
    const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm");
    const BothCommands both =
        run_both(reference_only(false), test::options_on(deployment), 1024, 128);
    check_same(both, LatencySource::reference);
    CHECK(both.mix.ttft_before_ms == 500.0);
    CHECK(both.mix.tpot_before_ms == 50.0);
  }
  SECTION("a step model replaces an illustrative reference, at its own prompt too") {
    // Fails on the ladders before issue 26: estimate took the example's illustrative 500 ms and
    // 50 ms at their own prompt, mix (price_by_step_model) the step model.
    const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm");
    const BothCommands both =
        run_both(reference_only(true), test::options_on(deployment), 1024, 128);
    check_same(both, LatencySource::modelled);
    CHECK(both.estimate.tpot_source == LatencySource::modelled);
    CHECK(both.mix.tpot_source == LatencySource::modelled);
    CHECK(both.mix.ttft_before_ms ==
          Approx(request_latency(*deployment.step, 1024, 128).ttft_ms()).epsilon(1e-9));
    CHECK(both.mix.tpot_before_ms ==
          Approx(request_latency(*deployment.step, 1024, 128).tpot_ms()).epsilon(1e-9));
  }
  SECTION("the step model beats the workload's TPOT carried to another context") {
    // Fails on the ladders before issue 26: estimate carried the workload's 50 ms to 4,096
    // tokens through the decode model, mix took the step model's TPOT.
    const Deployment deployment = test::deployment_for("llama-3.1-8b", "h100-sxm");
    const BothCommands both =
        run_both(reference_only(false), test::options_on(deployment), 4096, 128);
    check_same(both, LatencySource::modelled);
    CHECK(both.estimate.tpot_source == LatencySource::modelled);
    CHECK(both.mix.tpot_source == LatencySource::modelled);
  }
  SECTION("--ttft with --ttft-point: --ttft at its prompt, the points' T0 its fixed term") {
    // Fails on the ladders before issue 26: mix fitted no points beside a --ttft, so its fixed
    // term was 0 where estimate's was the fit's T0, and the kernel moved more of mix's TTFT.
    EstimateOptions options;
    options.ttft_ms = 600.0;
    options.ttft_points = {{1024, 267.0}, {8192, 474.0}};
    options.tpot_ms = 20.0;
    options.kernel_speedup = 2.0;
    const BothCommands both = run_both(example(), options, 2048, 128);
    check_same(both, LatencySource::given);
    REQUIRE(both.estimate.ttft_fixed_ms);
    const double fixed = both.estimate.ttft_fixed_ms->value;
    CHECK(fixed == Approx(242.0).margin(1.0));
    // Amdahl on TTFT minus T0 at the table's 18%: 600 - 0.09 · (600 - T0)
    CHECK(both.mix.ttft_after_ms == Approx(600.0 - 0.09 * (600.0 - fixed)).epsilon(1e-9));
  }
}

}  // namespace unit_latency_order
