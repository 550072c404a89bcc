// `kspeed mix` for programs (docs/json-format.md): the JSON tree, and for csv and jsonl one
// record per distribution (metric and side: ttft_ms before, ttft_ms after, e2e_speedup, ...)
// with the same columns, so a dashboard can plot any of them.
#include <cmath>

#include "kspeed/engine/chain/mix_result.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Distribution;

std::string percentile_key(double point) {
  return "p" + human_plain(point);
}

ordered_json distribution_json(const Distribution& d, const std::vector<double>& points) {
  ordered_json out;
  out["count"] = d.count;
  out["mean"] = d.count > 0 ? ordered_json(d.mean) : ordered_json(nullptr);
  for (std::size_t i = 0; i < points.size(); ++i) {
    out[percentile_key(points[i])] =
        i < d.percentiles.size() ? ordered_json(d.percentiles[i]) : ordered_json(nullptr);
  }
  out["min"] = d.count > 0 ? ordered_json(d.min) : ordered_json(nullptr);
  out["max"] = d.count > 0 ? ordered_json(d.max) : ordered_json(nullptr);
  return out;
}

ordered_json before_after_json(const engine::BeforeAfter& metric,
                               const std::vector<double>& points) {
  return {{"before", distribution_json(metric.before, points)},
          {"after", distribution_json(metric.after, points)}};
}

ordered_json log_json(const engine::RequestLogCounts& log, const std::string& format,
                      const std::string& generated) {
  ordered_json out;
  out["file"] = log.source;
  out["format"] = format;
  out["records"] = log.records;
  out["requests"] = log.requests;
  out["skipped"] = log.skipped_total();
  ordered_json reasons = ordered_json::array();
  for (const engine::SkippedRows& rows : log.skipped) {
    reasons.push_back({{"reason", rows.reason},
                       {"count", rows.count},
                       {"first_lines", rows.first_lines},
                       {"first_message", rows.first_detail}});
  }
  out["skipped_by_reason"] = std::move(reasons);
  out["zero_length_responses"] = log.zero_response;
  out["timestamps_backwards"] = log.out_of_order;
  out["first_backwards_line"] =
      log.out_of_order > 0 ? ordered_json(log.first_out_of_order_line) : ordered_json(nullptr);
  if (!generated.empty()) out["generated"] = generated;  // the load model, when one made them
  return out;
}

const char* cache_mode_name(engine::PrefixCacheOptions::Mode mode) {
  switch (mode) {
    case engine::PrefixCacheOptions::Mode::off:
      return "off";
    case engine::PrefixCacheOptions::Mode::lru:
      return "lru";
    case engine::PrefixCacheOptions::Mode::hit_fraction:
      return "hit_fraction";
  }
  return "off";
}

