// From results to charts (include/kspeed/report/chart/): which numbers each chart plots and how
// they are labelled. The drawing itself is the chart library's.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "kspeed/engine/chain/amdahl.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/latency_model.hpp"
#include "kspeed/engine/provenance_order.hpp"
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

// The swept inputs a chart can put on its x axis, and each row's value of them.
double swept_value(const SweepRow& row, const std::string& name) {
  if (name == "prompt_tokens") return static_cast<double>(row.prompt_tokens.value);
  if (name == "batch") return row.batch ? static_cast<double>(*row.batch) : 0;
  if (name == "kernel_speedup") return kernel_or_zero(row);
  if (name == "compute_speedup") return row.compute_speedup.value_or(0);
  if (name == "bytes_reduction") return row.bytes_reduction.value_or(0);
  if (name == "prefill_attention_share") return row.prefill_share.value;
  if (name == "response_tokens") return static_cast<double>(row.response_tokens.value);
  return 0;
}

// The x axis of a sweep's chart: `chosen` when given, else the context when it is swept (the
// chart the shares were measured for), else the batch (the chart a batch question needs), else
// the innermost swept input. The other swept inputs make the series.
std::string sweep_x_axis(const Sweep& sweep, const std::string& chosen) {
  const auto swept = [&sweep](const std::string& name) {
    return std::find(sweep.swept.begin(), sweep.swept.end(), name) != sweep.swept.end();
  };
  if (!chosen.empty()) {
    if (!swept(chosen)) {
      std::string names;
      for (const std::string& name : sweep.swept) names += (names.empty() ? "" : ", ") + name;
      throw InputError("--plot-x " + chosen + ": that input is not swept; swept here: " +
                       (names.empty() ? std::string("none") : names));
    }
    return chosen;
  }
  // An input varies when two rows differ in it (a one-value --ctx is in `swept` too)
  const auto varies = [&sweep](const std::string& name) {
    const double first = swept_value(sweep.rows.front(), name);
    return std::any_of(sweep.rows.begin(), sweep.rows.end(),
                       [&](const SweepRow& row) { return swept_value(row, name) != first; });
  };
  if (swept("prompt_tokens") && varies("prompt_tokens")) return "prompt_tokens";
  if (swept("batch") && varies("batch")) return "batch";
  for (auto name = sweep.swept.rbegin(); name != sweep.swept.rend(); ++name) {
    if (varies(*name)) return *name;
  }
  return sweep.swept.back();
}

chart::SweepX sweep_x_kind(const std::string& axis) {
  if (axis == "prompt_tokens" || axis == "response_tokens") return chart::SweepX::tokens;
  if (axis == "batch") return chart::SweepX::count;
  if (axis == "prefill_attention_share") return chart::SweepX::fraction;
  return chart::SweepX::speedup;
}

std::string sweep_x_title(const std::string& axis) {
  if (axis == "prompt_tokens") return "context length (tokens, log scale)";
  if (axis == "response_tokens") return "response length (tokens, log scale)";
  if (axis == "batch") return "batch (sequences decoded together, log scale)";
  if (axis == "kernel_speedup") return "attention kernel speedup (×)";
  if (axis == "compute_speedup") return "compute lever (×)";
  if (axis == "bytes_reduction") return "bytes lever (÷)";
  return "prefill attention share";
}

std::string sweep_x_noun(const std::string& axis) {
  if (axis == "prompt_tokens") return "context";
  if (axis == "response_tokens") return "response length";
  if (axis == "batch") return "batch";
  if (axis == "kernel_speedup") return "kernel speedup";
  if (axis == "prefill_attention_share") return "attention share";
  return "lever";
}

// Rows of one series share every swept input but the x axis's (and, with a share table, the
// given share).
bool same_series(const Sweep& sweep, const std::string& x_axis, const SweepRow& a,
                 const SweepRow& b) {
  for (const std::string& name : sweep.swept) {
    if (name != x_axis && swept_value(a, name) != swept_value(b, name)) return false;
  }
  return true;
}

