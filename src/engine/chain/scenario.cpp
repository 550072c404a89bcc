#include "kspeed/engine/chain/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "kspeed/engine/chain/analytic_share.hpp"
#include "kspeed/engine/chain/scenario_roofline.hpp"
#include "kspeed/engine/denominator.hpp"
#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/provenance_order.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// How the workload's request values were obtained: an illustrative request says so; otherwise
// as the workload obtained its figures (cited, or measured by kspeed profile).
Provenance request_origin(const Workload& workload) {
  return workload.request.illustrative ? Provenance::illustrative : workload.share_origin;
}

// The user's value, else the workload's request value (labelled with request_origin); nullopt
// when neither has one.
template <class T>
std::optional<WithProvenance<T>> given_or_workload(const std::optional<T>& given,
                                                   const std::optional<T>& from_workload,
                                                   const Workload& workload) {
  if (given) {
    return WithProvenance<T>{*given, Provenance::given};
  }
  if (from_workload) {
    return WithProvenance<T>{*from_workload, request_origin(workload)};
  }
  return std::nullopt;
}

// How the deployment schedules the request's prefill: --batch is the decode concurrency, and the
// prompt goes in the budget's chunks beside the other running decodes (issue 27), unless
// --prefill-batch asks for N prompts in one step.
PrefillScheduling prefill_scheduling(const EstimateOptions& options) {
  PrefillScheduling scheduling;
  scheduling.concurrency =
      options.platform ? static_cast<double>(options.platform->batch.value) : 1.0;
  scheduling.budget_tokens = static_cast<double>(options.step_token_budget.value);
  if (options.prefill_batch) {
    scheduling.prompts_together = static_cast<double>(*options.prefill_batch);
  }
  return scheduling;
}

// The deployment's latencies for the scenario's request: its prefill as the scheduler runs it
// (prefill_scheduling), its mean decode step beside `batch` - 1 others.
RequestLatency deployment_latency(const EstimateOptions& options, double prompt_tokens,
                                  double response_tokens) {
  return scheduled_request_latency(*options.step_model, prompt_tokens, response_tokens,
                                   prefill_scheduling(options));
}

// The provenance of an input the deployment's step model supplied for `phase`. A model
// calibrated on profiled steps measured only the phases its steps ran: a decode trace says
// nothing of prefill attention, so a prefill input of it is the roofline's (modelled). Likewise
// a fit to latencies moved only the phase it had points for: a file without a per-token time
// leaves the decode side modelled, never labelled fitted. And a fit keeps the weakest of what
// went into it: a model fitted to measured latencies whose attention coefficient stayed at the
// roofline's is, for that phase's attention, modelled.
Provenance deployment_provenance(const CalibratedStepModel& model, Phase phase) {
  const CoefficientOrigin& attention =
      phase == Phase::prefill ? model.origins.prefill_pair : model.origins.kv_token;
  if (model.calibration == Provenance::fitted) {
    const StepModelOrigins& o = model.origins;
    const auto is_fitted = [](const CoefficientOrigin& origin) {
      return origin.provenance == Provenance::fitted;
    };
    const bool moved =
        phase == Phase::prefill
            ? is_fitted(o.per_token) || is_fitted(o.prefill_pair) || is_fitted(o.request_overhead)
            : is_fitted(o.weights) || is_fitted(o.kv_token) || is_fitted(o.per_sequence);
    return moved ? weakest(Provenance::fitted, attention.provenance) : Provenance::modelled;
  }
  if (model.calibration != Provenance::measured) {
    return weakest(model.calibration, attention.provenance);
  }
  return attention.provenance == Provenance::measured ? Provenance::measured : Provenance::modelled;
}

// A prefill attention cost calibrated on profiled prefill steps holds at their prompt lengths;
// elsewhere it is extrapolated with the causal pairs (issue 27: one 888-token step at 44× the
// roofline's cost set a 32K prompt's TTFT).
bool prefill_calibration_extrapolated(const CalibratedStepModel& model, double prompt_tokens) {
  if (!model.prefill_attention_range || model.calibration != Provenance::measured) return false;
  const CalibratedStepModel::CalibratedRange& range = *model.prefill_attention_range;
  return range.steps > 0 &&
         (prompt_tokens < range.min_tokens * 0.99 || prompt_tokens > range.max_tokens * 1.01);
}

// deployment_provenance for prefill at this prompt: extrapolated outside the calibrated range.
Provenance deployment_prefill_provenance(const CalibratedStepModel& model, double prompt_tokens) {
  const Provenance provenance = deployment_provenance(model, Phase::prefill);
  return prefill_calibration_extrapolated(model, prompt_tokens)
             ? weakest(provenance, Provenance::extrapolated)
             : provenance;
}

// A share of the step's own time, for a phase whose latency is the step's (the deployment's
// TTFT or TPOT), or converted to a share of the wall latency the user gave (--ttft, --tpot):
// the step's attention time over that latency (denominator.hpp).
double deployment_share(double attention_ms, double step_ms, const std::optional<double>& wall_ms) {
  const Share<TimeBase::busy> of_step =
      share_of(Time<TimeBase::busy>{attention_ms}, Time<TimeBase::busy>{step_ms});
  if (!wall_ms) return of_step.fraction;
  return convert_share(of_step, Time<TimeBase::busy>{step_ms}, Time<TimeBase::wall>{*wall_ms})
      .fraction;
}

// The share of prefill's GPU time (TTFT minus its fixed term) that attention takes in the
// deployment's prefill step; of the given TTFT when --ttft gives it.
WithProvenance<double> deployment_prefill_share(const EstimateOptions& options,
                                                double prompt_tokens, double response_tokens) {
  const StepTime step = deployment_latency(options, prompt_tokens, response_tokens).prefill_step;
  return {deployment_share(step.prefill_attention_ms, step.gpu_ms(), options.ttft_ms),
          deployment_prefill_provenance(*options.step_model, prompt_tokens)};
}

// A workload that measured decode and nothing of prefill (no prefill table, no TTFT): what a
// profile of decode steps emits.
bool decode_only(const Workload& workload) {
  return workload.prefill_shares.empty() && !workload.request.ttft_ms &&
         workload.request.ttft_points.empty() && !workload.decode_shares.empty();
}

// The phase the change targets: the user's, else decode for a decode-only workload that the
// user did not complete with a prefill share or TTFT, else the command line's default.
Phase resolved_phase(const Workload& workload, const EstimateOptions& options) {
  if (!options.phase_given && decode_only(workload) && !options.prefill_share && !options.ttft_ms) {
    return Phase::decode;
  }
  return options.phase;
}

// The request's prefill is set aside (TTFT and its share 0) when decode is targeted and nothing
// of prefill is known: the request is then its decode steps, and a warning says so.
bool prefill_set_aside(const Workload& workload, const EstimateOptions& options, Phase phase) {
  return phase == Phase::decode && workload.prefill_shares.empty() && !workload.request.ttft_ms &&
         workload.request.ttft_points.empty() && !options.prefill_share && !options.ttft_ms &&
         options.ttft_points.empty() && !options.step_model;
}

