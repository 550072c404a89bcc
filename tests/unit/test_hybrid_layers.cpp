// Hybrid models (Qwen3-Next): linear-attention layers hold a constant state per sequence instead
// of a KV cache, and an attention kernel moves only the softmax-attention layers. Read from the
// preset and from the public config.json (the golden case estimate-hf-config-qwen3-next holds its
// kspeed-relevant keys); the state and parameter figures are written out again here from the
// config's numbers.
#include <catch2/catch.hpp>

#include <string>

#include "fixtures.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/model_shapes.hpp"
#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/deployment/step_model.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_hybrid_layers {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

const std::string kQwenNextConfig =
    std::string(KSPEED_SOURCE_DIR) +
    "/tests/golden/cases/estimate-hf-config-qwen3-next/Qwen3-Next-80B-A3B/config.json";

}  // namespace

TEST_CASE("Qwen3-Next's config.json: 36 gated-DeltaNet layers and 12 that attend", "[hybrid]") {
  for (const ModelArch& model :
       {io::load_model("qwen3-next-80b-a3b"), io::load_model(kQwenNextConfig)}) {
    CAPTURE(model.name);
    CHECK(model.layers == 48);
    CHECK(model.linear.layers == 36);  // full_attention_interval 4: layers 3, 7, ..., 47 attend
    CHECK(full_attention_layers(model) == 12);
    CHECK(softmax_attention_layers(model) == 12);
    CHECK(model.linear.value_heads == 32);
    CHECK(model.linear.key_heads == 16);
    // 2 bytes · (32 · 128 · 128 recurrent + 3 · (2 · 16 · 128 + 32 · 128) conv) = 1,097,728
    CHECK(linear_state_bytes_per_layer(model.linear) == Approx(1097728.0));
    // 12 · 18,874,368 (GQA) + 36 · 33,718,272 (DeltaNet) + 48 · 513 experts · 3,145,728 +
    // routers + two 151,936 × 2,048 tables = 79.57 B (the card: 80 B; the attention layers'
    // output gate, 0.1 B, is not in kspeed's GQA count)
    CHECK(count_params(model, *model.shapes).total / 1e9 == Approx(79.573).epsilon(1e-4));
  }
  // The preset and the config agree on every figure the engine prices.
  const ModelArch preset = io::load_model("qwen3-next-80b-a3b");
  const ModelArch config = io::load_model(kQwenNextConfig);
  CHECK(count_params(preset, *preset.shapes).active ==
        Approx(count_params(config, *config.shapes).active));
}

TEST_CASE("a hybrid model's attention covers its softmax layers only; the state is outside it",
          "[hybrid]") {
  const Platform hybrid = test::platform_for("qwen3-next-80b-a3b", "h200-sxm", 2, 8);
  Platform all_softmax = hybrid;
  all_softmax.model.value.linear = LinearAttentionDims{};
  // KV bytes and attention FLOPs at a 4K context: 12 of 48 layers.
  const KernelCost hybrid_cost = decode_attention_cost(attention_shape(hybrid), 4096);
  const KernelCost full_cost = decode_attention_cost(attention_shape(all_softmax), 4096);
  CHECK(hybrid_cost.bytes / full_cost.bytes == Approx(12.0 / 48.0));
  // The state: 36 layers · 1,097,728 bytes, read and written, per sequence, split over tp 2.
  const KernelCost state = linear_attention_step_cost(hybrid);
  CHECK(state.bytes == Approx(2.0 * 1097728.0 * 36 * 8 / 2));
  CHECK(linear_attention_step_cost(all_softmax).bytes == 0);
  // In the step model it is a cost per running sequence that no kernel speedup divides.
  const CalibratedStepModel step = modelled_step_model(hybrid);
  CHECK(step.model.ms_per_linear_state_sequence > 0);
  CHECK(step.model.ms_per_window_decode_sequence == 0);
  BatchComposition batch;
  batch.decode_sequences = 8;
  batch.decode_kv_tokens = 8 * 4096;
  const StepTime before = step_time(step.model, batch, 1.0);
  const StepTime after = step_time(step.model, batch, 2.0);
  CHECK(after.other_ms == Approx(before.other_ms));
  CHECK(after.decode_attention_ms == Approx(before.decode_attention_ms / 2));
  StepModel no_state = step.model;
  no_state.ms_per_linear_state_sequence = 0;
  CHECK(before.other_ms - step_time(no_state, batch, 1.0).other_ms ==
        Approx(8 * step.model.ms_per_linear_state_sequence));
}

TEST_CASE("Qwen3.5-35B-A3B: 30 gated-DeltaNet layers and 10 that attend, Qwen3-Next's layer shapes",
          "[hybrid][presets]") {
  const ModelArch model = io::load_model("qwen3.5-35b-a3b");
  CHECK(model.layers == 40);
  CHECK(model.linear.layers == 30);  // layer_types: [linear_attention x 3, full_attention] x 10
  CHECK(softmax_attention_layers(model) == 10);
  // The DeltaNet and attention layers have Qwen3-Next's dimensions, so the same state per layer.
  CHECK(linear_state_bytes_per_layer(model.linear) == Approx(1097728.0));
  // 10 · 18,874,368 (GQA) + 30 · 33,718,272 (DeltaNet) + 40 · 257 experts · 3,145,728 +
  // 40 routers of 256 · 2,048 + two 248,320 × 2,048 tables = 34.576 B: within 1.5% of the
  // 35 B the documentation rounds to (the attention output gate, 0.08 B, is not counted).
  const double total = count_params(model, *model.shapes).total;
  CHECK(total / 1e9 == Approx(34.57646592).epsilon(1e-6));
  CHECK(total / 1e9 == Approx(model.total_params_billions).epsilon(0.015));
}

}  // namespace unit_hybrid_layers
