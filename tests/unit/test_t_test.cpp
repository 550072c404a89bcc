// Student's t, the noncentral t and the chi-square (engine/verify/t_test.hpp), and the plan that
// uses them: each figure checked against mpmath (betainc, gammainc and a quad of the noncentral
// t's defining integral, 30 digits), and the plan's stated power against simulated t tests.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "kspeed/engine/verify/power.hpp"
#include "kspeed/engine/verify/t_test.hpp"

namespace unit_t_test {

using namespace kspeed;

TEST_CASE("Student's t and the chi-square against mpmath", "[verify][t_test]") {
  CHECK(engine::student_t_quantile(0.975, 2) == Approx(4.30265272974946).epsilon(1e-9));
  CHECK(engine::student_t_quantile(0.975, 10) == Approx(2.22813885198627).epsilon(1e-9));
  CHECK(engine::student_t_quantile(0.025, 10) == Approx(-2.22813885198627).epsilon(1e-9));
  CHECK(engine::student_t_cdf(1.5, 3) == Approx(0.884708067377588).epsilon(1e-10));
  CHECK(engine::chi_square_quantile(0.025, 2) == Approx(0.0506356159685798).epsilon(1e-8));
  CHECK(engine::chi_square_quantile(0.975, 3) == Approx(9.34840360449615).epsilon(1e-9));
  CHECK(engine::chi_square_quantile(0.025, 1) == Approx(0.000982069117175256).epsilon(1e-7));
}

TEST_CASE("the noncentral t and a t test's power against mpmath", "[verify][t_test]") {
  CHECK(engine::noncentral_t_cdf(2, 4, 1.5) == Approx(0.618928925139655).epsilon(1e-7));
  CHECK(engine::t_test_power(3, 2, 0.05) == Approx(0.387400128525971).epsilon(1e-7));
  CHECK(engine::t_test_power(2.8, 10, 0.05) == Approx(0.713894048602040).epsilon(1e-7));
  CHECK(engine::t_test_power(2.801585, 176, 0.05) == Approx(0.795684849409320).epsilon(1e-6));
  // The shift detected with power 0.8 has that power, and tends to k = 2.8016 as df grows.
  const double delta = engine::t_test_detectable_delta(0.8, 10, 0.05);
  CHECK(engine::t_test_power(delta, 10, 0.05) == Approx(0.8).epsilon(1e-9));
  CHECK(engine::t_test_detectable_delta(0.8, 1e8, 0.05) == Approx(2.801585).epsilon(1e-5));
}

namespace {

// Two-sided Welch-free pooled t test of two equal-size groups, at 5%: detected?
bool t_test_detects(const std::vector<double>& a, const std::vector<double>& b, double critical) {
  const auto n = static_cast<double>(a.size());
  double mean_a = 0, mean_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    mean_a += a[i] / n;
    mean_b += b[i] / n;
  }
  double squares = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    squares += (a[i] - mean_a) * (a[i] - mean_a) + (b[i] - mean_b) * (b[i] - mean_b);
  }
  const double pooled = squares / (2 * n - 2);
  return std::fabs(mean_a - mean_b) / std::sqrt(pooled * 2 / n) > critical;
}

// Baseline runs whose means are `means` exactly (two requests each, mean ± 10 ms).
engine::PlanInput runs_with_means(const std::vector<double>& means) {
  engine::PlanInput input;
  for (double mean : means) {
    engine::BaselineRun run;
    run.source = "run";
    run.values_ms = {mean - 10, mean + 10};
    input.runs.push_back(run);
  }
  return input;
}

// The share of simulated A/Bs of `repeats` runs a side (normal run means, sd `sd_ms`, the after
// side shifted by `shift_ms`) that a t test at 5% detects.
double simulated_power(int repeats, double sd_ms, double shift_ms, int trials) {
  std::mt19937_64 generator(20260430);
  std::normal_distribution<double> run_mean(1000.0, sd_ms);
  const double critical = engine::student_t_quantile(0.975, 2.0 * repeats - 2);
  int detected = 0;
  std::vector<double> a(static_cast<std::size_t>(repeats));
  std::vector<double> b(a.size());
  for (int trial = 0; trial < trials; ++trial) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = run_mean(generator);
      b[i] = run_mean(generator) - shift_ms;
    }
    if (t_test_detects(a, b, critical)) ++detected;
  }
  return static_cast<double>(detected) / trials;
}

}  // namespace

