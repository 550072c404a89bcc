// From results to charts (include/kspeed/report/chart/): which numbers each chart plots and how
// they are labelled. The drawing itself is the chart library's.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/error.hpp"
#include "kspeed/report/chart/roofline_chart.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/chart/waterfall_chart.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/mix_plot.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Sweep;
using engine::SweepRow;

// "flash::flash_fwd_kernel": a kernel's C++ signature without its template arguments and
// parameters, at most 40 characters, so a subtitle fits the chart.
std::string short_kernel_name(const std::string& name) {
  constexpr std::size_t kWidth = 40;
  std::string out = name.substr(0, name.find_first_of("<("));
  if (out.rfind("void ", 0) == 0) out.erase(0, 5);
  return out.size() <= kWidth ? out : out.substr(0, kWidth - 3) + "...";
}

double kernel_or_zero(const SweepRow& row) {
  return row.kernel_speedup ? row.kernel_speedup->value : 0;
}

bool same_series(const SweepRow& a, const SweepRow& b) {
  return a.batch == b.batch && kernel_or_zero(a) == kernel_or_zero(b) &&
         a.compute_speedup == b.compute_speedup && a.bytes_reduction == b.bytes_reduction &&
         a.response_tokens.value == b.response_tokens.value &&
         (a.prefill_share.provenance != engine::Provenance::given ||
          a.prefill_share.value == b.prefill_share.value);
}

// What sets one series apart from the others: "kernel 4×", "batch 64", ...
std::string series_label(const Sweep& sweep, const SweepRow& row) {
  std::string label;
  auto add = [&label](const std::string& part) { label += ", " + part; };
  for (const std::string& name : sweep.swept) {
    if (name == "kernel_speedup" && row.kernel_speedup) {
      add("kernel " + human_speedup(row.kernel_speedup->value));
    } else if (name == "batch" && row.batch) {
      add("batch " + human_count(*row.batch));
    } else if (name == "compute_speedup" && row.compute_speedup) {
      add("compute " + human_speedup(*row.compute_speedup));
    } else if (name == "bytes_reduction" && row.bytes_reduction) {
      add("bytes ÷" + human_plain(*row.bytes_reduction));
    } else if (name == "prefill_attention_share") {
      add("share " + human_percent(row.prefill_share.value));
    } else if (name == "response_tokens") {
      add("response " + human_count(row.response_tokens.value));
    }
  }
  return label;
}

// The first-token line: TTFT's speedup when a fixed term makes TTFT more than prefill's GPU time
// (prefill then gains more than TTFT does), else prefill's, which is TTFT's.
double first_token_speedup(const SweepRow& row) {
  return row.result.ttft ? row.result.ttft->speedup : row.result.prefill.phase.speedup;
}

// Whether some row of the series has a TTFT level (a fixed term): then its line is TTFT's (at a
// row without one, TTFT is prefill's GPU time and the two speedups are the same).
bool any_fixed_term(const Sweep& sweep, std::size_t first, std::size_t end) {
  for (std::size_t i = first; i < end; ++i) {
    if (sweep.rows[i].result.ttft) return true;
  }
  return false;
}

void add_series(chart::SweepChart& out, const Sweep& sweep, std::size_t first, std::size_t end) {
  const std::string label = series_label(sweep, sweep.rows[first]);
  const bool fixed_term = any_fixed_term(sweep, first, end);
  const std::string first_level = fixed_term ? "TTFT" : "prefill (TTFT)";
  chart::SweepSeries prefill{first_level + label, {}};
  chart::SweepSeries request{"request (E2E)" + label, {}};

  for (std::size_t i = first; i < end; ++i) {
    const SweepRow& row = sweep.rows[i];
    const auto x = static_cast<double>(row.prompt_tokens.value);
    prefill.points.push_back({x, first_token_speedup(row)});
    request.points.push_back({x, row.result.request.speedup});
  }
  out.series.push_back(std::move(prefill));
  out.series.push_back(std::move(request));
  if (!label.empty()) {
    // One colour per swept value, one line style per level: 4 kernels are 4 colours, not 8
    const std::string group = label.substr(2);  // without the leading ", "
    out.styles.push_back({group, first_level, false});
    out.styles.push_back({group, "request (E2E)", true});
  }
}