// Every input the estimate needs that neither the command line nor the workload gives, listed
// in one error so that one run says all that is missing.
void check_nothing_missing(const Workload& workload, const EstimateOptions& options,
                           const Scenario& scenario, bool prefill_aside) {
  const RequestShape& request = workload.request;
  std::vector<std::string> missing;
  const auto need = [&missing](bool present, const std::string& what) {
    if (!present) missing.push_back(what);
  };
  need(options.prompt_tokens || request.prompt_tokens,
       "request.prompt_tokens (" + flag_mark("ctx") + " N)");
  const std::optional<std::int64_t> response =
      options.response_tokens ? options.response_tokens : request.response_tokens;
  need(response.has_value(), "request.response_tokens (" + flag_mark("response-tokens") + " N)");
  // A one-token response has no decode step, so no TPOT to apply a share to.
  const bool deployment = options.step_model.has_value();
  need(options.tpot_ms || !options.tpot_points.empty() || request.tpot_ms || response == 1 ||
           deployment,
       "request.tpot_ms (" + flag_mark("tpot") + " D)");
  if (!prefill_aside) {
    need(options.prefill_share || !workload.prefill_shares.empty() ||
             options.share_model == ShareModel::analytic || deployment,
         "attention_share.prefill (" + flag_mark("share") + " P)");
    need(options.ttft_ms || request.ttft_ms || !options.ttft_points.empty() ||
             !request.ttft_points.empty() || deployment,
         "request.ttft_ms (" + flag_mark("ttft") + " D)");
  }
  // A missing decode share alone keeps its own error (after the roofline: levers without a
  // model is the clearer one); with other gaps it is listed with them.
  const bool decode_share_missing = scenario.phase != Phase::prefill && !options.decode_share &&
                                    workload.decode_shares.empty() && !options.platform;
  if (missing.empty()) return;
  if (decode_share_missing) {
    missing.push_back("attention_share.decode (" + flag_mark("decode-share") + " P, or " +
                      flag_mark("model") + " and " + flag_mark("gpu") + " to model it)");
  }
  if (missing.size() == 1) {
    throw InputError("workload '" + workload.name + "' lacks " + missing.front() +
                     ": pass the flag, or add the field to the workload");
  }
  std::string list;
  for (const std::string& item : missing) list += (list.empty() ? "" : "; ") + item;
  throw InputError("workload '" + workload.name + "' lacks " +
                   count_mark(static_cast<long long>(missing.size())) +
                   " inputs this estimate needs: " + list +
                   ": pass the flags, or add the fields to the workload");
}

Warning outside_table_warning(Phase phase, const std::vector<SharePoint>& table,
                              double context_tokens, const ShareLookup& lookup) {
  const bool below = context_tokens < table.front().context_tokens;
  const SharePoint& edge = below ? table.front() : table.back();
  Warning warning;
  warning.code = lookup.source == Provenance::clamped ? WarningCode::share_clamped
                                                      : WarningCode::share_extrapolated;
  warning.phase = phase;
  warning.input = std::string(to_string(phase)) + "_share_table";
  warning.numbers = {{"context_tokens", context_tokens},
                     {"edge_context_tokens", edge.context_tokens},
                     {"below_table", below ? 1.0 : 0.0},
                     {"share", lookup.source == Provenance::clamped ? edge.share : lookup.share}};
  return warning;
}

// The share the table gives at `context`, recording a warning when it lies outside the table.
ShareLookup lookup_share(Phase phase, const std::vector<SharePoint>& table, double context_tokens,
                         Extrapolation extrapolation, std::vector<Warning>& warnings) {
  const ShareLookup lookup = share_at(table, context_tokens, extrapolation);
  if (lookup.source == Provenance::clamped || lookup.source == Provenance::extrapolated) {
    warnings.push_back(outside_table_warning(phase, table, context_tokens, lookup));
  }
  return lookup;
}

// A share read exactly off a table point is as good as the table: "measured" for a workload that
// kspeed profile wrote, "workload" for one that cites its source.
Provenance table_point_source(const Workload& workload, Provenance lookup_source) {
  return lookup_source == Provenance::workload ? workload.share_origin : lookup_source;
}

// --share-model analytic|calibrated: p(L) = A / (A + G) from the model's shapes, calibrated
// onto the workload's table by one odds factor (analytic_share.hpp).
WithProvenance<double> modelled_prefill_share(const Workload& workload,
                                              const EstimateOptions& options,
                                              double prompt_tokens) {
  if (!options.platform || !options.platform->model.value.shapes) {
    throw InputError(flag_mark("share-model") +
                     " computes the prefill share from the model's shapes: pass " +
                     flag_mark("model") + " NAME (a built-in or a config.json) and " +
                     flag_mark("gpu") + " NAME");
  }
  const ModelArch& model = options.platform->model.value;
  if (options.share_model == ShareModel::analytic) {
    return {analytic_prefill_share(model, *model.shapes, prompt_tokens), Provenance::modelled};
  }
  if (workload.prefill_shares.empty()) {
    throw InputError(flag_mark("share-model") +
                     " calibrated fits the analytic curve to the "
                     "workload's prefill share table, and workload '" +
                     workload.name + "' has none: use " + flag_mark("share-model") + " analytic");
  }
  const ShareCalibration calibration =
      calibrate_share(model, *model.shapes, workload.prefill_shares);
  return {calibrated_prefill_share(model, *model.shapes, prompt_tokens, calibration),
          Provenance::modelled};
}

WithProvenance<double> resolve_prefill_share(const Workload& workload,
                                             const EstimateOptions& options, double prompt_tokens,
                                             double response_tokens,
                                             std::vector<Warning>& warnings) {
  if (options.prefill_share) {
    return {*options.prefill_share, Provenance::given};
  }
  if (options.share_model != ShareModel::table) {
    return modelled_prefill_share(workload, options, prompt_tokens);
  }
  if (workload.prefill_shares.empty() && options.step_model) {
    return deployment_prefill_share(options, prompt_tokens, response_tokens);
  }
  if (workload.prefill_shares.empty()) {
    throw InputError(
        "workload '" + workload.name +
        ("' has no prefill attention share table: pass " + flag_mark("share") +
         " P (for example ") +
        (flag_mark("share") + " 0.18), or add attention_share.prefill to the workload"));
  }
  const ShareLookup lookup = lookup_share(Phase::prefill, workload.prefill_shares, prompt_tokens,
                                          options.extrapolation, warnings);
  return {lookup.share, table_point_source(workload, lookup.source)};
}

constexpr std::int64_t kExactDecodeSteps = 1 << 16;

// Decode attention's share over the response: the context grows by one token per step, and each
// step lasts one TPOT, so the time-weighted share is the mean of the per-step shares.
WithProvenance<double> decode_share_over_response(const std::vector<SharePoint>& table,
                                                  double prompt_tokens, double response_tokens,
                                                  Extrapolation extrapolation,
                                                  std::vector<Warning>& warnings) {
  const auto steps = static_cast<std::int64_t>(std::max(1.0, response_tokens - 1.0));
  // Every step up to kExactDecodeSteps; beyond, the midpoint of each of kExactDecodeSteps equal
  // runs of steps. The share is smooth and monotone between table points, so the midpoint rule's
  // error is far below the table's own, and a 100M-token response stays milliseconds.
  const std::int64_t samples = std::min(steps, kExactDecodeSteps);
  const double stride = static_cast<double>(steps) / static_cast<double>(samples);
  double sum = 0;
  Provenance source = Provenance::workload;
  for (std::int64_t sample = 0; sample < samples; ++sample) {
    const double step = samples == steps ? static_cast<double>(sample + 1)
                                         : (static_cast<double>(sample) + 0.5) * stride + 0.5;
    const ShareLookup lookup = share_at(table, prompt_tokens + step, extrapolation);
    sum += lookup.share;
    if (lookup.source != Provenance::workload) {
      source = lookup.source;
    }
  }
  // One warning at the context where the response ends, not one per step.
  if (source == Provenance::clamped || source == Provenance::extrapolated) {
    const double last = prompt_tokens + static_cast<double>(steps);
    const double probe = last > table.back().context_tokens ? last : prompt_tokens + 1.0;
    lookup_share(Phase::decode, table, probe, extrapolation, warnings);
  }
  return {sum / static_cast<double>(samples), source};
}

