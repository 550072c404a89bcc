#include "kspeed/engine/verify/prediction_interval.hpp"
#include "kspeed/engine/verify/resampling.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace kspeed::engine {

std::string_view to_string(NoPredictionInterval reason) {
  switch (reason) {
    case NoPredictionInterval::none:
      return "none";
    case NoPredictionInterval::no_measured_spread:
      return "no_measured_spread";
    case NoPredictionInterval::inputs_not_measured:
      return "inputs_not_measured";
    case NoPredictionInterval::too_few_steps:
      return "too_few_steps";
    case NoPredictionInterval::exact_fit:
      return "exact_fit";
    case NoPredictionInterval::no_resamples:
      return "no_resamples";
  }
  return "unknown";
}

std::vector<std::string> ResampledInputs::names() const {
  std::vector<std::string> out;
  if (prefill_share) out.emplace_back("prefill_share");
  if (ttft) out.emplace_back("ttft");
  if (decode_share) out.emplace_back("decode_share");
  if (tpot) out.emplace_back("tpot");
  return out;
}

namespace {

// One stratum's steps as the statistic needs them.
struct StepValues {
  std::vector<double> attention_ms;
  std::vector<double> time_ms;
  std::vector<double> latency_ms;
};

StepValues stratum(const std::vector<ProfiledStep>& steps, StepMeasures latency) {
  StepValues out;
  for (const ProfiledStep& step : steps) {
    const bool measures = latency == StepMeasures::ttft ? step.measures_ttft : step.measures_tpot;
    if (!measures || step.time_ms <= 0) continue;
    out.attention_ms.push_back(step.attention_ms);
    out.time_ms.push_back(step.time_ms);
    out.latency_ms.push_back(request_latency_ms(step, latency));
  }
  return out;
}

// The stratum's share and mean latency over the steps at `picks`.
struct Statistic {
  double share = 0;
  double latency_ms = 0;
};

Statistic statistic(const StepValues& values, const std::vector<std::size_t>& picks) {
  double attention = 0;
  double time = 0;
  double latency = 0;
  for (const std::size_t i : picks) {
    attention += values.attention_ms[i];
    time += values.time_ms[i];
    latency += values.latency_ms[i];
  }
  const auto n = static_cast<double>(picks.size());
  return {time > 0 ? attention / time : 0.0, n > 0 ? latency / n : 0.0};
}

void draw(std::mt19937_64& generator, std::size_t n, std::vector<std::size_t>& picks) {
  picks.resize(n);
  for (std::size_t& pick : picks) pick = uniform_index(generator, n);
}

double ratio(double resampled, double whole) {
  return whole > 0 ? resampled / whole : 1.0;
}

// The phase's chain input with its measured share and time moved by the resample's ratios.
// The share ratio is of two shares of one kind (the steps' time_ms and attention_ms, both under
// the workload's denominator), so it has no kind: it moves a converted share of wall time
// (share × table_ms / wall_ms, scenario.cpp) exactly as it moves the unconverted one.
PhaseInput moved(PhaseInput input, bool share, double share_ratio, bool latency,
                 double latency_ratio) {
  if (share) input.attention_share = std::clamp(input.attention_share * share_ratio, 0.0, 1.0);
  if (latency) input.time_before_ms *= latency_ratio;
  return input;
}

// The interval's bounds from the resampled speedups.
void set_bounds(std::vector<double>& speedups, const BootstrapOptions& options,
                std::string_view method, PredictionInterval& out) {
  std::sort(speedups.begin(), speedups.end());
  const double tail = (1 - options.confidence) / 2;
  out.low = sorted_percentile(speedups, tail);
  out.high = sorted_percentile(speedups, 1 - tail);
  out.resamples = options.resamples;
  out.method = method;
  out.reason = NoPredictionInterval::none;
}

// measured / predicted of each point of one kind: what a new measurement is of the model.
std::vector<double> ratios_of(const std::vector<PointResidual>& residuals, LatencyKind kind) {
  std::vector<double> ratios;
  for (const PointResidual& point : residuals) {
    if (point.kind == kind && point.predicted_ms > 0) {
      ratios.push_back(point.measured_ms / point.predicted_ms);
    }
  }
  return ratios;
}

bool has_spread(const std::vector<double>& ratios) {
  return std::any_of(ratios.begin(), ratios.end(),
                     [](double ratio) { return std::fabs(ratio - 1) > 1e-9; });
}

}  // namespace

