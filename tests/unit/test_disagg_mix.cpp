// mix --disagg: the link presets, the KV bytes that cross the link, the kernel's worth per pool
// and the capacity search of the disaggregated replay, built directly (fixtures.hpp); the
// command's refusals through cli::run.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kspeed/cli/app.hpp"
#include "kspeed/engine/chain/mix_disagg.hpp"

namespace unit_disagg_mix {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kDisaggLog =
    std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/mix/azure-sample.csv";

// Llama-3.1-8B on an H100 in both pools, its step model replaced by round numbers: 10 ms a
// step plus 0.01 ms a token, and 1e-5 ms per KV token read (so decode attention is a part of
// the decode steps a kernel can act on).
DisaggRequest disagg_request_for(std::int64_t prefill, std::int64_t decode) {
  DisaggRequest request;
  request.prefill = test::deployment_for("llama-3.1-8b", "h100-sxm", 1, true);
  request.prefill.step->model = StepModel{};
  request.prefill.step->model.fixed_ms = 10;
  request.prefill.step->model.ms_per_token = 0.01;
  request.prefill.step->model.ms_per_prefill_pair = 1e-6;
  request.prefill.step->model.ms_per_kv_token = 1e-5;
  request.prefill.scheduler.request_overhead_ms = 0;
  request.decode = request.prefill;
  request.prefill_replicas = prefill;
  request.decode_replicas = decode;
  request.link = *kv_link_preset("ib-ndr");
  return request;
}

// A Poisson load: `n` requests at `rate` per second, prompts 2,000 tokens, 50 output tokens.
std::vector<ReplayRequest> poisson_requests(int n, double rate) {
  std::mt19937_64 random(26);
  std::exponential_distribution<double> gap(rate);
  std::vector<ReplayRequest> requests;
  double at = 0;
  for (int i = 0; i < n; ++i) {
    requests.push_back({at, 2000, 50, 0});
    at += gap(random);
  }
  return requests;
}

int run_disagg_cli(std::vector<std::string> args) {
  args.insert(args.begin(), {"kspeed", "mix", kDisaggLog});
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return cli::run(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("the KV link presets carry their published bandwidths, labelled cited", "[disagg]") {
  CHECK(kv_link_preset("nvlink")->link.bytes_per_s == 450e9);
  CHECK(kv_link_preset("ib-ndr")->link.bytes_per_s == 50e9);
  CHECK(kv_link_preset("roce-mooncake")->link.bytes_per_s == 87e9);
  CHECK(kv_link_preset("nvlink")->cited);
  CHECK_FALSE(kv_link_preset("10:25").has_value());
}

TEST_CASE("the whole model's KV crosses the link, whatever the tensor parallelism", "[disagg]") {
  // Llama-3.1-8B: 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes = 131,072 B.
  CHECK(whole_kv_bytes_per_token(test::deployment_for("llama-3.1-8b", "h100-sxm", 1, true),
                                 "prefill") == Approx(131072));
  CHECK(whole_kv_bytes_per_token(test::deployment_for("llama-3.1-8b", "h100-sxm", 2, true),
                                 "prefill") == Approx(131072));
}

TEST_CASE("a prefill kernel saves busy time in the prefill pool, not the decode pool", "[disagg]") {
  const std::vector<ReplayRequest> requests = poisson_requests(200, 5);
  const DisaggRequest request = disagg_request_for(1, 1);
  AttentionSpeedup prefill_only;
  prefill_only.prefill = 2;
  const MixDisagg prefill_kernel =
      replay_disaggregated_mix(requests, request, prefill_only, {}, {50, 99});
  CHECK(prefill_kernel.after.prefill.totals.busy_ms < prefill_kernel.before.prefill.totals.busy_ms);
  // The decode pool computes each prompt's last token against its 1,999 transferred tokens:
  // a prefill kernel saves only that pair term there, under 0.1% of its busy time.
  CHECK(prefill_kernel.after.decode.totals.busy_ms ==
        Approx(prefill_kernel.before.decode.totals.busy_ms).epsilon(1e-3));
  AttentionSpeedup decode_only;
  decode_only.decode = 2;
  const MixDisagg decode_kernel =
      replay_disaggregated_mix(requests, request, decode_only, {}, {50, 99});
  CHECK(decode_kernel.after.prefill.totals.busy_ms ==
        Approx(decode_kernel.before.prefill.totals.busy_ms));
  CHECK(decode_kernel.after.decode.totals.busy_ms < decode_kernel.before.decode.totals.busy_ms);
  // The transfer: 5 us + 2,000 × 131,072 B / 50 GB/s = 5.24288 ms + 0.005 ms.
  CHECK(decode_kernel.transfer_ms.mean == Approx(5.24788));
}

TEST_CASE("the disaggregated capacity is the highest rate meeting the SLO", "[disagg]") {
  const std::vector<ReplayRequest> requests = poisson_requests(300, 5);
  const DisaggRequest request = disagg_request_for(1, 1);
  Slo slo;
  slo.ttft_ms = 200;
  AttentionSpeedup speedup;
  speedup.prefill = 2;
  const MixDisagg answer = replay_disaggregated_mix(requests, request, speedup, slo, {50, 99});
  REQUIRE(answer.capacity_before);
  REQUIRE(answer.capacity_before->status == CapacityStatus::found);
  REQUIRE(answer.capacity_after->status == CapacityStatus::found);
  CHECK(answer.capacity_after->requests_per_s > answer.capacity_before->requests_per_s);
  // At the rate found the target is met; 1% faster it is not.
  DisaggSetup setup = disagg_setup(request);
  setup.rate_scale = answer.capacity_before->rate_scale;
  CHECK(slo_attainment(replay_disaggregated(requests, setup, {}).timing, slo).value() >= 0.9);
  setup.rate_scale *= 1.01;
  CHECK(slo_attainment(replay_disaggregated(requests, setup, {}).timing, slo).value() < 0.9);
}

TEST_CASE("--disagg refuses a malformed shape, a pool of none, and a missing --replay",
          "[disagg]") {
  const std::vector<std::string> deployment = {"--model", "llama-3.1-8b", "--gpu", "h100-sxm"};
  const auto with = [&deployment](std::vector<std::string> args) {
    args.insert(args.end(), deployment.begin(), deployment.end());
    return args;
  };
  CHECK(run_disagg_cli(with({"--replay", "--disagg", "3X", "--kv-link", "nvlink"})) == 2);
  CHECK(run_disagg_cli(with({"--replay", "--disagg", "0P1D", "--kv-link", "nvlink"})) == 2);
  CHECK(run_disagg_cli(with({"--disagg", "1P1D", "--kv-link", "nvlink"})) == 2);
  CHECK(run_disagg_cli(with({"--replay", "--disagg", "1P1D"})) == 2);
  CHECK(run_disagg_cli(with({"--replay", "--kv-link", "nvlink"})) == 2);
  CHECK(run_disagg_cli(with({"--replay", "--disagg", "1P1D", "--kv-link", "fast"})) == 2);
}

}  // namespace unit_disagg_mix