// TTFT's speedup at a measured context when TTFT has a fixed term: a swept row at exactly that
// context has it; else the workload's fitted TTFT there, as the sweep's rows were fitted
// (p_eff = p · (TTFT − T0) / TTFT, then Amdahl). Nothing when TTFT came another way.
std::optional<double> fitted_ttft_speedup(const Sweep& sweep, std::size_t end,
                                          const engine::SharePoint& point) {
  const SweepRow& first = sweep.rows.front();
  for (std::size_t i = 0; i < end; ++i) {
    if (static_cast<double>(sweep.rows[i].prompt_tokens.value) == point.context_tokens) {
      return first_token_speedup(sweep.rows[i]);
    }
  }
  bool fitted = false;
  bool extrapolated = false;
  for (std::size_t i = 0; i < end; ++i) {
    fitted = fitted || sweep.rows[i].ttft_ms.provenance == engine::Provenance::fitted;
    extrapolated =
        extrapolated || sweep.rows[i].prefill_share.provenance == engine::Provenance::extrapolated;
  }
  if (!fitted || sweep.workload.request.ttft_points.size() < 2) return std::nullopt;
  const engine::TtftModel model =
      engine::fit_ttft(sweep.workload.request.ttft_points, sweep.workload.prefill_shares,
                       extrapolated ? engine::Extrapolation::model : engine::Extrapolation::clamp);
  const engine::TtftAt at = engine::ttft_at(model, point.context_tokens);
  return engine::amdahl_speedup(at.effective_share, first.kernel_speedup->value);
}

// The swept contexts outside the share table, where the share is held at the table's edge.
void add_clamped_ranges(chart::SweepChart& out, const Sweep& sweep, std::size_t end) {
  const auto& table = sweep.workload.prefill_shares;
  if (table.empty() || sweep.phase == engine::Phase::decode) return;
  const double lo = static_cast<double>(sweep.rows.front().prompt_tokens.value);
  const double hi = static_cast<double>(sweep.rows[end - 1].prompt_tokens.value);
  bool below = false;
  bool above = false;
  for (std::size_t i = 0; i < end; ++i) {
    if (sweep.rows[i].prefill_share.provenance != engine::Provenance::clamped) continue;
    const auto x = static_cast<double>(sweep.rows[i].prompt_tokens.value);
    below = below || x < table.front().context_tokens;
    above = above || x > table.back().context_tokens;
  }
  if (below) out.clamped.emplace_back(lo, table.front().context_tokens);
  if (above) out.clamped.emplace_back(table.back().context_tokens, hi);
}

// The ceiling and the measured points of the first series (its kernel speedup, its shares).
void add_ceiling_and_measured(chart::SweepChart& out, const Sweep& sweep, std::size_t end) {
  const SweepRow& first = sweep.rows.front();
  for (std::size_t i = 0; i < end; ++i) {
    const SweepRow& row = sweep.rows[i];
    const std::optional<double> ceiling =
        row.result.ttft ? row.result.ttft->ceiling : row.result.prefill.phase.ceiling;
    out.ceiling.push_back({static_cast<double>(row.prompt_tokens.value),
                           ceiling ? *ceiling : std::numeric_limits<double>::infinity()});
  }
  const engine::Provenance shares = first.prefill_share.provenance;
  add_clamped_ranges(out, sweep, end);
  if (!first.kernel_speedup || sweep.phase == engine::Phase::decode ||
      shares == engine::Provenance::given || shares == engine::Provenance::modelled) {
    return;  // the measured shares only place points on the line when the table gives the share
  }
  const double lo = static_cast<double>(first.prompt_tokens.value);
  const double hi = static_cast<double>(sweep.rows[end - 1].prompt_tokens.value);
  for (const engine::SharePoint& point : sweep.workload.prefill_shares) {
    if (point.context_tokens < lo || point.context_tokens > hi) continue;
    if (!any_fixed_term(sweep, 0, end)) {
      out.measured.push_back({point.context_tokens,
                              engine::amdahl_speedup(point.share, first.kernel_speedup->value),
                              human_percent(point.share) + " measured"});
      continue;
    }
    if (const auto speedup = fitted_ttft_speedup(sweep, end, point)) {
      out.measured.push_back(
          {point.context_tokens, *speedup, human_percent(point.share) + " measured"});
    }
  }
}

}  // namespace

