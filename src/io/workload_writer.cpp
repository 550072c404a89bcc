#include "kspeed/io/workload_writer.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace kspeed::io {

namespace {

nlohmann::ordered_json share_table(const std::vector<engine::SharePoint>& points) {
  nlohmann::ordered_json table = nlohmann::ordered_json::array();
  for (const engine::SharePoint& point : points) {
    nlohmann::ordered_json entry;
    entry["context"] = static_cast<std::int64_t>(std::llround(point.context_tokens));
    entry["share"] = point.share;
    table.push_back(entry);
  }
  return table;
}

// Times rounded to the nanosecond the trace measured them in.
double ms_of(double ms) {
  return std::round(ms * 1e6) / 1e6;
}

double ps_of(double ms) {
  return std::round(ms * 1e9) / 1e9;
}

nlohmann::ordered_json measured_steps(const engine::Workload& workload) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const engine::MeasuredStep& step : workload.measured_steps) {
    nlohmann::ordered_json entry;
    entry["phase"] = step.phase == engine::Phase::decode ? "decode" : "prefill";
    if (step.context_tokens > 0) entry["context"] = step.context_tokens;  // 0: unstated
    entry["steps"] = step.steps;
    entry["kernel_ms"] = ms_of(step.kernel_ms);
    entry["busy_ms"] = ms_of(step.busy_ms);
    entry["wall_ms"] = ms_of(step.wall_ms);
    if (step.batch) entry["batch"] = *step.batch;
    entry["profiler_gap_ms"] = ms_of(step.profiler_gap_ms);
    steps.push_back(entry);
  }
  return steps;
}

nlohmann::ordered_json measures(const engine::ProfiledStep& step) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (step.measures_ttft) out.push_back("ttft");
  if (step.measures_tpot) out.push_back("tpot");
  return out;
}

// Every profiled step (format 2): composition, times, and which request latency it measures.
nlohmann::ordered_json profiled_steps(const engine::Workload& workload) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const engine::ProfiledStep& step : workload.profiled_steps) {
    nlohmann::ordered_json entry;
    entry["label"] = step.label;
    entry["phase"] = std::string(engine::to_string(step.phase));
    entry["prefill_requests"] = step.prefill_requests;
    entry["prefill_tokens"] = step.prefill_tokens;
    entry["decode_requests"] = step.decode_requests;
    entry["decode_kv_tokens"] = step.decode_kv_tokens;
    entry["kernel_ms"] = ms_of(step.kernel_ms);
    entry["busy_ms"] = ms_of(step.busy_ms);
    entry["wall_ms"] = ms_of(step.wall_ms);
    entry["profiler_gap_ms"] = ms_of(step.profiler_gap_ms);
    entry["time_ms"] = ms_of(step.time_ms);
    entry["attention_ms"] = ms_of(step.attention_ms);
    entry["attention_kernel_ms"] = ms_of(step.attention_kernel_ms);
    entry["measures"] = measures(step);
    steps.push_back(entry);
  }
  return steps;
}

}  // namespace

std::string workload_to_json_text(const engine::Workload& workload) {
  nlohmann::ordered_json out;
  out["format_version"] = engine::kWorkloadFormatVersion;
  out["name"] = workload.name;
  out["description"] = workload.description;
  out["source"] = workload.source;
  if (workload.share_origin == engine::Source::measured) {
    out["share_origin"] = "measured";
  }
  nlohmann::ordered_json request = nlohmann::ordered_json::object();
  if (workload.request.prompt_tokens) request["prompt_tokens"] = *workload.request.prompt_tokens;
  if (workload.request.response_tokens)
    request["response_tokens"] = *workload.request.response_tokens;
  // Rounded to the picosecond: a request's share of a step is no longer whole nanoseconds, and
  // the last bits of its mean are only summation noise.
  if (workload.request.ttft_ms) request["ttft_ms"] = ps_of(*workload.request.ttft_ms);
  if (workload.request.tpot_ms) request["tpot_ms"] = ps_of(*workload.request.tpot_ms);
  for (const engine::LatencyPoint& point : workload.request.ttft_points) {
    request["ttft_points"].push_back({{"prompt", static_cast<std::int64_t>(point.context_tokens)},
                                      {"ttft_ms", point.latency_ms}});
  }
  if (!workload.request.ttft_points_conditions.empty())
    request["ttft_points_conditions"] = workload.request.ttft_points_conditions;
  if (!request.empty()) out["request"] = request;
  out["attention_share"]["prefill"] = share_table(workload.prefill_shares);
  out["attention_share"]["decode"] = share_table(workload.decode_shares);
  nlohmann::ordered_json conditions = nlohmann::ordered_json::object();
  for (const auto& [key, value] : workload.conditions) conditions[key] = value;
  out["conditions"] = conditions;
  if (workload.batch) out["batch"] = *workload.batch;
  if (!workload.share_denominator.empty()) out["share_denominator"] = workload.share_denominator;
  if (workload.model) out["model"] = *workload.model;
  if (workload.gpu) out["gpu"] = *workload.gpu;
  if (workload.tp) out["tp"] = *workload.tp;
  if (!workload.measured_steps.empty()) out["measured_steps"] = measured_steps(workload);
  if (!workload.profiled_from.empty()) out["profiled_from"] = workload.profiled_from;
  if (!workload.profiled_steps.empty()) out["steps"] = profiled_steps(workload);
  return out.dump(2) + "\n";
}

}  // namespace kspeed::io