std::optional<WithProvenance<double>> resolve_decode_share(const Workload& workload,
                                                           const EstimateOptions& options,
                                                           double prompt_tokens,
                                                           double response_tokens,
                                                           std::vector<Warning>& warnings) {
  if (options.decode_share) {
    return WithProvenance<double>{*options.decode_share, Provenance::given};
  }
  if (workload.decode_shares.empty() && options.step_model) {
    // The mean decode step of the response (its KV read grows linearly, so the mean step is the
    // step at the mean context): attention's share of its whole time.
    // A wall TPOT (--tpot) is per output token; the step emits τ of them, so the step's wall
    // time is τ · TPOT.
    const RequestLatency latency = deployment_latency(options, prompt_tokens, response_tokens);
    const StepTime& step = latency.decode_step;
    const std::optional<double> step_wall_ms =
        options.tpot_ms ? std::optional<double>(*options.tpot_ms * latency.mean_accepted)
                        : std::nullopt;
    return WithProvenance<double>{
        deployment_share(step.attention_ms(), step.total_ms(), step_wall_ms),
        deployment_provenance(*options.step_model, Phase::decode)};
  }
  if (workload.decode_shares.empty()) {
    return modelled_decode_share(options, prompt_tokens, response_tokens);  // nullopt: no model
  }
  WithProvenance<double> share = decode_share_over_response(
      workload.decode_shares, prompt_tokens, response_tokens, options.extrapolation, warnings);
  share.provenance = table_point_source(workload, share.provenance);
  return share;
}

// TTFT(L) = (1 - p(L_ref)) * TTFT_ref * (L / L_ref) / (1 - p(L)): non-attention time grows with
// the tokens, and attention is whatever share the table gives at the new length. This is the
// one-point fit of MODEL.md 4 (T0 = 0): TTFT_ref · x(L) / x(L_ref), x = L · (1 + odds(L)).
double scaled_ttft_ms(const Workload& workload, const EstimateOptions& options,
                      double prompt_tokens, double share_at_prompt) {
  const auto reference_tokens = static_cast<double>(*workload.request.prompt_tokens);
  const double share_at_reference =
      share_at(workload.prefill_shares, reference_tokens, options.extrapolation).share;
  return (1.0 - share_at_reference) * *workload.request.ttft_ms *
         (prompt_tokens / reference_tokens) / (1.0 - share_at_prompt);
}

// One point fixes a with T0 = 0, and T0 is unknown: anywhere in [0, TTFT_ref). Since
// TTFT(L) = T0 + (TTFT_ref - T0) · x(L) / x(L_ref), the answer lies between TTFT_ref (T0 near
// TTFT_ref) and the T0 = 0 value; the warning carries that range.
Warning one_point_warning(double reference_ttft_ms, double reference_tokens, double prompt_tokens,
                          double ttft_ms) {
  Warning warning;
  warning.code = WarningCode::ttft_scaled;
  warning.input = "ttft";
  warning.numbers = {{"reference_ttft_ms", reference_ttft_ms},
                     {"reference_prompt_tokens", reference_tokens},
                     {"prompt_tokens", prompt_tokens},
                     {"range_low_ms", std::min(reference_ttft_ms, ttft_ms)},
                     {"range_high_ms", std::max(reference_ttft_ms, ttft_ms)}};
  return warning;
}

// 12 -> "12": a key suffix (the engine formats no numbers for people; wording.cpp does).
std::string decimal_digits(std::size_t value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + value % 10));
    value /= 10;
  } while (value > 0);
  return digits;
}