ordered_json inputs_json(const engine::MixResult& r) {
  const engine::MixModel& m = r.model;
  ordered_json out;
  if (m.kernel_speedup_table) {
    // --kernel-speedup-table: each request's speedup is the table's at its prompt
    out["kernel_speedup"] = nullptr;
    out["kernel_speedup_provenance"] = "given";
    ordered_json rows = ordered_json::array();
    for (const engine::SpeedupPoint& point : m.kernel_speedup_table->points) {
      rows.push_back({{"context_tokens", point.at}, {"speedup", point.speedup}});
    }
    out["kernel_speedup_table"] = rows;
  } else {
    put_with_provenance(out, "kernel_speedup", m.kernel_speedup.value, m.kernel_speedup.provenance);
    out["kernel_speedup_table"] = nullptr;
  }
  out["phase"] = to_string(m.phase);
  out["prefill_attention_share"] = or_null(m.prefill_share);
  out["decode_attention_share"] = or_null(m.decode_share);
  out["share_tables_provenance"] = engine::to_string(m.share_origin);
  // --share-model: each request's prefill share from the model's architecture (null: not)
  out["prefill_share_model"] = !m.share_model               ? ordered_json(nullptr)
                               : m.share_model->calibration ? ordered_json("calibrated")
                                                            : ordered_json("analytic");
  out["extrapolation"] = m.extrapolation == engine::Extrapolation::clamp ? "clamp" : "model";
  if (m.reference) {
    out["reference_prompt_tokens"] = m.reference->prompt_tokens;
    put_with_provenance(out, "reference_ttft_ms", m.reference->ttft_ms.value,
                        m.reference->ttft_ms.provenance);
  } else {
    out["reference_prompt_tokens"] = nullptr;
    put_with_provenance<double>(out, "reference_ttft_ms", std::nullopt);
  }
  // TTFT = T0 + a·n·(1 + odds(2c + n)) fitted to the workload's measured points (null: none)
  out["ttft_fit_fixed_ms"] = m.ttft_fit ? ordered_json(m.ttft_fit->fixed_ms) : ordered_json();
  out["ttft_fit_ms_per_token"] =
      m.ttft_fit ? ordered_json(m.ttft_fit->ms_per_token) : ordered_json();
  // --ttft-overhead: each modelled TTFT's fixed term (null: the fit's T0 or the step model's)
  put_with_provenance(out, "ttft_overhead_ms",
                      m.ttft_overhead_ms ? std::optional<engine::WithProvenance<double>>(
                                               {*m.ttft_overhead_ms, engine::Provenance::given})
                                         : std::nullopt);
  put_with_provenance(out, "tpot_ms", m.tpot_ms);
  // TPOT = c + b·L fitted to --tpot-point, at each request's prompt (null: none)
  out["tpot_fit_fixed_ms"] = m.tpot_fit ? ordered_json(m.tpot_fit->fixed_ms) : ordered_json();
  out["tpot_fit_ms_per_token"] =
      m.tpot_fit ? ordered_json(m.tpot_fit->ms_per_token) : ordered_json();
  // The deployment's step model prices requests without a measurement (null: it does not)
  out["step_model_provenance"] =
      m.step_model ? ordered_json(engine::to_string(m.step_model->calibration)) : ordered_json();
  out["prefix_cache"] = cache_mode_name(m.prefix_cache.mode);
  out["prefix_cache_tokens"] = m.prefix_cache.mode == engine::PrefixCacheOptions::Mode::lru
                                   ? ordered_json(m.prefix_cache.capacity_tokens)
                                   : ordered_json(nullptr);
  out["prefix_cache_hit"] = m.prefix_cache.mode == engine::PrefixCacheOptions::Mode::hit_fraction
                                ? ordered_json(m.prefix_cache.hit_fraction)
                                : ordered_json(nullptr);
  out["percentiles"] = m.percentiles;
  return out;
}

ordered_json group_json(const engine::MixGroup& g) {
  ordered_json out;
  if (g.label.empty()) {
    out["prompt_tokens_from"] = g.lower_tokens;
    out["prompt_tokens_below"] = g.upper_tokens > 0 ? ordered_json(g.upper_tokens) : nullptr;
  } else {
    out["model"] = g.label;
  }
  out["requests"] = g.requests;
  out["mean_prefill_attention_share"] = g.mean_prefill_share;
  out["ttft_p50_before_ms"] = g.ttft_p50_before_ms;
  out["ttft_p50_after_ms"] = g.ttft_p50_after_ms;
  out["median_e2e_speedup"] = g.median_e2e_speedup;
  out["time_weighted_e2e_speedup"] = g.time_weighted_e2e_speedup;
  return out;
}

ordered_json groups_json(const std::vector<engine::MixGroup>& groups) {
  ordered_json out = ordered_json::array();
  for (const engine::MixGroup& group : groups) out.push_back(group_json(group));
  return out;
}

