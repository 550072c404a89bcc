#include "kspeed/engine/serving/replay_validation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

constexpr std::size_t kP50 = 0;  // ServingSetup's percentiles are {50, 90, 99}
constexpr int kHalvings = 40;    // 2^-40 of the bracket: far below a measurement's 0.01 ms
constexpr int kMaxRounds = 5;
constexpr double kConverged = 1e-4;

std::optional<PairedStat> paired(const LevelStat& measured, const Distribution& predicted) {
  if (predicted.count == 0) return std::nullopt;
  if (measured.mean_ms) return PairedStat{*measured.mean_ms, predicted.mean, "mean"};
  if (measured.p50_ms && !predicted.percentiles.empty()) {
    return PairedStat{*measured.p50_ms, predicted.percentiles[kP50], "p50"};
  }
  return std::nullopt;
}

// x in [low, high] with f(x) = target for f non-decreasing; the nearer end when the target is
// outside f's range there (`clamped` says so).
double solve(const std::function<double(double)>& f, double target, double low, double high,
             bool& clamped, int& replays) {
  clamped = false;
  replays += 2;
  if (f(low) >= target) {
    clamped = true;
    return low;
  }
  if (f(high) <= target) {
    clamped = true;
    return high;
  }
  for (int i = 0; i < kHalvings; ++i) {
    const double mid = 0.5 * (low + high);
    ++replays;
    (f(mid) < target ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

StepModel with_bandwidth_scale(StepModel m, double scale) {
  m.weights_ms *= scale;
  m.ms_per_kv_token *= scale;
  m.ms_per_window_decode_sequence *= scale;
  m.ms_per_chunked_kv_token *= scale;
  m.ms_per_linear_state_sequence *= scale;
  return m;
}

double measured_per_token(const ReplayLevel& level) {
  if (level.tpot.mean_ms) return *level.tpot.mean_ms;
  if (level.tpot.p50_ms) return *level.tpot.p50_ms;
  throw InputError(level.label +
                   ": no per-token time (TPOT mean or p50) to fit the decode side to: choose "
                   "another fit level");
}

// The replay's per-token statistic of `level`, paired like paired_per_token (0 when the level
// reports none), from a replay that keeps each request's TPOT alone: the fit asks hundreds of
// these, and neither the other latencies nor the ITL histogram are read. The values are taken
// in the requests' order, as summarise_replay takes them, so the statistic is the same number.
double replayed_per_token(const ReplayLevel& level, const ServingSetup& setup) {
  const ArrivalOptions arrivals = level_arrivals(level, setup);
  // A request that never finishes (dropped) keeps NaN, as replay_batches reports it.
  std::vector<float> tpot(level.requests.size(), std::numeric_limits<float>::quiet_NaN());
  const CompletionVerdict keep = [&tpot](std::size_t i, const RequestTiming& timing) {
    tpot[i] = timing.tpot_ms;
    return true;
  };
  (void)replay_until(level.requests, setup.step, {}, setup.scheduler, arrivals, keep);
  std::vector<double> values;
  values.reserve(tpot.size());
  for (const float t : tpot) {
    if (!std::isnan(t)) values.push_back(static_cast<double>(t));
  }
  const std::optional<PairedStat> p =
      paired(level.tpot, distribution_of(values, setup.percentiles));
  return p ? p->predicted_ms : 0.0;
}

}  // namespace

ArrivalOptions level_arrivals(const ReplayLevel& level, const ServingSetup& setup) {
  ArrivalOptions arrivals = setup.arrivals;
  arrivals.concurrency = level.closed_loop_clients;
  arrivals.max_inflight = level.max_inflight;
  return arrivals;
}

ReplaySide replay_level(const ReplayLevel& level, const ServingSetup& setup) {
  ServingSetup with = setup;
  with.arrivals = level_arrivals(level, setup);
  const BatchReplay replay =
      replay_batches(level.requests, with.step, {}, with.scheduler, with.arrivals);
  return summarise_replay(level.requests, replay, with);
}

std::optional<PairedStat> paired_per_token(const ReplayLevel& level, const ReplaySide& side) {
  return paired(level.tpot, side.tpot_ms);
}

std::optional<PairedStat> paired_ttft(const ReplayLevel& level, const ReplaySide& side) {
  return paired(level.ttft, side.ttft_ms);
}

ReplayFit fit_through_replay(const CalibratedStepModel& prior, const ServingSetup& setup,
                             const std::vector<const ReplayLevel*>& fit_levels,
                             std::string_view source) {
  if (fit_levels.empty() || fit_levels.size() > 2) {
    throw InputError("the fit through the replay takes one or two load levels, got " +
                     count_mark(static_cast<long long>(fit_levels.size())));
  }
  ReplayFit fit;
  fit.model = prior;
  const std::string label(source);
  const CoefficientOrigin fitted{Provenance::fitted, label + " (through the replay)"};
  ServingSetup base = setup;
  base.scheduler.request_overhead_ms = 0;
  const auto per_token = [&](const ReplayLevel& level, const StepModel& model) {
    ServingSetup with = base;
    with.step = model;
    return replayed_per_token(level, with);
  };
  const ReplayLevel& lightest = *fit_levels[0];
  const double lightest_target = measured_per_token(lightest);
  // The reads cannot beat the roof: η_bw = η / scale stays <= 1.
  const double min_scale = prior.efficiency.bandwidth;
  constexpr double kMaxScale = 100;
  constexpr double kMaxPerSequenceMs = 5;
  StepModel model = prior.model;
  double scale_total = 1;
  bool scale_clamped = false;
  bool slope_clamped = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    const StepModel before = model;
    const double scale =
        solve([&](double s) { return per_token(lightest, with_bandwidth_scale(before, s)); },
              lightest_target, min_scale / scale_total, kMaxScale, scale_clamped, fit.replays);
    model = with_bandwidth_scale(before, scale);
    scale_total *= scale;
    double slope_change = 0;
    if (fit_levels.size() == 2) {
      const ReplayLevel& second = *fit_levels[1];
      const StepModel with_scale = model;
      const double c = solve(
          [&](double value) {
            StepModel m = with_scale;
            m.ms_per_sequence = value;
            return per_token(second, m);
          },
          measured_per_token(second), 0, kMaxPerSequenceMs, slope_clamped, fit.replays);
      slope_change = std::abs(c - model.ms_per_sequence);
      model.ms_per_sequence = c;
    } else {
      break;
    }
    if (std::abs(scale - 1) < kConverged && slope_change < kConverged) break;
  }
  CalibratedStepModel& out = fit.model;
  out.model = model;
  out.efficiency.bandwidth = prior.efficiency.bandwidth / scale_total;
  out.origins.weights = fitted;
  out.origins.kv_token = fitted;
  if (scale_clamped) {
    fit.notes.push_back(
        "the bandwidth side reached a bound (η_bw = 1, or 100× the roofline) "
        "before " +
        lightest.label + "'s per-token time was met");
  }
  if (fit_levels.size() == 2) {
    out.origins.per_sequence = fitted;
    if (slope_clamped) {
      fit.notes.push_back("the per-sequence cost reached a bound (0 or 5 ms) before " +
                          fit_levels[1]->label + "'s per-token time was met");
    }
  } else {
    fit.notes.push_back(
        "one fit level cannot separate the per-sequence cost from the weights "
        "read: it keeps its prior (" +
        out.origins.per_sequence.source + ")");
  }
  // The request overhead: what the lightest level's TTFT leaves of its replayed one.
  ServingSetup with = base;
  with.step = out.model;
  const ReplaySide side = replay_level(lightest, with);
  ++fit.replays;
  if (const std::optional<PairedStat> ttft = paired_ttft(lightest, side)) {
    out.request_overhead_ms = std::max(0.0, ttft->measured_ms - ttft->predicted_ms);
    out.origins.request_overhead = fitted;
  } else {
    fit.notes.push_back(lightest.label + " reports no TTFT: the request overhead keeps its prior");
  }
  out.calibration = Provenance::fitted;
  out.calibration_source = label;
  out.residuals.clear();
  for (const ReplayLevel* level : fit_levels) {
    ServingSetup final_setup = base;
    final_setup.step = out.model;
    final_setup.scheduler.request_overhead_ms = out.request_overhead_ms;
    const ReplaySide s = replay_level(*level, final_setup);
    ++fit.replays;
    if (const std::optional<PairedStat> p = paired_per_token(*level, s)) {
      out.residuals.push_back({level->label + " (" + p->statistic + ")", LatencyKind::tpot,
                               p->measured_ms, p->predicted_ms});
    }
    if (const std::optional<PairedStat> p = paired_ttft(*level, s)) {
      out.residuals.push_back({level->label + " (" + p->statistic + ")", LatencyKind::ttft,
                               p->measured_ms, p->predicted_ms});
    }
  }
  return fit;
}

namespace {

constexpr std::size_t kP90 = 1;
constexpr std::size_t kP99 = 2;

void add_percentile(std::vector<MetricComparison>& out, const char* metric,
                    const std::optional<double>& measured, const Distribution& predicted,
                    std::size_t index) {
  if (!measured || !(*measured > 0) || predicted.percentiles.size() <= index) return;
  out.push_back({metric, "ms", *measured, predicted.percentiles[index]});
}

void add_mean(std::vector<MetricComparison>& out, const char* metric,
              const std::optional<double>& measured, const Distribution& predicted) {
  if (!measured || !(*measured > 0) || predicted.count == 0) return;
  out.push_back({metric, "ms", *measured, predicted.mean});
}

}  // namespace

std::vector<MetricComparison> compare_level(const ReplayLevel& level, const ReplaySide& side) {
  std::vector<MetricComparison> out;
  add_percentile(out, "ttft p50", level.ttft.p50_ms, side.ttft_ms, kP50);
  add_percentile(out, "ttft p90", level.ttft.p90_ms, side.ttft_ms, kP90);
  add_percentile(out, "ttft p99", level.ttft.p99_ms, side.ttft_ms, kP99);
  if (level.per_token_is_itl) {
    add_percentile(out, "itl p50", level.tpot.p50_ms, side.itl_ms, kP50);
    add_percentile(out, "itl p99", level.tpot.p99_ms, side.itl_ms, kP99);
  } else {
    add_percentile(out, "tpot p50", level.tpot.p50_ms, side.tpot_ms, kP50);
    add_percentile(out, "tpot p99", level.tpot.p99_ms, side.tpot_ms, kP99);
  }
  if (!level.tpot.p50_ms) add_mean(out, "tpot mean", level.tpot.mean_ms, side.tpot_ms);
  add_mean(out, "e2e mean", level.e2e.mean_ms, side.e2e_ms);
  add_percentile(out, "e2e p99", level.e2e.p99_ms, side.e2e_ms, kP99);
  if (level.achieved_rate_per_s && *level.achieved_rate_per_s > 0) {
    out.push_back({"throughput", "req/s", *level.achieved_rate_per_s, side.achieved_rate_per_s});
  }
  return out;
}

bool saturated(const ReplayLevel& level) {
  constexpr double kKeptUp = 0.9;
  return level.requested_rate_per_s && level.achieved_rate_per_s &&
         *level.achieved_rate_per_s < kKeptUp * *level.requested_rate_per_s;
}

bool latencies_comparable(const ReplayLevel& level) {
  return !saturated(level) || level.max_inflight > 0;
}

ValidationResult validate_through_replay(const CalibratedStepModel& prior,
                                         const ServingSetup& setup,
                                         const std::vector<ReplayLevel>& levels,
                                         const std::vector<std::size_t>& fit_indices,
                                         std::string_view source) {
  ValidationResult result;
  result.source = std::string(source);
  std::vector<const ReplayLevel*> fit_levels;
  for (const std::size_t i : fit_indices) {
    fit_levels.push_back(&levels.at(i));
    result.fit_levels.push_back(levels[i].label);
  }
  result.fit = fit_through_replay(prior, setup, fit_levels, source);
  result.replays = result.fit.replays;
  ServingSetup fitted = setup;
  fitted.step = result.fit.model.model;
  fitted.scheduler.request_overhead_ms = result.fit.model.request_overhead_ms;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (std::find(fit_indices.begin(), fit_indices.end(), i) != fit_indices.end()) continue;
    const ReplaySide side = replay_level(levels[i], fitted);
    ++result.replays;
    LevelValidation level;
    level.label = levels[i].label;
    level.metrics = compare_level(levels[i], side);
    level.offered_rate_per_s = side.offered_rate_per_s;
    level.saturated = saturated(levels[i]);
    level.max_inflight = levels[i].max_inflight;
    level.latencies_summarised = latencies_comparable(levels[i]);
    result.levels.push_back(std::move(level));
  }
  for (const LevelValidation& level : result.levels) {
    for (const MetricComparison& m : level.metrics) {
      const auto found = std::find_if(result.summary.begin(), result.summary.end(),
                                      [&](const MetricSummary& s) { return s.metric == m.metric; });
      if (found == result.summary.end()) {
        MetricSummary summary;
        summary.metric = m.metric;
        result.summary.push_back(summary);
      }
    }
  }
  for (MetricSummary& summary : result.summary) {
    std::vector<double> errors;
    for (const LevelValidation& level : result.levels) {
      for (const MetricComparison& m : level.metrics) {
        if (m.metric != summary.metric) continue;
        if (!level.latencies_summarised && m.metric != "throughput") continue;
        const double e = std::abs(m.error());
        errors.push_back(e);
        if (e >= summary.worst_abs_error) {
          summary.worst_abs_error = e;
          summary.worst_level = level.label;
        }
      }
    }
    summary.levels = errors.size();
    if (errors.empty()) continue;
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    summary.median_abs_error =
        n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  }
  return result;
}

}  // namespace kspeed::engine