// Says which measured points TTFT was fitted to and what the fit gave (a note: the user chose
// nothing); with the workload's points it also says that its illustrative TTFT is not one.
Warning fitted_note(const Workload& workload, const TtftModel& model,
                    const std::vector<LatencyPoint>& points, bool given) {
  Warning note;
  note.code = WarningCode::ttft_fitted;
  note.input = "ttft";
  note.numbers = {{"fixed_ms", model.fixed_ms},
                  {"ms_per_token", model.ms_per_token},
                  {"rms_residual_ms", model.rms_residual_ms},
                  {"points_given", given ? 1.0 : 0.0}};
  if (!given && workload.request.ttft_ms && workload.request.prompt_tokens) {
    note.numbers.emplace_back("illustrative_ttft_ms", *workload.request.ttft_ms);
    note.numbers.emplace_back("illustrative_prompt_tokens",
                              static_cast<double>(*workload.request.prompt_tokens));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {  // point_1_tokens, point_1_ms, ...
    const std::string key = "point_" + decimal_digits(i + 1);
    note.numbers.emplace_back(key + "_tokens", points[i].context_tokens);
    note.numbers.emplace_back(key + "_ms", points[i].latency_ms);
  }
  note.numbers.emplace_back("points", static_cast<double>(points.size()));
  if (!given && !workload.request.ttft_points_conditions.empty()) {
    note.names = {{"conditions", workload.request.ttft_points_conditions}};
  }
  return note;
}

// TTFT from measured points (--ttft-point, else the workload's request.ttft_points): the measured
// value at a measured length, else TTFT(L) = T0 + a·L·(1 + odds(L)) fitted to them. The fit's
// T0 is the fixed term of the chain's TTFT level.
WithProvenance<double> ttft_from_points(const Workload& workload, const EstimateOptions& options,
                                        std::int64_t prompt_tokens, Scenario& scenario) {
  const bool given = !options.ttft_points.empty();
  const std::vector<LatencyPoint>& points =
      given ? options.ttft_points : workload.request.ttft_points;
  if (workload.prefill_shares.empty() && !options.prefill_share) {
    throw InputError(
        "TTFT points need a prefill share to fit TTFT = T0 + a·L·(1 + odds(L)): "
        "workload '" +
        workload.name + "' has no prefill share table; pass " + flag_mark("share") + " P, or " +
        flag_mark("ttft") + " D measured at this prompt length");
  }
  // odds(L) from the workload's table; --share holds it at every length
  const std::vector<SharePoint> shares = options.prefill_share
                                             ? std::vector<SharePoint>{{1, *options.prefill_share}}
                                             : workload.prefill_shares;
  const TtftModel model = fit_ttft(points, shares, options.extrapolation);
  scenario.ttft_model = model;
  scenario.ttft_points = points;
  if (model.fixed_ms > 0) {
    scenario.ttft_fixed_ms = WithProvenance<double>{model.fixed_ms, Provenance::fitted};
  }
  const auto length = static_cast<double>(prompt_tokens);
  const TtftAt at = ttft_at(model, length);
  if (model.fit == TtftFit::one_point) {
    if (points.front().context_tokens != length) {
      scenario.warnings.push_back(one_point_warning(
          points.front().latency_ms, points.front().context_tokens, length, at.ttft_ms));
    }
  } else {
    scenario.notes.push_back(fitted_note(workload, model, points, given));
  }
  for (const LatencyPoint& point : points) {
    if (point.context_tokens == length) {
      return {point.latency_ms, given ? Provenance::given : workload.share_origin};
    }
  }
  return {at.ttft_ms, model.fit == TtftFit::one_point ? Provenance::scaled : Provenance::fitted};
}

// TTFT from the deployment: the request overhead + the prefill step; the overhead and the step's
// fixed cost are TTFT's fixed term (no kernel touches them).
WithProvenance<double> deployment_ttft(const EstimateOptions& options, std::int64_t prompt_tokens,
                                       Scenario& scenario) {
  const RequestLatency latency =
      deployment_latency(options, static_cast<double>(prompt_tokens),
                         static_cast<double>(scenario.response_tokens.value));
  const double fixed = latency.overhead_ms + latency.prefill_step.fixed_ms;
  if (fixed > 0) {
    // No stronger than its parts: a trace measures the steps, not the request overhead, which
    // then stays the prior's default.
    const StepModelOrigins& origins = options.step_model->origins;
    Provenance provenance = options.step_model->calibration;
    if (latency.overhead_ms > 0) {
      provenance = weakest(provenance, origins.request_overhead.provenance);
    }
    if (latency.prefill_step.fixed_ms > 0) {
      provenance = weakest(provenance, origins.fixed.provenance);
    }
    scenario.ttft_fixed_ms = WithProvenance<double>{fixed, provenance};
  }
  scenario.deployment_inputs.emplace_back("ttft");
  return {latency.ttft_ms(),
          deployment_prefill_provenance(*options.step_model, static_cast<double>(prompt_tokens))};
}

// What this one request's TTFT could come from, for latency_source. The request is the
// workload's reference request when its prompt is the reference's (is_reference_request): the
// user gave no prompt, or gave the reference's length and the workload has no points to disagree.
LatencyCandidates ttft_candidates(const Workload& workload, const EstimateOptions& options,
                                  const WithProvenance<std::int64_t>& prompt_tokens) {
  const RequestShape& reference = workload.request;
  LatencyCandidates candidates;
  candidates.given_here = options.ttft_ms.has_value();
  candidates.points = !options.ttft_points.empty() || !reference.ttft_points.empty();
  candidates.reference = reference.ttft_ms && reference.prompt_tokens;
  candidates.reference_here =
      candidates.reference &&
      is_reference_request(prompt_tokens.value == *reference.prompt_tokens, true,
                           prompt_tokens.provenance == Provenance::given,
                           !options.ttft_points.empty(), !reference.ttft_points.empty());
  candidates.reference_illustrative = reference.illustrative;
  candidates.step_model = options.step_model.has_value();
  return candidates;
}

// TTFT from the source latency_source chose (latency_order.hpp); the reference is the workload's
// own TTFT at its own prompt (for the built-in workload, the source analysis's illustrative 500 ms
// at 1,024 tokens, MODEL.md 2), with no fixed term, as the source has none.
WithProvenance<double> resolve_ttft(const Workload& workload, const EstimateOptions& options,
                                    const WithProvenance<std::int64_t>& prompt_tokens,
                                    const WithProvenance<double>& prefill_share,
                                    Scenario& scenario) {
  const RequestShape& reference = workload.request;
  const LatencyCandidates candidates = ttft_candidates(workload, options, prompt_tokens);
  scenario.ttft_source = latency_source(candidates);
  switch (scenario.ttft_source) {
    case LatencySource::given:
      if (!options.ttft_points.empty()) {  // the user's points: their T0 is TTFT's fixed term
        (void)ttft_from_points(workload, options, prompt_tokens.value, scenario);
      }
      return {*options.ttft_ms, Provenance::given};
    case LatencySource::reference:
      return {*reference.ttft_ms, request_origin(workload)};
    case LatencySource::fitted:
      return ttft_from_points(workload, options, prompt_tokens.value, scenario);
    case LatencySource::modelled:
      return deployment_ttft(options, prompt_tokens.value, scenario);
    case LatencySource::scaled:
      break;
    default:  // missing (measured: a log's, never an estimate's)
      throw InputError("workload '" + workload.name +
                       ("' has no reference TTFT to scale from: pass " + flag_mark("ttft") + " D"));
  }
  if (workload.prefill_shares.empty() || prefill_share.value >= 1.0) {
    throw InputError(
        "cannot scale TTFT to a prompt of " + count_mark(prompt_tokens.value) +
        " tokens without a share below 1 at " +
        ("both lengths: pass " + flag_mark("ttft") + " D measured at this prompt length"));
  }
  const double ttft = scaled_ttft_ms(workload, options, static_cast<double>(prompt_tokens.value),
                                     prefill_share.value);
  scenario.warnings.push_back(one_point_warning(*reference.ttft_ms,
                                                static_cast<double>(*reference.prompt_tokens),
                                                static_cast<double>(prompt_tokens.value), ttft));
  return {ttft, weakest(Provenance::scaled, request_origin(workload))};
}

// --ttft-overhead replaces the fitted fixed term (0: none). It is part of TTFT: below it.
void resolve_fixed_term(const EstimateOptions& options, Scenario& scenario) {
  if (options.ttft_overhead_ms) {
    scenario.ttft_fixed_ms.reset();
    if (*options.ttft_overhead_ms > 0) {
      scenario.ttft_fixed_ms = WithProvenance<double>{*options.ttft_overhead_ms, Provenance::given};
    }
  }
  if (!scenario.ttft_fixed_ms) {
    return;
  }
  const double fixed = scenario.ttft_fixed_ms->value;
  if (!(fixed < scenario.ttft_ms.value)) {
    throw InputError(
        "TTFT's fixed term " + number_mark(fixed) + " ms (" +
        (scenario.ttft_fixed_ms->provenance == Provenance::given
             ? flag_mark("ttft-overhead")
             : std::string("fitted to the TTFT points")) +
        ") is not below TTFT " + number_mark(scenario.ttft_ms.value) +
        " ms at this prompt length: the fixed term is the part of TTFT no kernel touches; give " +
        flag_mark("ttft-overhead") + " D below TTFT (the scheduling, transfer and idle time " +
        "measured within prefill)");
  }
}

// The workload's own prompt (no --ctx) below its prefill table: the user chose nothing, and the
// source analysis reads its first point (4K) for short prompts too. A note, not a warning.
void note_default_prompt(Scenario& scenario) {
  if (scenario.prompt_tokens.provenance == Provenance::given) {
    return;
  }
  auto& warnings = scenario.warnings;
  const auto clamped_below = std::find_if(warnings.begin(), warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::share_clamped && w.phase == Phase::prefill &&
           w.number("below_table") != 0;
  });
  if (clamped_below == warnings.end()) {
    return;
  }
  Warning note = *clamped_below;
  note.code = WarningCode::default_prompt_below_table;
  scenario.notes.push_back(std::move(note));
  warnings.erase(clamped_below);
}

// Says which measured points TPOT was fitted to and what the fit gave (a note: the user chose
// the points, the fit chose c and b).
Warning tpot_fitted_note(const TpotModel& model, const std::vector<LatencyPoint>& points) {
  Warning note;
  note.code = WarningCode::tpot_fitted;
  note.input = "tpot";
  note.numbers = {{"c_ms", model.fixed_ms},
                  {"ms_per_token", model.ms_per_token},
                  {"rms_residual_ms", model.rms_residual_ms},
                  {"c_held_at_zero", model.fit == TpotFit::least_squares_no_c ? 1.0 : 0.0}};
  for (std::size_t i = 0; i < points.size(); ++i) {  // point_1_tokens, point_1_ms, ...
    const std::string key = "point_" + decimal_digits(i + 1);
    note.numbers.emplace_back(key + "_tokens", points[i].context_tokens);
    note.numbers.emplace_back(key + "_ms", points[i].latency_ms);
  }
  note.numbers.emplace_back("points", static_cast<double>(points.size()));
  return note;
}

