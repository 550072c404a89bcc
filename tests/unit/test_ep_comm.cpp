// Expert parallelism (--ep): whole experts spread over the GPUs, the busiest rank's expert reads
// and the dispatch/combine all-to-alls per MoE layer (ep_comm.hpp, moe.hpp).
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/ep_comm.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_ep_comm {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform make(const std::string& model, const std::string& gpu, std::int64_t tp, std::int64_t ep,
              std::int64_t batch = 1) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  choice.expert_parallel = {ep, Provenance::given};
  choice.batch = {batch, Provenance::given};
  return make_platform(choice);
}

}  // namespace

TEST_CASE("remote ranks a token's experts fall on: (ep - 1)(1 - C(E - m, k)/C(E, k))", "[ep]") {
  // DeepSeek-V3/R1 over 8 ranks: 7 · (1 - C(224, 8)/C(256, 8)) = 4.6328 (Python's math.comb)
  CHECK(expected_remote_ranks(256, 8, 8) == Approx(4.632820500).epsilon(1e-9));
  CHECK(expected_remote_ranks(128, 4, 8) == Approx(2.924658793).epsilon(1e-9));
  CHECK(expected_remote_ranks(256, 8, 1) == 0.0);
  // By simulation: each token picks 8 distinct of 256 experts; count the ranks other than its
  // own (rank 0) that hold one.
  std::mt19937 rng(28);
  std::uniform_int_distribution<int> pick(0, 255);
  double remote = 0;
  constexpr int kTokens = 40000;
  for (int t = 0; t < kTokens; ++t) {
    std::set<int> experts;
    while (experts.size() < 8) experts.insert(pick(rng));
    std::set<int> ranks;
    for (const int e : experts) {
      if (e / 32 != 0) ranks.insert(e / 32);
    }
    remote += static_cast<double>(ranks.size());
  }
  CHECK(remote / kTokens == Approx(expected_remote_ranks(256, 8, 8)).epsilon(0.01));
}

TEST_CASE("DeepSeek-R1 on 8 H200s with ep 8: experts per GPU, busiest rank, all-to-alls", "[ep]") {
  const Platform p = make("deepseek-r1", "h200-sxm", 8, 8);
  const EpCommunication a2a = ep_communication(p);
  // dispatch + combine: 2 · 4.6328 ranks · 7168 hidden · 2 bytes = 132.8 KB a token and layer
  CHECK(a2a.bytes_per_token_per_layer == Approx(132832.229).epsilon(1e-6));
  // 58 MoE layers (61 less 3 dense) over NVLink 4 at 450 GB/s each way
  CHECK(a2a.ms_per_token == Approx(58 * 132832.229 / 450e9 * 1e3).epsilon(1e-6));
  const CalibratedStepModel step = modelled_step_model_with_tp_comm(p);
  CHECK(step.model.ep_ms_per_token == Approx(a2a.ms_per_token));
  CHECK(step.model.experts.expert_parallel == 8);
  // One token: the busiest of 8 ranks reads 2.54 of its 32 experts, 2.54× the mean of 1.
  CHECK(routed_expert_fraction(step.model.experts, 1) * 32 == Approx(2.544).epsilon(0.002));
  // The same deployment without ep splits every expert 8 ways and reads the union's 8 of 256:
  // ep reads whole experts, 2.54/32 of the rank's against 8/256 of all (split 8 ways).
  const CalibratedStepModel split =
      modelled_step_model_with_tp_comm(make("deepseek-r1", "h200-sxm", 8, 1));
  CHECK(step.model.experts.all_experts_ms == Approx(split.model.experts.all_experts_ms));
  const BatchComposition one = decode_batch(1024, 128, 1);
  CHECK(step_time(step.model, one).other_ms > step_time(split.model, one).other_ms);
  // Resident weights per GPU are the same: E/ep whole experts against every expert / tp.
  CHECK(decode_memory_needed_gb(p, 0) ==
        Approx(decode_memory_needed_gb(make("deepseek-r1", "h200-sxm", 8, 1), 0)));
}

TEST_CASE("--ep needs a MoE model whose experts the ranks divide", "[ep]") {
  CHECK_THROWS_AS(make("llama-3.1-8b", "h100-sxm", 1, 2), InputError);
  CHECK_THROWS_AS(make("gpt-oss-120b", "h100-sxm", 1, 3), InputError);  // 128 experts
  CHECK_NOTHROW(make("gpt-oss-120b", "h100-sxm", 1, 8));
}

}  // namespace unit_ep_comm
