// `kspeed mix` for people: the point in one sentence, the percentiles before and after, the
// distribution of request speedups (a text histogram), the per-bucket (or per-model) table, the
// prefix cache, the queue replay and goodput, then what reading the log found and the warnings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/mix_result.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Distribution;
using engine::MixSummary;

constexpr int kHistogramBarWidth = 30;  // characters of the longest bar

// Milliseconds with a fixed number of decimals, so a measured log's percentiles can be compared
// with the tool's own to the last printed digit: "2,369.32" below 10 s, "30,480" above.
std::string ms_cell(double ms) {
  if (std::isnan(ms)) return "–";
  const int decimals = std::fabs(ms) >= 10000 ? 0 : std::fabs(ms) >= 100 ? 2 : 3;
  const std::string fixed = human_fixed(ms, decimals);
  // Thousands separators on the whole part.
  const std::size_t dot = fixed.find('.');
  const std::string whole = fixed.substr(0, dot);
  const std::string rest = dot == std::string::npos ? "" : fixed.substr(dot);
  const bool negative = !whole.empty() && whole.front() == '-';
  std::string digits = negative ? whole.substr(1) : whole;
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return (negative ? "-" : "") + digits + rest;
}

std::string percentile_name(double point) {
  return "p" + human_plain(point);
}

// "measured" / "scaled" / "measured 40, scaled 5": where the TTFTs came from. Modelled TTFTs
// are the step model's calibration ("modelled", "fitted") when the deployment prices them,
// "fitted" when the workload's measured points were fitted, else "scaled".
std::string ttft_provenance(const MixSummary& s, const engine::MixModel& m) {
  const std::string modelled = m.step_model
                                   ? std::string(engine::to_string(m.step_model->calibration))
                               : m.ttft_fit ? std::string("fitted")
                                            : std::string("scaled");
  if (s.ttft_measured > 0 && s.ttft_modelled > 0) {
    return fmt::format("measured {}, {} {}", human_count(s.ttft_measured), modelled,
                       human_count(s.ttft_modelled));
  }
  return s.ttft_measured > 0 ? "measured" : modelled;
}

void add_metric_rows(Table& table, const std::string& name, const engine::BeforeAfter& metric,
                     const std::string& provenance) {
  if (metric.before.count == 0) return;
  const auto row = [](std::string label, const Distribution& d) {
    std::vector<std::string> cells{std::move(label), ms_cell(d.mean)};
    for (double value : d.percentiles) cells.push_back(ms_cell(value));
    return cells;
  };
  table.rows.push_back(row(name + " before (" + provenance + ")", metric.before));
  table.rows.push_back(row(name + " after", metric.after));
  std::vector<std::string> ratio{name + " before ÷ after",
                                 human_speedup(metric.before.mean / metric.after.mean)};
  for (std::size_t i = 0; i < metric.before.percentiles.size(); ++i) {
    ratio.push_back(human_speedup(metric.before.percentiles[i] / metric.after.percentiles[i]));
  }
  table.rows.push_back(std::move(ratio));
}

Table percentile_table(const engine::MixResult& r) {
  const MixSummary& s = r.summary;
  Table table;
  table.header = {"metric (ms)", "mean"};
  table.align = {Align::left, Align::right};
  for (double point : s.percentiles) {
    table.header.push_back(percentile_name(point));
    table.align.push_back(Align::right);
  }
  add_metric_rows(table, "TTFT", s.ttft_ms, ttft_provenance(s, r.model));
  std::string tpot_provenance = "measured";
  if (s.ttft_measured == 0 && r.model.tpot_fit) {
    tpot_provenance = "fitted";
  } else if (s.ttft_measured == 0 && r.model.tpot_ms) {
    tpot_provenance = engine::to_string(r.model.tpot_ms->provenance);
  } else if (s.ttft_measured == 0 && r.model.step_model) {
    tpot_provenance = engine::to_string(r.model.step_model->calibration);
  }
  add_metric_rows(table, "TPOT", s.tpot_ms, tpot_provenance);
  add_metric_rows(table, "E2E", s.e2e_ms, s.ttft_modelled == 0 ? "measured" : "TTFT + (n−1)·TPOT");
  return table;
}

std::string distribution_text(const Distribution& d, const std::vector<double>& points) {
  // No request had this time (a log of decode only has no prefill to speed up): nothing to show,
  // as the JSON's nulls say, rather than the empty distribution's zeros.
  if (d.count == 0) return "n/a (no request has this time)";
  std::string out;
  for (std::size_t i = 0; i < d.percentiles.size() && i < points.size(); ++i) {
    out += percentile_name(points[i]) + " " + human_speedup(d.percentiles[i]) + ", ";
  }
  return out + "mean " + human_speedup(d.mean);
}

Table histogram_table(const MixSummary& s) {
  Table table;
  table.header = {"E2E speedup", "requests", ""};
  table.align = {Align::left, Align::right, Align::left};
  std::int64_t largest = 1;
  for (const auto& bin : s.e2e_speedup_histogram) largest = std::max(largest, bin.count);
  for (const auto& bin : s.e2e_speedup_histogram) {
    const auto width = static_cast<int>(std::lround(
        static_cast<double>(bin.count) / static_cast<double>(largest) * kHistogramBarWidth));
    std::string bar;
    for (int i = 0; i < width; ++i) bar += "█";
    if (bar.empty() && bin.count > 0) bar = "▏";
    table.rows.push_back(
        // Four decimals: the bins of a narrow distribution must not print alike.
        {human_fixed(bin.lower, 4) + "–" + human_fixed(bin.upper, 4) + "×", human_count(bin.count),
         bar});
  }
  return table;
}

std::string bucket_label(const engine::MixGroup& group) {
  if (!group.label.empty()) return group.label;
  const auto k = [](std::int64_t tokens) {
    if (tokens == 0) return std::string("0");
    if (tokens % (1 << 20) == 0) return human_count(tokens >> 20) + "m";
    return human_count(tokens >> 10) + "k";
  };
  if (group.upper_tokens == 0) return "≥ " + k(group.lower_tokens);
  return "[" + k(group.lower_tokens) + ", " + k(group.upper_tokens) + ")";
}

