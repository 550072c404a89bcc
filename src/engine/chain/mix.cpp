#include "kspeed/engine/chain/mix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Decode share over a response: the mean of the table's share at this many evenly spaced steps
// (midpoints). The share is smooth and monotone between table points, so 8 samples are within a
// fraction of a percent of the exact mean and keep a million requests well under a second.
constexpr int kDecodeSamples = 8;

bool applies_to_prefill(Phase phase) {
  return phase != Phase::decode;
}
bool applies_to_decode(Phase phase) {
  return phase != Phase::prefill;
}

// A workload-level warning: its code, the input it concerns and how many requests.
Warning requests_warning(WarningCode code, std::int64_t requests, const char* input) {
  Warning warning;
  warning.code = code;
  warning.input = input;
  warning.numbers.emplace_back("requests", static_cast<double>(requests));
  return warning;
}

// The kind of time a workload's tables are fractions of: its share_denominator ("kernel-time",
// "busy-time"; "wall-time" or none: wall time, as estimate takes it).
TimeBase table_base_of(const Workload& workload) {
  if (workload.share_denominator == "kernel-time") return TimeBase::kernel;
  if (workload.share_denominator == "busy-time") return TimeBase::busy;
  return TimeBase::wall;
}

// The phase's first measured step with a wall time, as scenario.cpp's measured_step_of.
std::optional<StepTimes> step_times(const Workload& workload, TimeBase base, Phase phase) {
  for (const MeasuredStep& step : workload.measured_steps) {
    if (step.phase != phase || step.wall_ms <= 0) continue;
    const double table_ms = base == TimeBase::kernel ? step.kernel_ms : step.busy_ms;
    if (table_ms <= 0) return std::nullopt;
    return StepTimes{table_ms, std::max(table_ms, step.wall_ms - step.profiler_gap_ms)};
  }
  return std::nullopt;
}

bool same_points(const std::vector<LatencyPoint>& a, const std::vector<LatencyPoint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const LatencyPoint& x, const LatencyPoint& y) {
                      return x.context_tokens == y.context_tokens && x.latency_ms == y.latency_ms;
                    });
}

}  // namespace

MixModel make_mix_model(const Workload& workload, const Scenario& scenario,
                        Extrapolation extrapolation, const std::vector<LatencyPoint>& tpot_points) {
  MixModel model;
  model.prefill_shares = workload.prefill_shares;
  if (scenario.prefill_share.provenance == Provenance::given) {
    model.prefill_share = scenario.prefill_share.value;
  }
  model.decode_shares = workload.decode_shares;
  if (scenario.decode_share && (scenario.decode_share->provenance == Provenance::given ||
                                scenario.decode_share->provenance == Provenance::modelled)) {
    model.decode_share = scenario.decode_share->value;
  }
  model.share_origin = workload.share_origin;
  model.table_base = table_base_of(workload);
  if (model.table_base != TimeBase::wall) {
    model.prefill_step_times = step_times(workload, model.table_base, Phase::prefill);
    model.decode_step_times = step_times(workload, model.table_base, Phase::decode);
  }
  // A given TTFT or TPOT came from a flag (--ttft, --ttft-point, --tpot, --tpot-point): wall.
  model.reference_ttft_wall = scenario.ttft_ms.provenance == Provenance::given;
  model.tpot_wall = scenario.tpot_ms.provenance == Provenance::given;
  model.extrapolation = extrapolation;
  model.kernel_speedup = scenario.kernel_speedup;
  model.phase = scenario.phase;
  // A phase the workload did not measure (a profile of prefill steps has no TPOT, one of decode
  // steps no TTFT) comes out of the scenario as 0 ms by default: no latency of that phase, so its
  // requests are counted missing and warned, never priced at 0 ms (issue 27).
  // The step model's own TTFT and TPOT at the scenario's one request are no reference: the
  // step model prices each request itself (latency_order.hpp).
  const auto from_deployment = [&scenario](std::string_view input) {
    return std::find(scenario.deployment_inputs.begin(), scenario.deployment_inputs.end(), input) !=
           scenario.deployment_inputs.end();
  };
  if (scenario.ttft_ms.provenance != Provenance::default_value && !from_deployment("ttft")) {
    model.reference = ReferenceLatency{scenario.prompt_tokens.value, scenario.ttft_ms};
  }
  // The measured TTFT points (--ttft-point, else the workload's), as estimate and sweep use
  // them away from the reference prompt (a --ttft names its own reference instead).
  const std::vector<LatencyPoint>& points =
      scenario.ttft_points.empty() ? workload.request.ttft_points : scenario.ttft_points;
  // A given TTFT is --ttft's unless it is a --ttft-point measured at the reference prompt.
  const bool at_a_point = std::any_of(points.begin(), points.end(), [&](const LatencyPoint& p) {
    return p.context_tokens == static_cast<double>(scenario.prompt_tokens.value) &&
           p.latency_ms == scenario.ttft_ms.value;
  });
  const bool ttft_flag = scenario.ttft_ms.provenance == Provenance::given && !at_a_point;
  model.reference_given = ttft_flag && model.reference.has_value();
  // With --ttft, the user's --ttft-point still fit (the workload's do not: --ttft replaces
  // them, as in estimate): the fit prices the other prompts (fitted ranks above a --ttft
  // carried there) and gives --ttft's request its fixed term T0, as estimate's.
  const bool user_points_with_flag = ttft_flag && !scenario.ttft_points.empty();
  if ((!ttft_flag || user_points_with_flag) && !points.empty() &&
      (!workload.prefill_shares.empty() || model.prefill_share)) {
    const std::vector<SharePoint> shares = model.prefill_share
                                               ? std::vector<SharePoint>{{1, *model.prefill_share}}
                                               : workload.prefill_shares;
    model.ttft_fit = fit_ttft(points, shares, extrapolation);
    model.ttft_points_wall = !same_points(points, workload.request.ttft_points);
  }
  if (scenario.tpot_ms.provenance != Provenance::default_value && !from_deployment("tpot")) {
    model.tpot_ms = scenario.tpot_ms;
    model.tpot_given = !scenario.tpot_from_workload;
    model.tpot_context_tokens = scenario.prompt_tokens.value;
  }
  if (tpot_points.size() >= 2) model.tpot_fit = fit_tpot(tpot_points);
  if (scenario.platform && scenario.platform->model.value.context_tokens > 0) {
    model.context_tokens = scenario.platform->model.value.context_tokens;
    model.context_model = scenario.platform->model.value.name;
  }
  return model;
}

