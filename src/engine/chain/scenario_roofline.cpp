#include "kspeed/engine/chain/scenario_roofline.hpp"

#include <cmath>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

void check_levers(const EstimateOptions& options) {
  if (!options.levers) {
    return;
  }
  if (options.kernel_speedup) {
    throw InputError((flag_mark("kernel-speedup") + " is a measured time ratio, while " +
                      flag_mark("compute-speedup") + ", " + flag_mark("bytes-reduction") + " ") +
                     ("and " + flag_mark("bandwidth-efficiency") +
                      " describe a change for kspeed to place on the roofline: give ") +
                     "one or the other");
  }
  if (!options.platform) {
    throw InputError(("the levers (" + flag_mark("compute-speedup") + ", " +
                      flag_mark("bytes-reduction") + ", " + flag_mark("bandwidth-efficiency") +
                      ") are worth ") +
                     ("what each phase's roofline position allows: pass " + flag_mark("model") +
                      " NAME and " + flag_mark("gpu") + " NAME (kspeed ") +
                     "models, kspeed gpus), or name them in the workload");
  }
}

void add_lever_warnings(const Scenario& s, const Platform& platform, std::vector<Warning>& out) {
  const Roof roof = roof_of(platform);
  const AttentionShape shape = attention_shape(platform);
  if (s.phase != Phase::decode) {
    const KernelCost cost = prefill_attention_cost(shape, s.prompt_tokens.value);
    for (Warning& w : contradiction_warnings(Phase::prefill, cost, roof, *s.levers)) {
      out.push_back(std::move(w));
    }
  }
  if (s.phase != Phase::prefill) {
    const KernelCost cost = decode_cost_per_attended_token(shape);
    for (Warning& w : contradiction_warnings(Phase::decode, cost, roof, *s.levers)) {
      out.push_back(std::move(w));
    }
  }
}

void add_memory_warning(const Scenario& s, const Platform& platform, std::vector<Warning>& out) {
  const std::int64_t last_context = s.prompt_tokens.value + s.response_tokens.value;
  const double needed_gb = decode_memory_needed_gb(platform, last_context);
  const double have_gb = platform.gpu.value.memory_gb;
  if (needed_gb > have_gb) {
    out.push_back(memory_warning(needed_gb, platform.gpu.value, last_context, true));
  }
}

// A request longer than the model's context is one no server runs (vLLM refuses it: "This
// model's maximum context length is N tokens"); the answer prices it all the same, so it says so.
void add_context_warning(const Scenario& s, const Platform& platform, std::vector<Warning>& out) {
  const std::int64_t limit = platform.model.value.context_tokens;
  const std::int64_t sequence = s.prompt_tokens.value + s.response_tokens.value;
  if (limit <= 0 || sequence <= limit) return;
  Warning warning;
  warning.code = WarningCode::context_beyond_model;
  warning.input = "prompt_tokens";
  warning.numbers = {{"prompt_tokens", static_cast<double>(s.prompt_tokens.value)},
                     {"response_tokens", static_cast<double>(s.response_tokens.value)},
                     {"context_tokens", static_cast<double>(limit)}};
  warning.names = {{"model", platform.model.value.name}};
  out.push_back(std::move(warning));
}