Table group_table(const std::vector<engine::MixGroup>& groups, bool by_model) {
  Table table;
  table.header = {by_model ? "model" : "prompt tokens",
                  "requests",
                  "mean share",
                  "TTFT p50 before",
                  "after",
                  "median E2E speedup",
                  "time-weighted"};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  for (const engine::MixGroup& group : groups) {
    table.rows.push_back(
        {bucket_label(group), human_count(group.requests), human_percent(group.mean_prefill_share),
         ms_cell(group.ttft_p50_before_ms) + " ms", ms_cell(group.ttft_p50_after_ms) + " ms",
         human_speedup(group.median_e2e_speedup), human_speedup(group.time_weighted_e2e_speedup)});
  }
  return table;
}

// "1.2× at 1,024 … 1.8× at 131,072 tokens": --kernel-speedup-table's first and last rows.
std::string speedup_table_text(const engine::KernelSpeedupTable& table) {
  const engine::SpeedupPoint& first = table.points.front();
  const engine::SpeedupPoint& last = table.points.back();
  return fmt::format("{} at {} … {} at {} tokens", human_speedup(first.speedup),
                     human_count(std::llround(first.at)), human_speedup(last.speedup),
                     human_count(std::llround(last.at)));
}

std::string change_text(const engine::MixResult& r) {
  const std::string phase = r.model.phase == engine::Phase::both
                                ? std::string("prefill and decode")
                                : std::string(engine::to_string(r.model.phase));
  if (r.model.kernel_speedup_table) {
    return fmt::format(
        "kernel speedup read at each request's prompt from --kernel-speedup-table (given: {}; "
        "interpolated between rows, held at the nearest outside) on {}",
        speedup_table_text(*r.model.kernel_speedup_table), phase);
  }
  return fmt::format("{} attention kernel ({}) on {}", human_speedup(r.model.kernel_speedup.value),
                     engine::to_string(r.model.kernel_speedup.provenance), phase);
}

// "1 request", "8,819 requests".
std::string requests_text(std::int64_t count) {
  return human_count(count) + (count == 1 ? " request" : " requests");
}

std::string capacity_cell(const std::optional<engine::Capacity>& c);
std::string replicas_cell(const std::optional<engine::ReplicaCapacity>& c);
std::string ratio_cell(double before, double after);
std::string arrivals_text(const engine::MixResult& r);
std::string disagg_verdict_text(const engine::MixResult& r);

// --share-model calibrated on the built-in example's table: said with the answer, not below it.
std::string borrowed_share_text(const engine::MixResult& r) {
  const engine::MixModel& m = r.model;
  if (!m.share_model || m.prefill_share || m.share_model->borrowed_table.empty()) return "";
  return " Its prefill shares are calibrated on " +
         engine::borrowed_table(m.share_model->borrowed_table) +
         " (borrowed: another deployment's measurement, not yours; pass --workload with your "
         "own table, or --share-model analytic).";
}

// Capacity below the log's own rate while the replicas are far from saturated (issue 30: "13%
// load" and a capacity under the rate, unexplained): why, from the attainments the replay has.
// Either requests miss the SLO alone (their own prefill or decode: no rate meets it), or they
// meet it alone and miss it at the log's rate (queueing and batching inside the log's bursts).
std::string capacity_below_rate_text(const engine::MixResult& r) {
  const engine::ServingReplay& s = r.replay->serving;
  const std::optional<engine::Capacity>& c = s.capacity_before;
  const double target = r.slo.attainment_target;
  const bool alone_misses = s.alone_before.attainment && *s.alone_before.attainment < target;
  if (c && c->status == engine::CapacityStatus::unreachable && alone_misses) {
    return fmt::format(
        " No rate meets the SLO: each request alone (no queue) meets it for {} of requests, "
        "under the {} target: a request's own prefill or decode misses it with no queue; a "
        "faster step or a looser SLO can restore it, a lower rate cannot.",
        human_percent(*s.alone_before.attainment), human_percent(target));
  }
  if (!c || c->status != engine::CapacityStatus::found || c->rate_scale >= 1 ||
      s.before.load >= 1) {
    return "";
  }
  const std::string head = fmt::format(
      " Capacity is below the log's own rate (×{}) though the replicas are only {} loaded "
      "(offered {} req/s of the {} req/s that saturate them): ",
      human_figure(c->rate_scale), human_percent(s.before.load),
      human_figure(s.before.offered_rate_per_s), human_figure(s.before.saturation_rate_per_s));
  if (alone_misses) {
    return head + fmt::format(
                      "each request alone (no queue) meets the SLO for {} of requests, under "
                      "the {} target: a request's own prefill or decode misses it with no queue; "
                      "a lower rate cannot restore it, a faster step or a looser SLO can.",
                      human_percent(*s.alone_before.attainment), human_percent(target));
  }
  return head +
         fmt::format(
             "each request alone meets the SLO ({} of requests), but at the log's rate {} do: "
             "its arrivals come in bursts, and the misses are queueing and batching inside them, "
             "not the average load.",
             s.alone_before.attainment ? human_percent(*s.alone_before.attainment) : "–",
             s.before.attainment ? human_percent(*s.before.attainment) : "fewer");
}

