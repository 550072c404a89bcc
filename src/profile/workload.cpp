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

std::vector<engine::SharePoint> merged_points(const ProfileResult& result, Phase phase,
                                              ShareScope scope,
                                              std::vector<engine::Warning>& notes) {
  std::map<double, ShareTimes> by_context;
  for (const FileResult& file : result.files) {
    for (const ContextPoint& point :
         phase == Phase::prefill ? file.prefill_points : file.decode_points) {
      by_context[point.context_tokens].add(point.share_times);
    }
  }
  std::vector<engine::SharePoint> table;
  const auto scope_index = static_cast<std::size_t>(scope);
  for (const auto& [context, times] : by_context) {
    if (times.denominator_ns <= 0) continue;
    const double share = static_cast<double>(times.scope_ns[scope_index]) /
                         static_cast<double>(times.denominator_ns);
    if (share <= 0 || share >= 1) {
      engine::Warning note;
      note.code = engine::WarningCode::share_point_left_out;
      note.phase = phase;
      note.input = std::string(to_string(phase)) + "_share_table";
      note.numbers = {{"context_tokens", context}, {"share", share}};
      notes.push_back(std::move(note));
      continue;
    }
    table.push_back({context, share});
  }
  return table;
}

// The steps of one phase at the context most of them ran at (the larger context on a tie), across
// files, or all its steps when none states a context: what the emitted request describes.
struct TypicalStep {
  std::int64_t context_tokens = 0;
  std::int64_t steps = 0;
  double denominator_ms = 0;          ///< mean step time under the share's denominator
  double kernel_ms = 0;               ///< mean sum of kernel durations
  double busy_ms = 0;                 ///< mean GPU-busy time (union of kernel intervals)
  double wall_ms = 0;                 ///< mean wall time (first kernel start to last kernel end)
  std::optional<std::int64_t> batch;  ///< requests generating a token (decode), when stated
};

std::optional<TypicalStep> typical_step(const ProfileResult& result, Phase phase) {
  std::map<std::int64_t, TypicalStep> by_context;
  for (const FileResult& file : result.files) {
    for (const StepResult& step : file.steps) {
      if (step.label.phase != phase || step.times.kernel_count == 0) continue;
      // 0: the step does not state its context (its time still counts).
      const std::int64_t context =
          step.context_tokens ? std::max<std::int64_t>(0, std::llround(*step.context_tokens)) : 0;
      TypicalStep& typical = by_context[context];
      typical.context_tokens = context;
      ++typical.steps;
      // Sums in ms for now; divided by the step count below.
      typical.denominator_ms += static_cast<double>(step.times.share_times.denominator_ns) / 1e6;
      typical.kernel_ms += static_cast<double>(step.times.kernel_ns) / 1e6;
      typical.busy_ms += static_cast<double>(step.times.busy_ns) / 1e6;
      typical.wall_ms += static_cast<double>(step.times.wall_ns) / 1e6;
      const auto& batch = step.label.generation_requests;
      if (phase == Phase::decode && !typical.batch && batch && *batch > 0) typical.batch = batch;
    }
  }
  // Steps at a stated context first; the steps without one only when no step states it.
  std::optional<TypicalStep> best;
  for (const auto& [context, typical] : by_context) {
    if (context > 0 && (!best || typical.steps >= best->steps)) best = typical;
  }
  if (!best && by_context.count(0) > 0) best = by_context.at(0);
  if (best) {
    const auto steps = static_cast<double>(best->steps);
    best->denominator_ms /= steps;
    best->kernel_ms /= steps;
    best->busy_ms /= steps;
    best->wall_ms /= steps;
  }
  return best;
}

// The request the trace measured: the prompt length and step time of prefill, the KV length,
// batch and step time of decode. Step times are under the share's denominator, so the share
// applies to exactly the time it was measured against. A trace of prefill steps only measured a
// one-token response; one of decode steps only measured one decode step per request at its KV
// length (prompt = KV length - 1, response = 2 tokens), with no TTFT.
void add_request(const ProfileResult& result, engine::Workload& workload) {
  const std::optional<TypicalStep> prefill = typical_step(result, Phase::prefill);
  const std::optional<TypicalStep> decode = typical_step(result, Phase::decode);
  engine::RequestShape& request = workload.request;
  if (prefill && prefill->context_tokens > 0) {
    request.prompt_tokens = prefill->context_tokens;
    if (prefill->denominator_ms > 0) request.ttft_ms = prefill->denominator_ms;
    if (!decode) request.response_tokens = 1;
  }
  if (decode) {
    if (decode->denominator_ms > 0) request.tpot_ms = decode->denominator_ms;
    workload.batch = decode->batch;
    if (!prefill && decode->context_tokens >= 2) {  // 0 when no step states its KV length
      request.prompt_tokens = decode->context_tokens - 1;
      request.response_tokens = 2;
    }
  }
  workload.measured_steps.clear();
  for (const auto& [phase, typical] :
       {std::pair{Phase::prefill, prefill}, {Phase::decode, decode}}) {
    if (!typical) continue;
    engine::MeasuredStep step;
    step.phase = phase;
    step.context_tokens = typical->context_tokens;
    step.steps = typical->steps;
    step.kernel_ms = typical->kernel_ms;
    step.busy_ms = typical->busy_ms;
    step.wall_ms = typical->wall_ms;
    step.batch = typical->batch;
    workload.measured_steps.push_back(step);
  }
  workload.share_denominator = std::string(to_string(result.options.denominator));
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

}  // namespace

EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope) {
  EmittedWorkload out;
  engine::Workload& workload = out.workload;
  const std::string files = joined_sources(result);
  workload.name = "profile";
  workload.share_origin = engine::Provenance::measured;
  if (result.files.size() == 1) {
    std::string stem = std::filesystem::path(result.files.front().source).filename().string();
    for (const char* suffix : {".gz", ".json", ".trace", ".pt", ".sqlite", ".csv"}) {
      if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
    }
    workload.name = stem;
  }
  workload.description = "Attention shares (" + std::string(to_string(scope)) +
                         ") measured by kspeed profile from " + files;
  workload.source = "measured: kspeed profile " + std::string(KSPEED_VERSION) + " from " + files +
                    "; share = " + std::string(to_string(scope)) + " attention kernel time / " +
                    std::string(to_string(result.options.denominator)) +
                    ", time-weighted over the steps at each context; request.ttft_ms and "
                    "request.tpot_ms are the mean step times under the same denominator";
  workload.prefill_shares = merged_points(result, Phase::prefill, scope, out.notes);
  workload.decode_shares = merged_points(result, Phase::decode, scope, out.notes);
  add_conditions(result, workload);
  add_request(result, workload);
  return out;
}

}  // namespace kspeed::profile
