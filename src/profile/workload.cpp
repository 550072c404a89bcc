#include "kspeed/profile/workload.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace kspeed::profile {

namespace {

double ms_of(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// One step as the workload records it. A wall-time denominator leaves out the profiler idle
// gap (an idle stretch longer than all the step's GPU work), unless the user keeps it.
engine::ProfiledStep profiled_step(const StepResult& step, Denominator denominator,
                                   ShareScope scope, bool keep_idle_gaps) {
  engine::ProfiledStep out;
  const StepLabel& label = step.label;
  out.label = step.annotation;
  out.phase = label.phase;
  out.prefill_requests = label.context_requests.value_or(0);
  out.prefill_tokens = label.context_tokens.value_or(0);
  out.decode_requests = label.generation_requests.value_or(0);
  out.decode_kv_tokens = label.generation_kv_tokens.value_or(0);
  const GroupTimes& times = step.times;
  out.kernel_ms = ms_of(times.kernel_ns);
  out.busy_ms = ms_of(times.busy_ns);
  out.wall_ms = ms_of(times.wall_ns);
  if (!keep_idle_gaps && times.largest_gap_ns > times.busy_ns) {
    out.profiler_gap_ms = ms_of(times.largest_gap_ns);
  }
  const ShareTimes under = times.under(denominator);
  const auto scope_index = static_cast<std::size_t>(scope);
  out.time_ms = ms_of(under.denominator_ns);
  if (denominator == Denominator::wall_time) out.time_ms -= out.profiler_gap_ms;
  out.attention_ms = ms_of(under.scope_ns[scope_index]);
  out.attention_kernel_ms = ms_of(times.scope_kernel_ns[scope_index]);
  return out;
}

std::vector<engine::ProfiledStep> profiled_steps(const ProfileResult& result, ShareScope scope,
                                                 bool keep_idle_gaps) {
  std::vector<engine::ProfiledStep> steps;
  for (const FileResult& file : result.files) {
    for (const StepResult& step : file.steps) {
      const Phase phase = step.label.phase;
      if (step.times.kernel_count == 0) continue;
      if (phase != Phase::prefill && phase != Phase::decode && phase != Phase::mixed) continue;
      steps.push_back(profiled_step(step, result.options.denominator, scope, keep_idle_gaps));
    }
  }
  return steps;
}

// The context a step measured for `phase`, per request: prompt tokens per prefill request, KV
// tokens per decode sequence; 0 when the annotation does not say.
std::int64_t step_context(const engine::ProfiledStep& step, Phase phase) {
  const bool prefill = phase == Phase::prefill;
  const std::int64_t work = prefill ? step.prefill_tokens : step.decode_kv_tokens;
  const std::int64_t requests = prefill ? step.prefill_requests : step.decode_requests;
  if (work <= 0 || requests <= 0) return 0;
  return std::llround(static_cast<double>(work) / static_cast<double>(requests));
}

// The steps that measured `phase`: its own steps, or, when it has none, the mixed steps that
// carry its work (chunked prefill: vLLM V1's default schedules no pure prefill step).
struct PhaseSteps {
  std::vector<engine::ProfiledStep*> steps;
  bool from_mixed = false;
};

PhaseSteps phase_steps(std::vector<engine::ProfiledStep>& all, Phase phase) {
  PhaseSteps out;
  for (engine::ProfiledStep& step : all) {
    if (step.phase == phase) out.steps.push_back(&step);
  }
  if (!out.steps.empty()) return out;
  for (engine::ProfiledStep& step : all) {
    const bool has_work =
        phase == Phase::prefill ? step.prefill_requests > 0 : step.decode_requests > 0;
    if (step.phase == Phase::mixed && has_work) out.steps.push_back(&step);
  }
  out.from_mixed = !out.steps.empty();
  return out;
}

// The context most steps ran at (the larger on a tie); 0 when no step states one.
std::int64_t typical_context(const PhaseSteps& group, Phase phase) {
  std::map<std::int64_t, std::int64_t> counts;
  for (const engine::ProfiledStep* step : group.steps) {
    const std::int64_t context = step_context(*step, phase);
    if (context > 0) ++counts[context];
  }
  std::int64_t best = 0;
  std::int64_t most = 0;
  for (const auto& [context, count] : counts) {
    if (count >= most) {
      best = context;
      most = count;
    }
  }
  return best;
}

// The share table of one phase: time-weighted over the steps at each context, each share of
// the steps' time under the workload's denominator (of kind Base).
template <engine::TimeBase Base>
std::vector<engine::SharePoint> share_table(const PhaseSteps& group, Phase phase,
                                            std::vector<engine::Warning>& notes) {
  std::map<std::int64_t, StepTimes<Base>> by_context;
  for (const engine::ProfiledStep* step : group.steps) {
    const std::int64_t context = step_context(*step, phase);
    if (context <= 0) continue;
    const StepTimes<Base> times = step_times<Base>(*step);
    StepTimes<Base>& sum = by_context[context];
    sum.attention.ms += times.attention.ms;
    sum.step.ms += times.step.ms;
  }
  std::vector<engine::SharePoint> table;
  for (const auto& [context, times] : by_context) {
    if (times.step.ms <= 0) continue;
    const double share = engine::share_of(times.attention, times.step).fraction;
    const auto at = static_cast<double>(context);
    if (share <= 0 || share >= 1) {
      engine::Warning note;
      note.code = engine::WarningCode::share_point_left_out;
      note.phase = phase;
      note.input = std::string(to_string(phase)) + "_share_table";
      note.numbers = {{"context_tokens", at}, {"share", share}};
      notes.push_back(std::move(note));
      continue;
    }
    table.push_back({at, share});
  }
  return table;
}

// The steps of one phase at its typical context (all of them when none states a context),
// marked as measuring the phase's latency, summed into the informative measured_steps entry.
// The latency is of the same kind (Base) as the phase's shares.
template <engine::TimeBase Base>
struct TypicalSteps {
  std::int64_t context = 0;
  std::vector<const engine::ProfiledStep*> steps;
  engine::Time<Base> mean_latency;  ///< per-request TTFT, or the decode step (TPOT)
};

template <engine::TimeBase Base>
TypicalSteps<Base> mark_typical(const PhaseSteps& group, Phase phase) {
  TypicalSteps<Base> typical;
  typical.context = typical_context(group, phase);
  const engine::StepMeasures latency =
      phase == Phase::prefill ? engine::StepMeasures::ttft : engine::StepMeasures::tpot;
  for (engine::ProfiledStep* step : group.steps) {
    if (typical.context > 0 && step_context(*step, phase) != typical.context) continue;
    (phase == Phase::prefill ? step->measures_ttft : step->measures_tpot) = true;
    typical.steps.push_back(step);
    typical.mean_latency.ms += request_latency<Base>(*step, latency).ms;
  }
  if (!typical.steps.empty()) {
    typical.mean_latency.ms /= static_cast<double>(typical.steps.size());
  }
  return typical;
}

template <engine::TimeBase Base>
engine::MeasuredStep measured_step(const TypicalSteps<Base>& typical, Phase phase) {
  engine::MeasuredStep out;
  out.phase = phase;
  out.context_tokens = typical.context;
  out.steps = static_cast<std::int64_t>(typical.steps.size());
  for (const engine::ProfiledStep* step : typical.steps) {
    out.kernel_ms += step->kernel_ms;
    out.busy_ms += step->busy_ms;
    out.wall_ms += step->wall_ms;
    out.profiler_gap_ms += step->profiler_gap_ms;
    if (phase == Phase::decode && !out.batch && step->decode_requests > 0) {
      out.batch = step->decode_requests;
    }
  }
  const auto steps = static_cast<double>(std::max<std::int64_t>(out.steps, 1));
  out.kernel_ms /= steps;
  out.busy_ms /= steps;
  out.wall_ms /= steps;
  out.profiler_gap_ms /= steps;
  return out;
}

// The request the trace measured: only what it shows (issue 27). The prompt is the typical
// prefill step's (else the decode step's KV length less the token it decodes); TPOT is the
// decode step. No TTFT: a prefill step's time split by tokens is not what a request waited (the
// trace's requests queued for far longer), so the workload leaves it to be measured and the
// answer asks for it. No response length: a trace of steps does not say how long responses ran.
template <engine::TimeBase Base>
void add_request(const std::optional<TypicalSteps<Base>>& prefill,
                 const std::optional<TypicalSteps<Base>>& decode, engine::Workload& workload) {
  engine::RequestShape& request = workload.request;
  if (prefill && prefill->context > 0) request.prompt_tokens = prefill->context;
  if (decode) {
    if (decode->mean_latency.ms > 0) request.tpot_ms = decode->mean_latency.ms;
    const engine::MeasuredStep step = measured_step(*decode, Phase::decode);
    workload.batch = step.batch;
    if (!request.prompt_tokens && decode->context >= 2) {  // 0 when no step states its KV
      request.prompt_tokens = decode->context - 1;
    }
  }
}

std::string joined_sources(const ProfileResult& result) {
  std::string out;
  for (const FileResult& file : result.files) {
    out += (out.empty() ? "" : ", ") + std::filesystem::path(file.source).filename().string();
  }
  return out;
}

void add_conditions(const ProfileResult& result, engine::Workload& workload) {
  std::set<std::string> gpus, engines;
  for (const FileResult& file : result.files) {
    if (!file.info.gpu.empty()) gpus.insert(file.info.gpu);
    if (!file.engine.empty()) engines.insert(file.engine);
  }
  auto joined = [](const std::set<std::string>& values) {
    std::string out;
    for (const auto& value : values) out += (out.empty() ? "" : ", ") + value;
    return out;
  };
  if (!gpus.empty()) workload.conditions.emplace_back("hardware", joined(gpus));
  if (!engines.empty()) workload.conditions.emplace_back("engine", joined(engines));
  // Worded by the caller (report::token_counts_condition): the contexts as text.
  workload.conditions.emplace_back("token_counts", "");
  workload.conditions.emplace_back(
      "metric_definitions",
      "attention share = attention kernel time / " +
          std::string(to_string(result.options.denominator)) +
          " of the phase's steps, time-weighted over steps (kspeed profile, measured)");
}

std::string source_text(const ProfileResult& result, ShareScope scope, const std::string& files,
                        bool mixed_prefill, bool mixed_decode, bool keep_idle_gaps) {
  const std::string denominator(to_string(result.options.denominator));
  std::string text = "measured: kspeed profile " + std::string(KSPEED_VERSION) + " from " + files +
                     "; share = " + std::string(to_string(scope)) + " attention kernel time / " +
                     denominator +
                     ", time-weighted over the steps at each context; request.tpot_ms is the "
                     "decode step, mean over the steps at the request's context (steps[]), "
                     "under the same denominator; no TTFT or response length (a trace of steps "
                     "shows neither: the answer asks for both)";
  if (result.options.denominator == Denominator::wall_time) {
    text += keep_idle_gaps ? "; profiler idle gaps kept in the wall time, as asked"
                           : "; profiler idle gaps (steps[].profiler_gap_ms) excluded from the "
                             "wall time";
  }
  if (mixed_prefill) text += "; prefill measured in mixed (chunked-prefill) steps";
  if (mixed_decode) text += "; decode measured in mixed (chunked-prefill) steps";
  return text;
}

std::string workload_name(const ProfileResult& result) {
  if (result.files.size() != 1) return "profile";
  std::string stem = std::filesystem::path(result.files.front().source).filename().string();
  for (const char* suffix : {".gz", ".json", ".trace", ".pt", ".sqlite", ".csv"}) {
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  }
  return stem;
}

// The shares, the request's latencies and the denominator they are stated against, all of one
// kind of time (Base): a share table and a latency of different kinds cannot be written together.
template <engine::TimeBase Base>
void add_measures(const PhaseSteps& prefill_group, const PhaseSteps& decode_group,
                  EmittedWorkload& out) {
  engine::Workload& workload = out.workload;
  workload.prefill_shares = share_table<Base>(prefill_group, Phase::prefill, out.notes);
  workload.decode_shares = share_table<Base>(decode_group, Phase::decode, out.notes);
  std::optional<TypicalSteps<Base>> prefill, decode;
  if (!prefill_group.steps.empty()) prefill = mark_typical<Base>(prefill_group, Phase::prefill);
  if (!decode_group.steps.empty()) decode = mark_typical<Base>(decode_group, Phase::decode);
  add_request(prefill, decode, workload);
  if (prefill) workload.measured_steps.push_back(measured_step(*prefill, Phase::prefill));
  if (decode) workload.measured_steps.push_back(measured_step(*decode, Phase::decode));
  workload.share_denominator = std::string(engine::to_string(Base));
}

}  // namespace

EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope,
                                      const EmitOptions& options) {
  EmittedWorkload out;
  engine::Workload& workload = out.workload;
  const std::string files = joined_sources(result);
  workload.name = workload_name(result);
  workload.share_origin = engine::Provenance::measured;
  workload.profiled_from = files;
  workload.description = "Attention shares (" + std::string(to_string(scope)) +
                         ") measured by kspeed profile from " + files;
  workload.profiled_steps = profiled_steps(result, scope, options.keep_idle_gaps);
  const PhaseSteps prefill_group = phase_steps(workload.profiled_steps, Phase::prefill);
  const PhaseSteps decode_group = phase_steps(workload.profiled_steps, Phase::decode);
  workload.source = source_text(result, scope, files, prefill_group.from_mixed,
                                decode_group.from_mixed, options.keep_idle_gaps);
  add_conditions(result, workload);
  switch (time_base(result.options.denominator)) {
    case engine::TimeBase::kernel:
      add_measures<engine::TimeBase::kernel>(prefill_group, decode_group, out);
      break;
    case engine::TimeBase::busy:
      add_measures<engine::TimeBase::busy>(prefill_group, decode_group, out);
      break;
    case engine::TimeBase::wall:
      add_measures<engine::TimeBase::wall>(prefill_group, decode_group, out);
      break;
  }
  return out;
}

}  // namespace kspeed::profile
