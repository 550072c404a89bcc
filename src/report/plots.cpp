// From results to charts (include/kspeed/report/chart/): which numbers each chart plots and how
// they are labelled. The drawing itself is the chart library's.
#include <fmt/format.h>

#include <limits>

#include "kspeed/engine/amdahl.hpp"
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
    } else if (name == "prefill_share") {
      add("share " + human_percent(row.prefill_share.value));
    } else if (name == "response_tokens") {
      add("response " + human_count(row.response_tokens.value));
    }
  }
  return label;
}

void add_series(chart::SweepChart& out, const Sweep& sweep, std::size_t first, std::size_t end) {
  const std::string label = series_label(sweep, sweep.rows[first]);
  chart::SweepSeries prefill{"prefill (TTFT)" + label, {}};
  chart::SweepSeries request{"request (E2E)" + label, {}};
  for (std::size_t i = first; i < end; ++i) {
    const SweepRow& row = sweep.rows[i];
    const auto x = static_cast<double>(row.prompt_tokens.value);
    prefill.points.push_back({x, row.result.prefill.phase.speedup});
    request.points.push_back({x, row.result.request.speedup});
  }
  out.series.push_back(std::move(prefill));
  out.series.push_back(std::move(request));
}

// The ceiling and the measured points of the first series (its kernel speedup, its shares).
void add_ceiling_and_measured(chart::SweepChart& out, const Sweep& sweep, std::size_t end) {
  const SweepRow& first = sweep.rows.front();
  for (std::size_t i = 0; i < end; ++i) {
    const SweepRow& row = sweep.rows[i];
    const std::optional<double> ceiling = row.result.prefill.phase.ceiling;
    out.ceiling.push_back({static_cast<double>(row.prompt_tokens.value),
                           ceiling ? *ceiling : std::numeric_limits<double>::infinity()});
  }
  if (!first.kernel_speedup || sweep.phase == engine::Phase::decode ||
      first.prefill_share.provenance == engine::Provenance::given) {
    return;  // the measured shares only place points when the table gives the share
  }
  const double lo = static_cast<double>(first.prompt_tokens.value);
  const double hi = static_cast<double>(sweep.rows[end - 1].prompt_tokens.value);
  for (const engine::SharePoint& point : sweep.workload.prefill_shares) {
    if (point.context_tokens >= lo && point.context_tokens <= hi) {
      out.measured.push_back({point.context_tokens,
                              engine::amdahl_speedup(point.share, first.kernel_speedup->value),
                              human_percent(point.share) + " measured"});
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
  out.subtitle = fmt::format(
      "workload {} · phase {} · shares {} · kspeed {}", sweep.workload.name, to_string(sweep.phase),
      first.prefill_share.provenance == engine::Provenance::given ? "given"
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

std::string sweep_svg(const Sweep& sweep) {
  const std::optional<chart::SweepChart> chart = sweep_chart(sweep);
  if (!chart) {
    throw InputError(
        "--plot: the sweep chart plots speedup against context: sweep --ctx over a range or a "
        "list (e.g. --ctx 4k..128k)");
  }
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

std::string estimate_svg(const engine::Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  const engine::EstimateResult& r = estimate.result;
  chart::WaterfallChart out;
  out.title = fmt::format("Where the change's time goes: prefill {}, request {} ({} less time)",
                          human_speedup(r.prefill.phase.speedup), human_speedup(r.request.speedup),
                          human_percent(1 - 1 / r.request.speedup));
  out.subtitle =
      fmt::format("workload {} · {} prompt, {} response tokens · phase {} · kspeed {}",
                  estimate.workload.name, human_count(s.prompt_tokens.value),
                  human_count(s.response_tokens.value), to_string(s.phase), KSPEED_VERSION);
  out.levels.push_back(waterfall_level("attention in prefill",
                                       share_note(r.prefill.attention.share_of_parent, "prefill"),
                                       r.prefill.attention));
  out.levels.push_back(waterfall_level(
      "prefill (TTFT)", share_note(r.prefill.phase.share_of_parent, "request"), r.prefill.phase));
  if (s.decode_share) {
    out.levels.push_back(waterfall_level("attention in decode",
                                         share_note(r.decode.attention.share_of_parent, "decode"),
                                         r.decode.attention));
  }
  out.levels.push_back(waterfall_level(
      "decode", share_note(r.decode.phase.share_of_parent, "request"), r.decode.phase));
  out.levels.push_back(waterfall_level("request (E2E)", "", r.request));
  return chart::render_waterfall_svg(out);
}

std::string roofline_svg(const engine::RooflineResult& result) {
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
    // After a lever the kernel does the same work in less time: the old kernel's FLOPs over the
    // new time (attained × speedup), at the intensity its bytes leave (FLOPs / (bytes / r)).
    kernel.levers.push_back(
        {fmt::format("{} lever: {}", lever_kind_name(row.kind), human_speedup(row.outcome.speedup)),
         result.intensity_flop_per_byte * row.levers.bytes_reduction,
         kernel.flops_per_s * row.outcome.speedup});
  }
  out.kernels.push_back(std::move(kernel));
  return chart::render_roofline_svg(out);
}

chart::CdfChart mix_chart(const MixResult& result,
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
  out.title = fmt::format("What a {} attention kernel is worth over {} requests",
                          human_speedup(result.model.kernel_speedup.value), outcomes.size());
  out.subtitle = fmt::format("log {} · workload {} · phase {} · kspeed {}", result.log.source,
                             result.workload_name, to_string(result.model.phase), KSPEED_VERSION);
  out.series = {ttft_before, ttft_after, e2e_before, e2e_after};
  return out;
}

std::string mix_svg(const MixResult& result, const std::vector<engine::RequestOutcome>& outcomes) {
  return chart::render_cdf_svg(mix_chart(result, outcomes));
}

}  // namespace kspeed::report