// τ (--spec-accept) divides every decode time the model gives per output token, attention and
// weights alike: the decode share and speedup are ratios it leaves unchanged, so the note shows
// the figure it moves, the decode time per output token. With the deployment's step model it is
// that model's mean decode step (the one the modelled TPOT comes from), else the decode
// roofline's step at the prompt's context.
void add_speculation_note(const EstimateOptions& options, const Scenario& s,
                          const Platform& platform, std::vector<Warning>& out) {
  if (platform.spec_mean_accepted.provenance != Provenance::given || s.phase == Phase::prefill) {
    return;
  }
  const double tau = platform.spec_mean_accepted.value;
  double context_tokens = static_cast<double>(s.prompt_tokens.value);
  double step_ms = 0;
  if (options.step_model) {
    const double response = static_cast<double>(s.response_tokens.value);
    const RequestLatency latency = request_latency(*options.step_model, context_tokens, response,
                                                   static_cast<double>(platform.batch.value));
    step_ms = latency.decode_step.total_ms();
    context_tokens += response / 2;  // the mean decode step's context (decode_batch)
  } else {
    const DecodeStepTime step = decode_step_time(platform, s.prompt_tokens.value);
    step_ms = step.attention_ms + step.other_ms;
  }
  Warning note;
  note.code = WarningCode::speculation_acceptance;
  note.phase = Phase::decode;
  note.input = "spec_accept";
  // per token = step / τ: about n / τ steps serve n tokens
  note.numbers = {{"tokens_per_step", platform.spec_tokens_per_step.value},
                  {"mean_accepted", tau},
                  {"context_tokens", context_tokens},
                  {"step_ms", step_ms},
                  {"ms_per_token", step_ms / tau}};
  out.push_back(std::move(note));
}

// A memory-bound kernel reading the same bytes is at most 1/η_bw faster, η_bw the bandwidth
// fraction the deployment's step model reaches (step_calibration.hpp: 0.58 measured, or fitted):
// a larger kernel speedup of a targeted memory-bound phase must read fewer bytes, which the
// answer cannot see. Warned with the bound (issue 27).
void add_headroom_warning(const EstimateOptions& options, Scenario& scenario) {
  if (options.levers || !options.step_model) return;
  const double efficiency = options.step_model->efficiency.bandwidth;
  if (!(efficiency > 0 && efficiency <= 1)) return;
  const double headroom = 1.0 / efficiency;
  for (const Phase phase : {Phase::prefill, Phase::decode}) {
    const bool targeted = scenario.phase == Phase::both || scenario.phase == phase;
    const std::optional<PhaseRoofline>& position =
        phase == Phase::decode ? scenario.decode_roofline : scenario.prefill_roofline;
    if (!targeted || !position || position->bound != Bound::memory) continue;
    if (!(scenario.kernel_speedup.value > headroom)) continue;
    Warning warning;
    warning.code = WarningCode::speedup_beyond_headroom;
    warning.phase = phase;
    warning.input = "kernel-speedup";
    warning.numbers = {{"kernel_speedup", scenario.kernel_speedup.value},
                       {"headroom", headroom},
                       {"bandwidth_efficiency", efficiency}};
    scenario.warnings.push_back(std::move(warning));
  }
}

}  // namespace

std::optional<WithProvenance<double>> modelled_decode_share(const EstimateOptions& options,
                                                            double prompt_tokens,
                                                            double response_tokens) {
  if (!options.platform) {
    return std::nullopt;
  }
  const DecodeResponse response =
      decode_over_response(*options.platform, static_cast<std::int64_t>(prompt_tokens),
                           static_cast<std::int64_t>(response_tokens));
  return WithProvenance<double>{response.share, Provenance::modelled};
}

void resolve_roofline(const EstimateOptions& options, Scenario& scenario) {
  check_levers(options);
  if (!options.platform) {
    return;
  }
  const Platform& platform = *options.platform;
  scenario.platform = platform;
  scenario.levers = options.levers;
  scenario.prefill_roofline =
      prefill_roofline(platform, scenario.prompt_tokens.value, options.levers);
  scenario.decode_roofline = decode_roofline(platform, options.levers);
  if (options.levers) {
    add_lever_warnings(scenario, platform, scenario.warnings);
  }
  add_memory_warning(scenario, platform, scenario.warnings);
  add_context_warning(scenario, platform, scenario.warnings);
  add_speculation_note(options, scenario, platform, scenario.notes);
  add_headroom_warning(options, scenario);
}

double phase_attention_speedup(const Scenario& scenario, Phase phase) {
  const std::optional<PhaseRoofline>& position =
      phase == Phase::decode ? scenario.decode_roofline : scenario.prefill_roofline;
  if (scenario.levers && position && position->attention_speedup) {
    return *position->attention_speedup;
  }
  return scenario.kernel_speedup.value;
}

}  // namespace kspeed::engine