namespace {

// One request alone on the deployment (no queue): its prefill step computes the n fresh tokens
// after c cached ones (c·n + n(n+1)/2 causal pairs), its mean decode step reads the KV at the
// mean context over the response (step_calibration.hpp's request_latency, with the cache).
RequestLatency modelled_alone(const CalibratedStepModel& step, std::int64_t fresh,
                              std::int64_t cached, std::int64_t prompt, std::int64_t response) {
  BatchComposition prefill;
  prefill.prefill_tokens = static_cast<double>(fresh);
  prefill.prefill_pairs = causal_pairs(static_cast<double>(fresh), static_cast<double>(cached));
  RequestLatency latency;
  latency.prefill_step = step_time(step.model, prefill);
  latency.decode_step =
      step_time(step.model, decode_batch(static_cast<double>(prompt), static_cast<double>(response),
                                         1, step.spec_tokens_per_step));
  latency.overhead_ms = step.request_overhead_ms;
  latency.mean_accepted = step.spec_mean_accepted;
  return latency;
}

}  // namespace

MixRun::MixRun(MixModel model) : model_(std::move(model)) {
  if (model_.prefix_cache.mode == PrefixCacheOptions::Mode::lru) {
    cache_.emplace(model_.prefix_cache.capacity_tokens, model_.prefix_cache.block_tokens);
  }
}

std::uint16_t MixRun::model_index(const std::string& name) {
  if (name.empty()) return 0;
  // Logs name few models; a linear search over them beats hashing every request's name.
  for (std::size_t i = 1; i < models_.size(); ++i) {
    if (models_[i] == name) return static_cast<std::uint16_t>(i);
  }
  if (models_.size() > std::numeric_limits<std::uint16_t>::max()) {
    ++too_many_models_;
    return 0;
  }
  models_.push_back(name);
  return static_cast<std::uint16_t>(models_.size() - 1);
}

// c for this request: the log's measurement first; else the simulated cache or the stated rate.
std::int64_t MixRun::cached_prefix(const Request& request) {
  if (request.cached_tokens) {
    return split_prompt(request.prompt_tokens, *request.cached_tokens, 1).cached_tokens;
  }
  switch (model_.prefix_cache.mode) {
    case PrefixCacheOptions::Mode::off:
      return 0;
    case PrefixCacheOptions::Mode::hit_fraction:
      return split_prompt_by_fraction(request.prompt_tokens, model_.prefix_cache.hit_fraction)
          .cached_tokens;
    case PrefixCacheOptions::Mode::lru:
      if (request.block_hashes.empty()) {
        ++no_block_hashes_;
        return 0;
      }
      return cache_->admit(request.block_hashes, request.prompt_tokens).cached_tokens;
  }
  return 0;
}