std::optional<chart::SweepChart> sweep_chart(const Sweep& sweep) {
  if (sweep.rows.empty() || sweep.swept.empty() || sweep.swept.back() != "prompt_tokens") {
    return std::nullopt;  // the chart's x axis is the context
  }
  chart::SweepChart out;
  const SweepRow& first = sweep.rows.front();
  out.title = first.kernel_speedup && sweep.swept.size() == 1
                  ? fmt::format("What a {} attention kernel is worth, by context",
                                human_speedup(first.kernel_speedup->value))
                  : std::string("What the change is worth, by context");
  const engine::Provenance shares = first.prefill_share.provenance;
  out.subtitle = fmt::format("workload {} · phase {} · shares {} · kspeed {}", sweep.workload.name,
                             to_string(sweep.phase),
                             shares == engine::Provenance::given      ? "given"
                             : shares == engine::Provenance::modelled ? "modelled (analytic)"
                                                                      : "from the workload's table",
                             KSPEED_VERSION);
  std::size_t start = 0;
  std::size_t first_end = sweep.rows.size();
  for (std::size_t i = 1; i <= sweep.rows.size(); ++i) {
    if (i == sweep.rows.size() || !same_series(sweep.rows[i], sweep.rows[start]) ||
        sweep.rows[i].prompt_tokens.value <= sweep.rows[i - 1].prompt_tokens.value) {
      if (start == 0) {
        first_end = i;
      }
      add_series(out, sweep, start, i);
      start = i;
    }
  }
  add_ceiling_and_measured(out, sweep, first_end);
  return out;
}

std::string sweep_terminal_chart(const Sweep& sweep) {
  const std::optional<chart::SweepChart> chart = sweep_chart(sweep);
  return chart ? "\n" + chart::render_terminal_chart(*chart) : std::string();
}

std::string sweep_svg(const Sweep& sweep, const std::string& title) {
  std::optional<chart::SweepChart> chart = sweep_chart(sweep);
  if (!chart) {
    throw InputError(
        "--plot: the sweep chart plots speedup against context: sweep --ctx over a range or a "
        "list (e.g. --ctx 4k..128k)");
  }
  if (!title.empty()) chart->title = title;
  return chart::render_sweep_svg(*chart);
}

namespace {

chart::WaterfallLevel waterfall_level(std::string name, std::string note,
                                      const engine::Level& level) {
  return {std::move(name), std::move(note), level.time_before_ms, level.time_after_ms};
}

std::string share_note(double share, const char* parent) {
  return human_percent(share) + " of " + parent;
}

}  // namespace

