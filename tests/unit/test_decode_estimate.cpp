// Decode in `kspeed estimate`: the modelled decode share, levers applied per phase through each
// phase's roofline position, and warnings where a claim contradicts the roofline.
#include <catch2/catch.hpp>

#include <algorithm>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_decode_estimate {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform llama70b_h100(std::int64_t batch = 1, std::int64_t tp = 8) {
  PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-70b"), Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), Provenance::given};
  choice.batch = {batch, Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  return make_platform(choice);
}

// MODEL.md's reference request: prompt 1,024, response 128, TTFT 500 ms, TPOT 50 ms.
EstimateOptions reference_request() {
  EstimateOptions options;
  options.prompt_tokens = 1024;
  options.response_tokens = 128;
  options.ttft_ms = 500;
  options.tpot_ms = 50;
  options.prefill_share = 0.18;
  return options;
}

const Workload& builtin() {
  static const Workload workload = io::load_workload("deepseek-r1-fp8");
  return workload;
}

bool has_warning(const Estimate& estimate, const std::string& code) {
  for (const Warning& warning : estimate.scenario.warnings) {
    if (kspeed::report::warning_code(warning) == code) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("at a 19.6% decode share a 2x bytes reduction gives TPOT 1.109x", "[roofline]") {
  EstimateOptions options = reference_request();
  options.decode_share = 0.196;
  options.platform = llama70b_h100();
  options.levers = Levers{};
  options.levers->bytes_reduction = 2;
  options.phase = Phase::decode;
  const Estimate estimate = run_estimate(builtin(), options);
  // Amdahl: 1 / (0.804 + 0.196 / 2) = 1.1086; every decode step (TPOT) gains the same.
  CHECK(estimate.result.decode.attention.speedup == Approx(2.0));
  CHECK(estimate.result.decode.phase.speedup == Approx(1.0 / (0.804 + 0.098)));
  CHECK(estimate.result.decode.phase.speedup == Approx(1.109).margin(0.0005));
  CHECK(estimate.scenario.decode_share->provenance == Provenance::given);
}

TEST_CASE("a 10% attention bandwidth gain at a 19.6% share is about 1.8%", "[roofline]") {
  EstimateOptions options = reference_request();
  options.decode_share = 0.196;
  options.platform = llama70b_h100();
  options.levers = Levers{};
  options.levers->bandwidth_efficiency_before = 0.5;
  options.levers->bandwidth_efficiency_after = 0.55;
  options.phase = Phase::decode;
  const Estimate estimate = run_estimate(builtin(), options);
  CHECK(estimate.result.decode.attention.speedup == Approx(1.1));
  // 1 / (0.804 + 0.196 / 1.1) = 1.01814
  CHECK(estimate.result.decode.phase.speedup == Approx(1.0 / (0.804 + 0.196 / 1.1)));
  CHECK((estimate.result.decode.phase.speedup - 1) * 100 == Approx(1.8).margin(0.05));
}

TEST_CASE("a compute speedup gains in prefill and not in memory-bound decode", "[roofline]") {
  EstimateOptions options = reference_request();
  // At 4,096 tokens GQA prefill's intensity is 8·4096/18 = 1820, over twice the ridge (295), so a
  // 2x compute speedup pays in full; at 1,024 (455) it would hit the bandwidth roof at 1.54x.
  options.prompt_tokens = 4096;
  options.platform = llama70b_h100();
  options.levers = Levers{};
  options.levers->compute_speedup = 2;
  options.phase = Phase::both;
  const Estimate estimate = run_estimate(builtin(), options);
  REQUIRE(estimate.scenario.prefill_roofline);
  REQUIRE(estimate.scenario.decode_roofline);
  CHECK(estimate.scenario.prefill_roofline->bound == Bound::compute);
  CHECK(estimate.scenario.decode_roofline->bound == Bound::memory);
  CHECK(estimate.result.prefill.attention.speedup == Approx(2.0));
  CHECK(estimate.result.decode.attention.speedup == Approx(1.0));
  CHECK(has_warning(estimate, "decode_attention_compute_speedup_no_gain"));
  options.prompt_tokens = 1024;
  CHECK(run_estimate(builtin(), options).result.prefill.attention.speedup ==
        Approx((8.0 * 1024 / 18) / (989.4 / 3.35)));
  CHECK_FALSE(has_warning(estimate, "prefill_attention_compute_speedup_no_gain"));
  // The decode share was modelled: the workload has no decode table and none was given.
  REQUIRE(estimate.scenario.decode_share);
  CHECK(estimate.scenario.decode_share->provenance == Provenance::modelled);
}

TEST_CASE("a bytes reduction gains in decode and little in prefill", "[roofline]") {
  EstimateOptions options = reference_request();
  options.platform = llama70b_h100();
  options.levers = Levers{};
  options.levers->bytes_reduction = 2;
  options.phase = Phase::both;
  const Estimate estimate = run_estimate(builtin(), options);
  CHECK(estimate.result.decode.attention.speedup == Approx(2.0));
  CHECK(estimate.result.prefill.attention.speedup == Approx(1.0));
  CHECK(has_warning(estimate, "prefill_attention_bytes_reduction_no_gain"));
}

TEST_CASE("the modelled decode share is the decode model's over the response", "[roofline]") {
  EstimateOptions options = reference_request();
  options.platform = llama70b_h100(16, 8);
  const Estimate estimate = run_estimate(builtin(), options);
  REQUIRE(estimate.scenario.decode_share);
  const DecodeResponse response = decode_over_response(*options.platform, 1024, 128);
  CHECK(estimate.scenario.decode_share->value == Approx(response.share));
  // --kernel-speedup keeps its meaning: applied where --phase says (prefill by default).
  CHECK(estimate.result.prefill.attention.speedup == Approx(2.0));
  CHECK(estimate.result.decode.phase.speedup == 1.0);
}

TEST_CASE("a measured decode share overrides the model", "[roofline]") {
  EstimateOptions options = reference_request();
  options.platform = llama70b_h100();
  options.decode_share = 0.3;
  CHECK(run_estimate(builtin(), options).scenario.decode_share->value == 0.3);
  const Workload measured = io::parse_workload(R"({
    "request": {"prompt_tokens": 1024, "response_tokens": 2, "ttft_ms": 500, "tpot_ms": 50},
    "attention_share": {"prefill": [{"context": 1024, "share": 0.2}],
                        "decode": [{"context": 1024, "share": 0.25}, {"context": 4096, "share": 0.5}]}
  })",
                                               "w.json");
  EstimateOptions from_table;
  from_table.platform = llama70b_h100();
  const Estimate estimate = run_estimate(measured, from_table);
  CHECK(estimate.scenario.decode_share->provenance != Provenance::modelled);
}

