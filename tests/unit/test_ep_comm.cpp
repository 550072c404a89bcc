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

TEST_CASE("DeepSeek-R1 on 8 H200s, data-parallel attention (tp 1, ep 8): all-to-alls", "[ep]") {
  const Platform p = make("deepseek-r1", "h200-sxm", 1, 8);
  CHECK(data_parallel_attention(p));
  const EpCommunication a2a = ep_communication(p);
  CHECK(a2a.all_to_alls);
  // dispatch + combine: 2 · 4.6328 ranks · 7168 hidden · 2 bytes = 132.8 KB a token and layer
  CHECK(a2a.bytes_per_token_per_layer == Approx(132832.229).epsilon(1e-6));
  // 58 MoE layers (61 less 3 dense) over NVLink 4 at 450 GB/s each way
  CHECK(a2a.ms_per_token == Approx(58 * 132832.229 / 450e9 * 1e3).epsilon(1e-6));
  // The preset's cited all-to-all latency, 41.65 µs (pplx-kernels, EP8 NVLink, one token), twice
  // per MoE layer: 58 · 2 · 41.65 µs = 4.8314 ms a step, whatever its tokens.
  CHECK(p.all_to_all_latency_us.value == 41.65);
  CHECK(p.all_to_all_latency_us.provenance == Provenance::preset);
  CHECK(a2a.fixed_ms == Approx(58 * 2 * 41.65e-3).epsilon(1e-12));
  const CalibratedStepModel step = modelled_step_model_with_tp_comm(p);
  CHECK(step.model.ep_ms_per_token == Approx(a2a.ms_per_token));
  CHECK(step.model.ep_fixed_ms == Approx(4.8314).epsilon(1e-9));
  CHECK(step.model.tp_fixed_ms == 0.0);  // tp 1: no all-reduce
  // One token's step pays the whole latency: communication 4.83 ms + 58 · 132.8 KB / 450 GB/s.
  const BatchComposition one = decode_batch(1024, 128, 1);
  CHECK(step_time(step.model, one).communication_ms ==
        Approx(4.8314 + 58 * 132832.229 / 450e9 * 1e3).epsilon(1e-9));
}

TEST_CASE("DeepSeek-R1 on 8 H200s with tp 8 and ep 8: no all-to-all, the busiest rank", "[ep]") {
  // vLLM's --tensor-parallel-size 8 --enable-expert-parallel (data parallelism 1): every rank
  // holds every token after the attention's all-reduce, so no dispatch or combine
  // (FusedMoEParallelConfig.use_all2all_kernels = dp_size > 1 and use_ep).
  const Platform p = make("deepseek-r1", "h200-sxm", 8, 8);
  CHECK_FALSE(data_parallel_attention(p));
  const EpCommunication a2a = ep_communication(p);
  CHECK_FALSE(a2a.all_to_alls);
  CHECK(a2a.ms_per_token == 0.0);
  CHECK(a2a.fixed_ms == 0.0);
  const CalibratedStepModel step = modelled_step_model_with_tp_comm(p);
  CHECK(step.model.ep_ms_per_token == 0.0);
  CHECK(step.model.ep_fixed_ms == 0.0);
  // The all-reduces pay the preset's cited 6 µs each, 2 a layer: 61 · 2 · 6 µs = 0.732 ms.
  CHECK(p.link_latency_us.value == 6.0);
  CHECK(step.model.tp_fixed_ms == Approx(0.732).epsilon(1e-12));
  CHECK(step.model.experts.expert_parallel == 8);
  // One token: the busiest of 8 ranks reads 2.54 of its 32 experts, 2.54× the mean of 1.
  CHECK(routed_expert_fraction(step.model.experts, 1) * 32 == Approx(2.544).epsilon(0.002));
  CHECK(expected_distinct_experts(256, 8, 1) / 8 == Approx(1.0));
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

TEST_CASE("a GPU file's all-to-all latency is read and checked", "[ep]") {
  const std::string head =
      R"({"peak_dense_tflops": {"bf16": 100}, "hbm_bandwidth_tbs": 1, "memory_gb": 10, )"
      R"("interconnect": {"name": "x", "per_direction_gbs": 100, )";
  CHECK(io::parse_gpu(head + R"("all_to_all_latency_us": 40}})", "g.json")
            .interconnect->all_to_all_latency_us == 40.0);
  CHECK(io::parse_gpu(head + R"("source": "s"}})", "g.json").interconnect->all_to_all_latency_us ==
        0.0);
  CHECK_THROWS_AS(io::parse_gpu(head + R"("all_to_all_latency_us": -1}})", "g.json"), InputError);
  // A preset without the figure leaves the term at 0, labelled default (not cited): B200.
  const Platform b200 = make("deepseek-r1", "b200", 1, 8);
  CHECK(b200.all_to_all_latency_us.value == 0.0);
  CHECK(b200.all_to_all_latency_us.provenance == Provenance::default_value);
  CHECK(ep_communication(b200).fixed_ms == 0.0);
  CHECK(ep_communication(b200).ms_per_token > 0.0);
}

TEST_CASE("--ep needs a MoE model whose experts the ranks divide", "[ep]") {
  CHECK_THROWS_AS(make("llama-3.1-8b", "h100-sxm", 1, 2), InputError);
  CHECK_THROWS_AS(make("gpt-oss-120b", "h100-sxm", 1, 3), InputError);  // 128 experts
  CHECK_NOTHROW(make("gpt-oss-120b", "h100-sxm", 1, 8));
}

}  // namespace unit_ep_comm
