// The estimate headline's prediction interval: a bootstrap over the profiled steps a workload
// carries, checked against a second implementation written here from the definition (its own
// resampling loop and the Amdahl speedup in closed form, not estimate_chain), and the cases
// with no interval, which must say why instead of inventing one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/chain/estimate.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/engine/verify/prediction_interval.hpp"

namespace unit_prediction_interval {

using namespace kspeed::engine;

namespace {

ProfiledStep prefill_step(double attention_ms, double other_ms) {
  ProfiledStep step;
  step.phase = Phase::prefill;
  step.prefill_requests = 15;
  step.prefill_tokens = 15 * 1024;
  step.time_ms = attention_ms + other_ms;
  step.attention_ms = attention_ms;
  step.measures_ttft = true;
  return step;
}

ProfiledStep decode_step(double attention_ms, double other_ms) {
  ProfiledStep step;
  step.phase = Phase::decode;
  step.decode_requests = 32;
  step.decode_kv_tokens = 32 * 1100;
  step.time_ms = attention_ms + other_ms;
  step.attention_ms = attention_ms;
  step.measures_tpot = true;
  return step;
}

std::vector<ProfiledStep> batched_steps() {
  return {prefill_step(0.300, 1.200), prefill_step(0.320, 1.180), prefill_step(0.280, 1.250),
          prefill_step(0.310, 1.210), decode_step(0.200, 0.800),  decode_step(0.220, 0.810),
          decode_step(0.240, 0.790),  decode_step(0.210, 0.820),  decode_step(0.230, 0.800),
          decode_step(0.215, 0.805)};
}

struct Chain {
  PhaseInput prefill, decode;
};

// The chain the estimate would build from those steps: TTFT = a request's 1/15 of the mean
// prefill step, 151 decode steps of the mean decode step, a 2x kernel on both phases.
Chain chain_of(const std::vector<ProfiledStep>& steps) {
  double ttft = 0, p_att = 0, p_time = 0, tpot = 0, d_att = 0, d_time = 0;
  int np = 0, nd = 0;
  for (const ProfiledStep& s : steps) {
    if (s.measures_ttft) {
      ttft += s.time_ms / 15;
      p_att += s.attention_ms;
      p_time += s.time_ms;
      ++np;
    } else {
      tpot += s.time_ms;
      d_att += s.attention_ms;
      d_time += s.time_ms;
      ++nd;
    }
  }
  Chain chain;
  chain.prefill = {ttft / np, p_att / p_time, 2.0, true, 0.0};
  chain.decode = {151 * tpot / nd, d_att / d_time, 2.0, true, 0.0};
  return chain;
}

// Amdahl over the two phases in closed form: T / (Tp((1-p) + p/s) + Td((1-d) + d/s)).
double closed_form_speedup(double tp, double p, double td, double d, double s) {
  return (tp + td) / (tp * ((1 - p) + p / s) + td * ((1 - d) + d / s));
}

// The bootstrap from its definition: per resample, 4 prefill then 6 decode indices from the top
// 53 bits of mt19937_64 (seed kBootstrapSeed); each phase's share and mean latency over the
// picks, as a ratio to the whole sample's, moves the chain's share and time.
std::pair<double, double> independent_interval(const std::vector<ProfiledStep>& steps,
                                               const Chain& chain, int resamples) {
  std::vector<const ProfiledStep*> pre, dec;
  for (const ProfiledStep& s : steps) (s.measures_ttft ? pre : dec).push_back(&s);
  auto pick = [](std::mt19937_64& g, std::size_t n) {
    const double u = static_cast<double>(g() >> 11U) / 9007199254740992.0;
    return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
  };
  auto stats = [](const std::vector<const ProfiledStep*>& group, const std::vector<std::size_t>& at,
                  double per_request) {
    double att = 0, time = 0;
    for (std::size_t i : at) {
      att += group[i]->attention_ms;
      time += group[i]->time_ms;
    }
    return std::pair{att / time, time * per_request / static_cast<double>(at.size())};
  };
  std::vector<std::size_t> all_p{0, 1, 2, 3}, all_d{0, 1, 2, 3, 4, 5};
  const auto whole_p = stats(pre, all_p, 1.0 / 15);
  const auto whole_d = stats(dec, all_d, 1.0);
  std::mt19937_64 g(kBootstrapSeed);
  std::vector<double> speedups;
  for (int r = 0; r < resamples; ++r) {
    std::vector<std::size_t> ip(4), id(6);
    for (auto& i : ip) i = pick(g, 4);
    for (auto& i : id) i = pick(g, 6);
    const auto sp = stats(pre, ip, 1.0 / 15);
    const auto sd = stats(dec, id, 1.0);
    speedups.push_back(
        closed_form_speedup(chain.prefill.time_before_ms * sp.second / whole_p.second,
                            chain.prefill.attention_share * sp.first / whole_p.first,
                            chain.decode.time_before_ms * sd.second / whole_d.second,
                            chain.decode.attention_share * sd.first / whole_d.first, 2.0));
  }
  std::sort(speedups.begin(), speedups.end());
  auto percentile = [&speedups](double q) {  // numpy's linear rule
    const double h = (static_cast<double>(speedups.size()) - 1) * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, speedups.size() - 1);
    return speedups[lo] + (h - std::floor(h)) * (speedups[hi] - speedups[lo]);
  };
  return {percentile(0.025), percentile(0.975)};
}

ResampledInputs all_inputs() {
  ResampledInputs inputs;
  inputs.prefill_share = inputs.ttft = inputs.decode_share = inputs.tpot = true;
  return inputs;
}

}  // namespace

