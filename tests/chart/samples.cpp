// Writes one sample of every chart into a folder, for tests/chart/render_check.sh (which renders
// them to PNG) and for people who want to look. The numbers follow docs/model.md: NVIDIA's
// measured DeepSeek-R1 FP8 shares (18% at 4K, 85% at 128K) interpolated in logit against
// log(context), Amdahl per level. They are computed here, not taken from the engine, so the
// chart library is exercised on its own.
//
// Usage: kspeed_chart_samples OUTPUT_DIR
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <numbers>
#include <string>
#include <vector>

#include "kspeed/report/chart/cdf_chart.hpp"
#include "kspeed/report/chart/roofline_chart.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/chart/waterfall_chart.hpp"
#include "kspeed/report/mix_plot.hpp"

namespace chart = kspeed::report::chart;

namespace {

double logit(double p) {
  return std::log(p / (1 - p));
}

// The share table: linear in logit(p) against ln(L), clamped outside the measured contexts.
double attention_share(double context_tokens) {
  constexpr double kL0 = 4096, kP0 = 0.18, kL1 = 131072, kP1 = 0.85;
  const double clamped = std::min(std::max(context_tokens, kL0), kL1);
  const double t = (std::log(clamped) - std::log(kL0)) / (std::log(kL1) - std::log(kL0));
  const double z = (1 - t) * logit(kP0) + t * logit(kP1);
  return 1 / (1 + std::exp(-z));
}

// Amdahl: S = 1 / ((1 - p) + p / s).
double amdahl(double share, double kernel_speedup) {
  return 1 / ((1 - share) + share / kernel_speedup);
}

// TTFT(L) = T0 + a·L·(1 + odds(L)) with the fit of docs/model.md (T0 = 242 ms, a = 0.0199
// ms/token); a request of 128 response tokens at 50 ms TPOT whose decode is unchanged.
double request_speedup(double context_tokens, double kernel_speedup) {
  constexpr double kFixedMs = 242, kPerTokenMs = 0.0199, kDecodeMs = 127 * 50.0;
  const double p = attention_share(context_tokens);
  const double ttft = kFixedMs + kPerTokenMs * context_tokens * (1 + p / (1 - p));
  const double effective_share = p * (ttft - kFixedMs) / ttft;
  const double ttft_after = ttft / amdahl(effective_share, kernel_speedup);
  return (ttft + kDecodeMs) / (ttft_after + kDecodeMs);
}

std::vector<double> log_spaced(double from, double to, int count) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    values.push_back(std::round(from * std::pow(to / from, i / double(count - 1))));
  }
  return values;
}

chart::SweepChart sweep_sample() {
  chart::SweepChart sweep;
  sweep.title = "What a 2× attention kernel is worth, by context length";
  sweep.subtitle =
      "DeepSeek-R1 FP8 shares (NVIDIA: 18% at 4K, 85% at 128K; interpolated between) · "
      "128 response tokens";
  chart::SweepSeries prefill{"prefill (TTFT)", {}};
  chart::SweepSeries request{"request (TTFT + decode)", {}};
  for (const double tokens : log_spaced(4096, 131072, 6)) {
    prefill.points.push_back({tokens, amdahl(attention_share(tokens), 2)});
    request.points.push_back({tokens, request_speedup(tokens, 2)});
    sweep.ceiling.push_back({tokens, 1 / (1 - attention_share(tokens))});
  }
  sweep.series = {prefill, request};
  sweep.measured = {{4096, amdahl(0.18, 2), "18% measured"},
                    {131072, amdahl(0.85, 2), "85% measured"}};
  return sweep;
}

chart::SweepChart kernels_sample() {
  chart::SweepChart sweep;
  sweep.title = "Prefill speedup by kernel speedup and context length";
  sweep.subtitle =
      "DeepSeek-R1 FP8 shares, clamped to the measured 18% below 4K and 85% above 128K";
  for (const double kernel : {1.25, 1.5, 2.0, 4.0}) {
    chart::SweepSeries series{"kernel " +
                                  std::string(kernel == 1.25  ? "1.25"
                                              : kernel == 1.5 ? "1.5"
                                              : kernel == 2   ? "2"
                                                              : "4") +
                                  "×",
                              {}};
    for (const double tokens : log_spaced(1024, 1048576, 21)) {
      series.points.push_back({tokens, amdahl(attention_share(tokens), kernel)});
    }
    sweep.series.push_back(series);
  }
  for (const double tokens : log_spaced(1024, 1048576, 41)) {
    sweep.ceiling.push_back({tokens, 1 / (1 - attention_share(tokens))});
  }
  return sweep;
}

// docs/model.md's request: prompt 1,024, 128 response tokens, TTFT 500 ms, TPOT 50 ms, prefill
// share 18% (clamped from 4K), a 2× kernel, decode unchanged.
chart::WaterfallChart waterfall_sample() {
  constexpr double kTtft = 500, kShare = 0.18, kKernel = 2, kDecode = 127 * 50.0;
  const double attention = kShare * kTtft;
  const double saved = attention - attention / kKernel;
  chart::WaterfallChart waterfall;
  waterfall.title = "Where a 2× attention kernel's time goes: prefill 1.10×, request 1.0066×";
  waterfall.subtitle =
      "Prompt 1,024 tokens, 128 response tokens, TTFT 500 ms, TPOT 50 ms; "
      "attention 18% of prefill (clamped from 4K)";
  waterfall.levels = {
      {"attention kernels", "in prefill, 18.0% of it", attention, attention / kKernel},
      {"prefill (TTFT)", "7.30% of the request", kTtft, kTtft - saved},
      {"decode", "127 steps, unchanged", kDecode, kDecode},
      {"request", "TTFT + 127 × TPOT", kTtft + kDecode, kTtft + kDecode - saved},
  };
  return waterfall;
}

