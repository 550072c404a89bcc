// Tensor parallelism's communication in the step model: two ring all-reduces of the step's
// hidden states per layer (Megatron-LM), over the link the GPU preset names or --link-bandwidth.
#include <catch2/catch.hpp>

#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_tp_comm {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

Platform platform_for(const std::string& model, const std::string& gpu, std::int64_t tp,
                      std::optional<double> link_gbs = std::nullopt) {
  PlatformChoice choice;
  choice.model = {io::load_model(model), Provenance::given};
  choice.gpu = {io::load_gpu(gpu), Provenance::given};
  choice.tensor_parallel = {tp, Provenance::given};
  choice.link_bandwidth_gbs = link_gbs;
  return make_platform(choice);
}

}  // namespace

TEST_CASE("TP communication: Qwen3-32B's shape on two GPUs over PCIe Gen5, by hand", "[tp_comm]") {
  // 64 layers, hidden 5,120, tp 2: the ring sends 2(2−1)/2 = 1 buffer; 128 all-reduces of
  // 5,120 · 2 bytes per token = 1,310,720 bytes per token over 64 GB/s = 0.02048 ms per token.
  const TpCommunication comm = tp_communication(64, 5120, 2, 64.0, 0.0);
  CHECK(comm.ms_per_token == Approx(0.02048).epsilon(1e-12));
  CHECK(comm.fixed_ms == 0.0);
  // A full 2,048-token step: 41.94 ms.
  CHECK(comm.ms_per_token * 2048 == Approx(41.943040).epsilon(1e-12));
}

TEST_CASE("TP communication: eight GPUs, with a per-collective latency, by hand", "[tp_comm]") {
  // Llama-3.1-70B: 80 layers, hidden 8,192, tp 8 over NVLink 4 (450 GB/s a direction):
  // 160 all-reduces · 2·7/8 · 8,192 · 2 bytes = 4,587,520 bytes per token / 450e9 B/s;
  // 160 · 10 µs = 1.6 ms per step.
  const TpCommunication comm = tp_communication(80, 8192, 8, 450.0, 10.0);
  CHECK(comm.ms_per_token == Approx(4587520.0 / 450e9 * 1e3).epsilon(1e-12));
  CHECK(comm.ms_per_token == Approx(0.0101944889).epsilon(1e-8));
  CHECK(comm.fixed_ms == Approx(1.6).epsilon(1e-12));
}

TEST_CASE("TP communication: none on one GPU or without a known link", "[tp_comm]") {
  const TpCommunication one_gpu = tp_communication(80, 8192, 1, 450.0, 10.0);
  CHECK(one_gpu.ms_per_token == 0.0);
  CHECK(one_gpu.fixed_ms == 0.0);
  const TpCommunication no_link = tp_communication(80, 8192, 8, 0.0, 10.0);
  CHECK(no_link.ms_per_token == 0.0);
  CHECK(no_link.fixed_ms == 0.0);
}

TEST_CASE("TP communication: the step's part, which no kernel speedup moves", "[tp_comm]") {
  StepModel model;
  model.weights_ms = 10;
  model.ms_per_kv_token = 0.001;
  model.tp_ms_per_token = 0.02;
  model.tp_fixed_ms = 0.5;
  BatchComposition batch;
  batch.decode_sequences = 100;
  batch.decode_kv_tokens = 100000;
  const StepTime before = step_time(model, batch);
  const StepTime after = step_time(model, batch, 2.0);
  CHECK(before.communication_ms == Approx(100 * 0.02 + 0.5));
  CHECK(after.communication_ms == before.communication_ms);
  CHECK(before.decode_attention_ms == Approx(100.0));
  CHECK(after.decode_attention_ms == Approx(50.0));
  CHECK(before.total_ms() == Approx(10 + 100 + 2.5));
}