TEST_CASE("levers need a platform and exclude --kernel-speedup", "[roofline]") {
  EstimateOptions options = reference_request();
  options.levers = Levers{};
  options.levers->bytes_reduction = 2;
  CHECK_THROWS_AS(run_estimate(builtin(), options), InputError);
  CHECK_THROWS_WITH(run_estimate(builtin(), options),
                    Catch::Contains("{flag:model} NAME and {flag:gpu}"));
  options.platform = llama70b_h100();
  options.kernel_speedup = 2;
  CHECK_THROWS_WITH(run_estimate(builtin(), options), Catch::Contains("one or the other"));
}

TEST_CASE("workloads may name a model, a GPU, a batch and tp", "[roofline]") {
  const Workload workload = io::parse_workload(
      R"({"model": "llama-3.1-70b", "gpu": "h100-sxm", "batch": 16, "tp": 8})", "w.json");
  CHECK(workload.model == "llama-3.1-70b");
  CHECK(workload.gpu == "h100-sxm");
  CHECK(workload.batch == 16);
  CHECK(workload.tp == 8);
  CHECK_THROWS_WITH(io::parse_workload(R"({"batch": 0})", "w.json"),
                    Catch::Contains("whole number >= 1"));
  CHECK_THROWS_WITH(io::parse_workload(R"({"gpus": "h100-sxm"})", "w.json"),
                    Catch::Contains("did you mean 'gpu'?"));
}

