// Student's t, the noncentral t and the chi-square for exact small-sample power (t_test.hpp).
#include "kspeed/engine/verify/t_test.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kspeed::engine {

namespace {

constexpr double kTiny = 1e-300;
constexpr double kEpsilon = 1e-15;
// Beyond this many degrees of freedom the t is the normal to better than 1e-6.
constexpr double kNormalDf = 1e7;

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// The continued fraction of the incomplete beta (Numerical Recipes 6.4, Lentz's method).
double beta_fraction(double a, double b, double x) {
  const double qab = a + b;
  const double qap = a + 1;
  const double qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 100000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(a, x), the regularized lower incomplete gamma (Numerical Recipes 6.2).
double lower_gamma(double a, double x) {
  if (x <= 0) return 0;
  const double front = std::exp(-x + a * std::log(x) - std::lgamma(a));
  if (x < a + 1) {
    // Series: P = e^-x x^a / Gamma(a) * sum x^n / (a (a+1) ... (a+n)).
    double term = 1 / a;
    double sum = term;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * kEpsilon) break;
    }
    return front * sum;
  }
  // Continued fraction for Q = 1 - P (Lentz).
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return 1 - front * h;
}

// The x in [low, high] where the increasing `cdf` reaches p, by bisection; `high` grows until
// it brackets p.
template <typename Cdf>
double invert(Cdf cdf, double p, double low, double high) {
  while (cdf(high) < p && high < 1e300) {
    low = high;
    high *= 2;
  }
  for (int i = 0; i < 300 && high - low > 1e-14 * std::fabs(high); ++i) {
    const double mid = (low + high) / 2;
    (cdf(mid) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

void check_df(double df) {
  if (!(df > 0) || !std::isfinite(df)) throw std::invalid_argument("t_test: df > 0");
}

}  // namespace

double student_t_cdf(double t, double df) {
  check_df(df);
  if (df > kNormalDf) return normal_cdf(t);
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p in (0, 1)");
  check_df(df);
  if (p == 0.5) return 0;
  // Symmetric: solve the upper half and mirror.
  const double upper = p > 0.5 ? p : 1 - p;
  const double t = invert([df](double x) { return student_t_cdf(x, df); }, upper, 0, 1);
  return p > 0.5 ? t : -t;
}

double noncentral_t_cdf(double t, double df, double delta) {
  check_df(df);
  if (df > kNormalDf) return normal_cdf(t - delta);
  // W = sqrt(V / df), V ~ chi-square(df): log density
  //   log g(w) = log(2 df w) + (df/2 - 1) log(df w^2) - df w^2 / 2 - (df/2) log 2 - lgamma(df/2).
  // W has mean near 1 and sd near 1 / sqrt(2 df); 12 of those either side hold all but 1e-30 of
  // it (for small df the range starts at 0 and reaches past 7).
  const double spread = 12 / std::sqrt(2 * df);
  const double low = std::max(1e-12, 1 - spread);
  const double high = 1 + spread + 6 / df;
  const double log_norm = (df / 2) * std::log(2.0) + std::lgamma(df / 2);
  const auto integrand = [&](double w) {
    const double log_g =
        std::log(2 * df * w) + (df / 2 - 1) * std::log(df * w * w) - df * w * w / 2 - log_norm;
    return normal_cdf(t * w - delta) * std::exp(log_g);
  };
  // Simpson's rule, 4,000 panels.
  constexpr int kPanels = 4000;
  const double h = (high - low) / kPanels;
  double sum = integrand(low) + integrand(high);
  for (int i = 1; i < kPanels; ++i) sum += integrand(low + i * h) * (i % 2 == 1 ? 4 : 2);
  return std::min(1.0, std::max(0.0, sum * h / 3));
}

double chi_square_cdf(double x, double df) {
  check_df(df);
  return lower_gamma(df / 2, x / 2);
}

double chi_square_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("chi_square_quantile: p in (0, 1)");
  check_df(df);
  return invert([df](double x) { return chi_square_cdf(x, df); }, p, 0, df + 1);
}

double t_test_power(double delta, double df, double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("t_test_power: alpha in (0, 1)");
  const double critical = student_t_quantile(1 - alpha / 2, df);
  // P(T > c) + P(T < -c) for T noncentral t(df, delta).
  return 1 - noncentral_t_cdf(critical, df, delta) + noncentral_t_cdf(-critical, df, delta);
}

double t_test_detectable_delta(double power, double df, double alpha) {
  if (!(power > 0 && power < 1)) throw std::invalid_argument("t_test_detectable: power in (0, 1)");
  return invert([&](double delta) { return t_test_power(delta, df, alpha); }, power, 0, 1);
}

}  // namespace kspeed::engine