ordered_json summary_json(const engine::MixResult& r) {
  const engine::MixSummary& s = r.summary;
  const std::vector<double>& points = s.percentiles;
  ordered_json out;
  out["requests"] = s.requests;
  out["ttft_measured"] = s.ttft_measured;
  out["ttft_scaled"] = s.ttft_modelled;
  out["ttft_ms"] = before_after_json(s.ttft_ms, points);
  out["tpot_ms"] = before_after_json(s.tpot_ms, points);
  out["e2e_ms"] = before_after_json(s.e2e_ms, points);
  out["prefill_attention_share"] = distribution_json(s.prefill_share, points);
  out["prefill_speedup"] = distribution_json(s.prefill_speedup, points);
  out["e2e_speedup"] = distribution_json(s.e2e_speedup, points);
  out["time_weighted_ttft_speedup"] = s.time_weighted_ttft_speedup;
  out["time_weighted_e2e_speedup"] = s.time_weighted_e2e_speedup;
  out["request_weighted_e2e_speedup"] = s.request_weighted_e2e_speedup;
  ordered_json histogram = ordered_json::array();
  for (const engine::HistogramBin& bin : s.e2e_speedup_histogram) {
    histogram.push_back({{"from", bin.lower}, {"to", bin.upper}, {"requests", bin.count}});
  }
  out["e2e_speedup_histogram"] = std::move(histogram);
  out["prefix_cache_hit_rate"] = s.cache_hit_rate;
  out["buckets"] = groups_json(s.buckets);
  out["by_model"] = groups_json(s.by_model);
  return out;
}

const char* capacity_status_name(engine::CapacityStatus status) {
  switch (status) {
    case engine::CapacityStatus::found:
      return "found";
    case engine::CapacityStatus::unreachable:
      return "unreachable";
    case engine::CapacityStatus::above_range:
      return "above_range";
  }
  return "unreachable";
}

ordered_json capacity_json(const std::optional<engine::Capacity>& c) {
  if (!c) return nullptr;
  return {{"status", capacity_status_name(c->status)},
          {"rate_scale", c->rate_scale},
          {"requests_per_s", c->requests_per_s},
          {"attainment", c->attainment},
          {"replays", c->replays}};
}

ordered_json replicas_json(const std::optional<engine::ReplicaCapacity>& c) {
  if (!c) return nullptr;
  const bool found = c->status == engine::ReplicaStatus::found;
  return {{"status", found ? "found" : "unreachable"},
          {"replicas", found ? ordered_json(c->replicas) : ordered_json(nullptr)},
          {"attainment", c->attainment},
          {"replays", c->replays}};
}

ordered_json side_json(const engine::ReplaySide& side, const std::vector<double>& points) {
  ordered_json out;
  out["ttft_ms"] = distribution_json(side.ttft_ms, points);
  out["tpot_ms"] = distribution_json(side.tpot_ms, points);
  out["itl_ms"] = distribution_json(side.itl_ms, points);
  out["e2e_ms"] = distribution_json(side.e2e_ms, points);
  out["queue_ms"] = distribution_json(side.queue_ms, points);
  out["preemptions"] = side.preemptions;
  out["requests_preempted"] = side.requests_preempted;
  out["slo_attainment"] = or_null(side.attainment);
  out["offered_rate_per_s"] = side.offered_rate_per_s;
  out["achieved_rate_per_s"] = side.achieved_rate_per_s;
  out["output_tokens_per_s"] = side.output_tokens_per_s;
  out["output_tokens_per_s_per_replica"] = side.output_tokens_per_s_per_replica;
  out["mean_batch_sequences"] = side.mean_batch_sequences;
  out["max_batch_sequences"] = side.max_batch_sequences;
  out["attention_fraction"] = side.attention_fraction;
  out["saturation_rate_per_s"] = side.saturation_rate_per_s;
  out["load"] = side.load;
  out["steps"] = side.totals.steps;
  // Only with per-replica caches (2+ replicas over a log's block ids): one cache is the chain's.
  if (side.totals.per_replica_caches) {
    out["prefix_cache_hit_rate"] = side.totals.cache_hit_rate();
  }
  return out;
}

const char* policy_name(engine::SchedulerPolicy policy) {
  return policy == engine::SchedulerPolicy::mixed ? "mixed" : "prefill_first";
}

const char* routing_name(engine::Routing routing) {
  switch (routing) {
    case engine::Routing::round_robin:
      return "round_robin";
    case engine::Routing::least_outstanding:
      return "least_outstanding";
    case engine::Routing::shared_queue:
      return "shared_queue";
    case engine::Routing::prefix_aware:
      return "prefix_aware";
  }
  return "round_robin";
}