TEST_CASE("a share table measured on another model is flagged", "[roofline]") {
  auto workload = kspeed::io::load_workload("deepseek-r1-fp8");
  kspeed::engine::EstimateOptions options;
  options.ttft_ms = 800.0;
  options.prompt_tokens = 8192;
  kspeed::engine::PlatformChoice choice;
  choice.model = {kspeed::io::load_model("llama-3.1-70b"), kspeed::engine::Provenance::given};
  choice.gpu = {kspeed::io::load_gpu("h100-sxm"), kspeed::engine::Provenance::given};
  choice.tensor_parallel = {8, kspeed::engine::Provenance::given};
  options.platform = kspeed::engine::make_platform(choice);
  auto has_mismatch = [](const kspeed::engine::Scenario& s) {
    return std::any_of(s.warnings.begin(), s.warnings.end(), [](const auto& w) {
      return w.code == kspeed::engine::WarningCode::share_model_mismatch;
    });
  };
  CHECK(has_mismatch(kspeed::engine::resolve_scenario(workload, options)));
  options.prefill_share = 0.3;  // measured on this model, but the TPOT is still DeepSeek-R1's
  CHECK(has_mismatch(kspeed::engine::resolve_scenario(workload, options)));
  options.tpot_ms = 20.0;  // share and latencies all this model's: nothing to flag (issue 27)
  CHECK_FALSE(has_mismatch(kspeed::engine::resolve_scenario(workload, options)));
  options.prefill_share.reset();
  options.tpot_ms.reset();
  choice.model = {kspeed::io::load_model("deepseek-r1"), kspeed::engine::Provenance::given};
  options.platform = kspeed::engine::make_platform(choice);
  CHECK_FALSE(has_mismatch(kspeed::engine::resolve_scenario(workload, options)));
}

TEST_CASE("--spec-accept shows what it moves: the modelled decode time per token (issue 20)",
          "[roofline][spec]") {
  // τ divides attention and weight time alike, so every share and speedup is the same for any
  // τ; the note gives the one figure τ changes, step time / τ.
  const auto run = [](double tau) {
    PlatformChoice choice;
    choice.model = {io::load_model("gpt-oss-120b"), Provenance::given};
    choice.gpu = {io::load_gpu("b200"), Provenance::given};
    choice.batch = {32, Provenance::given};
    choice.tensor_parallel = {1, Provenance::given};
    choice.spec_tokens = 2;
    choice.spec_accept = tau;
    EstimateOptions options = reference_request();
    options.prompt_tokens = 8192;
    options.phase = Phase::decode;
    options.platform = make_platform(choice);
    return run_estimate(builtin(), options);
  };
  const Estimate slow = run(1.5);
  const Estimate fast = run(2.0);
  const auto note = [](const Estimate& e) -> const Warning& {
    for (const Warning& w : e.scenario.notes) {
      if (w.code == WarningCode::speculation_acceptance) return w;
    }
    FAIL("no speculation_acceptance note");
    return e.scenario.notes.front();
  };
  CHECK(fast.result.request.speedup == Approx(slow.result.request.speedup));
  const Warning& a = note(slow);
  const Warning& b = note(fast);
  CHECK(a.number("step_ms") ==
        Approx(b.number("step_ms")));  // the step itself does not depend on τ
  CHECK(a.number("ms_per_token") == Approx(a.number("step_ms") / 1.5));
  CHECK(b.number("ms_per_token") == Approx(b.number("step_ms") / 2.0));
  CHECK(a.number("context_tokens") == 8192);
  const Platform& p = *fast.scenario.platform;
  const DecodeStepTime step = decode_step_time(p, 8192);
  CHECK(b.number("step_ms") == Approx(step.attention_ms + step.other_ms));
}

}  // namespace unit_decode_estimate