TEST_CASE("TP communication: the link from the GPU preset or --link-bandwidth", "[tp_comm]") {
  const Platform single = platform_for("llama-3.1-70b", "h100-sxm", 1);
  CHECK(single.link_bandwidth_gbs.value == 0.0);
  CHECK(with_tp_communication({}, single).tp_ms_per_token == 0.0);

  const Platform nvlink = platform_for("llama-3.1-70b", "h100-sxm", 8);
  CHECK(nvlink.link_bandwidth_gbs.value == 450.0);
  CHECK(nvlink.link_bandwidth_gbs.provenance == Provenance::preset);
  // The preset's cited all-reduce latency (NCCL issue 1259: ~6 µs on H100 NVLink)
  CHECK(nvlink.link_latency_us.value == 6.0);
  CHECK(nvlink.link_latency_us.provenance == Provenance::preset);
  // 80 layers · 2 all-reduces · 6 µs = 0.96 ms a step
  CHECK(with_tp_communication({}, nvlink).tp_fixed_ms == Approx(0.96).epsilon(1e-12));
  CHECK(with_tp_communication({}, nvlink).tp_ms_per_token ==
        Approx(4587520.0 / 450e9 * 1e3).epsilon(1e-12));

  const Platform pcie = platform_for("llama-3.1-70b", "rtx-pro-6000", 2);
  CHECK(pcie.link_bandwidth_gbs.value == 64.0);
  CHECK(pcie.gpu.value.interconnect->name == "PCIe Gen5 x16");

  const Platform given = platform_for("llama-3.1-70b", "h100-sxm", 8, 100.0);
  CHECK(given.link_bandwidth_gbs.value == 100.0);
  CHECK(given.link_bandwidth_gbs.provenance == Provenance::given);
  // The modelled prior carries the term; the roofline's own coefficients are unchanged.
  const CalibratedStepModel prior = modelled_step_model_with_tp_comm(given);
  CHECK(prior.model.tp_ms_per_token == Approx(4587520.0 / 100e9 * 1e3).epsilon(1e-12));
  CHECK(prior.model.weights_ms == modelled_step_model(given).model.weights_ms);
}

TEST_CASE("TP communication: every built-in GPU states its link", "[tp_comm]") {
  for (const std::string& name : io::builtin_gpu_names()) {
    INFO(name);
    const Gpu gpu = io::load_gpu(name);
    REQUIRE(gpu.interconnect.has_value());
    CHECK(gpu.interconnect->per_direction_gbs > 0);
    CHECK_FALSE(gpu.interconnect->source.empty());
    // A stated latency is a cited one: the link's source names the field it sets (issue 28).
    if (gpu.interconnect->collective_latency_us > 0) {
      CHECK(gpu.interconnect->source.find("collective_latency_us") != std::string::npos);
    }
    if (gpu.interconnect->all_to_all_latency_us > 0) {
      CHECK(gpu.interconnect->source.find("all_to_all_latency_us") != std::string::npos);
    }
  }
  // The presets with a public small-message figure: Hopper and Blackwell NVLink boards.
  CHECK(io::load_gpu("h100-sxm").interconnect->collective_latency_us == 6.0);
  CHECK(io::load_gpu("h200-sxm").interconnect->all_to_all_latency_us == 41.65);
  CHECK(io::load_gpu("b200").interconnect->collective_latency_us == 3.0);
}

TEST_CASE("TP communication: a GPU file's interconnect is checked", "[tp_comm]") {
  const std::string head =
      R"({"peak_dense_tflops": {"bf16": 100}, "hbm_bandwidth_tbs": 1, "memory_gb": 10, )";
  const Gpu gpu = io::parse_gpu(
      head + R"("interconnect": {"name": "PCIe Gen4 x16", "per_direction_gbs": 31.5}})", "g.json");
  CHECK(gpu.interconnect->per_direction_gbs == 31.5);
  CHECK(gpu.interconnect->collective_latency_us == 0.0);
  CHECK_THROWS_AS(io::parse_gpu(head + R"("interconnect": {"name": "x"}})", "g.json"), InputError);
  CHECK_THROWS_AS(
      io::parse_gpu(head + R"("interconnect": {"name": "x", "per_direction_gbs": -1}})", "g.json"),
      InputError);
  CHECK_THROWS_AS(io::parse_gpu(head + R"("interconnect": {"name": "x", "per_direction_gbs": 1, )"
                                       R"("speed": 2}})",
                                "g.json"),
                  InputError);
}

}  // namespace unit_tp_comm