// Every assumption the replay made, with where it came from.
ordered_json replay_inputs_json(const engine::MixResult& r) {
  const engine::ServingSetup& setup = r.replay->setup;
  const engine::StepModel& step = setup.step;
  ordered_json out;
  out["step_model"] = {{"fixed_ms", step.fixed_ms},
                       {"weights_ms", step.weights_ms},
                       {"launch_floor_ms", step.launch_floor_ms},
                       {"ms_per_token", step.ms_per_token},
                       {"ms_per_prefill_pair", step.ms_per_prefill_pair},
                       {"ms_per_kv_token", step.ms_per_kv_token},
                       {"ms_per_sequence", step.ms_per_sequence},
                       {"source", step_model_source(*r.deployment)}};
  if (step.tp_ms_per_token > 0 || step.tp_fixed_ms > 0) {  // tensor parallelism's all-reduces
    out["step_model"]["tp_ms_per_token"] = step.tp_ms_per_token;
    out["step_model"]["tp_fixed_ms"] = step.tp_fixed_ms;
  }
  if (step.experts.experts > 0) {  // MoE: a step reads the union of its tokens' experts
    out["step_model"]["routed_experts_ms"] = step.experts.all_experts_ms;
  }
  if (step.ep_ms_per_token > 0 || step.ep_fixed_ms > 0) {  // expert parallelism's all-to-alls
    out["step_model"]["ep_ms_per_token"] = step.ep_ms_per_token;
    out["step_model"]["ep_fixed_ms"] = step.ep_fixed_ms;
  }
  const engine::SchedulerOptions& sched = setup.scheduler;
  out["scheduler"] = {{"policy", policy_name(sched.policy)},
                      {"max_batched_tokens", sched.max_batched_tokens},
                      {"max_seqs", sched.max_seqs},
                      {"chunked_prefill", sched.chunked_prefill},
                      {"block_tokens", sched.block_tokens},
                      {"kv_blocks", or_null(sched.kv_blocks)},
                      {"kv_blocks_source", kv_capacity_source(*r.deployment)},
                      {"request_overhead_ms", sched.request_overhead_ms}};
  const engine::ArrivalOptions& arrivals = setup.arrivals;
  out["arrivals"] = {{"mode", arrivals.concurrency > 0 ? "closed_loop" : "open_loop"},
                     {"rate_scale", arrivals.concurrency > 0 ? ordered_json(nullptr)
                                                             : ordered_json(arrivals.rate_scale)},
                     {"concurrency", arrivals.concurrency > 0 ? ordered_json(arrivals.concurrency)
                                                              : ordered_json(nullptr)},
                     {"replicas", arrivals.replicas},
                     {"routing", routing_name(arrivals.routing)}};
  // The client model's limits, when given (absent otherwise: no cap, no think time).
  if (arrivals.max_inflight > 0) out["arrivals"]["max_inflight"] = arrivals.max_inflight;
  if (arrivals.concurrency > 0 && arrivals.think_time_s > 0) {
    out["arrivals"]["think_time_s"] = arrivals.think_time_s;
  }
  if (arrivals.concurrency > 0 && arrivals.session_turns > 1) {
    out["arrivals"]["session_turns"] = arrivals.session_turns;
  }
  // estimate's and sweep's names for the kernel speedup each phase's attention gets; null: each
  // request's own (--kernel-speedup-table read at its prompt).
  const engine::AttentionSpeedup& speedup = setup.speedup;
  out["prefill_attention_speedup"] =
      speedup.prefill_per_request ? ordered_json(nullptr) : ordered_json(speedup.prefill);
  out["decode_attention_speedup"] =
      speedup.decode_per_request ? ordered_json(nullptr) : ordered_json(speedup.decode);
  return out;
}