// With --replay the headline is the replay's: latencies under load, and capacity with an SLO.
std::string replay_answer_text(const engine::MixResult& r) {
  const engine::ServingReplay& s = r.replay->serving;
  const auto last = s.before.ttft_ms.percentiles.size() - 1;
  const std::string p = percentile_name(r.summary.percentiles[last]);
  const auto pick = [last](const engine::Distribution& d) {
    return last < d.percentiles.size() ? d.percentiles[last] : std::nan("");
  };
  // An overloaded replay leads with it: its percentiles grow with the log's length.
  const double load = std::max(s.before.load, s.after.load);
  std::string text;
  if (load >= 1) {
    text = fmt::format(
        "Overloaded: the replayed load is {}× the rate that saturates the replicas ({}), so the "
        "queue grows with the log's length and the percentiles below measure the log, not a "
        "steady state (add --replicas or lower --rate-scale). ",
        human_figure(load), s.before.load >= 1 ? "before the change" : "after the change");
  }
  text += fmt::format(
      "A {} under load ({}): {} TTFT {} → {} ms ({}), {} E2E {} → {} ms ({}) replayed with "
      "continuous batching; with no queue the same requests' {} TTFT would go {} → {} ms.",
      change_text(r), arrivals_text(r), p, ms_cell(pick(s.before.ttft_ms)),
      ms_cell(pick(s.after.ttft_ms)), ratio_cell(pick(s.before.ttft_ms), pick(s.after.ttft_ms)), p,
      ms_cell(pick(s.before.e2e_ms)), ms_cell(pick(s.after.e2e_ms)),
      ratio_cell(pick(s.before.e2e_ms), pick(s.after.e2e_ms)), p,
      ms_cell(pick(s.alone_before.ttft_ms)), ms_cell(pick(s.alone_after.ttft_ms)));
  if (s.capacity_before && s.capacity_after) {
    text += fmt::format(" Capacity at the SLO: {} → {}.", capacity_cell(s.capacity_before),
                        capacity_cell(s.capacity_after));
    text += capacity_below_rate_text(r);
  }
  if (s.replicas_before && s.replicas_after) {
    text += fmt::format(" Fewest replicas meeting it at this rate: {} → {}.",
                        replicas_cell(s.replicas_before), replicas_cell(s.replicas_after));
  }
  return text + borrowed_share_text(r);
}

std::string answer_text(const engine::MixResult& r) {
  if (r.replay && r.replay->requests > 0) {
    if (r.disagg && r.disagg->requests > 0 && r.slo.any()) {
      return replay_answer_text(r) + " " + disagg_verdict_text(r);
    }
    return replay_answer_text(r);
  }
  const MixSummary& s = r.summary;
  // No request may have a TTFT (a workload that measured decode only, a log without them): the
  // headline says so instead of quoting a percentile of nothing (issue 27).
  std::string ttft_text = "no request has a TTFT (the log and the workload measured none)";
  if (s.ttft_ms.before.count > 0 && !s.ttft_ms.before.percentiles.empty() &&
      s.ttft_ms.after.percentiles.size() == s.ttft_ms.before.percentiles.size()) {
    const auto last = s.ttft_ms.before.percentiles.size() - 1;
    ttft_text = fmt::format(
        "{} TTFT {} → {} ms ({})", percentile_name(s.percentiles[last]),
        ms_cell(s.ttft_ms.before.percentiles[last]), ms_cell(s.ttft_ms.after.percentiles[last]),
        human_speedup(s.ttft_ms.before.percentiles[last] / s.ttft_ms.after.percentiles[last]));
  }
  std::string text = fmt::format(
      "A {} over {}: {}; the median request's E2E {} faster; the "
      "whole log's serving time {} (time-weighted), the mean request {} (request-weighted).",
      change_text(r), requests_text(s.requests), ttft_text,
      s.e2e_speedup.count > 0 && !s.e2e_speedup.percentiles.empty()
          ? human_speedup(s.e2e_speedup.percentiles.front())
          : std::string("–"),
      human_speedup(s.time_weighted_e2e_speedup), human_speedup(s.request_weighted_e2e_speedup));
  return text + borrowed_share_text(r);
}

// With the deployment's step model: what prices each request, and what the flags overrode.
std::string step_model_caption(const engine::MixResult& r) {
  const engine::MixModel& m = r.model;
  std::string text = fmt::format(
      "latencies and shares without a measurement: {}'s step model ({}), each request alone: "
      "TTFT = overhead + its prefill step (n new tokens after c cached, c·n + n(n+1)/2 causal "
      "pairs), TPOT = its mean decode step; the attention share is that step's attention part",
      r.workload_name, engine::to_string(m.step_model->calibration));
  if (m.prefill_share) {
    text += "\nprefill share: " + human_percent(*m.prefill_share) + " (given) for every request";
  }
  if (m.reference) {
    text += fmt::format("\nTTFT without a measurement: {} at {} (given), scaled to each prompt",
                        human_ms(m.reference->ttft_ms.value),
                        human_count(m.reference->prompt_tokens) + " tokens");
  }
  if (m.tpot_fit) {
    text += "\nTPOT without a measurement: fitted to --tpot-point, c + b·L at each prompt L";
  } else if (m.tpot_ms) {
    text += "\nTPOT without a measurement: " + human_ms(m.tpot_ms->value) + " (given)";
  }
  return text;
}

// --share-model, when it gives each request's prefill share.
std::string share_model_caption(const engine::MixResult& r) {
  const engine::MixModel& m = r.model;
  if (!m.share_model || m.prefill_share) return "";
  std::string text = fmt::format(
      "\nprefill share: {} (modelled, --share-model): attention vs GEMM FLOPs of {}'s "
      "architecture at each request's 2c + n",
      m.share_model->calibration ? "calibrated" : "analytic", m.share_model->model.name);
  if (m.share_model->calibration) {
    text += fmt::format(", its odds × {} to fit {}",
                        human_fixed(m.share_model->calibration->odds_factor, 3),
                        m.share_model->borrowed_table.empty()
                            ? std::string("the workload's table")
                            : engine::borrowed_table(m.share_model->borrowed_table));
  }
  if (m.step_model) text += "; of the prefill step's GPU time (the overhead and fixed cost stay)";
  return text;
}