const RequestOutcome& MixRun::add(const Request& request) {
  RequestOutcome out;
  out.arrival_s = request.arrival_s ? *request.arrival_s : std::numeric_limits<double>::quiet_NaN();
  out.prompt_tokens = static_cast<std::int32_t>(request.prompt_tokens);
  out.response_tokens = static_cast<std::int32_t>(request.response_tokens);
  out.model_index = model_index(request.model);

  // Prefix caching (MODEL.md 4): c cached, n new; attention's share is the table's at 2c + n.
  const std::int64_t cached = cached_prefix(request);
  if (model_.prefix_cache.mode == PrefixCacheOptions::Mode::lru &&
      model_.prefix_cache.keep_block_ids) {
    // A measured cached prefix stands wherever the request runs: no ids for the replay's caches.
    block_ids_.add(request.cached_tokens ? std::span<const std::uint64_t>{}
                                         : std::span<const std::uint64_t>{request.block_hashes});
  }
  const std::int64_t fresh = request.prompt_tokens - cached;
  out.cached_tokens = static_cast<std::int32_t>(cached);
  prompt_tokens_total_ += request.prompt_tokens;
  cached_tokens_total_ += cached;
  // A server refuses a request longer than the model's context; the log holds it (another
  // model's, or a trace replayed on this one): priced all the same, and counted for the warning.
  const std::int64_t sequence = request.prompt_tokens + request.response_tokens;
  if (model_.context_tokens > 0 && sequence > model_.context_tokens) {
    ++beyond_context_;
    longest_beyond_context_ = std::max(longest_beyond_context_, sequence);
  }
  const auto effective = static_cast<double>(2 * cached + fresh);
  std::optional<RequestLatency> modelled;
  if (model_.step_model) {
    modelled = modelled_alone(*model_.step_model, fresh, cached, request.prompt_tokens,
                              request.response_tokens);
  }
  double share = 0;
  bool share_from_table = false;  // else of its latency's own kind (--share, the step model's)
  if (model_.prefill_share) {
    share = *model_.prefill_share;
  } else if (modelled && (model_.ttft_overhead_ms || model_.share_model)) {
    // As estimate's: the stated fixed term replaces the overhead and the step's fixed cost, and
    // the share is of the step's GPU time, which Amdahl applies to TTFT minus the fixed term.
    share = modelled->prefill_step.gpu_ms() > 0
                ? modelled->prefill_step.prefill_attention_ms / modelled->prefill_step.gpu_ms()
                : 0.0;
  } else if (modelled) {
    // The attention part of the modelled TTFT (a share of the wall time, overhead included), so
    // Amdahl on TTFT moves exactly the prefill step's attention.
    share = modelled->prefill_step.prefill_attention_ms / modelled->ttft_ms();
  } else if (!model_.prefill_shares.empty()) {
    const ShareLookup lookup = share_at(model_.prefill_shares, effective, model_.extrapolation);
    share = lookup.share;
    share_from_table = true;
    if (lookup.source == Provenance::clamped) {
      ++(effective < model_.prefill_shares.front().context_tokens ? clamped_below_
                                                                  : clamped_above_);
    } else if (lookup.source == Provenance::extrapolated) {
      ++extrapolated_;
    }
  }
  // The share TTFT's formulas read; a modelled share (--share-model) is Amdahl's only.
  const double latency_share = share;
  if (model_.share_model && !model_.prefill_share) {
    share = modelled_share(effective);
    share_from_table = false;
  }
  out.prefill_share = static_cast<double>(share);

  // TTFT from the source latency_source chose (latency_order.hpp), as estimate's.
  double ttft = std::numeric_limits<double>::quiet_NaN();
  double fixed = 0;  // T0 of a fitted TTFT: time no kernel touches
  // Of wall time unless it is the workload's own (denominator.hpp): the log's measurement, a
  // flag's and the step model's are wall times; the reference's and the fit's, as they came.
  bool ttft_wall = true;
  out.ttft_source = latency_source(ttft_candidates(request, cached, latency_share, modelled));
  switch (out.ttft_source) {
    case LatencySource::measured:
      ttft = *request.ttft_ms;
      break;
    case LatencySource::modelled:
      ttft = modelled->ttft_ms();
      break;
    case LatencySource::fitted:
      // TTFT = T0 + a · n · (1 + odds(L_eff)) = T0 + a · n / (1 - p(L_eff))
      fixed = model_.ttft_fit->fixed_ms;
      ttft = fixed +
             model_.ttft_fit->ms_per_token * static_cast<double>(fresh) / (1.0 - latency_share);
      ttft_wall = model_.ttft_points_wall;
      break;
    case LatencySource::given:
      // --ttft at its prompt; with --ttft-point, the points' T0 is its fixed term (estimate's)
      ttft = model_.reference->ttft_ms.value;
      if (model_.ttft_fit) fixed = std::min(model_.ttft_fit->fixed_ms, ttft);
      ttft_wall = model_.reference_ttft_wall;
      break;
    case LatencySource::reference:
      ttft = model_.reference->ttft_ms.value;
      ttft_wall = model_.reference_ttft_wall;
      break;
    case LatencySource::scaled: {
      // TTFT = a * n / (1 - p(L_eff)), a = (1 - p(L_ref)) * TTFT_ref / L_ref.
      const auto reference_tokens = static_cast<double>(model_.reference->prompt_tokens);
      const double reference_share =
          model_.prefill_share ? *model_.prefill_share
          : model_.prefill_shares.empty()
              ? 0.0
              : share_at(model_.prefill_shares, reference_tokens, model_.extrapolation).share;
      const double per_token =
          (1.0 - reference_share) * model_.reference->ttft_ms.value / reference_tokens;
      ttft = per_token * static_cast<double>(fresh) / (1.0 - latency_share);
      ttft_wall = model_.reference_ttft_wall;
      break;
    }
    default:
      ++ttft_missing_;
  }
  if (model_.ttft_overhead_ms && !request.ttft_ms && !std::isnan(ttft)) {
    // --ttft-overhead: the modelled TTFT's fixed term, at most all of it (counted: such a
    // request gains nothing, which the warning says).
    fixed = std::min(*model_.ttft_overhead_ms, ttft);
    if (ttft < *model_.ttft_overhead_ms) {
      shortest_below_overhead_ms_ =
          ttft_below_overhead_ == 0 ? ttft : std::min(shortest_below_overhead_ms_, ttft);
      ++ttft_below_overhead_;
    }
  } else if (model_.share_model && out.ttft_source == LatencySource::modelled) {
    // A share of the step's GPU time: the overhead and the step's fixed cost stay (estimate's).
    fixed = modelled->overhead_ms + modelled->prefill_step.fixed_ms +
            modelled->prefill_step.sequence_ms;
  }
  if (request.ttft_ms) {
    // A measured TTFT holds queueing and overhead no kernel touches: only the modelled GPU time
    // of this request's prefill moves, the rest stays (issue 27).
    split_measured_ttft(fresh, latency_share, modelled, ttft, fixed, share, share_from_table,
                        ttft_wall);
  }
  const double speedup = kernel_speedup_for(request.prompt_tokens);
  out.ttft_before_ms = static_cast<double>(ttft);
  out.ttft_after_ms = fixed + (applies_to_prefill(model_.phase)
                                   ? amdahl_moved(ttft - fixed, share, share_from_table, ttft_wall,
                                                  Phase::prefill, speedup)
                                   : ttft - fixed);

  // TPOT: measured; else vLLM's (E2E - TTFT) / (n_out - 1); else the mean ITL; else the model's.
  const auto steps = static_cast<double>(std::max<std::int64_t>(0, request.response_tokens - 1));
  double tpot = std::numeric_limits<double>::quiet_NaN();
  bool tpot_wall = true;  // as TTFT's: wall unless it is the workload's own TPOT
  out.tpot_source = latency_source(tpot_candidates(request, modelled));
  switch (out.tpot_source) {
    case LatencySource::measured:
      tpot = request.tpot_ms ? *request.tpot_ms
             : request.e2e_ms && request.ttft_ms && steps > 0
                 ? (*request.e2e_ms - *request.ttft_ms) / steps
                 : *request.itl_ms;
      break;
    case LatencySource::fitted:
      // TPOT = c + b·L at this request's prompt
      tpot = tpot_fitted_at(*model_.tpot_fit, static_cast<double>(request.prompt_tokens));
      break;
    case LatencySource::modelled:
      tpot = modelled->tpot_ms();
      break;
    case LatencySource::given:
    case LatencySource::reference:
    case LatencySource::scaled:
      // Held at every request's context (mix does not carry a TPOT to each context, as estimate
      // carries it to --ctx): labelled `given`, the held TPOT, whichever rung chose it.
      tpot = model_.tpot_ms->value;
      out.tpot_source = LatencySource::given;
      tpot_wall = model_.tpot_wall;
      break;
    default:
      break;
  }
  // Decode share at the request's own context, averaged over its steps (the context grows by
  // one token a step): p_d = mean over k of p(L + k), k = 1 .. n_out - 1.
  double decode_share = 0;
  bool decode_from_table = false;
  if (model_.decode_share) {
    decode_share = *model_.decode_share;
  } else if (modelled && modelled->decode_step.total_ms() > 0) {
    // The attention part of the mean decode step (TPOT is that step over τ).
    decode_share = modelled->decode_step.decode_attention_ms / modelled->decode_step.total_ms();
  } else if (!model_.decode_shares.empty() && steps > 0) {
    double sum = 0;
    for (int sample = 0; sample < kDecodeSamples; ++sample) {
      const double step = 1.0 + (steps - 1.0) * (sample + 0.5) / kDecodeSamples;
      sum += share_at(model_.decode_shares, static_cast<double>(request.prompt_tokens) + step,
                      model_.extrapolation)
                 .share;
    }
    decode_share = sum / kDecodeSamples;
    decode_from_table = true;
  }
  // Amdahl on a decode time with the decode share on that time's kind.
  const auto decode_after = [&](double moved_ms, bool wall, double moved_steps) {
    return applies_to_decode(model_.phase) ? amdahl_moved(moved_ms, decode_share, decode_from_table,
                                                          wall, Phase::decode, speedup, moved_steps)
                                           : moved_ms;
  };
  const bool has_tpot = !std::isnan(tpot);
  out.tpot_before_ms = has_tpot && steps > 0 ? static_cast<double>(tpot) : kNaN;
  out.tpot_after_ms = has_tpot && steps > 0 ? decode_after(tpot, tpot_wall, 1.0) : kNaN;

  // E2E = TTFT + (n_out - 1) * TPOT (MODEL.md 3), or the log's measurement; after the change
  // E2E' = TTFT' + (E2E - TTFT) * decode factor.
  double e2e = std::numeric_limits<double>::quiet_NaN();
  if (request.e2e_ms) {
    e2e = *request.e2e_ms;
  } else if (steps == 0) {
    e2e = ttft;
  } else if (has_tpot) {
    e2e = ttft + steps * tpot;
  } else {
    ++tpot_missing_;
  }
  out.e2e_before_ms = static_cast<double>(e2e);
  // A measured E2E is a wall time; a derived one is of TPOT's kind.
  out.e2e_after_ms =
      out.ttft_after_ms +
      decode_after(e2e - ttft, request.e2e_ms.has_value() || tpot_wall, std::max(steps, 1.0));
  outcomes_.push_back(out);
  return outcomes_.back();
}