ordered_json replay_json(const engine::MixResult& r) {
  if (!r.replay) return nullptr;
  const engine::MixReplay& q = *r.replay;
  const std::vector<double>& points = r.summary.percentiles;
  ordered_json out = replay_inputs_json(r);
  out["requests"] = q.requests;
  out["slo_ttft_ms"] = or_null(r.slo.ttft_ms);
  out["slo_tpot_ms"] = or_null(r.slo.tpot_ms);
  out["attainment_target"] = r.slo.attainment_target;
  out["before"] = side_json(q.serving.before, points);
  out["after"] = side_json(q.serving.after, points);
  out["no_queue_before"] = side_json(q.serving.alone_before, points);
  out["no_queue_after"] = side_json(q.serving.alone_after, points);
  out["capacity_before"] = capacity_json(q.serving.capacity_before);
  out["capacity_after"] = capacity_json(q.serving.capacity_after);
  out["replicas_before"] = replicas_json(q.serving.replicas_before);
  out["replicas_after"] = replicas_json(q.serving.replicas_after);
  return out;
}

// The summary with the replay's TTFT, TPOT and E2E distributions in place of the no-queue
// ones; the per-request speedup distributions, weights and groups stay the chain's (the replay
// has no per-request chain), and `basis` says which latencies these are.
ordered_json replayed_summary_json(const engine::MixResult& r, const ordered_json& no_queue) {
  const engine::ServingReplay& s = r.replay->serving;
  const std::vector<double>& points = r.summary.percentiles;
  ordered_json out = no_queue;
  out["basis"] = "replay";
  out["requests"] = r.replay->requests;
  const auto pair = [&points](const engine::Distribution& before,
                              const engine::Distribution& after) {
    return ordered_json{{"before", distribution_json(before, points)},
                        {"after", distribution_json(after, points)}};
  };
  out["ttft_ms"] = pair(s.before.ttft_ms, s.after.ttft_ms);
  out["tpot_ms"] = pair(s.before.tpot_ms, s.after.tpot_ms);
  out["e2e_ms"] = pair(s.before.e2e_ms, s.after.e2e_ms);
  return out;
}

std::vector<engine::Warning> all_warnings(const engine::MixResult& r) {
  std::vector<engine::Warning> warnings = r.summary.warnings;
  if (r.replay)
    warnings.insert(warnings.end(), r.replay->warnings.begin(), r.replay->warnings.end());
  return warnings;
}

ordered_json disagg_pool_json(const engine::PoolReplay& pool) {
  return {{"utilisation", pool.utilisation},
          {"busy_ms", pool.totals.busy_ms},
          {"span_s", pool.span_s},
          {"steps", pool.totals.steps},
          {"preemptions", pool.totals.preemptions},
          {"unschedulable", pool.totals.unschedulable}};
}

ordered_json disagg_side_json(const engine::DisaggSide& side, const std::vector<double>& points) {
  ordered_json out;
  out["ttft_ms"] = distribution_json(side.ttft_ms, points);
  out["tpot_ms"] = distribution_json(side.tpot_ms, points);
  out["e2e_ms"] = distribution_json(side.e2e_ms, points);
  out["prefill_queue_ms"] = distribution_json(side.prefill_queue_ms, points);
  out["decode_wait_ms"] = distribution_json(side.decode_wait_ms, points);
  out["slo_attainment"] = or_null(side.attainment);
  out["prefill_pool"] = disagg_pool_json(side.prefill);
  out["decode_pool"] = disagg_pool_json(side.decode);
  return out;
}

// --disagg: the pools, the link (cited or given), and the replay before and after.
ordered_json disagg_json(const engine::MixResult& r) {
  if (!r.disagg) return nullptr;
  const engine::MixDisagg& d = *r.disagg;
  const std::vector<double>& points = r.summary.percentiles;
  ordered_json out;
  out["shape"] = d.name;
  out["prefill_replicas"] = d.request.prefill_replicas;
  out["decode_replicas"] = d.request.decode_replicas;
  out["kv_link"] = {{"name", d.request.link.name},
                    {"latency_us", d.request.link.link.latency_s * 1e6},
                    {"bandwidth_gb_per_s", d.request.link.link.bytes_per_s / 1e9},
                    {"provenance", d.request.link.cited ? "cited" : "given"},
                    {"source", d.request.link.source}};
  out["kv_bytes_per_token"] = d.kv_bytes_per_token;
  out["kv_bytes_per_token_provenance"] = "modelled";
  out["prefill_attention_speedup"] = d.speedup.prefill;
  out["decode_attention_speedup"] = d.speedup.decode;
  out["requests"] = d.requests;
  out["kv_transfer_ms"] = distribution_json(d.transfer_ms, points);
  out["before"] = disagg_side_json(d.before, points);
  out["after"] = disagg_side_json(d.after, points);
  out["capacity_before"] = capacity_json(d.capacity_before);
  out["capacity_after"] = capacity_json(d.capacity_after);
  if (d.request.concurrency > 0) {  // only for a closed loop: open-loop outputs unchanged
    out["closed_loop"] = {{"clients", d.request.concurrency},
                          {"think_time_s", d.request.think_time_s},
                          {"rounds_before", d.closed_loop_rounds_before},
                          {"rounds_after", d.closed_loop_rounds_after}};
  }
  return out;
}

