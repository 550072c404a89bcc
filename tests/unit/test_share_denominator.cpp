// One denominator end to end (issue 9): a share measured against kernel or busy time, applied to
// a wall latency typed on the command line, is converted with the steps' measured busy fraction
// (provenance converted) or refused with an error that says what to pass.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/profile/workload.hpp"

namespace unit_share_denominator {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// The SGLang MI300X decode step as kspeed profile emits it: 21.79% of 9.765 ms kernel time,
// 473.74 ms wall time.
const char* const kDecodeWorkload = R"({
  "name": "sglang-decode", "share_origin": "measured", "share_denominator": "kernel-time",
  "batch": 32,
  "request": {"prompt_tokens": 1024, "response_tokens": 2, "tpot_ms": 9.765},
  "attention_share": {"decode": [{"context": 1025, "share": 0.2179}]},
  "measured_steps": [{"phase": "decode", "context": 1025, "steps": 1, "kernel_ms": 9.765,
                      "busy_ms": 9.76, "wall_ms": 473.74, "batch": 32}]
})";

Workload decode_workload(const std::string& denominator = "kernel-time", bool with_steps = true) {
  Workload w = io::parse_workload(kDecodeWorkload, "decode.json");
  w.share_denominator = denominator;
  if (!with_steps) w.measured_steps.clear();
  return w;
}

}  // namespace

TEST_CASE("the workload's own TPOT takes the kernel-time share as it is", "[denominator]") {
  const Scenario s = resolve_scenario(decode_workload(), EstimateOptions{});
  REQUIRE(s.decode_share.has_value());
  CHECK(s.decode_share->value == Approx(0.2179));
  CHECK(s.decode_share->provenance == Provenance::measured);
  CHECK(s.tpot_ms.provenance == Provenance::measured);
}

TEST_CASE("--tpot converts a kernel-time share to a share of wall time", "[denominator]") {
  EstimateOptions options;
  options.tpot_ms = 474;
  const Scenario s = resolve_scenario(decode_workload(), options);
  REQUIRE(s.decode_share.has_value());
  // the attention time measured, 0.2179 x 9.765 = 2.128 ms a step (python3 over the trace: core
  // 2.128 ms), over the 474 ms given: 0.004489 (issue 27: attention time is conserved)
  CHECK(s.decode_share->value == Approx(0.2179 * 9.765 / 474));
  CHECK(s.decode_share->value == Approx(0.004489).margin(0.000005));
  CHECK(s.decode_share->provenance == Provenance::converted);
  const auto note = std::find_if(s.warnings.begin(), s.warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::latency_of_another_kind;
  });
  REQUIRE(note != s.warnings.end());
  CHECK(note->number("wall_ms") == Approx(474));
  CHECK(note->number("attention_ms") == Approx(0.2179 * 9.765));
  CHECK(note->number("converted_share") == Approx(0.004489).margin(0.000005));
}

TEST_CASE("a busy-time share converts with the busy time", "[denominator]") {
  EstimateOptions options;
  options.tpot_ms = 474;
  const Scenario s = resolve_scenario(decode_workload("busy-time"), options);
  CHECK(s.decode_share->value == Approx(0.2179 * 9.76 / 474));
}

TEST_CASE("a wall-time share, or one given on the command line, is not converted",
          "[denominator]") {
  EstimateOptions options;
  options.tpot_ms = 474;
  CHECK(resolve_scenario(decode_workload("wall-time"), options).decode_share->provenance ==
        Provenance::measured);
  options.decode_share = 0.1;
  const Scenario given = resolve_scenario(decode_workload(), options);
  CHECK(given.decode_share->value == 0.1);
  CHECK(given.decode_share->provenance == Provenance::given);
}

TEST_CASE("without the steps' wall time the conversion is refused, saying what to pass",
          "[denominator]") {
  EstimateOptions options;
  options.tpot_ms = 474;
  CHECK_THROWS_AS(resolve_scenario(decode_workload("kernel-time", false), options), InputError);
  CHECK_THROWS_WITH(resolve_scenario(decode_workload("kernel-time", false), options),
                    Catch::Contains("kernel-time") && Catch::Contains("wall-time") &&
                        Catch::Contains("measured_steps"));
}