// Two or more --tpot-point: TPOT(L) = c + b·L fitted to them, at the scenario's context (the
// measured value at a measured length).
WithProvenance<double> tpot_from_points(const std::vector<LatencyPoint>& points,
                                        std::int64_t context_tokens, Scenario& scenario) {
  const TpotModel model = fit_tpot(points);
  scenario.notes.push_back(tpot_fitted_note(model, points));
  const auto length = static_cast<double>(context_tokens);
  for (const LatencyPoint& point : points) {
    if (point.context_tokens == length) return {point.latency_ms, Provenance::given};
  }
  return {tpot_fitted_at(model, length), Provenance::fitted};
}

// What this one request's TPOT could come from, for latency_source: --tpot; one --tpot-point
// (at this context, or carried to it); two or more, fitted; the workload's TPOT (its own
// request's at its prompt, else carried here); the deployment's step model.
LatencyCandidates tpot_candidates(const Workload& workload, const EstimateOptions& options,
                                  const WithProvenance<std::int64_t>& prompt_tokens) {
  const RequestShape& reference = workload.request;
  const std::vector<LatencyPoint>& points = options.tpot_points;
  const bool one_point_here = points.size() == 1 && points.front().context_tokens ==
                                                        static_cast<double>(prompt_tokens.value);
  LatencyCandidates candidates;
  candidates.given_here = options.tpot_ms.has_value() || one_point_here;
  candidates.given_elsewhere = points.size() == 1 && !one_point_here;
  candidates.points = points.size() >= 2;
  candidates.reference = reference.tpot_ms.has_value();
  // A workload TPOT without its prompt has no context to carry it from: it is taken as is.
  candidates.reference_here =
      candidates.reference &&
      is_reference_request(
          !reference.prompt_tokens || prompt_tokens.value == *reference.prompt_tokens, true,
          prompt_tokens.provenance == Provenance::given, !points.empty(), false);
  candidates.reference_illustrative = reference.illustrative;
  candidates.step_model = options.step_model.has_value();
  return candidates;
}

// TPOT from the source latency_source chose, where it needs no platform (given, the workload's
// own, the step model's, none); fitted and carried TPOTs wait for the platform
// (carry_tpot_to_context).
void resolve_tpot(const Workload& workload, const EstimateOptions& options, Scenario& scenario) {
  scenario.tpot_source = latency_source(tpot_candidates(workload, options, scenario.prompt_tokens));
  scenario.tpot_ms = {0.0, Provenance::default_value};
  switch (scenario.tpot_source) {
    case LatencySource::given:
      // --tpot, else the one --tpot-point at this context (fit_tpot checks it)
      scenario.tpot_ms = {
          options.tpot_ms ? *options.tpot_ms : fit_tpot(options.tpot_points).fixed_ms,
          Provenance::given};
      break;
    case LatencySource::reference:
      scenario.tpot_ms = {*workload.request.tpot_ms, request_origin(workload)};
      break;
    case LatencySource::modelled:
      scenario.tpot_ms = {
          deployment_latency(options, static_cast<double>(scenario.prompt_tokens.value),
                             static_cast<double>(scenario.response_tokens.value))
              .tpot_ms(),
          deployment_provenance(*options.step_model, Phase::decode)};
      scenario.deployment_inputs.emplace_back("tpot");
      break;
    default:  // fitted and scaled: carry_tpot_to_context; missing: none
      break;
  }
  scenario.tpot_from_workload =
      scenario.tpot_source == LatencySource::reference ||
      (scenario.tpot_source == LatencySource::scaled && options.tpot_points.empty());
}

// Decode reads a KV cache that grows with the context: two or more --tpot-point fit TPOT(L) =
// c + b·L; a TPOT measured at one context (one --tpot-point, else the workload's own prompt)
// follows --ctx through the decode model (with a platform), else through the workload's decode
// share (TPOT(L) = TPOT0 · ((1 - pd) + pd · L / L0)), else it is held, with a warning.
void carry_tpot_to_context(const Workload& workload, const EstimateOptions& options,
                           Scenario& scenario) {
  if (scenario.tpot_source == LatencySource::fitted) {
    scenario.tpot_ms =
        tpot_from_points(options.tpot_points, scenario.prompt_tokens.value, scenario);
    return;
  }
  if (scenario.tpot_source != LatencySource::scaled) return;
  // TPOT0 measured at context L0: the one --tpot-point, else the workload's TPOT at its prompt.
  const bool point = !options.tpot_points.empty();
  const double tpot0 = point ? fit_tpot(options.tpot_points).fixed_ms : *workload.request.tpot_ms;
  const Provenance provenance = point ? Provenance::given : request_origin(workload);
  const auto l0 = point ? options.tpot_points.front().context_tokens
                        : static_cast<double>(*workload.request.prompt_tokens);
  const auto l = static_cast<double>(scenario.prompt_tokens.value);
  scenario.tpot_ms = {tpot0, provenance};
  if (scenario.platform) {
    scenario.tpot_ms = {
        tpot_scaled_by_decode_model(*scenario.platform, tpot0, static_cast<std::int64_t>(l0),
                                    scenario.prompt_tokens.value)
            .tpot_ms,
        weakest(Provenance::scaled, provenance)};
    return;
  }
  if (!workload.decode_shares.empty()) {
    const double pd = share_at(workload.decode_shares, l0, options.extrapolation).share;
    scenario.tpot_ms = {tpot_scaled_by_share(tpot0, l0, pd, l).tpot_ms,
                        weakest(Provenance::scaled, provenance)};
    return;
  }
  // A warning, not a note: decode reads a KV cache that grew with the context, so the held TPOT
  // is low by an unknown amount, and the user can act on it (--tpot, or --model and --gpu).
  Warning held;
  held.code = WarningCode::tpot_held;
  held.input = "tpot";
  held.numbers = {{"tpot_ms", tpot0}, {"reference_prompt_tokens", l0}, {"prompt_tokens", l}};
  scenario.warnings.push_back(std::move(held));
}

// "Llama-3.1-70B-Instruct" -> "llama3170binstruct": names compared by letters and digits only.
std::string model_key(const std::string& name) {
  std::string key;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return key;
}