// What this request's TTFT could come from, for latency_source. The reference is the scenario's
// one request: the user's --ttft (given) or the workload's. A log's requests are lengths asked
// for, so the reference's own TTFT prices a request only where no fit is there to disagree with
// it: the reference's own TTFT (the illustrative 500 ms) at one length beside the fit's 267 ms
// at the next would make a step in the answer at 1,024 tokens (is_reference_request).
LatencyCandidates MixRun::ttft_candidates(const Request& request, std::int64_t cached,
                                          double latency_share,
                                          const std::optional<RequestLatency>& modelled) const {
  LatencyCandidates candidates;
  candidates.measured = request.ttft_ms.has_value();
  candidates.points = model_.ttft_fit && latency_share < 1.0;
  candidates.step_model = modelled.has_value();
  if (!model_.reference || !(latency_share < 1.0)) return candidates;
  const bool same_length = request.prompt_tokens == model_.reference->prompt_tokens;
  if (model_.reference_given) {
    candidates.given_here = same_length && cached == 0;
    candidates.given_elsewhere = !candidates.given_here;
    return candidates;
  }
  candidates.reference = true;
  candidates.reference_here =
      is_reference_request(same_length, cached == 0, true, false, model_.ttft_fit.has_value());
  candidates.reference_illustrative =
      model_.reference->ttft_ms.provenance == Provenance::illustrative;
  return candidates;
}

// What this request's TPOT could come from, for latency_source: the log's measurement (its TPOT,
// vLLM's (E2E - TTFT) / (n_out - 1), or its mean ITL), the fit to two or more --tpot-point, the
// user's --tpot (held at every context, as estimate holds it), the workload's TPOT (its own
// request's at its prompt; elsewhere ranked as carried there, though mix holds it), the step model.
LatencyCandidates MixRun::tpot_candidates(const Request& request,
                                          const std::optional<RequestLatency>& modelled) const {
  const bool decode_steps = request.response_tokens > 1;
  LatencyCandidates candidates;
  candidates.measured = request.tpot_ms.has_value() ||
                        (request.e2e_ms && request.ttft_ms && decode_steps) ||
                        request.itl_ms.has_value();
  candidates.points = model_.tpot_fit.has_value();
  candidates.step_model = modelled.has_value();
  if (model_.tpot_ms && !model_.tpot_fit) {
    candidates.given_here = model_.tpot_given;
    candidates.reference = !model_.tpot_given;
    candidates.reference_here =
        candidates.reference && request.prompt_tokens == model_.tpot_context_tokens;
    candidates.reference_illustrative = model_.tpot_ms->provenance == Provenance::illustrative;
  }
  return candidates;
}