PredictionInterval step_bootstrap_interval(const std::vector<ProfiledStep>& steps,
                                           const PhaseInput& prefill, const PhaseInput& decode,
                                           const ResampledInputs& inputs,
                                           const BootstrapOptions& options) {
  PredictionInterval out;
  out.confidence = options.confidence;
  const StepValues ttft = stratum(steps, StepMeasures::ttft);
  const StepValues tpot = stratum(steps, StepMeasures::tpot);
  out.ttft_samples = static_cast<std::int64_t>(ttft.time_ms.size());
  out.tpot_samples = static_cast<std::int64_t>(tpot.time_ms.size());
  // An input moves only when its steps exist; one step has no spread to resample.
  out.inputs.prefill_share = inputs.prefill_share && out.ttft_samples > 0;
  out.inputs.ttft = inputs.ttft && out.ttft_samples > 0;
  out.inputs.decode_share = inputs.decode_share && out.tpot_samples > 0;
  out.inputs.tpot = inputs.tpot && out.tpot_samples > 0;
  if (steps.empty()) return out;
  if (!out.inputs.any()) {
    out.reason = NoPredictionInterval::inputs_not_measured;
    return out;
  }
  const bool prefill_spread =
      (out.inputs.prefill_share || out.inputs.ttft) && out.ttft_samples >= 2;
  const bool decode_spread = (out.inputs.decode_share || out.inputs.tpot) && out.tpot_samples >= 2;
  if (!prefill_spread && !decode_spread) {
    out.reason = NoPredictionInterval::too_few_steps;
    return out;
  }
  if (options.resamples <= 0) {
    out.reason = NoPredictionInterval::no_resamples;
    return out;
  }
  std::vector<std::size_t> all_ttft(ttft.time_ms.size()), all_tpot(tpot.time_ms.size());
  for (std::size_t i = 0; i < all_ttft.size(); ++i) all_ttft[i] = i;
  for (std::size_t i = 0; i < all_tpot.size(); ++i) all_tpot[i] = i;
  const Statistic whole_ttft = statistic(ttft, all_ttft);
  const Statistic whole_tpot = statistic(tpot, all_tpot);

  std::mt19937_64 generator(options.seed);
  std::vector<double> speedups;
  speedups.reserve(static_cast<std::size_t>(options.resamples));
  std::vector<std::size_t> picks;
  for (std::int64_t r = 0; r < options.resamples; ++r) {
    PhaseInput p = prefill;
    PhaseInput d = decode;
    if (prefill_spread) {
      draw(generator, ttft.time_ms.size(), picks);
      const Statistic s = statistic(ttft, picks);
      p = moved(p, out.inputs.prefill_share, ratio(s.share, whole_ttft.share), out.inputs.ttft,
                ratio(s.latency_ms, whole_ttft.latency_ms));
    }
    if (decode_spread) {
      draw(generator, tpot.time_ms.size(), picks);
      const Statistic s = statistic(tpot, picks);
      d = moved(d, out.inputs.decode_share, ratio(s.share, whole_tpot.share), out.inputs.tpot,
                ratio(s.latency_ms, whole_tpot.latency_ms));
    }
    speedups.push_back(estimate_chain(p, d).request.speedup);
  }
  set_bounds(speedups, options, PredictionInterval::kStepMethod, out);
  return out;
}

PredictionInterval residual_bootstrap_interval(const std::vector<PointResidual>& residuals,
                                               const PhaseInput& prefill, const PhaseInput& decode,
                                               bool ttft, bool tpot,
                                               const BootstrapOptions& options) {
  PredictionInterval out;
  out.confidence = options.confidence;
  const std::vector<double> ttft_ratios =
      ttft ? ratios_of(residuals, LatencyKind::ttft) : std::vector<double>{};
  const std::vector<double> tpot_ratios =
      tpot ? ratios_of(residuals, LatencyKind::tpot) : std::vector<double>{};
  out.ttft_samples = static_cast<std::int64_t>(ttft_ratios.size());
  out.tpot_samples = static_cast<std::int64_t>(tpot_ratios.size());
  out.inputs.ttft = !ttft_ratios.empty();
  out.inputs.tpot = !tpot_ratios.empty();
  if (!out.inputs.any()) return out;
  const bool move_ttft = has_spread(ttft_ratios);
  const bool move_tpot = has_spread(tpot_ratios);
  if (!move_ttft && !move_tpot) {
    out.reason = NoPredictionInterval::exact_fit;
    return out;
  }
  if (options.resamples <= 0) {
    out.reason = NoPredictionInterval::no_resamples;
    return out;
  }
  std::mt19937_64 generator(options.seed);
  std::vector<double> speedups;
  speedups.reserve(static_cast<std::size_t>(options.resamples));
  for (std::int64_t r = 0; r < options.resamples; ++r) {
    PhaseInput p = prefill;
    PhaseInput d = decode;
    if (move_ttft) p.time_before_ms *= ttft_ratios[uniform_index(generator, ttft_ratios.size())];
    if (move_tpot) d.time_before_ms *= tpot_ratios[uniform_index(generator, tpot_ratios.size())];
    speedups.push_back(estimate_chain(p, d).request.speedup);
  }
  set_bounds(speedups, options, PredictionInterval::kResidualMethod, out);
  return out;
}

}  // namespace kspeed::engine