// A share table measured on one model says little about another: say so when the workload's
// stated model and --model name different models and a share came from the workload's table.
void warn_on_model_mismatch(const Workload& workload, Scenario& scenario) {
  const auto stated = std::find_if(workload.conditions.begin(), workload.conditions.end(),
                                   [](const auto& entry) { return entry.first == "model"; });
  if (!scenario.platform || stated == workload.conditions.end()) {
    return;
  }
  const auto from_table = [](const WithProvenance<double>& share) {
    return share.provenance == Provenance::workload || share.provenance == Provenance::measured ||
           share.provenance == Provenance::interpolated ||
           share.provenance == Provenance::clamped ||
           share.provenance == Provenance::extrapolated ||
           share.provenance == Provenance::converted;
  };
  // Only a share that moves the answer counts: one of a phase the change applies to.
  const bool uses_table = (scenario.phase != Phase::decode && from_table(scenario.prefill_share)) ||
                          (scenario.phase != Phase::prefill && scenario.decode_share &&
                           from_table(*scenario.decode_share));
  // The workload's TTFT or TPOT is a latency of its model's deployment, not of --model's.
  const bool uses_latency = (scenario.ttft_from_workload && scenario.ttft_ms.value > 0) ||
                            (scenario.tpot_from_workload && scenario.response_tokens.value > 1);
  const std::string workload_model = model_key(stated->second);
  const std::string platform_model = model_key(scenario.platform->model.value.name);
  if ((!uses_table && !uses_latency) || workload_model.find(platform_model) != std::string::npos ||
      platform_model.find(workload_model) != std::string::npos) {
    return;
  }
  Warning warning;
  warning.code = WarningCode::share_model_mismatch;
  warning.input = "model";
  warning.names = {{"workload", workload.name},
                   {"workload_model", stated->second},
                   {"model", scenario.platform->model.value.name}};
  warning.numbers = {{"shares", uses_table ? 1.0 : 0.0}, {"latencies", uses_latency ? 1.0 : 0.0}};
  scenario.warnings.push_back(std::move(warning));
}

// A kernel-time or busy-time share is a fraction of the GPU part of a step. The workload's own
// TTFT and TPOT are under that denominator (kspeed profile writes them so), but a latency typed
// on the command line (--ttft, --tpot) is a wall time, idle gaps included, and need not be the
// trace's. What the trace measured is attention's time in the step; that time is what a kernel
// speedup acts on, whatever latency the user gives (issue 27: attention time is conserved):
//   attention ms = share x denominator time (kernel-time: x kernel_ms; busy-time: x busy_ms)
//   share of the given latency = attention ms / latency
// Without the step's times the workload cannot say, and the estimate is refused.
const MeasuredStep* measured_step_of(const Workload& workload, Phase phase) {
  for (const MeasuredStep& step : workload.measured_steps) {
    if (step.phase == phase && step.wall_ms > 0) return &step;
  }
  return nullptr;
}

bool from_workload_table(const WithProvenance<double>& share) {
  return share.provenance != Provenance::given && share.provenance != Provenance::default_value &&
         share.provenance != Provenance::modelled;
}

// The part of each phase's latency its share stands for (prefill: TTFT's GPU part, TTFT less
// its fixed term; decode: one TPOT).
double phase_latency_ms(const Scenario& scenario, Phase phase) {
  if (phase == Phase::decode) return scenario.tpot_ms.value;
  return scenario.ttft_ms.value - (scenario.ttft_fixed_ms ? scenario.ttft_fixed_ms->value : 0.0);
}

void convert_to_wall_share(const Workload& workload, Phase phase, const std::string& latency_flag,
                           double latency_ms, WithProvenance<double>& share,
                           std::vector<Warning>& warnings) {
  const MeasuredStep* step = measured_step_of(workload, phase);
  const bool kernel_time = workload.share_denominator == "kernel-time";
  const double gpu_ms = step == nullptr ? 0.0 : kernel_time ? step->kernel_ms : step->busy_ms;
  const std::string share_flag = phase == Phase::prefill ? "share" : "decode-share";
  if (step == nullptr || gpu_ms <= 0) {
    throw InputError(
        "workload '" + workload.name + "' measured its " + std::string(to_string(phase)) +
        " share against " + workload.share_denominator + " (a fraction of the GPU's time), but " +
        flag_mark(latency_flag) + " is a wall time, and the workload carries no " +
        std::string(to_string(phase)) + " step wall time (measured_steps) to convert the share " +
        "with: profile with `kspeed profile " + flag_mark("denominator") + " wall-time " +
        flag_mark("emit-workload") + " FILE`, pass the share of wall time with " +
        flag_mark(share_flag) + " P, or leave out " + flag_mark(latency_flag) +
        " to use the workload's measured latency");
  }
  // The one way a share changes kind (denominator.hpp): through the attention time it stands
  // for, over the latency given (capped at 1; attention_exceeds_latency says when it caps).
  const Share<TimeBase::wall> wall_share =
      kernel_time
          ? convert_share(Share<TimeBase::kernel>{share.value},
                          Time<TimeBase::kernel>{step->kernel_ms}, Time<TimeBase::wall>{latency_ms})
          : convert_share(Share<TimeBase::busy>{share.value}, Time<TimeBase::busy>{step->busy_ms},
                          Time<TimeBase::wall>{latency_ms});
  Warning warning;
  warning.code = WarningCode::latency_of_another_kind;
  warning.phase = phase;
  warning.input = latency_flag;
  warning.names = {{"workload", workload.name}, {"denominator", workload.share_denominator}};
  warning.numbers = {{"share", share.value},
                     {"gpu_ms", gpu_ms},
                     {"wall_ms", latency_ms},
                     {"converted_share", wall_share.fraction},
                     {"attention_ms", share.value * gpu_ms}};
  warnings.push_back(std::move(warning));
  share = {wall_share.fraction, Provenance::converted};
}

// Each workload share applied to a wall latency typed on the command line, converted (or
// refused) as above; a wall-time share, or one of a workload that states no denominator, as is.
// The attention time a converted share stands for is the trace's: measured.
void convert_shares_to_latency_kind(const Workload& workload, const EstimateOptions& options,
                                    Scenario& scenario) {
  if (workload.share_denominator.empty() || workload.share_denominator == "wall-time") return;
  // --ttft-point and --tpot-point are wall latencies like --ttft and --tpot.
  const bool wall_ttft = options.ttft_ms || !options.ttft_points.empty();
  const bool wall_tpot = options.tpot_ms || !options.tpot_points.empty();
  if (wall_ttft && scenario.ttft_ms.value > 0 && from_workload_table(scenario.prefill_share)) {
    convert_to_wall_share(workload, Phase::prefill, options.ttft_ms ? "ttft" : "ttft-point",
                          phase_latency_ms(scenario, Phase::prefill), scenario.prefill_share,
                          scenario.warnings);
    scenario.prefill_attention =
        StepAttention{scenario.warnings.back().number("attention_ms"),
                      phase_latency_ms(scenario, Phase::prefill), Provenance::measured};
  }
  if (wall_tpot && scenario.decode_share && from_workload_table(*scenario.decode_share)) {
    convert_to_wall_share(workload, Phase::decode, options.tpot_ms ? "tpot" : "tpot-point",
                          phase_latency_ms(scenario, Phase::decode), *scenario.decode_share,
                          scenario.warnings);
    scenario.decode_attention =
        StepAttention{scenario.warnings.back().number("attention_ms"),
                      phase_latency_ms(scenario, Phase::decode), Provenance::measured};
  }
}

// A measured launch is one kernel of one layer at the shape it was profiled at; the estimate
// applies its speedup to the workload's attention. The export does not record the shape, so the
// launch's FLOPs are set beside one layer's modelled prefill attention for one sequence at the
// prompt (with a model), and a factor beyond 4 either way, or no model to compare with, is said.
constexpr double kShapeMismatchFactor = 4;