// Amdahl on `moved_ms`, the part of a latency its share is a fraction of, with the share on
// the same kind of time (denominator.hpp). The latency is of wall time or of the workload's
// tables' kind; a share not from the table (--share, --share-model, the step model's) is of its
// latency's kind, and a table share meeting a wall latency is converted first.
void MixRun::split_measured_ttft(std::int64_t fresh, double latency_share,
                                 const std::optional<RequestLatency>& modelled, double measured_ms,
                                 double& fixed_ms, double& share, bool& share_from_table,
                                 bool& wall) {
  double gpu_ms = std::numeric_limits<double>::quiet_NaN();
  if (modelled) {
    // The deployment's prefill step: its attention is a share of its GPU time.
    gpu_ms = modelled->prefill_step.gpu_ms();
    if (!model_.prefill_share && !model_.share_model) {
      share = gpu_ms > 0 ? modelled->prefill_step.prefill_attention_ms / gpu_ms : 0.0;
      share_from_table = false;
    }
    wall = true;
  } else if (model_.ttft_fit && latency_share < 1.0) {
    // The fit's GPU part, a · n / (1 − p): TTFT less its fixed term T0.
    gpu_ms = model_.ttft_fit->ms_per_token * static_cast<double>(fresh) / (1.0 - latency_share);
    wall = model_.ttft_points_wall;
  } else if (model_.reference && latency_share < 1.0) {
    const auto reference_tokens = static_cast<double>(model_.reference->prompt_tokens);
    const double reference_share =
        model_.prefill_share ? *model_.prefill_share
        : model_.prefill_shares.empty()
            ? 0.0
            : share_at(model_.prefill_shares, reference_tokens, model_.extrapolation).share;
    gpu_ms = (1.0 - reference_share) * model_.reference->ttft_ms.value / reference_tokens *
             static_cast<double>(fresh) / (1.0 - latency_share);
    wall = model_.reference_ttft_wall;
  }
  if (std::isnan(gpu_ms) || std::isnan(measured_ms)) {
    ++ttft_unsplit_;  // no model of the prefill: all of the measurement moves (warned)
    return;
  }
  const double touchable = std::clamp(gpu_ms, 0.0, measured_ms);
  fixed_ms = measured_ms - touchable;
  ++ttft_split_;
  split_fixed_ms_total_ += fixed_ms;
  split_measured_ms_total_ += measured_ms;
}

double MixRun::amdahl_moved(double moved_ms, double share, bool from_table, bool wall_latency,
                            Phase phase, double speedup, double steps) const {
  if (std::isnan(moved_ms)) return moved_ms;  // no latency to move (counted as missing)
  const TimeBase latency_base = wall_latency ? TimeBase::wall : model_.table_base;
  return with_time_base(latency_base, [&](auto kind) {
    constexpr TimeBase base = decltype(kind)::value;
    const Share<base> of_latency =
        from_table ? table_share_as<base>(share, phase, moved_ms / steps) : Share<base>{share};
    return amdahl_on(Time<base>{moved_ms}, of_latency, speedup).ms;
  });
}

// A table share as a share of `To` time: as it is when To is the tables' kind; else (a share of
// kernel or busy time meeting a wall latency) converted through the phase's measured step: the
// attention time it measured over the request's own latency of one step (issue 27: attention
// time is conserved), share × table_ms / step_latency_ms, as estimate converts it (scenario.cpp).
template <TimeBase To>
Share<To> MixRun::table_share_as(double fraction, Phase phase, double step_latency_ms) const {
  if (To == model_.table_base) return {fraction};
  const std::optional<StepTimes>& step =
      phase == Phase::prefill ? model_.prefill_step_times : model_.decode_step_times;
  if (!step) {
    const std::string name(to_string(phase));
    throw InputError(
        "the workload measured its " + name + " shares against " +
        std::string(kspeed::engine::to_string(model_.table_base)) +
        " (a fraction of the GPU's time), but a request's " + name +
        " latency here is a wall time (measured in the log, or given with a flag), and the "
        "workload carries no " +
        name + " step wall time (measured_steps) to convert the share with: profile with `kspeed " +
        "profile " + flag_mark("denominator") + " wall-time " + flag_mark("emit-workload") +
        " FILE`, or pass the share of wall time with " +
        flag_mark(phase == Phase::prefill ? "share" : "decode-share") + " P");
  }
  return with_time_base(model_.table_base, [&](auto kind) {
    constexpr TimeBase from = decltype(kind)::value;
    return convert_share(Share<from>{fraction}, Time<from>{step->table_ms},
                         Time<To>{step_latency_ms});
  });
}

double MixRun::kernel_speedup_for(std::int64_t prompt_tokens) {
  if (!model_.kernel_speedup_table) return model_.kernel_speedup.value;
  const WithProvenance<double> at =
      speedup_at(*model_.kernel_speedup_table, static_cast<double>(prompt_tokens));
  if (at.provenance == Provenance::interpolated) ++speedups_interpolated_;
  if (at.provenance == Provenance::clamped) ++speedups_clamped_;
  return at.value;
}

double MixRun::modelled_share(double effective_tokens) const {
  const ModelledPrefillShare& modelled = *model_.share_model;
  const ModelShapes& shapes = *modelled.model.shapes;
  return modelled.calibration ? calibrated_prefill_share(modelled.model, shapes, effective_tokens,
                                                         *modelled.calibration)
                              : analytic_prefill_share(modelled.model, shapes, effective_tokens);
}

