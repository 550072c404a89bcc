// `kspeed roofline` for people: the kernel against the roof, what each lever is worth on it, and
// the point in one sentence.
#include <fmt/format.h>

#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::LeverKind;
using engine::RooflineResult;

std::string lever_label(LeverKind kind, const engine::Levers& levers) {
  switch (kind) {
    case LeverKind::compute:
      return human_speedup(levers.compute_speedup) + " compute speedup";
    case LeverKind::bytes:
      return human_speedup(levers.bytes_reduction) + " fewer bytes";
    case LeverKind::bandwidth:
      return bandwidth_efficiency_text(levers);
    case LeverKind::combined:
      return "all levers together";
  }
  return "";
}

// A GPU figure read from a preset names the preset: "preset h100-sxm".
std::string provenance_of(engine::Provenance provenance, const std::string& gpu) {
  return provenance == engine::Provenance::preset ? "preset " + gpu
                                                  : std::string(to_string(provenance));
}

std::string heading(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  std::string text = fmt::format("kspeed roofline · {} attention", to_string(q.phase));
  if (q.platform) {
    const engine::Platform& p = *q.platform;
    text +=
        fmt::format(" · {} on {} ({}) · {} {} · batch {} · tp {}", p.model.value.name, q.gpu_name,
                    q.precision, q.phase == engine::Phase::prefill ? "prompt" : "context",
                    human_count(q.context_tokens.value), human_count(p.batch.value),
                    human_count(p.tensor_parallel.value));
    if (!q.deployment_file.empty()) text += " · deployment " + q.deployment_file;
  } else {
    text += fmt::format(" · intensity {} FLOP/byte on {} ({})",
                        human_figure(r.intensity_flop_per_byte), q.gpu_name, q.precision);
  }
  return text;
}

Table figures_table(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  Table table;
  table.header = {"figure", "value", "source"};
  table.align = {Align::left, Align::right, Align::left};
  auto add = [&table](std::string name, std::string value, std::string provenance) {
    table.rows.push_back({std::move(name), std::move(value), std::move(provenance)});
  };
  if (q.platform) {
    const engine::Platform& p = *q.platform;
    add("KV cache type", p.kv_dtype.value, std::string(to_string(p.kv_dtype.provenance)));
    add("FLOPs per step (per GPU)", human_si(r.step_cost->flops, "FLOP"), "modelled");
    add("bytes per step (per GPU)", human_si(r.step_cost->bytes, "B"), "modelled");
  }
  add("arithmetic intensity", human_figure(r.intensity_flop_per_byte) + " FLOP/byte",
      std::string(to_string(r.intensity_source)));
  add(fmt::format("peak ({}, dense)", q.precision), human_plain(q.peak_tflops.value) + " TFLOP/s",
      provenance_of(q.peak_tflops.provenance, q.gpu_name));
  add("HBM bandwidth", human_plain(q.bandwidth_tbs.value) + " TB/s",
      provenance_of(q.bandwidth_tbs.provenance, q.gpu_name));
  add("ridge (peak / bandwidth)", human_fixed(r.ridge_flop_per_byte, 1) + " FLOP/byte", "modelled");
  if (r.effective_ridge_flop_per_byte != r.ridge_flop_per_byte) {
    // ridge · η_compute / η_bandwidth: where the bound label changes (bound.hpp)
    add("effective ridge (× η_compute / η_bandwidth)",
        human_fixed(r.effective_ridge_flop_per_byte, 1) + " FLOP/byte", "modelled");
  }
  add("bound", std::string(to_string(r.bound)), "modelled");
  add("attainable",
      fmt::format("{} of peak ({} TFLOP/s)", human_percent(r.attainable_fraction),
                  human_figure(r.attainable_tflops)),
      "modelled");
  if (r.time_ms) {
    add("time on the roofline", human_kernel_ms(*r.time_ms), "modelled");
  }
  if (r.memory_needed_gb) {
    add("HBM needed per GPU", human_figure(*r.memory_needed_gb) + " GB", "modelled");
  }
  return table;
}

Table levers_table(const RooflineResult& r) {
  Table table;
  const bool absolute = r.step_cost.has_value();  // --ai gives only ratios
  table.header =
      absolute ? std::vector<std::string>{"lever", "before", "after", "speedup", "bound after"}
               : std::vector<std::string>{"lever", "speedup", "bound after"};
  table.align = absolute ? std::vector<Align>{Align::left, Align::right, Align::right, Align::right,
                                              Align::left}
                         : std::vector<Align>{Align::left, Align::right, Align::left};
  for (const engine::LeverRow& row : r.levers) {
    std::vector<std::string> cells = {lever_label(row.kind, row.levers)};
    if (absolute) {
      cells.push_back(human_kernel_ms(row.outcome.time_before_ms));
      cells.push_back(human_kernel_ms(row.outcome.time_after_ms));
    }
    cells.push_back(human_speedup(row.outcome.speedup));
    cells.emplace_back(to_string(row.outcome.bound_after));
    table.rows.push_back(std::move(cells));
  }
  return table;
}

std::string summary_sentence(const RooflineResult& r) {
  const std::string kernel =
      r.query.phase == engine::Phase::prefill ? "Prefill attention" : "Decode attention";
  const std::string ridge =
      r.effective_ridge_flop_per_byte == r.ridge_flop_per_byte
          ? "a ridge of " + human_fixed(r.ridge_flop_per_byte, 1)
          : fmt::format("an effective ridge of {} (ridge {} × η_compute / η_bandwidth)",
                        human_fixed(r.effective_ridge_flop_per_byte, 1),
                        human_fixed(r.ridge_flop_per_byte, 1));
  const std::string where = fmt::format("intensity {} FLOP/byte against {}",
                                        human_figure(r.intensity_flop_per_byte), ridge);
  if (r.bound == engine::Bound::memory) {
    return kernel + " is memory-bound (" + where +
           "): fewer bytes or more of the bandwidth make it faster; faster arithmetic alone does "
           "not.";
  }
  return kernel + " is compute-bound (" + where +
         "): faster arithmetic makes it faster; fewer bytes alone do not.";
}

}  // namespace

View roofline_view(const RooflineResult& result) {
  View view;
  view.title(heading(result));
  view.table(figures_table(result));
  view.table(levers_table(result));
  if (result.levers_illustrative) {
    view.caption(
        "(illustrative: no lever given; pass --compute-speedup, --bytes-reduction or "
        "--bandwidth-efficiency BEFORE:AFTER)",
        "", false);
  }
  view.answer(summary_sentence(result));
  if (result.near_ridge) {
    view.note(near_ridge_note(
        result.query.phase == engine::Phase::prefill ? "Prefill attention" : "Decode attention",
        result.intensity_flop_per_byte, result.ridge_flop_per_byte,
        result.effective_ridge_flop_per_byte));
  }
  for (const auto& warning : result.warnings) {
    view.warning(warning_sentence(warning));
  }
  return view;
}

}  // namespace kspeed::report