ordered_json mix_tree(const engine::MixResult& r) {
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  out["workload"] = {{"name", r.workload_name}, {"citation", r.workload_source}};
  out["log"] = log_json(r.log, r.log_format, r.generated_load);
  out["inputs"] = inputs_json(r);
  // `summary` is the headline's result: with a replay, its latencies are the replayed ones
  // (under load) and the per-request chain's (each request alone) is `no_queue_summary`.
  ordered_json summary = summary_json(r);
  summary["basis"] = "no_queue";
  if (r.replay && r.replay->requests > 0) {
    out["summary"] = replayed_summary_json(r, summary);
    out["no_queue_summary"] = std::move(summary);
  } else {
    out["summary"] = std::move(summary);
    out["no_queue_summary"] = nullptr;
  }
  out["replay"] = replay_json(r);
  if (r.disagg) out["disagg"] = disagg_json(r);  // only with --disagg: other outputs unchanged
  out["warnings"] = warnings_json(all_warnings(r));
  return out;
}

// One record per distribution, all with the same keys.
ordered_json distribution_record(const ordered_json& tree, const std::string& metric,
                                 const std::string& side, const ordered_json& distribution) {
  ordered_json record;
  record["schema_version"] = tree["schema_version"];
  record["file"] = tree["log"]["file"];
  record["metric"] = metric;
  record["side"] = side;
  for (const auto& [key, value] : distribution.items()) record[key] = value;
  return record;
}

std::vector<ordered_json> mix_records(const ordered_json& tree) {
  std::vector<ordered_json> records;
  const ordered_json& summary = tree["summary"];
  for (const char* metric : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
    for (const char* side : {"before", "after"}) {
      records.push_back(distribution_record(tree, metric, side, summary[metric][side]));
    }
  }
  for (const char* metric : {"prefill_attention_share", "prefill_speedup", "e2e_speedup"}) {
    records.push_back(distribution_record(tree, metric, "per_request", summary[metric]));
  }
  const ordered_json& replay = tree["replay"];
  if (replay.is_object()) {
    for (const char* metric : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms"}) {
      for (const char* side : {"before", "after"}) {
        records.push_back(
            distribution_record(tree, std::string("replay_") + metric, side, replay[side][metric]));
      }
    }
  }
  // Only with --disagg (a const lookup of an absent key is undefined).
  if (tree.contains("disagg") && tree["disagg"].is_object()) {
    const ordered_json& disagg = tree["disagg"];
    for (const char* metric :
         {"ttft_ms", "tpot_ms", "e2e_ms", "prefill_queue_ms", "decode_wait_ms"}) {
      for (const char* side : {"before", "after"}) {
        records.push_back(
            distribution_record(tree, std::string("disagg_") + metric, side, disagg[side][metric]));
      }
    }
    records.push_back(distribution_record(tree, "disagg_kv_transfer_ms", "per_request",
                                          disagg["kv_transfer_ms"]));
  }
  return records;
}