std::vector<Warning> MixRun::warnings() const {
  std::vector<Warning> out;
  const auto add = [&out](WarningCode code, std::int64_t count, const char* input) {
    if (count > 0) out.push_back(requests_warning(code, count, input));
  };
  if (!model_.prefill_shares.empty()) {
    // One warning per side of the table, with the edge the shares were held at.
    struct Side {
      std::int64_t count;
      double edge_tokens;
      double below_table;
    };
    const Side sides[] = {{clamped_below_, model_.prefill_shares.front().context_tokens, 1},
                          {clamped_above_, model_.prefill_shares.back().context_tokens, 0}};
    for (const auto& [count, edge, below] : sides) {
      if (count == 0) continue;
      Warning warning =
          requests_warning(WarningCode::requests_share_clamped, count, "prefill_share_table");
      warning.phase = Phase::prefill;
      warning.numbers.emplace_back("edge_tokens", edge);
      warning.numbers.emplace_back("below_table", below);
      out.push_back(warning);
    }
  }
  add(WarningCode::requests_share_extrapolated, extrapolated_, "prefill_share_table");
  add(WarningCode::requests_ttft_missing, ttft_missing_, "ttft");
  add(WarningCode::requests_tpot_missing, tpot_missing_, "tpot");
  if (applies_to_decode(model_.phase) && !model_.decode_share && model_.decode_shares.empty()) {
    add(WarningCode::requests_decode_share_missing, static_cast<std::int64_t>(outcomes_.size()),
        "decode_share");
  }
  add(WarningCode::requests_without_block_ids, no_block_hashes_, "prefix_cache");
  add(WarningCode::requests_too_many_models, too_many_models_, "model");
  if (ttft_split_ > 0) {
    Warning warning = requests_warning(WarningCode::requests_ttft_split, ttft_split_, "ttft");
    warning.phase = Phase::prefill;
    warning.numbers.emplace_back("measured_ms", split_measured_ms_total_);
    warning.numbers.emplace_back("fixed_ms", split_fixed_ms_total_);
    out.push_back(std::move(warning));
  }
  add(WarningCode::requests_ttft_unsplit, ttft_unsplit_, "ttft");
  if (ttft_below_overhead_ > 0) {
    Warning warning = requests_warning(WarningCode::requests_ttft_below_overhead,
                                       ttft_below_overhead_, "ttft_overhead");
    warning.numbers.emplace_back("overhead_ms", *model_.ttft_overhead_ms);
    warning.numbers.emplace_back("shortest_ttft_ms", shortest_below_overhead_ms_);
    out.push_back(std::move(warning));
  }
  if (beyond_context_ > 0) {
    Warning warning =
        requests_warning(WarningCode::requests_beyond_context, beyond_context_, "model");
    warning.numbers.emplace_back("context_tokens", static_cast<double>(model_.context_tokens));
    warning.numbers.emplace_back("longest_tokens", static_cast<double>(longest_beyond_context_));
    warning.names.emplace_back("model", model_.context_model);
    out.push_back(std::move(warning));
  }
  return out;
}

std::vector<std::int64_t> prompt_bucket_edges() {
  std::vector<std::int64_t> edges{0};
  for (std::int64_t edge = 1024; edge <= (std::int64_t{1} << 20); edge *= 2) {
    edges.push_back(edge);
  }
  return edges;
}

namespace {

// Every outcome: the whole run's aggregates.
struct EveryOutcome {
  bool operator()(const RequestOutcome&) const { return true; }
};

// One double column of the outcomes `in` takes (in run order), NaNs left out.
template <class In, class Getter>
std::vector<double> column(const RequestOutcomes& outcomes, std::size_t members, In in,
                           Getter get) {
  std::vector<double> values;
  values.reserve(members);
  for (const RequestOutcome& outcome : outcomes) {
    if (!in(outcome)) continue;
    const double value = get(outcome);
    if (!std::isnan(value)) values.push_back(value);
  }
  return values;
}

template <class In, class Getter>
Distribution distribution(const RequestOutcomes& outcomes, std::size_t members, In in,
                          const std::vector<double>& points, Getter get) {
  std::vector<double> values = column(outcomes, members, in, get);
  return distribution_of(values, points);
}

// sum before / sum after over the requests `in` takes that have both
template <class In, class Before, class After>
double time_weighted(const RequestOutcomes& outcomes, In in, Before before, After after) {
  double sum_before = 0;
  double sum_after = 0;
  for (const RequestOutcome& outcome : outcomes) {
    if (!in(outcome)) continue;
    const double b = before(outcome);
    const double a = after(outcome);
    if (!std::isnan(b) && !std::isnan(a)) {
      sum_before += static_cast<double>(b);
      sum_after += static_cast<double>(a);
    }
  }
  return sum_after > 0 ? sum_before / sum_after : 1.0;
}

double e2e_speedup(const RequestOutcome& o) {
  return o.e2e_before_ms / o.e2e_after_ms;
}
double prefill_speedup(const RequestOutcome& o) {
  return o.ttft_before_ms / o.ttft_after_ms;
}

// The prompt-length bucket of an outcome: [edges[b], edges[b + 1]).
std::size_t prompt_bucket_of(const std::vector<std::int64_t>& edges,
                             const RequestOutcome& outcome) {
  const auto prompt = static_cast<std::int64_t>(outcome.prompt_tokens);
  return static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), prompt) -
                                  edges.begin() - 1);
}

// A group's aggregates over the `members` outcomes `in` takes. The group is found by scanning
// the run, not through an index of its members (8 bytes a request per grouping, doubling as it
// grew): the values and their order are the same.
template <class In>
MixGroup group_of(const RequestOutcomes& outcomes, std::size_t members, In in) {
  MixGroup group;
  group.requests = static_cast<std::int64_t>(members);
  double share_sum = 0;
  for (const RequestOutcome& outcome : outcomes) {
    if (in(outcome)) share_sum += static_cast<double>(outcome.prefill_share);
  }
  group.mean_prefill_share = members == 0 ? 0 : share_sum / static_cast<double>(members);
  const std::vector<double> median{50};
  const Distribution before = distribution(
      outcomes, members, in, median, [](const RequestOutcome& o) { return o.ttft_before_ms; });
  const Distribution after = distribution(outcomes, members, in, median,
                                          [](const RequestOutcome& o) { return o.ttft_after_ms; });
  const Distribution speedup = distribution(outcomes, members, in, median, e2e_speedup);
  group.ttft_p50_before_ms = before.percentiles.empty() ? 0 : before.percentiles[0];
  group.ttft_p50_after_ms = after.percentiles.empty() ? 0 : after.percentiles[0];
  group.median_e2e_speedup = speedup.percentiles.empty() ? 0 : speedup.percentiles[0];
  group.time_weighted_e2e_speedup = time_weighted(
      outcomes, in, [](const RequestOutcome& o) { return o.e2e_before_ms; },
      [](const RequestOutcome& o) { return o.e2e_after_ms; });
  return group;
}

}  // namespace