// --ttft-overhead, when it set the fixed term of some request's modelled TTFT.
std::string overhead_caption(const engine::MixResult& r) {
  if (!r.model.ttft_overhead_ms || r.summary.ttft_modelled == 0) return "";
  return fmt::format(
      "\nTTFT's fixed term without a measurement: {} (given, --ttft-overhead; no kernel touches "
      "it, all of a TTFT below it)",
      human_ms(*r.model.ttft_overhead_ms));
}

std::string model_caption(const engine::MixResult& r) {
  if (r.model.step_model) {
    return step_model_caption(r) + share_model_caption(r) + overhead_caption(r);
  }
  std::string text = "shares: workload " + r.workload_name + " (" +
                     std::string(engine::to_string(r.model.share_origin)) +
                     "), each request's at its own effective prompt 2c + n";
  if (r.model.prefill_share)
    text = "prefill share: " + human_percent(*r.model.prefill_share) + " (given) for every request";
  if (r.model.ttft_fit && r.summary.ttft_modelled > 0) {
    text += fmt::format(
        "\nTTFT without a measurement: fitted to the workload's measured points, T0 + a·n·(1 + "
        "odds(2c + n)) with T0 = {} (no kernel touches it) and a = {} ms/token",
        human_ms(r.model.ttft_fit->fixed_ms), human_fixed(r.model.ttft_fit->ms_per_token, 4));
  } else if (r.model.reference && r.summary.ttft_modelled > 0) {
    text += fmt::format("\nTTFT without a measurement: {} at {} ({}), scaled to each prompt",
                        human_ms(r.model.reference->ttft_ms.value),
                        human_count(r.model.reference->prompt_tokens) + " tokens",
                        engine::to_string(r.model.reference->ttft_ms.provenance));
  }
  text += share_model_caption(r) + overhead_caption(r);
  if (r.model.tpot_fit && r.summary.tpot_from_workload > 0) {
    text += fmt::format(
        "\nTPOT without a measurement: fitted to --tpot-point, c + b·L at each prompt L with c = "
        "{} and b = {} ms/token",
        human_ms(r.model.tpot_fit->fixed_ms), human_fixed(r.model.tpot_fit->ms_per_token, 6));
  } else if (r.model.tpot_ms && r.summary.tpot_from_workload > 0) {
    text += fmt::format("\nTPOT without a measurement: {} ({}), not scaled with context",
                        human_ms(r.model.tpot_ms->value),
                        engine::to_string(r.model.tpot_ms->provenance));
  }
  return text;
}

std::string cache_text(const engine::MixResult& r) {
  const engine::PrefixCacheOptions& cache = r.model.prefix_cache;
  switch (cache.mode) {
    case engine::PrefixCacheOptions::Mode::off:
      return r.summary.cache_hit_rate > 0
                 // The log states each request's cached prefix: a server's count (AIPerf's
                 // cached_tokens) or a client's reckoning (InferenceX's infinite-cache column).
                 ? "hit rate " + human_percent(r.summary.cache_hit_rate) +
                       " (from the cached prefix the log states for each request)"
                 : "off";
    case engine::PrefixCacheOptions::Mode::lru:
      return fmt::format(
          "LRU of {} tokens ({} blocks of {}): hit rate {} of prompt tokens "
          "(simulated)",
          human_count(cache.capacity_tokens),
          human_count(cache.capacity_tokens / cache.block_tokens), human_count(cache.block_tokens),
          human_percent(r.summary.cache_hit_rate));
    case engine::PrefixCacheOptions::Mode::hit_fraction:
      return fmt::format("{} of every prompt cached (given): hit rate {}",
                         human_percent(cache.hit_fraction),
                         human_percent(r.summary.cache_hit_rate));
  }
  return "off";
}

std::string capacity_cell(const std::optional<engine::Capacity>& c) {
  if (!c) return "–";
  switch (c->status) {
    case engine::CapacityStatus::found:
      return fmt::format("{} req/s (×{})", human_figure(c->requests_per_s),
                         human_figure(c->rate_scale));
    case engine::CapacityStatus::above_range:
      return fmt::format("≥ {} req/s", human_figure(c->requests_per_s));
    case engine::CapacityStatus::unreachable:
      return "unreachable";
  }
  return "–";
}

std::string replicas_cell(const std::optional<engine::ReplicaCapacity>& c) {
  if (!c) return "–";
  if (c->status == engine::ReplicaStatus::unreachable) return "unreachable";
  return human_count(c->replicas);
}

std::string ratio_cell(double before, double after) {
  return before > 0 && after > 0 ? human_speedup(before / after) : "";
}

// One latency metric's rows: mean and each percentile, before, after, their ratio, and the
// no-queue answer (each request alone) before and after.
void add_replay_rows(Table& table, const std::string& name, const engine::MixReplay& q,
                     engine::Distribution engine::ReplaySide::*metric,
                     const std::vector<double>& points) {
  const engine::ServingReplay& s = q.serving;
  const auto row = [&](const std::string& label, auto pick) {
    const double b = pick(s.before.*metric);
    const double a = pick(s.after.*metric);
    table.rows.push_back({name + " " + label, ms_cell(b), ms_cell(a), ratio_cell(b, a),
                          ms_cell(pick(s.alone_before.*metric)),
                          ms_cell(pick(s.alone_after.*metric))});
  };
  if ((s.before.*metric).count == 0) return;
  row("mean", [](const engine::Distribution& d) { return d.mean; });
  for (std::size_t i = 0; i < points.size(); ++i) {
    row(percentile_name(points[i]), [i](const engine::Distribution& d) {
      return i < d.percentiles.size() ? d.percentiles[i] : std::nan("");
    });
  }
}

Table replay_table(const engine::MixResult& r) {
  const engine::MixReplay& q = *r.replay;
  Table table;
  table.header = {"metric (ms)", "before", "after", "speedup", "no queue before", "no queue after"};
  table.align = {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right};
  const std::vector<double>& points = r.summary.percentiles;
  add_replay_rows(table, "TTFT", q, &engine::ReplaySide::ttft_ms, points);
  add_replay_rows(table, "TPOT", q, &engine::ReplaySide::tpot_ms, points);
  add_replay_rows(table, "ITL", q, &engine::ReplaySide::itl_ms, points);
  add_replay_rows(table, "E2E", q, &engine::ReplaySide::e2e_ms, points);
  add_replay_rows(table, "queue", q, &engine::ReplaySide::queue_ms, points);
  return table;
}

