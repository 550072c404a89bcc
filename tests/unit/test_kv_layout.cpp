// KV cache layouts as presets: bytes per token per layer, block scales included.
#include <catch2/catch.hpp>

#include "worded_throw.hpp"

#include "kspeed/engine/deployment/kv_layout.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/model_reader.hpp"

namespace unit_kv_layout {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

double bytes(std::string_view layout, const std::string& model) {
  const std::optional<KvLayout> found = find_kv_layout(layout);
  REQUIRE(found);
  return kv_bytes_per_token_per_layer(*found, io::load_model(model));
}

}  // namespace

TEST_CASE("KV layouts: bits per value with their block scales", "[kv_layout]") {
  CHECK(find_kv_layout("bf16")->bits_per_value == 16.0);
  CHECK(find_kv_layout("fp8")->bits_per_value == 8.0);
  CHECK(find_kv_layout("nvfp4")->bits_per_value == 4.5);   // 4 + one FP8 scale per 16
  CHECK(find_kv_layout("mxfp4")->bits_per_value == 4.25);  // 4 + one E8M0 scale per 32
  CHECK(find_kv_layout("fp8-ds-mla")->packed_mla_bytes_per_token == 656.0);
  CHECK_FALSE(find_kv_layout("fp6"));
  CHECK(kv_layouts().size() == 5);
}

TEST_CASE("KV layouts: bytes per token per layer for MLA and GQA", "[kv_layout]") {
  // DeepSeek-R1 MLA: 512 latent + 64 RoPE values per token and layer.
  CHECK(bytes("bf16", "deepseek-r1") == 1152.0);
  CHECK(bytes("fp8", "deepseek-r1") == 576.0);
  CHECK(bytes("fp8-ds-mla", "deepseek-r1") == 656.0);  // 512 + 4·4 + 64·2, not 576
  CHECK(bytes("nvfp4", "deepseek-r1") == 324.0);       // 576 · 4.5 / 8
  CHECK(bytes("mxfp4", "deepseek-r1") == 306.0);       // 576 · 4.25 / 8
  // Llama-3.1-70B GQA: K and V of 8 heads of 128 = 2,048 values.
  CHECK(bytes("bf16", "llama-3.1-70b") == 4096.0);
  CHECK(bytes("fp8", "llama-3.1-70b") == 2048.0);
  CHECK(bytes("nvfp4", "llama-3.1-70b") == 1152.0);
  CHECK(bytes("mxfp4", "llama-3.1-70b") == 1088.0);
  CHECK_THAT(kspeed::test::worded_throw([&] { (void)bytes("fp8-ds-mla", "llama-3.1-70b"); }),
             Catch::Contains("--kv-layout fp8-ds-mla: a packed entry for MLA") &&
                 Catch::Contains("llama-3.1-70b is not such a model: use fp8 or bf16"));
}

}  // namespace unit_kv_layout