MixSummary summarise(const MixRun& run) {
  const RequestOutcomes& outcomes = run.outcomes();
  const std::vector<double>& points = run.model().percentiles;
  const std::size_t n = outcomes.size();
  const EveryOutcome every;
  MixSummary out;
  out.requests = static_cast<std::int64_t>(n);
  out.percentiles = points;
  const auto field = [](double RequestOutcome::*member) {
    return [member](const RequestOutcome& o) { return o.*member; };
  };
  out.ttft_ms = {distribution(outcomes, n, every, points, field(&RequestOutcome::ttft_before_ms)),
                 distribution(outcomes, n, every, points, field(&RequestOutcome::ttft_after_ms))};
  out.tpot_ms = {distribution(outcomes, n, every, points, field(&RequestOutcome::tpot_before_ms)),
                 distribution(outcomes, n, every, points, field(&RequestOutcome::tpot_after_ms))};
  out.e2e_ms = {distribution(outcomes, n, every, points, field(&RequestOutcome::e2e_before_ms)),
                distribution(outcomes, n, every, points, field(&RequestOutcome::e2e_after_ms))};
  out.prefill_share =
      distribution(outcomes, n, every, points, field(&RequestOutcome::prefill_share));
  out.prefill_speedup = distribution(outcomes, n, every, points, prefill_speedup);
  std::vector<double> speedups = column(outcomes, n, every, e2e_speedup);
  out.e2e_speedup_histogram = histogram_of(speedups, 10);
  out.e2e_speedup = distribution_of(speedups, points);
  std::vector<double>().swap(speedups);
  out.request_weighted_e2e_speedup = out.e2e_speedup.count > 0 ? out.e2e_speedup.mean : 1.0;
  out.time_weighted_ttft_speedup =
      time_weighted(outcomes, every, field(&RequestOutcome::ttft_before_ms),
                    field(&RequestOutcome::ttft_after_ms));
  out.time_weighted_e2e_speedup = time_weighted(
      outcomes, every, field(&RequestOutcome::e2e_before_ms), field(&RequestOutcome::e2e_after_ms));

  // Buckets: [edge_i, edge_i+1) of the prompt length; only buckets that hold requests are kept.
  const std::vector<std::int64_t> edges = prompt_bucket_edges();
  std::vector<std::size_t> bucket_size(edges.size(), 0);
  std::vector<std::size_t> model_size(run.models().size(), 0);
  for (const RequestOutcome& outcome : outcomes) {
    ++bucket_size[prompt_bucket_of(edges, outcome)];
    ++model_size[outcome.model_index];
    if (outcome.ttft_source == LatencySource::measured) {
      ++out.ttft_measured;
    } else if (outcome.ttft_source != LatencySource::missing) {
      ++out.ttft_modelled;
    }
    if (outcome.tpot_source == LatencySource::given ||
        outcome.tpot_source == LatencySource::fitted ||
        outcome.tpot_source == LatencySource::modelled) {
      ++out.tpot_from_workload;
    }
  }
  for (std::size_t b = 0; b < edges.size(); ++b) {
    if (bucket_size[b] == 0) continue;
    MixGroup group = group_of(outcomes, bucket_size[b], [&edges, b](const RequestOutcome& o) {
      return prompt_bucket_of(edges, o) == b;
    });
    group.lower_tokens = edges[b];
    group.upper_tokens = b + 1 < edges.size() ? edges[b + 1] : 0;
    out.buckets.push_back(std::move(group));
  }
  if (run.models().size() > 1) {
    for (std::size_t m = 0; m < model_size.size(); ++m) {
      if (model_size[m] == 0) continue;
      MixGroup group = group_of(outcomes, model_size[m], [m](const RequestOutcome& o) {
        return std::size_t{o.model_index} == m;
      });
      group.label = run.models()[m];
      out.by_model.push_back(std::move(group));
    }
  }
  out.cache_hit_rate = run.prompt_tokens_total() > 0
                           ? static_cast<double>(run.cached_tokens_total()) /
                                 static_cast<double>(run.prompt_tokens_total())
                           : 0.0;
  out.warnings = run.warnings();
  return out;
}

AttentionSpeedup attention_speedup(const MixModel& model) {
  if (model.kernel_speedup_table) {
    // Each request's own speedup (replay_requests reads the table at its prompt).
    AttentionSpeedup out;
    out.prefill_per_request = applies_to_prefill(model.phase);
    out.decode_per_request = applies_to_decode(model.phase);
    return out;
  }
  const double s = model.kernel_speedup.value;
  return {applies_to_prefill(model.phase) ? s : 1.0, applies_to_decode(model.phase) ? s : 1.0};
}

void note_replayed_decode(std::vector<Warning>& warnings, const AttentionSpeedup& speedup) {
  if (!(speedup.decode != 1.0 || speedup.decode_per_request)) return;
  for (Warning& warning : warnings) {
    if (warning.code != WarningCode::requests_decode_share_missing) continue;
    warning.numbers.emplace_back("replay_decode_speedup",
                                 speedup.decode_per_request ? 0.0 : speedup.decode);
  }
}