// A request's latency source as a provenance word: measured, scaled, fitted, the step model's,
// or, when the request took the user's or the reference's latency unchanged, that latency's own
// provenance (given, workload, illustrative): the reference TTFT's for TTFT, tpot_ms's for TPOT.
std::string latency_provenance(engine::LatencySource source, const engine::MixModel& mix,
                               bool ttft) {
  switch (source) {
    case engine::LatencySource::measured:
      return "measured";
    case engine::LatencySource::scaled:
      return "scaled";
    case engine::LatencySource::fitted:
      return "fitted";
    case engine::LatencySource::reference:
    case engine::LatencySource::given:
      if (ttft) {
        return mix.reference ? std::string(engine::to_string(mix.reference->ttft_ms.provenance))
                             : "none";
      }
      return mix.tpot_ms ? std::string(engine::to_string(mix.tpot_ms->provenance)) : "none";
    case engine::LatencySource::modelled:
      return mix.step_model ? std::string(engine::to_string(mix.step_model->calibration)) : "none";
    case engine::LatencySource::missing:
      return "none";
  }
  return "none";
}

}  // namespace

Document mix_document(const engine::MixResult& result) {
  Document document;
  document.tree = mix_tree(result);
  document.records = mix_records(document.tree);
  return document;
}

/// One JSON object per request (--per-request FILE, NDJSON): its lengths, share, latencies
/// before and after and their sources.
namespace {

ordered_json per_request_json(const engine::RequestOutcome& o, const std::string& model,
                              const engine::MixModel& mix) {
  const auto number = [](double value) {
    return std::isnan(value) ? ordered_json(nullptr) : ordered_json(static_cast<double>(value));
  };
  ordered_json out;
  out["arrival_s"] = std::isnan(o.arrival_s) ? ordered_json(nullptr) : ordered_json(o.arrival_s);
  out["prompt_tokens"] = o.prompt_tokens;
  out["response_tokens"] = o.response_tokens;
  out["cached_tokens"] = o.cached_tokens;
  out["model"] = model.empty() ? ordered_json(nullptr) : ordered_json(model);
  out["prefill_attention_share"] = number(o.prefill_share);
  out["ttft_before_ms"] = number(o.ttft_before_ms);
  out["ttft_after_ms"] = number(o.ttft_after_ms);
  out["ttft_provenance"] = latency_provenance(o.ttft_source, mix, true);
  out["tpot_before_ms"] = number(o.tpot_before_ms);
  out["tpot_after_ms"] = number(o.tpot_after_ms);
  out["tpot_provenance"] =
      std::isnan(o.tpot_before_ms) ? "none" : latency_provenance(o.tpot_source, mix, false);
  out["e2e_before_ms"] = number(o.e2e_before_ms);
  out["e2e_after_ms"] = number(o.e2e_after_ms);
  out["e2e_speedup"] = std::isnan(o.e2e_before_ms) || std::isnan(o.e2e_after_ms)
                           ? ordered_json(nullptr)
                           : ordered_json(static_cast<double>(o.e2e_before_ms) /
                                          static_cast<double>(o.e2e_after_ms));
  return out;
}

std::string ndjson_line(const ordered_json& object) {
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void put_timing(ordered_json& out, const char* side, const engine::RequestTiming& t) {
  const auto number = [](float value) {
    return std::isnan(value) ? ordered_json(nullptr) : ordered_json(static_cast<double>(value));
  };
  const std::string prefix = std::string("replay_") + side + "_";
  out[prefix + "queue_ms"] = number(t.queue_ms);
  out[prefix + "ttft_ms"] = number(t.ttft_ms);
  out[prefix + "tpot_ms"] = number(t.tpot_ms);
  out[prefix + "e2e_ms"] = number(t.e2e_ms);
  out[prefix + "preemptions"] = t.preemptions;
}

}  // namespace

std::string per_request_line(const engine::RequestOutcome& o, const std::string& model,
                             const engine::MixModel& mix) {
  return ndjson_line(per_request_json(o, model, mix));
}

std::string per_request_replay_line(const engine::RequestOutcome& o, const std::string& model,
                                    const engine::MixModel& mix,
                                    const engine::RequestTiming& before,
                                    const engine::RequestTiming& after) {
  ordered_json out = per_request_json(o, model, mix);
  put_timing(out, "before", before);
  put_timing(out, "after", after);
  out["replica"] = after.replica;
  return ndjson_line(out);
}

}  // namespace kspeed::report