// What sets one series apart from the others: "kernel 4×", "batch 64", ...
std::string series_label(const Sweep& sweep, const std::string& x_axis, const SweepRow& row) {
  std::string label;
  auto add = [&label](const std::string& part) { label += ", " + part; };
  for (const std::string& name : sweep.swept) {
    if (name == x_axis) continue;
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
    } else if (name == "prompt_tokens") {
      add("context " + chart::format_tokens(static_cast<double>(row.prompt_tokens.value)));
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
bool any_fixed_term(const Sweep& sweep, const std::vector<std::size_t>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [&sweep](std::size_t i) { return sweep.rows[i].result.ttft.has_value(); });
}

void add_series(chart::SweepChart& out, const Sweep& sweep, const std::string& x_axis,
                const std::vector<std::size_t>& rows) {
  const std::string label = series_label(sweep, x_axis, sweep.rows[rows.front()]);
  const bool fixed_term = any_fixed_term(sweep, rows);
  const std::string first_level = fixed_term ? "TTFT" : "prefill (TTFT)";
  chart::SweepSeries prefill{first_level + label, {}};
  chart::SweepSeries request{"request (E2E)" + label, {}};

  for (const std::size_t i : rows) {
    const SweepRow& row = sweep.rows[i];
    const double x = swept_value(row, x_axis);
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

std::vector<std::size_t> first_rows(std::size_t end) {
  std::vector<std::size_t> rows(end);
  for (std::size_t i = 0; i < end; ++i) rows[i] = i;
  return rows;
}

// The ceiling of the line it bounds (issue 30): the first-token level's 1/(1−p) bounds the TTFT
// line, the request's bounds the request line; the chart draws the ceiling of whichever level
// of the first series rises higher, so no line it names runs above it. Named with the level
// and, when the series' ceilings differ (a batch changes the share), the series it is of.
void add_ceiling(chart::SweepChart& out, const Sweep& sweep, const std::string& x_axis,
                 const std::vector<std::vector<std::size_t>>& series) {
  const auto first_token_ceiling = [](const SweepRow& row) {
    return row.result.ttft ? row.result.ttft->ceiling : row.result.prefill.phase.ceiling;
  };
  const auto request_ceiling = [](const SweepRow& row) { return row.result.request.ceiling; };
  if (series.empty() || series.front().empty()) return;
  const std::vector<std::size_t>& first_series = series.front();
  double first_top = 0;
  double request_top = 0;
  for (const std::size_t i : first_series) {
    first_top = std::max(first_top, first_token_speedup(sweep.rows[i]));
    request_top = std::max(request_top, sweep.rows[i].result.request.speedup);
  }
  const bool request_level = request_top > first_top;
  const auto ceiling_of = [&](const SweepRow& row) {
    const std::optional<double> c = request_level ? request_ceiling(row) : first_token_ceiling(row);
    return c ? *c : std::numeric_limits<double>::infinity();
  };
  for (const std::size_t i : first_series) {
    out.ceiling.push_back({swept_value(sweep.rows[i], x_axis), ceiling_of(sweep.rows[i])});
  }
  bool same_for_all = true;
  for (std::size_t s = 1; s < series.size() && same_for_all; ++s) {
    for (std::size_t k = 0; k < series[s].size() && k < first_series.size(); ++k) {
      const double a = ceiling_of(sweep.rows[first_series[k]]);
      const double b = ceiling_of(sweep.rows[series[s][k]]);
      if (!(a == b || std::fabs(a - b) <= 1e-9 * std::fabs(a))) same_for_all = false;
    }
  }
  const std::string level = request_level                         ? "request"
                            : any_fixed_term(sweep, first_series) ? "TTFT"
                                                                  : "prefill (TTFT)";
  const std::string label = series_label(sweep, x_axis, sweep.rows[first_series.front()]);
  out.ceiling_name = "ceiling of " + level + " 1/(1−p)" + (same_for_all ? "" : label);
}

// The measured points of the first series (its kernel speedup, its shares).
void add_measured(chart::SweepChart& out, const Sweep& sweep, std::size_t end) {
  const SweepRow& first = sweep.rows.front();
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
    if (!any_fixed_term(sweep, first_rows(end))) {
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

namespace {

// What a chart's numbers stand on, first in its subtitle (issue 30): "illustrative" when any
// input is an example's, "calibrated from FILE" when a fitted or measured step model set them,
// else the weakest provenance among the inputs ("weakest input modelled", "... default").
std::string chart_basis(const std::vector<engine::AnswerInput>& inputs,
                        engine::Provenance step_calibration, const std::string& step_source) {
  const bool illustrative =
      std::any_of(inputs.begin(), inputs.end(), [](const engine::AnswerInput& input) {
        return input.provenance == engine::Provenance::illustrative;
      });
  if (illustrative) return "illustrative (an example's request, not a measurement)";
  if ((step_calibration == engine::Provenance::fitted ||
       step_calibration == engine::Provenance::measured) &&
      !step_source.empty()) {
    return "calibrated from " + step_source;
  }
  engine::Provenance weakest_input = engine::Provenance::given;
  for (const engine::AnswerInput& input : inputs) {
    weakest_input = engine::weakest(weakest_input, input.provenance);
  }
  return "weakest input " + std::string(to_string(weakest_input));
}

// "batch 32" (the platform's), "batch 8 (workload)", "batch swept", or "batch not stated".
std::string chart_batch(const std::optional<engine::Platform>& platform,
                        const engine::Workload& workload, bool swept) {
  if (swept) return "batch swept";
  if (platform) return "batch " + human_count(platform->batch.value);
  if (workload.batch) return "batch " + human_count(*workload.batch);
  return "batch not stated";
}

std::string sweep_subtitle(const Sweep& sweep, const std::string& x_axis) {
  const engine::Provenance shares = sweep.rows.front().prefill_share.provenance;
  const bool batch_swept =
      x_axis == "batch" || std::count(sweep.swept.begin(), sweep.swept.end(), "batch") > 0;
  return fmt::format("{} · workload {} · {} · phase {} · shares {} · kspeed {}",
                     chart_basis(engine::answer_inputs(sweep), sweep.step_calibration,
                                 sweep.step_calibration_source),
                     sweep.workload.name, chart_batch(sweep.platform, sweep.workload, batch_swept),
                     to_string(sweep.phase),
                     shares == engine::Provenance::given      ? "given"
                     : shares == engine::Provenance::modelled ? "modelled (analytic)"
                                                              : "from the workload's table",
                     KSPEED_VERSION);
}

}  // namespace

std::optional<chart::SweepChart> sweep_chart(const Sweep& sweep, const std::string& plot_x) {
  if (sweep.rows.empty() || sweep.swept.empty()) return std::nullopt;  // one point: no line
  const std::string x_axis = sweep_x_axis(sweep, plot_x);
  chart::SweepChart out;
  out.x_kind = sweep_x_kind(x_axis);
  out.x_title = sweep_x_title(x_axis);
  const SweepRow& first = sweep.rows.front();
  // One kernel speedup throughout: the title names it
  const bool one_kernel =
      first.kernel_speedup &&
      std::all_of(sweep.rows.begin(), sweep.rows.end(), [&first](const SweepRow& row) {
        return kernel_or_zero(row) == first.kernel_speedup->value;
      });
  out.title = one_kernel
                  ? fmt::format("What a {} attention kernel is worth, by {}",
                                human_speedup(first.kernel_speedup->value), sweep_x_noun(x_axis))
                  : "What the change is worth, by " + sweep_x_noun(x_axis);
  out.subtitle = sweep_subtitle(sweep, x_axis);
  // The series in order of first appearance; each row joins the series of its other inputs.
  std::vector<std::vector<std::size_t>> series;
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
    const auto found = std::find_if(series.begin(), series.end(), [&](const auto& rows) {
      return same_series(sweep, x_axis, sweep.rows[rows.front()], sweep.rows[i]);
    });
    if (found == series.end()) {
      series.push_back({i});
    } else {
      found->push_back(i);
    }
  }
  for (const auto& rows : series) add_series(out, sweep, x_axis, rows);
  add_ceiling(out, sweep, x_axis, series);
  // Measured shares and the table's edges are contexts: only on a context axis, where the first
  // series is the sweep's first rows (the context varies fastest)
  if (x_axis == "prompt_tokens") add_measured(out, sweep, series.front().size());
  return out;
}

std::string sweep_terminal_chart(const Sweep& sweep) {
  // The terminal chart's axis is the context's: other sweeps are plotted with --plot
  const std::optional<chart::SweepChart> chart = sweep_chart(sweep);
  return chart && chart->x_kind == chart::SweepX::tokens && !sweep.swept.empty() &&
                 sweep_x_axis(sweep, {}) == "prompt_tokens"
             ? "\n" + chart::render_terminal_chart(*chart)
             : std::string();
}

std::string sweep_svg(const Sweep& sweep, const std::string& title, const std::string& plot_x) {
  std::optional<chart::SweepChart> chart = sweep_chart(sweep, plot_x);
  if (!chart) {
    throw InputError(
        "--plot: the sweep chart plots speedup against a swept input, and this sweep varies "
        "none: sweep --ctx over a range or a list (e.g. --ctx 4k..128k), or --batch 1,8,64");
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
  out.subtitle = fmt::format(
      "{} · workload {} · {} · {} prompt, {} response tokens · phase {} · kspeed {}",
      chart_basis(engine::answer_inputs(s),
                  s.step_model ? s.step_model->calibration : engine::Provenance::modelled,
                  s.step_model ? s.step_model->calibration_source : std::string()),
      estimate.workload.name, chart_batch(s.platform, estimate.workload, false),
      human_count(s.prompt_tokens.value), human_count(s.response_tokens.value), to_string(s.phase),
      KSPEED_VERSION);
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
  // Levers illustrative when none was given; the kernel's place modelled or given (--ai)
  const std::string basis =
      result.levers_illustrative
          ? std::string("illustrative 2× levers")
          : chart_basis(engine::answer_inputs(result), engine::Provenance::modelled, std::string());
  out.subtitle = fmt::format(
      "{} · {} · phase {} · {} context · ridge {} FLOP/byte · intensity {} · kspeed {}", basis,
      q.platform ? "batch " + human_count(q.platform->batch.value)
                 : std::string("batch not stated"),
      to_string(q.phase), chart::format_tokens(static_cast<double>(q.context_tokens.value)),
      human_fixed(result.ridge_flop_per_byte, 1), to_string(result.intensity_source),
      KSPEED_VERSION);
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

namespace {

// The mix chart's latencies: the deployment's step model (calibrated from FILE, modelled, given)
// with --replay, else the workload's reference latencies scaled to each request.
std::string mix_basis(const engine::MixResult& result) {
  if (result.deployment && result.deployment->step) {
    const engine::CalibratedStepModel& step = *result.deployment->step;
    if (step.calibration == engine::Provenance::fitted ||
        step.calibration == engine::Provenance::measured) {
      return "calibrated from " + step.calibration_source;
    }
    return std::string("step model ") + std::string(to_string(step.calibration));
  }
  return "latencies scaled from the workload's";
}

}  // namespace

chart::CdfChart mix_chart(const engine::MixResult& result, const engine::RequestOutcomes& outcomes,
                          const engine::PerRequestReplay* replayed) {
  const bool replay = replayed != nullptr && !replayed->after.empty();
  chart::CdfSeries ttft_before{"TTFT", chart::CdfWhen::before, {}};
  chart::CdfSeries ttft_after{"TTFT", chart::CdfWhen::after, {}};
  chart::CdfSeries e2e_before{"E2E", chart::CdfWhen::before, {}};
  chart::CdfSeries e2e_after{"E2E", chart::CdfWhen::after, {}};
  if (replay) {
    // The replay's requests, queueing included: the distributions the headline quotes. (Each
    // request alone on the step model is summarised in the replay's table, not kept a request.)
    for (std::size_t i = 0; i < replayed->after.size(); ++i) {
      ttft_before.samples_ms.push_back(static_cast<double>(replayed->before[i].ttft_ms));
      ttft_after.samples_ms.push_back(static_cast<double>(replayed->after[i].ttft_ms));
      e2e_before.samples_ms.push_back(static_cast<double>(replayed->before[i].e2e_ms));
      e2e_after.samples_ms.push_back(static_cast<double>(replayed->after[i].e2e_ms));
    }
  } else {
    for (const engine::RequestOutcome& outcome : outcomes) {
      ttft_before.samples_ms.push_back(outcome.ttft_before_ms);
      ttft_after.samples_ms.push_back(outcome.ttft_after_ms);
      e2e_before.samples_ms.push_back(outcome.e2e_before_ms);  // NaN without a TPOT: skipped
      e2e_after.samples_ms.push_back(outcome.e2e_after_ms);
    }
  }
  chart::CdfChart out;
  const auto requests =
      static_cast<std::int64_t>(replay ? replayed->after.size() : outcomes.size());
  out.title = fmt::format("What a {} attention kernel is worth over {} {}{}",
                          human_speedup(result.model.kernel_speedup.value), human_count(requests),
                          requests == 1 ? "request" : "requests", replay ? ", replayed" : "");
  // Which latencies these are: the replay's (queueing and batching included) with --replay, as
  // the headline quotes; else each request through the chain at the workload's latencies.
  out.subtitle = fmt::format("{}log {} · workload {} · phase {} · {} · kspeed {}",
                             replay ? "replayed with queueing and batching · " : "no queue · ",
                             result.log.source, result.workload_name, to_string(result.model.phase),
                             mix_basis(result), KSPEED_VERSION);
  out.series = {ttft_before, ttft_after, e2e_before, e2e_after};
  return out;
}

std::string mix_svg(const engine::MixResult& result, const engine::RequestOutcomes& outcomes,
                    const std::string& title, const engine::PerRequestReplay* replayed) {
  chart::CdfChart chart = mix_chart(result, outcomes, replayed);
  if (!title.empty()) chart.title = title;
  return chart::render_cdf_svg(chart);
}

}  // namespace kspeed::report
