#pragma once
// Exact small-sample distributions for planning and judging comparisons of means: Student's t,
// the noncentral t (the power of a t test) and the chi-square (a confidence range for a standard
// deviation). Pure: no I/O.
//
// Student's t CDF from the regularized incomplete beta function,
//   F(t; v) = 1 - I_{v/(v+t^2)}(v/2, 1/2) / 2 for t >= 0 (Abramowitz & Stegun 26.7.1, 26.5.27),
// the beta by its continued fraction (Lentz's method; Press et al., "Numerical Recipes", 3rd ed.,
// 2007, section 6.4). The chi-square CDF is the regularized lower gamma P(v/2, x/2) by its
// series or continued fraction (ibid., section 6.2).
//
// The noncentral t with v degrees of freedom and noncentrality delta is T = (Z + delta) / W with
// W = sqrt(V / v), V ~ chi-square(v); conditioning on W,
//   P(T <= t) = integral over w of Phi(t w - delta) g(w) dw
// with g the density of W (Owen, "A special case of a bivariate non-central t-distribution",
// Biometrika 52, 1965), integrated by Simpson's rule over W's range.
//
// The power of a two-sided t test at level alpha with v degrees of freedom against a true
// difference delta (in standard errors): P(|T| > t_{1-alpha/2; v}) with T noncentral t(v, delta)
// (Chow, Shao & Wang, "Sample Size Calculations in Clinical Research", 2nd ed., 2008, 3.2).

namespace kspeed::engine {

/// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double student_t_cdf(double t, double df);

/// The t with P(T <= t) = p; p in (0, 1), df > 0.
double student_t_quantile(double p, double df);

/// P(T <= t) for the noncentral t with `df` > 0 degrees of freedom and noncentrality `delta`.
double noncentral_t_cdf(double t, double df, double delta);

/// P(V <= x) for a chi-square V with `df` > 0 degrees of freedom.
double chi_square_cdf(double x, double df);

/// The x with P(V <= x) = p; p in (0, 1), df > 0.
double chi_square_quantile(double p, double df);

/// The power of a two-sided t test at level `alpha` with `df` degrees of freedom when the true
/// difference is `delta` standard errors.
double t_test_power(double delta, double df, double alpha);

/// The difference, in standard errors, that a two-sided t test at level `alpha` with `df`
/// degrees of freedom detects with probability `power`.
double t_test_detectable_delta(double power, double df, double alpha);

}  // namespace kspeed::engine
