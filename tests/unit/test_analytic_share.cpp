// Prefill attention share from the architecture: attention FLOPs against GEMM FLOPs, before and
// after calibration to measured points. DeepSeek-R1's uncalibrated curve is compared with
// NVIDIA's measured 18% at 4K and 85% at 128K (reported, not forced).
#include <catch2/catch.hpp>

#include "worded_throw.hpp"

#include "hf_configs.hpp"
#include "kspeed/engine/chain/analytic_share.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/hf_config.hpp"

namespace unit_analytic_share {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

io::HfModel model_of(const char* config) {
  return io::parse_hf_config(config, "config.json", "m");
}

}  // namespace

TEST_CASE("analytic share, hand-computed: Llama-3.1-8B at 8K", "[analytic_share]") {
  const io::HfModel m = model_of(test::kLlama31_8bConfig);
  // Attention: 32 layers · 4·32·128 FLOPs per pair · 8192²/2 pairs = 1.7592e13
  CHECK(prefill_attention_flops(m.arch, 8192) == Approx(17592186044416.0));
  // GEMMs: 2 · 8192 · (7.5047e9 active - 0.5253e9 head) = 1.14349e14
  CHECK(prefill_gemm_flops(m.arch, m.shapes, 8192) == Approx(114349209288704.0));
  CHECK(analytic_prefill_share(m.arch, m.shapes, 8192) == Approx(2.0 / 15.0));
  // BF16 attention beside FP8 GEMMs: an attention FLOP takes twice as long.
  CHECK(analytic_prefill_share(m.arch, m.shapes, 8192, 2.0) == Approx(4.0 / 17.0));
}

TEST_CASE("analytic share: DeepSeek-R1 against NVIDIA's 18% @4K and 85% @128K",
          "[analytic_share]") {
  const io::HfModel r1 = model_of(test::kDeepSeekR1Config);
  // Uncalibrated (FLOP ratio, MLA prefill on decompressed heads): 12.5% at 4K, 82.1% at 128K.
  CHECK(analytic_prefill_share(r1.arch, r1.shapes, 4096) == Approx(0.125372).epsilon(1e-5));
  CHECK(analytic_prefill_share(r1.arch, r1.shapes, 131072) == Approx(0.821012).epsilon(1e-5));
  CHECK(analytic_prefill_share(r1.arch, r1.shapes, 8192) == Approx(0.222810).epsilon(1e-5));
  // One odds factor fitted in logit space to both points: c = 1.375, misfit 0.107 logits.
  const ShareCalibration c = calibrate_share(r1.arch, r1.shapes, {{4096, 0.18}, {131072, 0.85}});
  CHECK(c.points == 2);
  CHECK(c.odds_factor == Approx(1.375439).epsilon(1e-5));
  CHECK(c.rms_logit_residual == Approx(0.107394).epsilon(1e-4));
  CHECK(calibrated_prefill_share(r1.arch, r1.shapes, 4096, c) == Approx(0.164690).epsilon(1e-5));
  CHECK(calibrated_prefill_share(r1.arch, r1.shapes, 131072, c) == Approx(0.863184).epsilon(1e-5));
  // One point is met exactly.
  const ShareCalibration one = calibrate_share(r1.arch, r1.shapes, {{131072, 0.85}});
  CHECK(calibrated_prefill_share(r1.arch, r1.shapes, 131072, one) == Approx(0.85));
  CHECK(one.rms_logit_residual == 0.0);
}

TEST_CASE("analytic share: sliding windows cap half of gpt-oss's attention", "[analytic_share]") {
  const io::HfModel m = model_of(test::kGptOss120bConfig);
  // 18 full layers grow with L², 18 windowed (W = 128) only with L·W.
  CHECK(analytic_prefill_share(m.arch, m.shapes, 8192) == Approx(0.120337).epsilon(1e-5));
  CHECK(analytic_prefill_share(m.arch, m.shapes, 131072) == Approx(0.680216).epsilon(1e-5));
}

TEST_CASE("analytic share: calibration needs usable points", "[analytic_share]") {
  const io::HfModel r1 = model_of(test::kDeepSeekR1Config);
  CHECK_THAT(kspeed::test::worded_throw([&] { (void)calibrate_share(r1.arch, r1.shapes, {}); }),
             Catch::Contains("share calibration: no measured points"));
  CHECK_THAT(kspeed::test::worded_throw([&] {
               (void)calibrate_share(r1.arch, r1.shapes, {{4096, 1.0}});
             }),
             Catch::Contains("the point at 4,096 tokens has share 1: expected"));
}

}  // namespace unit_analytic_share