// With per-replica prefix caches: each replica's LRU and what it held, before and after (the
// routing may place requests differently when the steps are faster).
void add_replica_cache_row(Table& table, const engine::MixResult& r) {
  const engine::ServingReplay& s = r.replay->serving;
  if (!s.before.totals.per_replica_caches) return;
  table.rows.push_back({"prefix cache hit rate (each replica's own LRU)",
                        human_percent(s.before.totals.cache_hit_rate()),
                        human_percent(s.after.totals.cache_hit_rate()), ""});
}

Table load_table(const engine::MixResult& r) {
  const engine::ServingReplay& s = r.replay->serving;
  Table table;
  table.header = {"load", "before", "after", "after ÷ before"};
  table.align = {Align::left, Align::right, Align::right, Align::right};
  const auto figure_row = [&](const std::string& name, double b, double a) {
    table.rows.push_back({name, human_figure(b), human_figure(a), ratio_cell(a, b)});
  };
  figure_row("output tokens/s", s.before.output_tokens_per_s, s.after.output_tokens_per_s);
  figure_row("output tokens/s per replica", s.before.output_tokens_per_s_per_replica,
             s.after.output_tokens_per_s_per_replica);
  figure_row("saturation rate (req/s)", s.before.saturation_rate_per_s,
             s.after.saturation_rate_per_s);
  if (r.replay->setup.arrivals.concurrency == 0) {
    table.rows.push_back({"load ρ (offered ÷ saturation)", human_fixed(s.before.load, 3),
                          human_fixed(s.after.load, 3), ""});
  }
  figure_row("sequences per step (mean)", s.before.mean_batch_sequences,
             s.after.mean_batch_sequences);
  table.rows.push_back(
      {"preemptions", human_count(s.before.preemptions), human_count(s.after.preemptions), ""});
  table.rows.push_back({"attention share of step time", human_percent(s.before.attention_fraction),
                        human_percent(s.after.attention_fraction), ""});
  add_replica_cache_row(table, r);
  if (r.slo.ttft_ms || r.slo.tpot_ms) {
    table.rows.push_back({"SLO attainment", human_percent(s.before.attainment.value_or(0)),
                          human_percent(s.after.attainment.value_or(0)), ""});
    std::string ratio;
    if (s.capacity_before && s.capacity_after) {
      ratio = ratio_cell(s.capacity_after->requests_per_s, s.capacity_before->requests_per_s);
    }
    table.rows.push_back({"capacity (highest rate meeting the SLO)",
                          capacity_cell(s.capacity_before), capacity_cell(s.capacity_after),
                          ratio});
    if (s.replicas_before && s.replicas_after) {
      const bool both = s.replicas_before->status == engine::ReplicaStatus::found &&
                        s.replicas_after->status == engine::ReplicaStatus::found;
      table.rows.push_back({"fewest replicas meeting the SLO at this rate",
                            replicas_cell(s.replicas_before), replicas_cell(s.replicas_after),
                            both ? ratio_cell(static_cast<double>(s.replicas_after->replicas),
                                              static_cast<double>(s.replicas_before->replicas))
                                 : std::string()});
    }
  }
  return table;
}

std::string slo_text(const engine::MixResult& r) {
  std::string text;
  if (r.slo.ttft_ms) text += "TTFT ≤ " + human_ms(*r.slo.ttft_ms);
  if (r.slo.tpot_ms)
    text += std::string(text.empty() ? "" : " and ") + "TPOT ≤ " + human_ms(*r.slo.tpot_ms);
  return text + " for at least " + human_percent(r.slo.attainment_target) + " of requests";
}

std::string arrivals_text(const engine::MixResult& r) {
  const engine::MixReplay& q = *r.replay;
  const engine::ArrivalOptions& a = q.setup.arrivals;
  const std::string replicas = fmt::format("{} replica{}", a.replicas, a.replicas == 1 ? "" : "s");
  if (a.concurrency > 0) {
    const std::string think =
        a.think_time_s > 0 ? ", each thinking " + human_ms(a.think_time_s * 1000) + " between"
                           : std::string();
    const std::string sessions = a.session_turns > 1
                                     ? fmt::format(", in sessions of {} turns", a.session_turns)
                                     : std::string();
    return fmt::format("{} requests from a closed loop of {} clients{}{} on {}",
                       human_count(q.requests), a.concurrency, sessions, think, replicas);
  }
  const std::string cap =
      a.max_inflight > 0 ? fmt::format(", at most {} in flight", a.max_inflight) : std::string();
  return fmt::format("{} requests arriving at {} req/s (rate ×{}){} on {}", human_count(q.requests),
                     human_figure(q.serving.before.offered_rate_per_s), human_plain(a.rate_scale),
                     cap, replicas);
}

// A step-model coefficient to four significant digits ("4.8", "7.725", "7.5e-07"): a modelled
// or fitted one is not known to more; the JSON keeps every digit.
std::string coefficient(double ms) {
  return fmt::format("{:.4g}", ms);
}

// The replay's kernel speedup on one phase's attention: one number, or each request's own.
std::string kernel_text(double speedup, bool per_request) {
  if (per_request) return "×(each request's, --kernel-speedup-table at its prompt)";
  return "×" + human_plain(speedup);
}

const char* replay_routing_text(engine::Routing routing) {
  switch (routing) {
    case engine::Routing::round_robin:
      return "round robin";
    case engine::Routing::least_outstanding:
      return "least outstanding";
    case engine::Routing::shared_queue:
      return "shared queue";
    case engine::Routing::prefix_aware:
      return "prefix aware (most cached blocks if ≥ 30% of the prompt's, unless loads are "
             "imbalanced; else least outstanding)";
  }
  return "round robin";
}