std::string estimate_svg(const engine::Estimate& estimate, const std::string& title) {
  const engine::Scenario& s = estimate.scenario;
  const engine::EstimateResult& r = estimate.result;
  chart::WaterfallChart out;
  // Short enough for one line: the bars give each level's time saved
  out.title = fmt::format("What the change is worth: prefill {}{}, request {}",
                          human_speedup(r.prefill.phase.speedup),
                          r.ttft ? ", TTFT " + human_speedup(r.ttft->speedup) : std::string(),
                          human_speedup(r.request.speedup));
  out.subtitle =
      fmt::format("workload {} · {} prompt, {} response tokens · phase {} · kspeed {}",
                  estimate.workload.name, human_count(s.prompt_tokens.value),
                  human_count(s.response_tokens.value), to_string(s.phase), KSPEED_VERSION);
  out.levels.push_back(waterfall_level("attention in prefill",
                                       share_note(r.prefill.attention.share_of_parent, "prefill"),
                                       r.prefill.attention));
  if (r.ttft) {
    // TTFT = prefill's GPU time + a fixed term no kernel touches: prefill is a share of TTFT,
    // and TTFT the level that is a share of the request
    out.levels.push_back(waterfall_level("prefill (GPU time)",
                                         share_note(r.prefill.phase.share_of_parent, "TTFT"),
                                         r.prefill.phase));
    out.levels.push_back(
        waterfall_level("TTFT", share_note(r.ttft->share_of_parent, "request"), *r.ttft));
  } else {
    out.levels.push_back(waterfall_level(
        "prefill (TTFT)", share_note(r.prefill.phase.share_of_parent, "request"), r.prefill.phase));
  }
  if (s.decode_share) {
    out.levels.push_back(waterfall_level("attention in decode",
                                         share_note(r.decode.attention.share_of_parent, "decode"),
                                         r.decode.attention));
  }
  out.levels.push_back(waterfall_level(
      "decode", share_note(r.decode.phase.share_of_parent, "request"), r.decode.phase));
  out.levels.push_back(waterfall_level("request (E2E)", "", r.request));
  if (!title.empty()) out.title = title;
  return chart::render_waterfall_svg(out);
}

std::string roofline_svg(const engine::RooflineResult& result, const std::string& title) {
  const engine::RooflineQuery& q = result.query;
  constexpr double kTera = 1e12;  // TFLOP/s and TB/s to FLOP/s and byte/s
  chart::RooflineChart out;
  out.title = fmt::format("{} attention on the roofline: {} at {} FLOP/byte", to_string(q.phase),
                          to_string(result.bound), human_fixed(result.intensity_flop_per_byte, 1));
  out.subtitle = fmt::format("ridge {} FLOP/byte · intensity {} · kspeed {}",
                             human_fixed(result.ridge_flop_per_byte, 1),
                             to_string(result.intensity_source), KSPEED_VERSION);
  out.roof_name = fmt::format("{}: {} TFLOP/s, {} TB/s", q.gpu_name,
                              human_plain(q.peak_tflops.value), human_plain(q.bandwidth_tbs.value));
  out.peak_flops_per_s = q.peak_tflops.value * kTera;
  out.bandwidth_bytes_per_s = q.bandwidth_tbs.value * kTera;
  chart::RooflineKernel kernel;
  kernel.name = fmt::format("{} attention", to_string(q.phase));
  kernel.intensity_flop_per_byte = result.intensity_flop_per_byte;
  kernel.flops_per_s = result.attainable_tflops * kTera;
  for (const engine::LeverRow& row : result.levers) {
    if (row.levers.compute_speedup > 1) {
      const double raised = q.peak_tflops.value * kTera * row.levers.compute_speedup;
      if (std::find(out.raised_peaks_flops_per_s.begin(), out.raised_peaks_flops_per_s.end(),
                    raised) == out.raised_peaks_flops_per_s.end()) {
        out.raised_peaks_flops_per_s.push_back(raised);
      }
    }
    // After a lever the kernel does the same work in less time: the old kernel's FLOPs over the
    // new time (attained × speedup), at the intensity its bytes leave (FLOPs / (bytes / r)).
    kernel.levers.push_back(
        {fmt::format("{} lever: {}", lever_kind_name(row.kind), human_speedup(row.outcome.speedup)),
         result.intensity_flop_per_byte * row.levers.bytes_reduction,
         kernel.flops_per_s * row.outcome.speedup});
  }
  out.kernels.push_back(std::move(kernel));
  if (!title.empty()) out.title = title;
  return chart::render_roofline_svg(out);
}