TEST_CASE("real traces: profile -> emitted workload -> estimate, every input measured",
          "[denominator][real]") {
  const std::string traces = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/traces/";
  const std::string decode = traces + "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  const std::string prefill = traces + "vllm-b200-gptoss-prefill.trace.json.gz";
  if (!std::filesystem::exists(decode) || !std::filesystem::exists(prefill)) {
    WARN("skipped: ../shared/data/traces is not present (it holds the real traces)");
    return;
  }
  const profile::KernelClassifier classifier(profile::builtin_patterns());
  const auto emitted = [&classifier](const std::string& path) {
    profile::ProfileResult result;
    result.files.push_back(
        profile::analyse_trace(io::trace::read_trace_file(path), classifier, {}));
    return profile::workload_from_profile(result, profile::ShareScope::core).workload;
  };

  // The emitted workload carries no response length (the trace does not show it): give one.
  EstimateOptions two_tokens;
  two_tokens.response_tokens = 2;
  const Estimate d = run_estimate(emitted(decode), two_tokens, {});
  CHECK(d.scenario.phase == Phase::decode);
  CHECK(d.scenario.prompt_tokens.provenance == Provenance::measured);
  CHECK(d.scenario.response_tokens.provenance == Provenance::given);
  CHECK(d.scenario.tpot_ms.provenance == Provenance::measured);
  CHECK(d.scenario.tpot_ms.value == Approx(9.765).margin(0.01));
  REQUIRE(d.scenario.decode_share.has_value());
  CHECK(d.scenario.decode_share->provenance == Provenance::measured);
  CHECK(d.scenario.decode_share->value == Approx(0.2179).margin(0.0005));

  // The same workload against a wall latency: the attention time the trace measured, 21.79% x
  // 9.765437 ms = 2.128 ms a step, over the latency given (issue 27: attention time is
  // conserved): 2.128 / 473.74 = 0.449%, and at most 1.064 ms saved a token at 2x.
  EstimateOptions wall;
  wall.tpot_ms = 473.74;
  wall.response_tokens = 2;
  const Estimate w = run_estimate(emitted(decode), wall, {});
  CHECK(w.scenario.decode_share->provenance == Provenance::converted);
  CHECK(w.scenario.decode_share->value == Approx(0.004492).margin(0.00001));
  REQUIRE(w.scenario.decode_attention.has_value());
  CHECK(w.scenario.decode_attention->ms == Approx(2.128).margin(0.001));
  CHECK(w.scenario.decode_attention->provenance == Provenance::measured);
  CHECK(w.tpot_after_ms->value == Approx(473.74 - 2.128 / 2).margin(0.001));

  // Format 2 carries the step itself: its 463.295405 ms profiler gap (python3 over the trace:
  // the largest idle stretch, longer than the 9.759752 ms the GPU was busy) and what it
  // measured. One step has no spread: the headline gets no interval, and says why.
  const Workload decode_workload = emitted(decode);
  REQUIRE(decode_workload.profiled_steps.size() == 1);
  CHECK(decode_workload.profiled_steps[0].profiler_gap_ms == Approx(463.295405).margin(1e-6));
  CHECK(decode_workload.profiled_steps[0].decode_requests == 32);
  CHECK(decode_workload.profiled_steps[0].decode_kv_tokens == 32785);
  CHECK(decode_workload.profiled_steps[0].measures_tpot);
  CHECK_FALSE(d.interval.low);
  CHECK(d.interval.reason == NoPredictionInterval::too_few_steps);

  // The prefill trace shows no request's wait and no response length: the emitted workload
  // carries neither, and the estimate asks for both (issue 27).
  CHECK_THROWS_WITH(
      run_estimate(emitted(prefill), EstimateOptions{}, {}),
      Catch::Contains("request.ttft_ms") && Catch::Contains("request.response_tokens"));
  EstimateOptions given_ttft;
  given_ttft.ttft_ms = 83.37;  // the step's wall time, as a stand-in for a measured TTFT
  given_ttft.response_tokens = 1;
  const Estimate p = run_estimate(emitted(prefill), given_ttft, {});
  CHECK(p.scenario.prompt_tokens.provenance == Provenance::measured);
  CHECK(p.scenario.prompt_tokens.value == 888);
  CHECK(p.scenario.ttft_ms.provenance == Provenance::given);
  // The kernel-time share meets a wall TTFT: the step's attention over it (converted).
  CHECK(p.scenario.prefill_share.provenance == Provenance::converted);
  CHECK(p.scenario.prefill_share.value == Approx(0.485821 / 83.37).margin(0.0005));
}

// profile --emit-workload takes a phase's shares and its request latency from the same typed
// step times (profile/workload.hpp): a share of kernel time next to a wall latency does not
// compile, and the kinds follow the denominator the user chose.
using KernelStepShare =
    decltype(profile::step_share<TimeBase::kernel>(std::declval<const ProfiledStep&>()));