TEST_CASE("prediction interval: the bootstrap over steps, computed a second way",
          "[prediction_interval]") {
  const std::vector<ProfiledStep> steps = batched_steps();
  const Chain chain = chain_of(steps);
  const PredictionInterval interval =
      step_bootstrap_interval(steps, chain.prefill, chain.decode, all_inputs());
  REQUIRE(interval.reason == NoPredictionInterval::none);
  REQUIRE(interval.low);
  REQUIRE(interval.high);
  CHECK(interval.ttft_samples == 4);
  CHECK(interval.tpot_samples == 6);
  CHECK(interval.resamples == 1000);
  CHECK(interval.method == PredictionInterval::kStepMethod);
  const auto [low, high] = independent_interval(steps, chain, 1000);
  CHECK(*interval.low == Approx(low).epsilon(1e-12));
  CHECK(*interval.high == Approx(high).epsilon(1e-12));
  // The point estimate lies inside, and the interval has width: the steps differ.
  const double point = estimate_chain(chain.prefill, chain.decode).request.speedup;
  CHECK(point == Approx(closed_form_speedup(
                     chain.prefill.time_before_ms, chain.prefill.attention_share,
                     chain.decode.time_before_ms, chain.decode.attention_share, 2.0)));
  CHECK(*interval.low < point);
  CHECK(point < *interval.high);
  CHECK(*interval.high - *interval.low > 1e-3);
}

TEST_CASE("prediction interval: identical steps give a zero-width interval at the estimate",
          "[prediction_interval]") {
  std::vector<ProfiledStep> steps = {prefill_step(0.3, 1.2), prefill_step(0.3, 1.2),
                                     decode_step(0.2, 0.8), decode_step(0.2, 0.8)};
  const Chain chain = chain_of(steps);
  const PredictionInterval interval =
      step_bootstrap_interval(steps, chain.prefill, chain.decode, all_inputs());
  const double point = estimate_chain(chain.prefill, chain.decode).request.speedup;
  REQUIRE(interval.low);
  CHECK(*interval.low == Approx(point));
  CHECK(*interval.high == Approx(point));
}

TEST_CASE("prediction interval: none, with the reason, when no input has a spread",
          "[prediction_interval]") {
  const std::vector<ProfiledStep> steps = batched_steps();
  const Chain chain = chain_of(steps);
  SECTION("a workload without profiled steps (cited, illustrative)") {
    const PredictionInterval interval =
        step_bootstrap_interval({}, chain.prefill, chain.decode, all_inputs());
    CHECK_FALSE(interval.low);
    CHECK(interval.reason == NoPredictionInterval::no_measured_spread);
  }
  SECTION("every measured input replaced on the command line") {
    const PredictionInterval interval =
        step_bootstrap_interval(steps, chain.prefill, chain.decode, ResampledInputs{});
    CHECK_FALSE(interval.low);
    CHECK(interval.reason == NoPredictionInterval::inputs_not_measured);
  }
  SECTION("one step per phase: nothing to resample") {
    const std::vector<ProfiledStep> one = {prefill_step(0.3, 1.2), decode_step(0.2, 0.8)};
    const PredictionInterval interval =
        step_bootstrap_interval(one, chain.prefill, chain.decode, all_inputs());
    CHECK_FALSE(interval.low);
    CHECK(interval.reason == NoPredictionInterval::too_few_steps);
    CHECK(to_string(interval.reason) == "too_few_steps");
  }
  SECTION("no resamples asked for") {
    BootstrapOptions options;
    options.resamples = 0;
    const PredictionInterval interval =
        step_bootstrap_interval(steps, chain.prefill, chain.decode, all_inputs(), options);
    CHECK(interval.reason == NoPredictionInterval::no_resamples);
  }
}

