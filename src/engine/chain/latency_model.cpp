#include "kspeed/engine/chain/latency_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/denominator.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

std::string point_text(const LatencyPoint& point) {
  return count_mark(static_cast<long long>(point.context_tokens)) + " tokens, " +
         number_mark(point.latency_ms) + " ms";
}

// What a set of latency points measures, for the errors that name it.
struct PointKind {
  const char* latency;  // "TTFT"
  const char* length;   // "prompt length"
  const char* example;  // "1k:267ms"
};

constexpr PointKind kTtftPoints{"TTFT", "prompt length", "1k:267ms"};
constexpr PointKind kTpotPoints{"TPOT", "context length", "1k=50ms"};

void check_points(const std::vector<LatencyPoint>& points, const PointKind& kind) {
  const std::string latency = kind.latency;
  const std::string length = kind.length;
  if (points.empty()) {
    throw InputError(latency + " points: none given: the " + latency +
                     " model needs at least one measured (" + length + ", " + latency +
                     ") point, e.g. " + kind.example);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LatencyPoint& p = points[i];
    if (!(p.context_tokens > 0) || !(p.latency_ms > 0) || !std::isfinite(p.context_tokens) ||
        !std::isfinite(p.latency_ms)) {
      throw InputError(latency + " point " + count_mark(static_cast<long long>(i) + 1) + " (" +
                       point_text(p) + "): expected a positive " + length + " and a positive " +
                       latency);
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (points[j].context_tokens == p.context_tokens) {
        throw InputError(latency + " points " + count_mark(static_cast<long long>(j) + 1) +
                         " and " + count_mark(static_cast<long long>(i) + 1) + ": both at " +
                         count_mark(static_cast<long long>(p.context_tokens)) +
                         " tokens: give each " + length + " once (average repeated measurements)");
      }
    }
  }
}

// Ordinary least squares of y on x: a = Σ(x - x̄)(y - ȳ) / Σ(x - x̄)², T0 = ȳ - a·x̄.
struct Line {
  double intercept = 0;
  double slope = 0;
};

Line least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mean_x += x[i] / n;
    mean_y += y[i] / n;
  }
  double sxy = 0;
  double sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
  }
  const double slope = sxy / sxx;
  return {mean_y - slope * mean_x, slope};
}

// Least squares through the origin: a = Σ x·y / Σ x².
double slope_through_origin(const std::vector<double>& x, const std::vector<double>& y) {
  double sxy = 0;
  double sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += x[i] * y[i];
    sxx += x[i] * x[i];
  }
  return sxy / sxx;
}

double rms_residual(const std::vector<double>& x, const std::vector<double>& y, const Line& line) {
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (line.intercept + line.slope * x[i]);
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(x.size()));
}

// "50 ms at 1,024 tokens, 95 ms at 131,072 tokens": the points, for an error that names them.
std::string points_text(const std::vector<LatencyPoint>& points) {
  std::string text;
  for (const LatencyPoint& p : points) {
    text += (text.empty() ? "" : ", ") + number_mark(p.latency_ms) + " ms at " +
            count_mark(static_cast<long long>(p.context_tokens)) + " tokens";
  }
  return text;
}

}  // namespace

double prefill_work_units(const std::vector<SharePoint>& shares, double prompt_tokens,
                          Extrapolation extrapolation) {
  // x = L · (1 + odds(L)), odds = p / (1 - p)
  const double p = share_at(shares, prompt_tokens, extrapolation).share;
  return prompt_tokens * (1.0 + p / (1.0 - p));
}

TtftModel fit_ttft(const std::vector<LatencyPoint>& points, const std::vector<SharePoint>& shares,
                   Extrapolation extrapolation) {
  check_points(points, kTtftPoints);
  for (const LatencyPoint& point : points) {
    // odds = p / (1 - p) is infinite at p = 1: no fit, and the points are not to blame
    const double p = share_at(shares, point.context_tokens, extrapolation).share;
    if (!(p < 1)) {
      throw InputError(
          "the prefill attention share is " + number_mark(p) + " at " +
          count_mark(static_cast<long long>(point.context_tokens)) +
          " tokens: the fitted TTFT = T0 + a·L·(1 + odds(L)), odds = p/(1 − p), needs a share "
          "below 1 (at 1 nothing but attention runs and the odds are infinite); give " +
          flag_mark("share") + " below 1");
    }
  }
  TtftModel model;
  model.shares = shares;
  model.extrapolation = extrapolation;
  model.points = points.size();
  std::vector<double> x(points.size());
  std::vector<double> y(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    x[i] = prefill_work_units(shares, points[i].context_tokens, extrapolation);
    y[i] = points[i].latency_ms;
  }
  // one point: a = TTFT / x, T0 = 0
  Line line{0, points.front().latency_ms /
                   prefill_work_units(shares, points.front().context_tokens, extrapolation)};
  model.fit = TtftFit::one_point;
  if (points.size() >= 2) {
    line = least_squares(x, y);
    model.fit = TtftFit::least_squares;
    if (line.intercept < 0) {
      line = {0, slope_through_origin(x, y)};
      model.fit = TtftFit::least_squares_no_t0;
    }
  }
  if (!(line.slope > 0) || !std::isfinite(line.slope)) {
    throw InputError(
        "TTFT points: the fitted TTFT does not grow with the prompt length (slope " +
        number_mark(line.slope) +
        " ms per token): TTFT = T0 + a·L·(1 + odds(L)) needs a longer prompt to take longer; "
        "check that the points are (prompt length, TTFT) of the same deployment");
  }
  model.fixed_ms = line.intercept;
  model.ms_per_token = line.slope;
  model.rms_residual_ms = rms_residual(x, y, line);
  return model;
}