using WallRequestLatency = decltype(profile::request_latency<TimeBase::wall>(
    std::declval<const ProfiledStep&>(), StepMeasures::ttft));
static_assert(std::is_same_v<KernelStepShare, Share<TimeBase::kernel>>);
static_assert(std::is_same_v<WallRequestLatency, Time<TimeBase::wall>>);
static_assert(!AppliesTo<KernelStepShare, WallRequestLatency>);
static_assert(profile::time_base(profile::Denominator::kernel_time) == TimeBase::kernel);
static_assert(profile::time_base(profile::Denominator::busy_time) == TimeBase::busy);
static_assert(profile::time_base(profile::Denominator::wall_time) == TimeBase::wall);

TEST_CASE("a profiled request's attention is the step's share of its own latency",
          "[denominator]") {
  // A batch of 15 prompts of 1,024 tokens in a 300 ms step with 60 ms of attention: each
  // request's TTFT is 1/15 of the step (20 ms), 20% of it attention (4 ms = 60 ms / 15).
  ProfiledStep step;
  step.prefill_requests = 15;
  step.prefill_tokens = 15 * 1024;
  step.time_ms = 300;
  step.attention_ms = 60;
  const Share<TimeBase::wall> share = profile::step_share<TimeBase::wall>(step);
  const Time<TimeBase::wall> ttft =
      profile::request_latency<TimeBase::wall>(step, StepMeasures::ttft);
  CHECK(share.fraction == Approx(0.2));
  CHECK(ttft.ms == Approx(20));
  CHECK((share * ttft).ms == Approx(4));
  // A mixed step: 64 decode sequences add one token each to the step's work.
  step.decode_requests = 64;
  CHECK(profile::request_latency<TimeBase::wall>(step, StepMeasures::ttft).ms ==
        Approx(300.0 * 1024 / (15 * 1024 + 64)));
  CHECK(profile::request_latency<TimeBase::wall>(step, StepMeasures::tpot).ms == 300);
}

// mix: a log's measured TPOT is a wall time. The kernel-time table meets it converted through
// the workload's measured step, as estimate's --tpot does; the workload's own TPOT (kernel time)
// takes the table as it is. Before, every request got the kernel-time 21.79%: 49x too much on
// this sample's 473.74 ms step.
TEST_CASE("mix converts a kernel-time share that meets a log's measured (wall) latency",
          "[denominator][mix]") {
  const Workload workload = decode_workload();
  const Scenario scenario = resolve_scenario(workload, EstimateOptions{});
  MixRun run(make_mix_model(workload, scenario, Extrapolation::clamp));
  Request measured;
  measured.prompt_tokens = 1024;
  measured.response_tokens = 2;
  measured.tpot_ms = 474;
  // the trace's 2.128 ms of attention over the request's own 474 ms (issue 27): 0.4489%
  const double wall_share = 0.2179 * 9.765 / 474;
  const RequestOutcome wall = run.add(measured);
  CHECK(wall.tpot_after_ms == Approx(474 * ((1 - wall_share) + wall_share / 2)));
  // A decode-only workload measured no TTFT: no E2E, never a 0 ms TTFT (issue 27).
  CHECK(std::isnan(wall.ttft_before_ms));
  CHECK(std::isnan(wall.e2e_after_ms));
  Request own = measured;
  own.tpot_ms.reset();
  const RequestOutcome kernel = run.add(own);
  CHECK(kernel.tpot_before_ms == Approx(9.765));
  CHECK(kernel.tpot_after_ms == Approx(9.765 * ((1 - 0.2179) + 0.2179 / 2)));
}

TEST_CASE("mix refuses a kernel-time share on a measured latency without the step to convert it",
          "[denominator][mix]") {
  const Workload workload = decode_workload("kernel-time", false);
  const Scenario scenario = resolve_scenario(workload, EstimateOptions{});
  MixRun run(make_mix_model(workload, scenario, Extrapolation::clamp));
  Request measured;
  measured.prompt_tokens = 1024;
  measured.response_tokens = 2;
  measured.tpot_ms = 474;
  CHECK_THROWS_WITH(run.add(measured), Catch::Contains("kernel-time") &&
                                           Catch::Contains("measured_steps") &&
                                           Catch::Contains("decode-share"));
  // A wall-time table needs no step: it is applied as it is.
  MixRun wall_run(
      make_mix_model(decode_workload("wall-time", false), scenario, Extrapolation::clamp));
  CHECK(wall_run.add(measured).tpot_after_ms == Approx(474 * ((1 - 0.2179) + 0.2179 / 2)));
}

}  // namespace unit_share_denominator