void check_measured_shape(const Workload& workload, const EstimateOptions& options,
                          Scenario& scenario) {
  if (!options.measured_kernel_speedup) return;
  Warning w;
  w.code = WarningCode::measured_kernel_shape;
  w.input = "ncu";
  w.names = {{"launch", options.measured_kernel},
             {"model", scenario.platform ? scenario.platform->model.value.name
                                         : workload.model.value_or(workload.name)}};
  w.numbers = {{"prompt_tokens", static_cast<double>(scenario.prompt_tokens.value)},
               {"flops_lower_bound", options.measured_kernel_flops_lower_bound ? 1.0 : 0.0}};
  if (scenario.platform && options.measured_kernel_flops) {
    const Platform& p = *scenario.platform;
    // one layer of one sequence's prefill: the whole prefill's attention FLOPs / layers
    const double modelled =
        prefill_attention_cost(attention_shape(p), scenario.prompt_tokens.value).flops /
        static_cast<double>(std::max<std::int64_t>(p.model.value.layers, 1));
    const double ratio = *options.measured_kernel_flops / modelled;
    if (ratio <= kShapeMismatchFactor && ratio >= 1 / kShapeMismatchFactor) return;
    w.numbers.emplace_back("measured_flops", *options.measured_kernel_flops);
    w.numbers.emplace_back("modelled_flops_per_layer", modelled);
    w.numbers.emplace_back("flops_ratio", ratio);
  }
  scenario.warnings.push_back(std::move(w));
}

// The deployment's step attention behind a share it supplied for a latency the user gave
// (--ttft, --tpot): the share is that attention time over the latency.
void record_deployment_attention(const EstimateOptions& options, Scenario& scenario) {
  if (!options.step_model) return;
  const auto supplied = [&scenario](std::string_view input) {
    return std::find(scenario.deployment_inputs.begin(), scenario.deployment_inputs.end(), input) !=
           scenario.deployment_inputs.end();
  };
  const auto prompt = static_cast<double>(scenario.prompt_tokens.value);
  if (supplied("prefill_attention_share") && options.ttft_ms) {
    const StepTime step =
        deployment_latency(options, prompt, static_cast<double>(scenario.response_tokens.value))
            .prefill_step;
    scenario.prefill_attention = StepAttention{step.prefill_attention_ms, *options.ttft_ms,
                                               scenario.prefill_share.provenance};
  }
  if (supplied("decode_attention_share") && options.tpot_ms) {
    const RequestLatency latency =
        deployment_latency(options, prompt, static_cast<double>(scenario.response_tokens.value));
    scenario.decode_attention = StepAttention{
        latency.decode_step.attention_ms(), *options.tpot_ms * latency.mean_accepted,
        scenario.decode_share ? scenario.decode_share->provenance : Provenance::modelled};
  }
}

// The deployment's prefill steps behind the TTFT or prefill share it supplied, for the answer's
// footnote (the steps, their chunks and the decodes beside them: numbers the answer used).
void record_prefill_scheduling(const EstimateOptions& options, Scenario& scenario) {
  if (!options.step_model) return;
  const auto& supplied = scenario.deployment_inputs;
  const bool priced =
      std::find(supplied.begin(), supplied.end(), "ttft") != supplied.end() ||
      std::find(supplied.begin(), supplied.end(), "prefill_attention_share") != supplied.end();
  if (!priced) return;
  scenario.prefill_steps = scheduled_prefill(
      *options.step_model, static_cast<double>(scenario.prompt_tokens.value),
      static_cast<double>(scenario.response_tokens.value), prefill_scheduling(options));
  scenario.step_token_budget = options.step_token_budget;
  scenario.prefill_batch = options.prefill_batch;
  const auto prompt = static_cast<double>(scenario.prompt_tokens.value);
  if (prefill_calibration_extrapolated(*options.step_model, prompt)) {
    const CalibratedStepModel::CalibratedRange& range =
        *options.step_model->prefill_attention_range;
    Warning warning;
    warning.code = WarningCode::attention_calibration_extrapolated;
    warning.phase = Phase::prefill;
    warning.input = "ttft";
    warning.numbers = {{"prompt_tokens", prompt},
                       {"min_tokens", range.min_tokens},
                       {"max_tokens", range.max_tokens},
                       {"steps", static_cast<double>(range.steps)},
                       {"scale", range.scale}};
    scenario.warnings.push_back(std::move(warning));
  }
}

// Attention measured or modelled longer than the latency the user gave for its phase: the
// share was capped at 100%, and the latency cannot be this deployment's (a warning naming both;
// --strict refuses it, answer_inputs.cpp).
void warn_attention_beyond_latency(Scenario& scenario) {
  for (const Phase phase : {Phase::prefill, Phase::decode}) {
    const std::optional<StepAttention>& attention =
        phase == Phase::prefill ? scenario.prefill_attention : scenario.decode_attention;
    if (!attention || !(attention->ms > attention->latency_ms)) continue;
    Warning warning;
    warning.code = WarningCode::attention_exceeds_latency;
    warning.phase = phase;
    warning.input = phase == Phase::prefill ? "ttft" : "tpot";
    warning.names = {{"provenance", std::string(to_string(attention->provenance))}};
    warning.numbers = {{"attention_ms", attention->ms}, {"latency_ms", attention->latency_ms}};
    scenario.warnings.push_back(std::move(warning));
  }
}

}  // namespace

Scenario resolve_scenario(const Workload& workload, const EstimateOptions& options) {
  Scenario scenario;
  const RequestShape& request = workload.request;
  scenario.phase = resolved_phase(workload, options);
  const bool prefill_aside = prefill_set_aside(workload, options, scenario.phase);
  check_nothing_missing(workload, options, scenario, prefill_aside);
  scenario.prompt_tokens =
      *given_or_workload(options.prompt_tokens, request.prompt_tokens, workload);
  scenario.response_tokens =
      *given_or_workload(options.response_tokens, request.response_tokens, workload);
  resolve_tpot(workload, options, scenario);
  scenario.step_model = options.step_model;
  scenario.kernel_speedup =
      options.kernel_speedup
          ? WithProvenance<double>{*options.kernel_speedup, Provenance::given}
          : WithProvenance<double>{kDefaultKernelSpeedup, Provenance::default_value};
  if (options.measured_kernel_speedup) {
    scenario.kernel_speedup = {*options.measured_kernel_speedup, Provenance::measured};
    scenario.kernel_speedup_instrument = options.kernel_speedup_instrument;
    scenario.measured_kernel = options.measured_kernel;
    scenario.warnings.insert(scenario.warnings.end(), options.measured_kernel_warnings.begin(),
                             options.measured_kernel_warnings.end());
  }

  const auto prompt = static_cast<double>(scenario.prompt_tokens.value);
  const auto response = static_cast<double>(scenario.response_tokens.value);
  if (prefill_aside) {
    scenario.prefill_share = {0.0, Provenance::default_value};
    scenario.ttft_ms = {0.0, Provenance::default_value};
    Warning warning;
    warning.code = WarningCode::prefill_not_measured;
    warning.input = "ttft";
    warning.names = {{"workload", workload.name}};
    scenario.warnings.push_back(std::move(warning));
  } else {
    scenario.prefill_share =
        resolve_prefill_share(workload, options, prompt, response, scenario.warnings);
    if (options.share_model == ShareModel::calibrated && !options.prefill_share) {
      scenario.prefill_share_borrowed_from = workload.borrowed_share_table;
    }
    if (options.step_model && !options.prefill_share && options.share_model == ShareModel::table &&
        workload.prefill_shares.empty()) {
      scenario.deployment_inputs.emplace_back("prefill_attention_share");
    }
    scenario.ttft_ms =
        resolve_ttft(workload, options, scenario.prompt_tokens, scenario.prefill_share, scenario);
    resolve_fixed_term(options, scenario);
  }
  // TTFT and TPOT the command line and the deployment did not give: the workload's request's
  scenario.ttft_from_workload =
      !prefill_aside && !options.ttft_ms && options.ttft_points.empty() &&
      std::find(scenario.deployment_inputs.begin(), scenario.deployment_inputs.end(), "ttft") ==
          scenario.deployment_inputs.end();
  scenario.decode_share =
      resolve_decode_share(workload, options, prompt, response, scenario.warnings);
  if (options.step_model && !options.decode_share && workload.decode_shares.empty()) {
    scenario.deployment_inputs.emplace_back("decode_attention_share");
  }
  note_default_prompt(scenario);
  resolve_roofline(options, scenario);  // first: levers without a model is the clearer error
  check_measured_shape(workload, options, scenario);
  carry_tpot_to_context(workload, options, scenario);
  // after TPOT follows the context: a converted share is the attention time over that TPOT
  convert_shares_to_latency_kind(workload, options, scenario);
  record_deployment_attention(options, scenario);
  record_prefill_scheduling(options, scenario);
  warn_attention_beyond_latency(scenario);
  warn_on_model_mismatch(workload, scenario);
  if (scenario.phase != Phase::prefill && !scenario.decode_share) {
    throw InputError(std::string((flag_mark("phase") + " ")) +
                     std::string(to_string(scenario.phase)) +
                     " needs a decode attention share, and workload '" + workload.name +
                     ("' has none: pass " + flag_mark("decode-share") +
                      " P (measure it with a profiler trace), ") +
                     (flag_mark("model") + " and " + flag_mark("gpu") +
                      " to model it, or use a workload with ") +
                     "attention_share.decode");
  }
  return scenario;
}