// H100 SXM BF16 (989.4 TFLOP/s, 3.35 TB/s; docs/model.md). Decode attention with G = 8 query
// heads per KV head and BF16 KV: intensity ≈ 2G/b = 8 FLOP/byte, at 70% of the bandwidth;
// FP8 KV halves the bytes (16 FLOP/byte); split-KV lifts achieved bandwidth to 90%; a kernel
// that only computes faster stays where it is. Prefill at 32K sits far right of the ridge.
chart::RooflineChart roofline_sample() {
  constexpr double kPeak = 989.4e12, kBandwidth = 3.35e12;
  chart::RooflineChart roofline;
  roofline.title = "Decode attention is memory-bound: fewer bytes help, faster math does not";
  roofline.subtitle = "H100 SXM, BF16 dense peak; GQA with 8 query heads per KV head";
  roofline.roof_name = "H100 SXM, BF16";
  roofline.peak_flops_per_s = kPeak;
  roofline.bandwidth_bytes_per_s = kBandwidth;
  chart::RooflineKernel decode{"decode attention (BF16 KV)", 8, 8 * kBandwidth * 0.7, {}};
  decode.levers = {{"FP8 KV cache", 16, 16 * kBandwidth * 0.7},
                   {"split-KV", 8, 8 * kBandwidth * 0.9},
                   {"2× faster math", 8, 8 * kBandwidth * 0.7}};
  chart::RooflineKernel prefill{"prefill attention, 32K", 4096, kPeak * 0.55, {}};
  prefill.levers = {{"better pipelining", 4096, kPeak * 0.72}};
  roofline.kernels = {decode, prefill};
  return roofline;
}

// A mix of 200 requests, prompts log-normal around 4K (σ = 1), 128 response tokens; each
// request's TTFT from the model above, its prefill sped up by its own share, decode unchanged.
// A fixed linear congruential generator (Knuth's MMIX constants) keeps the sample reproducible.
chart::CdfChart cdf_sample() {
  std::uint64_t state = 42;
  const auto uniform = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  };
  constexpr double kFixedMs = 242, kPerTokenMs = 0.0199, kDecodeMs = 127 * 50.0;
  chart::CdfSeries ttft_before{"TTFT", chart::CdfWhen::before, {}};
  chart::CdfSeries ttft_after{"TTFT", chart::CdfWhen::after, {}};
  chart::CdfSeries e2e_before{"E2E", chart::CdfWhen::before, {}};
  chart::CdfSeries e2e_after{"E2E", chart::CdfWhen::after, {}};
  for (int i = 0; i < 200; ++i) {
    // Box-Muller: a standard normal from two uniforms.
    const double normal =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    const double tokens = std::min(4096 * std::exp(normal), 131072.0);
    const double p = attention_share(tokens);
    const double ttft = kFixedMs + kPerTokenMs * tokens * (1 + p / (1 - p));
    const double after = ttft / amdahl(p * (ttft - kFixedMs) / ttft, 2);
    ttft_before.samples_ms.push_back(ttft);
    ttft_after.samples_ms.push_back(after);
    e2e_before.samples_ms.push_back(ttft + kDecodeMs);
    e2e_after.samples_ms.push_back(after + kDecodeMs);
  }
  chart::CdfChart cdf;
  cdf.title = "A 2× attention kernel over a request mix: TTFT moves, E2E barely";
  cdf.subtitle =
      "200 requests, prompts log-normal around 4K tokens (up to 128K), 128 response "
      "tokens at 50 ms TPOT";
  cdf.series = {ttft_before, ttft_after, e2e_before, e2e_after};
  return cdf;
}

// The same mix through `kspeed mix --plot`'s path (report::mix_svg over request outcomes).
std::string mix_sample_svg() {
  const chart::CdfChart cdf = cdf_sample();
  kspeed::engine::RequestOutcomes outcomes;  // the chunked store mix keeps its outcomes in
  for (std::size_t i = 0; i < cdf.series[0].samples_ms.size(); ++i) {
    kspeed::engine::RequestOutcome outcome;
    outcome.ttft_before_ms = cdf.series[0].samples_ms[i];
    outcome.ttft_after_ms = cdf.series[1].samples_ms[i];
    outcome.e2e_before_ms = cdf.series[2].samples_ms[i];
    outcome.e2e_after_ms = cdf.series[3].samples_ms[i];
    outcomes.push_back(outcome);
  }
  kspeed::engine::MixResult result;
  result.log.source = "sample.csv";
  result.workload_name = "deepseek-r1-fp8";
  return kspeed::report::mix_svg(result, outcomes);
}

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kspeed_chart_samples OUTPUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = write(dir + "/sweep.svg", chart::render_sweep_svg(sweep_sample()));
  ok = write(dir + "/sweep-kernels.svg", chart::render_sweep_svg(kernels_sample())) && ok;
  ok = write(dir + "/waterfall.svg", chart::render_waterfall_svg(waterfall_sample())) && ok;
  ok = write(dir + "/roofline.svg", chart::render_roofline_svg(roofline_sample())) && ok;
  ok = write(dir + "/cdf.svg", chart::render_cdf_svg(cdf_sample())) && ok;
  ok = write(dir + "/mix.svg", mix_sample_svg()) && ok;
  std::cout << chart::render_terminal_chart(sweep_sample());
  return ok ? 0 : 1;
}