TEST_CASE("a prefill request's TTFT is its share of the step's tokens", "[prediction_interval]") {
  ProfiledStep step = prefill_step(0.3, 1.2);  // 15 prompts of 1,024 tokens in 1.5 ms
  CHECK(request_latency_ms(step, StepMeasures::ttft) == Approx(1.5 / 15));
  CHECK(request_latency_ms(step, StepMeasures::tpot) == Approx(1.5));
  // mixed: 2 prompts of 512 tokens and 30 decode tokens share 1.16 ms: 512 / 1,054 of it
  ProfiledStep mixed;
  mixed.phase = Phase::mixed;
  mixed.prefill_requests = 2;
  mixed.prefill_tokens = 1024;
  mixed.decode_requests = 30;
  mixed.time_ms = 1.16;
  CHECK(request_latency_ms(mixed, StepMeasures::ttft) == Approx(1.16 * 512 / 1054));
  CHECK(request_latency_ms(mixed, StepMeasures::tpot) == Approx(1.16));
}

TEST_CASE("prediction interval: a fitted calibration's residuals, computed a second way",
          "[prediction_interval]") {
  // Three TTFT and four TPOT points scattered around the fit (measured / predicted 0.9 ... 1.2)
  const std::vector<PointResidual> residuals = {
      {"ttft a", LatencyKind::ttft, 90, 100},  {"ttft b", LatencyKind::ttft, 110, 100},
      {"ttft c", LatencyKind::ttft, 120, 100}, {"tpot a", LatencyKind::tpot, 9.5, 10},
      {"tpot b", LatencyKind::tpot, 10.5, 10}, {"tpot c", LatencyKind::tpot, 11, 10},
      {"tpot d", LatencyKind::tpot, 10, 10}};
  const PhaseInput prefill{100, 0.2, 2.0, true, 0.0};
  const PhaseInput decode{127 * 10.0, 0.3, 2.0, true, 0.0};
  const PredictionInterval interval =
      residual_bootstrap_interval(residuals, prefill, decode, true, true);
  REQUIRE(interval.reason == NoPredictionInterval::none);
  CHECK(interval.method == PredictionInterval::kResidualMethod);
  CHECK(interval.ttft_samples == 3);
  CHECK(interval.tpot_samples == 4);
  // By the definition: per resample one TTFT ratio then one TPOT ratio (top 53 bits of
  // mt19937_64, seed kBootstrapSeed) scale each phase's time; Amdahl in closed form.
  const std::vector<double> ttft = {0.9, 1.1, 1.2}, tpot = {0.95, 1.05, 1.1, 1.0};
  std::mt19937_64 g(kBootstrapSeed);
  auto pick = [&g](std::size_t n) {
    const double u = static_cast<double>(g() >> 11U) / 9007199254740992.0;
    return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
  };
  std::vector<double> speedups;
  for (int r = 0; r < 1000; ++r) {
    const double tp = 100 * ttft[pick(3)];
    const double td = 1270 * tpot[pick(4)];
    speedups.push_back(closed_form_speedup(tp, 0.2, td, 0.3, 2.0));
  }
  std::sort(speedups.begin(), speedups.end());
  const auto percentile = [&speedups](double q) {
    const double h = 999 * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    return speedups[lo] + (h - std::floor(h)) * (speedups[lo + 1] - speedups[lo]);
  };
  CHECK(*interval.low == Approx(percentile(0.025)).epsilon(1e-12));
  CHECK(*interval.high == Approx(percentile(0.975)).epsilon(1e-12));
  CHECK(*interval.low < *interval.high);

  SECTION("a fit that meets every point has no spread") {
    const std::vector<PointResidual> exact = {{"ttft", LatencyKind::ttft, 20.1, 20.1},
                                              {"tpot", LatencyKind::tpot, 7.74, 7.74}};
    const PredictionInterval none = residual_bootstrap_interval(exact, prefill, decode, true, true);
    CHECK_FALSE(none.low);
    CHECK(none.reason == NoPredictionInterval::exact_fit);
  }
}

}  // namespace unit_prediction_interval