TEST_CASE("plan: two baseline runs make no between-run plan (one degree of freedom)",
          "[verify][plan]") {
  engine::PlanInput input = runs_with_means({1000, 1001});
  input.effect = 0.02;
  const engine::Plan plan = engine::plan_ab(input);
  CHECK_FALSE(plan.between_runs);
  // The case: from 2 runs the normal formula said 2% needs 1 run a side. With three it
  // is planned, with its range.
  input = runs_with_means({1000, 1010, 990});
  input.effect = 0.02;
  const engine::Plan three = engine::plan_ab(input);
  REQUIRE(three.between_runs);
  CHECK(three.between_runs->sd_ms == Approx(10.0));
  CHECK(three.between_runs->df == 0);  // 1 run a side planned: no t test
}

TEST_CASE("plan: between runs, the stated power is what simulated t tests detect",
          "[verify][plan]") {
  // Four baseline runs with means 1000, 1010, 990, 1020: sd of the means 12.9099 ms (python:
  // statistics.stdev). A 2% effect is 20 ms. The plan's power as planned (r runs a side) and the
  // needed r's power are checked against 20,000 simulated A/Bs of normal run means with that
  // sd and t tests at 5% (binomial sd of the rate <= 0.0035); the normal formula's r = 2 k^2
  // s^2 / d^2 = 6.5 -> 7 runs would promise 0.8 where the t test reaches less.
  engine::PlanInput input = runs_with_means({1000, 1010, 990, 1020});
  input.effect = 0.02;
  for (const std::int64_t repeats : {2, 3, 5}) {
    input.repeats = repeats;
    const engine::Plan plan = engine::plan_ab(input);
    REQUIRE(plan.between_runs);
    const double sd = plan.between_runs->sd_ms;
    CHECK(sd == Approx(12.909944487358056).epsilon(1e-12));
    const double mean = plan.mean_ms;
    CHECK(plan.between_runs->df == Approx(2.0 * static_cast<double>(repeats) - 2));
    const double simulated = simulated_power(static_cast<int>(repeats), sd, 0.02 * mean, 20000);
    CHECK(plan.between_runs->power == Approx(simulated).margin(0.015));
    // At the minimum detectable effect the simulated power is the planned 0.8.
    const double at_mde = simulated_power(static_cast<int>(repeats), sd,
                                          plan.between_runs->mde_fraction * mean, 20000);
    CHECK(at_mde == Approx(0.8).margin(0.015));
  }
  input.repeats = 2;
  const engine::Plan plan = engine::plan_ab(input);
  const std::int64_t needed = plan.between_runs->needed;
  CHECK(simulated_power(static_cast<int>(needed), plan.between_runs->sd_ms, 0.02 * plan.mean_ms,
                        20000) >= 0.8 - 0.015);
  CHECK(simulated_power(static_cast<int>(needed) - 1, plan.between_runs->sd_ms, 0.02 * plan.mean_ms,
                        20000) < 0.8);
  // The spread's 95% range from 3 degrees of freedom (mpmath chi-square quantiles 0.2158 and
  // 9.3484): sd sqrt(3 / 9.3484) and sd sqrt(3 / 0.2158).
  CHECK(*plan.between_runs->sd_low_ms ==
        Approx(12.909944 * std::sqrt(3 / 9.348403604)).epsilon(1e-6));
  CHECK(*plan.between_runs->sd_high_ms ==
        Approx(12.909944 * std::sqrt(3 / 0.215795282)).epsilon(1e-6));
  CHECK(*plan.between_runs->needed_high > needed);
}

}  // namespace unit_t_test