std::string scheduler_text(const engine::MixResult& r) {
  const engine::ServingSetup& setup = r.replay->setup;
  const engine::SchedulerOptions& s = setup.scheduler;
  const engine::StepModel& m = setup.step;
  return fmt::format(
      "step model ({}): fixed {} ms + max(weights {} ms{}, {} ms/token) + {} ms per prefill pair + "
      "{} ms per KV token read{}; kernel {} on prefill attention, {} on decode attention\n"
      "scheduler: {}, ≤ {} tokens and ≤ {} sequences a step, chunked prefill {}, KV {} in "
      "{}-token blocks (preemption by recompute), {} ms per request outside the engine (not "
      "queued); routing {}",
      step_model_source(*r.deployment), coefficient(m.fixed_ms), coefficient(m.weights_ms),
      // MoE: the routed experts, of which a step reads the union of its tokens' choices
      (m.experts.experts > 0 ? " + routed experts " + coefficient(m.experts.all_experts_ms) +
                                   " ms × the share its tokens choose"
                             : std::string()) +
          (m.launch_floor_ms > 0 ? " + launch floor " + coefficient(m.launch_floor_ms) + " ms"
                                 : std::string()),
      coefficient(m.ms_per_token), coefficient(m.ms_per_prefill_pair),
      coefficient(m.ms_per_kv_token),
      (m.ms_per_sequence > 0 ? " + " + coefficient(m.ms_per_sequence) + " ms per running sequence"
                             : std::string()) +
          (m.tp_ms_per_token > 0 ? " + TP all-reduces " + coefficient(m.tp_ms_per_token) +
                                       " ms/token + " + coefficient(m.tp_fixed_ms) + " ms"
                                 : std::string()) +
          (m.ep_ms_per_token > 0 ? " + EP all-to-alls " + coefficient(m.ep_ms_per_token) +
                                       " ms/token + " + coefficient(m.ep_fixed_ms) + " ms"
                                 : std::string()),
      kernel_text(setup.speedup.prefill, setup.speedup.prefill_per_request),
      kernel_text(setup.speedup.decode, setup.speedup.decode_per_request),
      s.policy == engine::SchedulerPolicy::mixed ? "vLLM V1 mixed steps (decodes first)"
                                                 : "prefill first (SGLang default, vLLM V0)",
      human_count(s.max_batched_tokens), human_count(s.max_seqs), s.chunked_prefill ? "on" : "off",
      s.kv_blocks
          ? human_count(*s.kv_blocks) + " blocks (" + kv_capacity_source(*r.deployment) + ")"
          : std::string("unlimited"),
      s.block_tokens, coefficient(s.request_overhead_ms),
      replay_routing_text(setup.arrivals.routing));
}

void add_replay(View& view, const engine::MixResult& r) {
  view.subheading("Replay (--replay): " + arrivals_text(r) + ", continuous batching");
  view.table(replay_table(r));
  view.caption(
      "replayed (modelled): every step timed by the step model from its batch; no queue = each "
      "request alone on an idle replica\n" +
      scheduler_text(r));
  view.table(load_table(r));
  std::string caption =
      "saturation rate: requests/s with every replica's batch full (a closed loop of max "
      "sequences clients)";
  if (r.replay->serving.before.totals.per_replica_caches) {
    caption += "\nprefix cache: each replica its own LRU of " +
               human_count(r.model.prefix_cache.capacity_tokens) +
               " tokens over the log's block ids, filled as requests are placed on it; hit rate "
               "= cached ÷ prompt tokens of the replayed requests (the no-queue column and the "
               "chain above use one cache in log order)";
  }
  if (r.slo.ttft_ms || r.slo.tpot_ms) {
    caption += "\nSLO: " + slo_text(r) +
               "; capacity = the highest arrival rate meeting it (bisection over the rate scale); "
               "fewest replicas = the smallest --replicas meeting it at this rate, same routing";
  }
  view.caption(caption);
}

// --disagg: colocated and disaggregated side by side on the same requests, before and after.
void add_disagg_rows(Table& table, const std::string& name, const engine::MixResult& r,
                     engine::Distribution engine::ReplaySide::*colocated,
                     engine::Distribution engine::DisaggSide::*pooled) {
  const engine::ServingReplay& s = r.replay->serving;
  const engine::MixDisagg& d = *r.disagg;
  const auto row = [&](const std::string& label, auto pick) {
    const double cb = pick(s.before.*colocated);
    const double ca = pick(s.after.*colocated);
    const double db = pick(d.before.*pooled);
    const double da = pick(d.after.*pooled);
    table.rows.push_back({name + " " + label, ms_cell(cb), ms_cell(ca), ratio_cell(cb, ca),
                          ms_cell(db), ms_cell(da), ratio_cell(db, da)});
  };
  if ((d.before.*pooled).count == 0) return;
  row("mean", [](const engine::Distribution& x) { return x.mean; });
  const std::vector<double>& points = r.summary.percentiles;
  for (std::size_t i = 0; i < points.size(); ++i) {
    row(percentile_name(points[i]), [i](const engine::Distribution& x) {
      return i < x.percentiles.size() ? x.percentiles[i] : std::nan("");
    });
  }
}

std::string replicas_text(std::int64_t count) {
  return human_count(count) + (count == 1 ? " replica" : " replicas");
}