TpotModel fit_tpot(const std::vector<LatencyPoint>& points) {
  check_points(points, kTpotPoints);
  TpotModel model;
  model.points = points.size();
  if (points.size() == 1) {  // the reference of the scaling rules: held here
    model.fixed_ms = points.front().latency_ms;
    return model;
  }
  std::vector<double> x(points.size());
  std::vector<double> y(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    x[i] = points[i].context_tokens;
    y[i] = points[i].latency_ms;
  }
  // TPOT(L) = c + b·L by least squares; c < 0 (no step takes negative time): c = 0, b = Σ L·y / Σ
  // L²
  Line line = least_squares(x, y);
  model.fit = TpotFit::least_squares;
  if (line.intercept < 0) {
    line = {0, slope_through_origin(x, y)};
    model.fit = TpotFit::least_squares_no_c;
  }
  if (!(line.slope >= 0) || !std::isfinite(line.slope)) {
    throw InputError(
        "TPOT points (" + points_text(points) +
        "): the fitted TPOT falls as the context grows (slope " + number_mark(line.slope) +
        " ms per token): TPOT = c + b·L needs a longer context to take at least as long, since "
        "each decode step reads the whole KV cache; check that the points are (context length, "
        "TPOT) of the same deployment and batch size");
  }
  model.fixed_ms = line.intercept;
  model.ms_per_token = line.slope;
  // Two points and a free c: the line passes through both (what is left is rounding).
  const bool exact = points.size() == 2 && model.fit == TpotFit::least_squares;
  model.rms_residual_ms = exact ? 0.0 : rms_residual(x, y, line);
  return model;
}

double tpot_fitted_at(const TpotModel& model, double context_tokens) {
  // TPOT(L) = c + b·L
  return model.fixed_ms + model.ms_per_token * context_tokens;
}

TtftAt ttft_at(const TtftModel& model, double prompt_tokens) {
  TtftAt out;
  out.share = share_at(model.shares, prompt_tokens, model.extrapolation);
  // TTFT = T0 + a · L · (1 + odds)
  out.gpu_ms =
      model.ms_per_token * prefill_work_units(model.shares, prompt_tokens, model.extrapolation);
  out.ttft_ms = model.fixed_ms + out.gpu_ms;
  // p_eff = p · (TTFT - T0) / TTFT: the share of the GPU time as a share of the wall TTFT
  out.effective_share =
      convert_share(Share<TimeBase::busy>{out.share.share}, Time<TimeBase::busy>{out.gpu_ms},
                    Time<TimeBase::wall>{out.ttft_ms})
          .fraction;
  out.fixed_term_fraction = model.fixed_ms / out.ttft_ms;
  return out;
}

TpotAt tpot_scaled_by_share(double tpot0_ms, double reference_context_tokens, double decode_share,
                            double context_tokens) {
  // TPOT(L) = TPOT0 · ((1 - pd) + pd · L / L0)
  const double scale =
      (1.0 - decode_share) + decode_share * context_tokens / reference_context_tokens;
  return {tpot0_ms * scale, TpotRule::share_scaled, scale};
}

TpotAt tpot_scaled_by_decode_model(const Platform& platform, double tpot0_ms,
                                   std::int64_t reference_context_tokens,
                                   std::int64_t context_tokens) {
  // TPOT(L) = TPOT0 · step(L) / step(L0), step = attention + weights on the roofline
  const DecodeStepTime before = decode_step_time(platform, reference_context_tokens);
  const DecodeStepTime after = decode_step_time(platform, context_tokens);
  const double scale =
      (after.attention_ms + after.other_ms) / (before.attention_ms + before.other_ms);
  return {tpot0_ms * scale, TpotRule::decode_model, scale};
}

TpotAt tpot_held(double tpot0_ms) {
  return {tpot0_ms, TpotRule::held, 1.0};
}

double effective_share(const PhaseWithOverhead& phase) {
  // p_eff = p · (T - O) / T: the share of the phase's GPU time (T - O) as a share of T
  return convert_share(Share<TimeBase::busy>{phase.share},
                       Time<TimeBase::busy>{phase.phase_ms - phase.overhead_ms},
                       Time<TimeBase::wall>{phase.phase_ms})
      .fraction;
}

double phase_speedup(const PhaseWithOverhead& phase, double kernel_speedup) {
  return amdahl_speedup(effective_share(phase), kernel_speedup);
}

double share_implied_by(double phase_speedup, double kernel_speedup) {
  // Amdahl solved for p: 1/S = 1 - p·(1 - 1/s)  =>  p = (1 - 1/S) / (1 - 1/s)
  return (1.0 - 1.0 / phase_speedup) / (1.0 - 1.0 / kernel_speedup);
}

std::optional<double> overhead_implied_by(double phase_ms, double share, double phase_speedup,
                                          double kernel_speedup) {
  // p_eff = p · (T - O) / T  =>  O = T · (1 - p_eff / p)
  const double implied = share_implied_by(phase_speedup, kernel_speedup);
  if (implied > share || share <= 0) {
    return std::nullopt;
  }
  return phase_ms * (1.0 - implied / share);
}

}  // namespace kspeed::engine