std::string measured_roofline_svg(const engine::MeasuredRooflineResult& result,
                                  const std::string& title) {
  constexpr double kTera = 1e12;  // TFLOP/s and TB/s to FLOP/s and byte/s
  const engine::MeasuredRooflineQuery& q = result.query;
  const std::size_t priced = result.priced.value_or(0);
  const engine::MeasuredKernel& k = q.kernels[priced];
  const engine::MeasuredPosition& p = result.positions[priced];
  if (!k.intensity_flop_per_byte || !k.achieved_flop_per_s || *k.intensity_flop_per_byte <= 0 ||
      *k.achieved_flop_per_s <= 0) {
    throw InputError("--plot: launch " + k.id + " of " + q.file +
                     " has no place on the roofline (its FLOPs, DRAM bytes or duration are not "
                     "in the export); kspeed roofline --ncu " +
                     q.file + " lists the metrics to collect");
  }
  const std::string lower = k.flops_miss_tensor_work ? "≥ " : "";
  chart::RooflineChart out;
  out.title = fmt::format("launch {} on the roofline: {}{} FLOP/byte, measured", k.id, lower,
                          human_fixed(*k.intensity_flop_per_byte, 1));
  out.subtitle = fmt::format("{} · {} · ridge {} FLOP/byte · kspeed {}", short_kernel_name(k.name),
                             p.bound ? std::string(to_string(*p.bound))
                                     : std::string("bound unknown (FLOPs a lower bound)"),
                             human_fixed(p.ridge_flop_per_byte, 1), KSPEED_VERSION);
  out.roof_name = fmt::format("{}: {} TFLOP/s, {} TB/s", q.gpu_name,
                              human_plain(q.peak_tflops.value), human_plain(q.bandwidth_tbs.value));
  out.peak_flops_per_s = q.peak_tflops.value * kTera;
  out.bandwidth_bytes_per_s = q.bandwidth_tbs.value * kTera;
  chart::RooflineKernel kernel;
  kernel.name = "launch " + k.id + " (measured)";
  kernel.intensity_flop_per_byte = *k.intensity_flop_per_byte;
  kernel.flops_per_s = *k.achieved_flop_per_s;
  for (const engine::MeasuredLeverRow& row : result.levers) {
    // The same FLOPs in the priced time, at the intensity the fewer bytes leave.
    kernel.levers.push_back(
        {fmt::format("{} lever: {}", lever_kind_name(row.kind), human_speedup(row.outcome.speedup)),
         *k.intensity_flop_per_byte * row.levers.bytes_reduction,
         kernel.flops_per_s * row.outcome.speedup});
  }
  out.kernels.push_back(std::move(kernel));
  if (!title.empty()) out.title = title;
  return chart::render_roofline_svg(out);
}

chart::CdfChart mix_chart(const engine::MixResult& result,
                          const std::vector<engine::RequestOutcome>& outcomes) {
  chart::CdfSeries ttft_before{"TTFT", chart::CdfWhen::before, {}};
  chart::CdfSeries ttft_after{"TTFT", chart::CdfWhen::after, {}};
  chart::CdfSeries e2e_before{"E2E", chart::CdfWhen::before, {}};
  chart::CdfSeries e2e_after{"E2E", chart::CdfWhen::after, {}};
  for (const engine::RequestOutcome& outcome : outcomes) {
    ttft_before.samples_ms.push_back(outcome.ttft_before_ms);
    ttft_after.samples_ms.push_back(outcome.ttft_after_ms);
    e2e_before.samples_ms.push_back(outcome.e2e_before_ms);  // NaN without a TPOT: skipped
    e2e_after.samples_ms.push_back(outcome.e2e_after_ms);
  }
  chart::CdfChart out;
  const auto requests = static_cast<std::int64_t>(outcomes.size());
  out.title = fmt::format("What a {} attention kernel is worth over {} {}",
                          human_speedup(result.model.kernel_speedup.value), human_count(requests),
                          requests == 1 ? "request" : "requests");
  out.subtitle = fmt::format("log {} · workload {} · phase {} · kspeed {}", result.log.source,
                             result.workload_name, to_string(result.model.phase), KSPEED_VERSION);
  out.series = {ttft_before, ttft_after, e2e_before, e2e_after};
  return out;
}

std::string mix_svg(const engine::MixResult& result,
                    const std::vector<engine::RequestOutcome>& outcomes, const std::string& title) {
  chart::CdfChart chart = mix_chart(result, outcomes);
  if (!title.empty()) chart.title = title;
  return chart::render_cdf_svg(chart);
}

}  // namespace kspeed::report