Provenance attention_provenance(const Scenario& scenario, Phase phase) {
  const std::optional<StepAttention>& attention =
      phase == Phase::prefill ? scenario.prefill_attention : scenario.decode_attention;
  if (attention) return attention->provenance;
  if (phase == Phase::prefill) {
    return weakest(scenario.prefill_share.provenance, scenario.ttft_ms.provenance);
  }
  return scenario.decode_share
             ? weakest(scenario.decode_share->provenance, scenario.tpot_ms.provenance)
             : Provenance::default_value;
}

PhaseInput prefill_input(const Scenario& scenario) {
  PhaseInput input;
  // TTFT = prefill's GPU time + T0: the share and Amdahl apply to the GPU time only.
  input.fixed_ms = scenario.ttft_fixed_ms ? scenario.ttft_fixed_ms->value : 0.0;
  input.time_before_ms = scenario.ttft_ms.value - input.fixed_ms;
  input.attention_share = scenario.prefill_share.value;
  input.attention_speedup = phase_attention_speedup(scenario, Phase::prefill);
  input.targeted = scenario.phase != Phase::decode;
  return input;
}

PhaseInput decode_input(const Scenario& scenario) {
  PhaseInput input;
  input.time_before_ms =
      decode_time_ms(scenario.tpot_ms.value, static_cast<double>(scenario.response_tokens.value));
  input.attention_share = scenario.decode_share ? scenario.decode_share->value : 0.0;
  input.attention_speedup = phase_attention_speedup(scenario, Phase::decode);
  input.targeted = scenario.phase != Phase::prefill;
  return input;
}

namespace {

// A share is resampled when it came from the workload's measured table (read off a point, or
// interpolated, clamped or extrapolated from its points); a latency when read from the
// workload's measured request (or scaled from it). Given, converted, modelled and default
// inputs are held fixed.
bool from_measured_table(const Workload& workload, const WithProvenance<double>& share) {
  if (workload.share_origin != Provenance::measured) return false;
  switch (share.provenance) {
    case Provenance::measured:
    case Provenance::interpolated:
    case Provenance::clamped:
    case Provenance::extrapolated:
      return true;
    default:
      return false;
  }
}

bool from_measured_request(const Workload& workload, const WithProvenance<double>& latency) {
  return workload.share_origin == Provenance::measured &&
         (latency.provenance == Provenance::measured || latency.provenance == Provenance::scaled);
}

PredictionInterval estimate_interval(const Workload& workload, const Scenario& scenario) {
  ResampledInputs inputs;
  const bool prefill_used = scenario.ttft_ms.value > 0;
  inputs.prefill_share = prefill_used && from_measured_table(workload, scenario.prefill_share);
  inputs.ttft = prefill_used && from_measured_request(workload, scenario.ttft_ms);
  inputs.decode_share = scenario.decode_share && scenario.response_tokens.value > 1 &&
                        from_measured_table(workload, *scenario.decode_share);
  inputs.tpot =
      scenario.response_tokens.value > 1 && from_measured_request(workload, scenario.tpot_ms);
  const PredictionInterval steps = step_bootstrap_interval(
      workload.profiled_steps, prefill_input(scenario), decode_input(scenario), inputs);
  if (steps.reason != NoPredictionInterval::no_measured_spread) return steps;
  // No profiled step: a TTFT or TPOT the fitted step model supplied carries its residuals.
  if (!scenario.step_model || scenario.step_model->calibration != Provenance::fitted) return steps;
  const auto supplied = [&scenario](std::string_view input) {
    return std::find(scenario.deployment_inputs.begin(), scenario.deployment_inputs.end(), input) !=
           scenario.deployment_inputs.end();
  };
  const bool ttft = prefill_used && supplied("ttft");
  const bool tpot = scenario.response_tokens.value > 1 && supplied("tpot");
  if (!ttft && !tpot) return steps;
  return residual_bootstrap_interval(scenario.step_model->residuals, prefill_input(scenario),
                                     decode_input(scenario), ttft, tpot);
}

}  // namespace

Estimate run_estimate(const Workload& workload, const EstimateOptions& options,
                      const GateThresholds& gates) {
  Estimate estimate;
  estimate.workload = workload;
  estimate.scenario = resolve_scenario(workload, options);
  estimate.result =
      estimate_chain(prefill_input(estimate.scenario), decode_input(estimate.scenario));
  estimate.gates = check_gates(estimate.result, gates);
  estimate.tpot_after_ms = tpot_after_ms(estimate.scenario, estimate.result);
  estimate.interval = estimate_interval(workload, estimate.scenario);
  estimate.conditions = run_conditions(workload, estimate.scenario.platform);
  estimate.phase_figures = phase_figures(estimate.scenario, options.phase_given);
  return estimate;
}

std::optional<PhaseFigures> phase_figures(const Scenario& scenario, bool phase_given) {
  if (phase_given || !scenario.decode_share || scenario.ttft_ms.value <= 0 ||
      scenario.response_tokens.value <= 1) {
    return std::nullopt;
  }
  const auto request_speedup = [&scenario](bool prefill, bool decode) {
    PhaseInput p = prefill_input(scenario);
    PhaseInput d = decode_input(scenario);
    p.targeted = prefill;
    d.targeted = decode;
    return estimate_chain(p, d).request.speedup;
  };
  return PhaseFigures{request_speedup(true, false), request_speedup(false, true),
                      request_speedup(true, true)};
}

std::optional<WithProvenance<double>> tpot_after_ms(const Scenario& scenario,
                                                    const EstimateResult& result) {
  if (scenario.phase == Phase::prefill || !scenario.decode_share) {
    return std::nullopt;
  }
  // Every decode step gains the decode phase's speedup: TPOT' = TPOT · ((1 - p) + p / s).
  return WithProvenance<double>{scenario.tpot_ms.value / result.decode.phase.speedup,
                                Provenance::modelled};
}

}  // namespace kspeed::engine