namespace {

// The replayed request of one outcome.
ReplayRequest replay_request(const MixRun& run, const RequestOutcome& o, bool closed_loop) {
  ReplayRequest request{closed_loop ? 0.0 : o.arrival_s, std::max<std::int32_t>(1, o.prompt_tokens),
                        o.response_tokens, o.cached_tokens};
  if (const auto& table = run.model().kernel_speedup_table) {
    // The table at the request's prompt, as the chain reads it (MixRun::kernel_speedup_for).
    request.kernel_speedup =
        static_cast<float>(speedup_at(*table, static_cast<double>(o.prompt_tokens)).value);
  }
  return request;
}

// Whether the outcomes with an arrival time are in arrival order already (a log usually is):
// then the replay's order is the log's (a stable sort would not move them) and no index is
// needed.
bool arrivals_in_order(const RequestOutcomes& outcomes) {
  double last = -std::numeric_limits<double>::infinity();
  for (const RequestOutcome& o : outcomes) {
    if (std::isnan(o.arrival_s)) continue;
    if (o.arrival_s < last) return false;
    last = o.arrival_s;
  }
  return true;
}

// The replay's per-replica caches (replica_caches.hpp), their block ids still to add in the
// replay's order: null when the run kept no block ids.
std::shared_ptr<ReplayPrefixCaching> replay_caching_of(const MixRun& run) {
  const PrefixCacheOptions& cache = run.model().prefix_cache;
  if (cache.mode != PrefixCacheOptions::Mode::lru || !run.block_ids().any()) return nullptr;
  auto out = std::make_shared<ReplayPrefixCaching>();
  out->capacity_tokens = cache.capacity_tokens;
  out->block_tokens = cache.block_tokens;
  return out;
}

// The same with the block ids of the outcomes `index` names, in that order.
std::shared_ptr<const ReplayPrefixCaching> replay_caching_of(
    const MixRun& run, const std::vector<std::int32_t>& index) {
  std::shared_ptr<ReplayPrefixCaching> caching = replay_caching_of(run);
  if (caching) {
    for (const std::int32_t i : index)
      caching->blocks.add(run.block_ids().of(static_cast<std::size_t>(i)));
  }
  return caching;
}

// The replay of built requests, with its warnings. `caching` (null: none) gives the replicas
// their own prefix caches; the setup reported keeps no block ids.
MixReplay replay_built(const std::vector<ReplayRequest>& requests, std::int64_t logged,
                       const ServingSetup& setup, PerRequestReplay* per_request,
                       std::shared_ptr<const ReplayPrefixCaching> caching) {
  MixReplay out;
  out.setup = setup;
  out.requests = static_cast<std::int64_t>(requests.size());
  out.without_arrival = logged - out.requests;
  if (out.without_arrival > 0) {
    out.warnings.push_back(
        requests_warning(WarningCode::replay_without_arrival, out.without_arrival, "arrival"));
  }
  if (requests.empty()) return out;
  ServingSetup with_caches = setup;
  with_caches.arrivals.prefix_caching = std::move(caching);
  out.serving = replay_serving(requests, with_caches, per_request);
  const std::int64_t unschedulable = out.serving.before.totals.unschedulable;
  if (unschedulable > 0) {
    out.warnings.push_back(
        requests_warning(WarningCode::replay_unschedulable, unschedulable, "scheduler"));
  }
  for (const auto& [side, name] :
       {std::pair{&out.serving.before, "before"}, std::pair{&out.serving.after, "after"}}) {
    if (side->load >= kSaturationWarningLoad) {
      Warning warning;
      warning.code = WarningCode::replay_near_saturation;
      warning.input = name;
      warning.numbers.emplace_back("load", side->load);
      out.warnings.push_back(std::move(warning));
    }
  }
  return out;
}

}  // namespace

std::vector<ReplayRequest> replay_requests(const MixRun& run, bool closed_loop,
                                           std::vector<std::int32_t>& outcome_index) {
  const RequestOutcomes& outcomes = run.outcomes();
  outcome_index.clear();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (closed_loop || !std::isnan(outcomes[i].arrival_s)) {
      outcome_index.push_back(static_cast<std::int32_t>(i));
    }
  }
  if (!closed_loop) {
    std::stable_sort(outcome_index.begin(), outcome_index.end(),
                     [&outcomes](std::int32_t a, std::int32_t b) {
                       return outcomes[static_cast<std::size_t>(a)].arrival_s <
                              outcomes[static_cast<std::size_t>(b)].arrival_s;
                     });
  }
  std::vector<ReplayRequest> requests;
  requests.reserve(outcome_index.size());
  for (const std::int32_t i : outcome_index) {
    requests.push_back(replay_request(run, outcomes[static_cast<std::size_t>(i)], closed_loop));
  }
  return requests;
}

MixReplay replay_run(const MixRun& run, const ServingSetup& setup, PerRequestReplay* per_request,
                     std::vector<std::int32_t>* outcome_index) {
  const bool closed_loop = setup.arrivals.concurrency > 0;
  std::vector<std::int32_t> index;
  const std::vector<ReplayRequest> requests = replay_requests(run, closed_loop, index);
  MixReplay out = replay_built(requests, static_cast<std::int64_t>(run.outcomes().size()), setup,
                               per_request, replay_caching_of(run, index));
  if (outcome_index && !requests.empty()) *outcome_index = std::move(index);
  return out;
}

MixReplay replay_run_releasing(MixRun& run, const ServingSetup& setup) {
  const bool closed_loop = setup.arrivals.concurrency > 0;
  const RequestOutcomes& outcomes = run.outcomes();
  const auto logged = static_cast<std::int64_t>(outcomes.size());
  std::vector<ReplayRequest> requests;
  std::shared_ptr<const ReplayPrefixCaching> caching;
  if (closed_loop || arrivals_in_order(outcomes)) {
    std::shared_ptr<ReplayPrefixCaching> in_order = replay_caching_of(run);
    // Straight from the outcomes, without replay_requests' index (4 bytes a request), each
    // chunk of outcomes freed once its requests are built: the replay's 24 bytes a request
    // replace the outcomes' 80 instead of joining them.
    std::size_t count = 0;
    for (const RequestOutcome& o : outcomes)
      count += closed_loop || !std::isnan(o.arrival_s) ? 1U : 0U;
    requests.reserve(count);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      if (i % RequestOutcomes::kChunkOutcomes == 0) run.release_outcomes_before(i);
      const RequestOutcome& o = outcomes[i];
      if (closed_loop || !std::isnan(o.arrival_s)) {
        requests.push_back(replay_request(run, o, closed_loop));
        if (in_order) in_order->blocks.add(run.block_ids().of(i));
      }
    }
    caching = std::move(in_order);
  } else {
    std::vector<std::int32_t> index;
    requests = replay_requests(run, closed_loop, index);
    caching = replay_caching_of(run, index);
  }
  run.release_outcomes();
  run.release_block_ids();
  return replay_built(requests, logged, setup, nullptr, std::move(caching));
}

void price_by_step_model(MixModel& model, const CalibratedStepModel& step,
                         const EstimateOptions& given) {
  model.step_model = step;
  // Which latency the step model prices is latency_order.hpp's (make_mix_model keeps no latency
  // of the step model's own as a reference); what it replaces here are the scenario's shares.
  if (!given.decode_share) model.decode_share.reset();
  model.prefill_shares.clear();
  model.decode_shares.clear();
  model.share_origin = step.calibration;
}

}  // namespace kspeed::engine