Table disagg_table(const engine::MixResult& r) {
  const engine::MixDisagg& d = *r.disagg;
  const engine::ServingReplay& s = r.replay->serving;
  Table table;
  const std::string colocated = "colocated";
  table.header = {"metric (ms)", colocated + " before", "after",
                  "speedup",     d.name + " before",    "after",
                  "speedup"};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  add_disagg_rows(table, "TTFT", r, &engine::ReplaySide::ttft_ms, &engine::DisaggSide::ttft_ms);
  add_disagg_rows(table, "TPOT", r, &engine::ReplaySide::tpot_ms, &engine::DisaggSide::tpot_ms);
  add_disagg_rows(table, "E2E", r, &engine::ReplaySide::e2e_ms, &engine::DisaggSide::e2e_ms);
  if (r.slo.any()) {
    table.rows.push_back({"SLO attainment", human_percent(s.before.attainment.value_or(0)),
                          human_percent(s.after.attainment.value_or(0)), "",
                          human_percent(d.before.attainment.value_or(0)),
                          human_percent(d.after.attainment.value_or(0)), ""});
    const auto capacity_ratio = [](const std::optional<engine::Capacity>& b,
                                   const std::optional<engine::Capacity>& a) {
      return b && a ? ratio_cell(a->requests_per_s, b->requests_per_s) : std::string();
    };
    table.rows.push_back(
        {"capacity at the SLO", capacity_cell(s.capacity_before), capacity_cell(s.capacity_after),
         capacity_ratio(s.capacity_before, s.capacity_after), capacity_cell(d.capacity_before),
         capacity_cell(d.capacity_after), capacity_ratio(d.capacity_before, d.capacity_after)});
  }
  return table;
}

// Each pool: how busy, how long requests waited there, and what the kernel saved there.
Table disagg_pool_table(const engine::MixDisagg& d, const std::vector<double>& points) {
  Table table;
  table.header = {"pool",  "replicas",        "utilisation before",
                  "after", "busy time saved", "wait p50 before",
                  "after", "wait p99 before", "after"};
  table.align = {Align::left,  Align::right, Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right, Align::right};
  const auto percentile = [&points](const engine::Distribution& x, double point) {
    for (std::size_t i = 0; i < points.size() && i < x.percentiles.size(); ++i) {
      if (points[i] == point) return ms_cell(x.percentiles[i]);
    }
    return std::string("–");
  };
  const auto saved = [](const engine::PoolReplay& b, const engine::PoolReplay& a) {
    return b.totals.busy_ms > 0 ? human_percent(1 - a.totals.busy_ms / b.totals.busy_ms)
                                : std::string("–");
  };
  table.rows.push_back(
      {"prefill", human_count(d.request.prefill_replicas),
       human_percent(d.before.prefill.utilisation), human_percent(d.after.prefill.utilisation),
       saved(d.before.prefill, d.after.prefill), percentile(d.before.prefill_queue_ms, 50),
       percentile(d.after.prefill_queue_ms, 50), percentile(d.before.prefill_queue_ms, 99),
       percentile(d.after.prefill_queue_ms, 99)});
  table.rows.push_back(
      {"decode", human_count(d.request.decode_replicas), human_percent(d.before.decode.utilisation),
       human_percent(d.after.decode.utilisation), saved(d.before.decode, d.after.decode),
       percentile(d.before.decode_wait_ms, 50), percentile(d.after.decode_wait_ms, 50),
       percentile(d.before.decode_wait_ms, 99), percentile(d.after.decode_wait_ms, 99)});
  return table;
}

std::string disagg_transfer_text(const engine::MixDisagg& d, const std::vector<double>& points) {
  std::string text = fmt::format(
      "KV transfer per request (modelled: {} + bytes ÷ {}; {} bytes a "
      "token, the whole model's, modelled): mean {}",
      human_ms(d.request.link.link.latency_s * 1000.0),
      human_si(d.request.link.link.bytes_per_s, "B/s"),
      human_count(static_cast<std::int64_t>(d.kv_bytes_per_token)),
      ms_cell(d.transfer_ms.mean) + " ms");
  // The transfer times print as the pool table's waits above them (ms_cell), so a transfer can
  // be set against a wait digit for digit; the link's latency is a parameter, not a result.
  for (std::size_t i = 0; i < points.size() && i < d.transfer_ms.percentiles.size(); ++i) {
    text += ", " + percentile_name(points[i]) + " " + ms_cell(d.transfer_ms.percentiles[i]) + " ms";
  }
  return text + "\nlink " + d.request.link.name + " (" +
         (d.request.link.cited ? "cited: " : "given: ") + d.request.link.source + ")";
}

// Where the kernel acts: prefill attention in the prefill pool, decode attention in the decode
// pool.
std::string disagg_kernel_text(const engine::MixDisagg& d) {
  return fmt::format(
      "the kernel's worth per pool: prefill attention {} acts in the prefill pool, decode "
      "attention {} in the decode pool (whose first step computes each prompt's last token); "
      "busy time saved = 1 − busy after ÷ before; utilisation = busy time ÷ (replicas × the "
      "pool's span); wait = arrival at the pool to first scheduled there (the decode pool's "
      "includes waiting for KV blocks)",
      kernel_text(d.speedup.prefill, d.speedup.prefill_per_request),
      kernel_text(d.speedup.decode, d.speedup.decode_per_request));
}

// The comparison in one sentence: which of the two meets the SLO at this load, before and after.
std::string disagg_verdict_text(const engine::MixResult& r) {
  const engine::ServingReplay& s = r.replay->serving;
  const engine::MixDisagg& d = *r.disagg;
  const double target = r.slo.attainment_target;
  const auto meets = [target](const std::optional<double>& a) {
    return a.value_or(0) >= target ? "meets" : "misses";
  };
  const std::int64_t colocated = std::max<std::int64_t>(1, r.replay->setup.arrivals.replicas);
  return fmt::format(
      "At this load ({}), colocated serving on {} {} the SLO before the kernel ({} of requests) "
      "and {} it after ({}); {} on {} ({} + {}) {} it before ({}) and {} it after ({}).",
      arrivals_text(r), replicas_text(colocated), meets(s.before.attainment),
      human_percent(s.before.attainment.value_or(0)), meets(s.after.attainment),
      human_percent(s.after.attainment.value_or(0)), d.name,
      replicas_text(d.request.prefill_replicas + d.request.decode_replicas),
      human_count(d.request.prefill_replicas), human_count(d.request.decode_replicas),
      meets(d.before.attainment), human_percent(d.before.attainment.value_or(0)),
      meets(d.after.attainment), human_percent(d.after.attainment.value_or(0)));
}

