#pragma once
// The uncalibrated prior against measured one-at-a-time (or lightest-load) latencies: for each
// deployment, the step model from presets alone (modelled_step_model: the cited default
// efficiencies, no fit) predicts the TTFT and TPOT of the requests a run measured, and the
// errors are collected across deployments (docs/validation.md section 7). Nothing here is
// fitted: a run checked here sets no coefficient. Small enough to live in the header.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/step_calibration.hpp"
#include "kspeed/engine/residual.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

/// One deployment: what its run measured, and what the prior predicts for the same requests.
struct PriorCheck {
  std::string deployment;      ///< "llama-3.1-8b on a100-sxm-80gb"
  std::string source;          ///< the run's file
  double prompt_tokens = 0;    ///< the median request's (of the observations)
  double response_tokens = 0;  ///< the median request's
  double concurrency = 1;      ///< the first observation's
  std::size_t requests = 0;    ///< observations (one for an aggregate file)
  /// TTFTs left out because part of the prompt was served from a prefix cache: the prior
  /// prefills every token, so it would be checked against a prefill it did not price.
  std::size_t cached_ttfts_left_out = 0;
  /// At most one TTFT and one TPOT: the median measured over the observations against the
  /// median of the prior's prediction of each (request_latency at its own lengths).
  std::vector<PointResidual> points;
};

/// |error| across the deployments, per latency kind.
struct PriorErrorSummary {
  LatencyKind kind = LatencyKind::ttft;
  std::size_t deployments = 0;
  double median_abs_error = 0;
  double worst_abs_error = 0;
  std::string worst_deployment;
};

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
inline double median_of_prior_values(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// The prior's prediction of each observation; `cached_tokens` (one per observation, or empty)
/// says which prompts a prefix cache served in part, whose TTFT is left out. Throws InputError
/// when there is no observation.
inline PriorCheck check_prior(const CalibratedStepModel& prior,
                              const std::vector<LatencyObservation>& observations,
                              const std::vector<double>& cached_tokens,
                              const std::string& deployment, const std::string& source) {
  if (observations.empty()) {
    throw InputError(source + ": no measured TTFT or TPOT to check the prior against");
  }
  PriorCheck check;
  check.deployment = deployment;
  check.source = source;
  check.concurrency = observations.front().concurrency;
  check.requests = observations.size();
  std::vector<double> prompts, responses, ttft_measured, ttft_prior, tpot_measured, tpot_prior;
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const LatencyObservation& observation = observations[i];
    prompts.push_back(observation.prompt_tokens);
    responses.push_back(observation.response_tokens);
    const RequestLatency predicted = request_latency(
        prior, observation.prompt_tokens, observation.response_tokens, observation.concurrency);
    const bool cached = i < cached_tokens.size() && cached_tokens[i] > 0;
    if (observation.ttft_ms && cached) ++check.cached_ttfts_left_out;
    if (observation.ttft_ms && !cached) {
      ttft_measured.push_back(*observation.ttft_ms);
      ttft_prior.push_back(predicted.ttft_ms());
    }
    if (observation.tpot_ms) {
      tpot_measured.push_back(*observation.tpot_ms);
      tpot_prior.push_back(predicted.tpot_ms());
    }
  }
  check.prompt_tokens = median_of_prior_values(prompts);
  check.response_tokens = median_of_prior_values(responses);
  // The count is in `requests`: the engine composes no text (test_purity).
  const std::string label =
      observations.size() == 1 ? observations.front().label : "median over the requests";
  if (!ttft_measured.empty()) {
    check.points.push_back({label, LatencyKind::ttft, median_of_prior_values(ttft_measured),
                            median_of_prior_values(ttft_prior)});
  }
  if (!tpot_measured.empty()) {
    check.points.push_back({label, LatencyKind::tpot, median_of_prior_values(tpot_measured),
                            median_of_prior_values(tpot_prior)});
  }
  return check;
}

/// The error convention of kspeed validate: predicted / measured - 1.
inline double prior_error(const PointResidual& point) {
  return point.predicted_ms / point.measured_ms - 1;
}

/// One summary for TTFT and one for TPOT (kinds no check measured are left out).
inline std::vector<PriorErrorSummary> summarize_prior_checks(
    const std::vector<PriorCheck>& checks) {
  std::vector<PriorErrorSummary> summaries;
  for (const LatencyKind kind : {LatencyKind::ttft, LatencyKind::tpot}) {
    PriorErrorSummary summary;
    summary.kind = kind;
    std::vector<double> errors;
    for (const PriorCheck& check : checks) {
      for (const PointResidual& point : check.points) {
        if (point.kind != kind) continue;
        const double e = std::abs(prior_error(point));
        errors.push_back(e);
        if (e >= summary.worst_abs_error) {
          summary.worst_abs_error = e;
          summary.worst_deployment = check.deployment;
        }
      }
    }
    if (errors.empty()) continue;
    summary.deployments = errors.size();
    summary.median_abs_error = median_of_prior_values(errors);
    summaries.push_back(summary);
  }
  return summaries;
}

}  // namespace kspeed::engine