void add_disagg(View& view, const engine::MixResult& r) {
  const engine::MixDisagg& d = *r.disagg;
  view.subheading(fmt::format(
      "Disaggregated (--disagg {}): {} prefill and {} decode, the same "
      "requests, beside the colocated replay above",
      d.name, replicas_text(d.request.prefill_replicas), replicas_text(d.request.decode_replicas)));
  view.table(disagg_table(r));
  std::string caption =
      "replayed (modelled): each pool a continuous-batching replay of its deployment; TTFT = "
      "prefill pool (queue and prefill) + KV transfer + the decode pool's first token; TPOT the "
      "decode pool's";
  if (d.request.concurrency > 0) {
    caption += fmt::format(
        "; a closed loop of {} clients through both pools, found by replaying until the sends "
        "settled ({} replays before the kernel, {} after)",
        human_count(d.request.concurrency), human_count(d.closed_loop_rounds_before),
        human_count(d.closed_loop_rounds_after));
  } else if (r.slo.any()) {
    caption += "; capacity = the highest rate scale at which " +
               human_percent(r.slo.attainment_target) +
               " of requests meet the SLO (bisection over the rate scale)";
  }
  view.caption(caption);
  view.table(disagg_pool_table(d, r.summary.percentiles));
  view.caption(disagg_kernel_text(d) + "\n" + disagg_transfer_text(d, r.summary.percentiles));
}

std::string skipped_text(const engine::SkippedRows& rows) {
  std::string lines;
  for (std::int64_t line : rows.first_lines) {
    lines += (lines.empty() ? "" : ", ") + human_count(line);
  }
  return fmt::format("{} × {} (line{} {}{}); first: {}", human_count(rows.count), rows.reason,
                     rows.first_lines.size() == 1 ? "" : "s", lines,
                     rows.count > static_cast<std::int64_t>(rows.first_lines.size()) ? ", …" : "",
                     rows.first_detail);
}

void add_log_facts(View& view, const engine::MixResult& r) {
  const engine::RequestLogCounts& log = r.log;
  if (r.log_format == "generated") {  // no log: the load model's requests
    view.fact("requests", r.generated_load);
    return;
  }
  if (!r.generated_load.empty()) view.fact("arrivals", r.generated_load);
  view.fact("log", fmt::format("{} ({}): {} record{}, {} request{} used, {} skipped", log.source,
                               r.log_format, human_count(log.records), log.records == 1 ? "" : "s",
                               human_count(log.requests), log.requests == 1 ? "" : "s",
                               human_count(log.skipped_total())));
  for (const engine::SkippedRows& rows : log.skipped) view.fact("skipped", skipped_text(rows));
  if (log.zero_response > 0) {
    view.fact("kept", human_count(log.zero_response) +
                          (log.zero_response == 1 ? " request" : " requests") +
                          " with a zero-length response (prefill only: a TTFT, no TPOT)");
  }
  if (log.out_of_order > 0) {
    view.fact("order",
              fmt::format("{} {} backwards (first at line {}): kept; the replay sorts by arrival",
                          human_count(log.out_of_order),
                          log.out_of_order == 1 ? "timestamp goes" : "timestamps go",
                          human_count(log.first_out_of_order_line)));
  }
}

}  // namespace

View mix_view(const engine::MixResult& r) {
  const MixSummary& s = r.summary;
  View view;
  // On a deployment the answer is that deployment's, named as estimate names it.
  const std::string deployment = r.model.step_model
                                     ? " · deployment " + r.workload_name + " (" +
                                           calibration_phrase(*r.model.step_model) + ")"
                                     : std::string();
  view.title("kspeed mix · " + r.log.source + " · " + requests_text(s.requests) + deployment,
             "kspeed mix: " + r.log.source + deployment);
  view.answer(answer_text(r));
  // With a replay its distribution comes first, as the headline quotes it; the no-queue one
  // (each request alone) follows as the second.
  const bool replay_first = r.replay && r.replay->requests > 0;
  if (replay_first) {
    add_replay(view, r);
    if (r.disagg && r.disagg->requests > 0) add_disagg(view, r);
    view.subheading(
        "Without a queue: each request alone, as the per-request chain prices it (kspeed "
        "estimate's model; the replay's own no-queue columns are above)");
  }
  view.table(percentile_table(r));
  view.caption(
      "before ÷ after: the ratio of the percentiles (a percentile of the per-request "
      "speedups is below)\n" +
      model_caption(r));

  view.subheading("Per-request E2E speedup (before / after of each request)");
  view.table(histogram_table(s));
  view.caption(
      "per request: prefill " + distribution_text(s.prefill_speedup, s.percentiles) + "; E2E " +
      distribution_text(s.e2e_speedup, s.percentiles) +
      fmt::format("\ntime-weighted (Σ before / Σ after, the serving time the whole log saves): "
                  "TTFT {}, E2E {}\nrequest-weighted (the mean of per-request speedups, what the "
                  "average user sees): E2E {}",
                  human_speedup(s.time_weighted_ttft_speedup),
                  human_speedup(s.time_weighted_e2e_speedup),
                  human_speedup(s.request_weighted_e2e_speedup)));

  const bool by_model = r.grouping == engine::MixGrouping::model;
  view.subheading(by_model ? "By model" : "By prompt length (log-spaced buckets, k = 1,024)");
  view.table(group_table(by_model ? s.by_model : s.buckets, by_model));

  view.fact("prefix cache", cache_text(r));
  if (r.replay && !replay_first) add_replay(view, r);
  add_log_facts(view, r);
  for (const engine::Warning& warning : s.warnings) view.warning(warning_sentence(warning));
  if (r.replay) {
    for (const engine::Warning& warning : r.replay->warnings) {
      view.warning(warning_sentence(warning));
    }
  }
  return view;
}

}  // namespace kspeed::report
