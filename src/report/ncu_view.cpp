// `kspeed roofline --ncu` for people: the export's launches on the GPU's roofs, the priced launch
// beside the model, what each lever is worth from where it was measured, and what the export lacks
// with the ncu flags that collect it.
#include <fmt/format.h>

#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::MeasuredKernel;
using engine::MeasuredPosition;
using engine::MeasuredRooflineResult;

constexpr std::size_t kNameWidth = 40;  // kernel names are C++ signatures: the start says enough

std::string ncu_short_name(const std::string& name) {
  if (display_width(name) <= kNameWidth) return name;
  std::string out;
  for (std::size_t i = 0; i < name.size() && display_width(out) < kNameWidth - 1; ++i) {
    out += name[i];
  }
  return out + "…";
}

std::string or_missing(const std::optional<double>& value, const auto& format) {
  return value ? format(*value) : std::string(kMissing);
}

std::string comma_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string seconds_text(double seconds) {
  return human_kernel_ms(seconds * 1e3);
}
std::string bytes_text(double bytes) {
  return human_si(bytes, "B");
}
std::string flops_text(double flops) {
  return human_si(flops, "FLOP");
}

// "5.28% / 4.47%": the SM and memory Speed-of-Light throughputs.
std::string speed_of_light_text(const engine::SpeedOfLight& sol) {
  if (!sol.compute && !sol.memory) return kMissing;
  return or_missing(sol.compute, human_percent) + " / " + or_missing(sol.memory, human_percent);
}

// "256×": three significant digits, as a distance rather than a speedup.
std::string headroom_text(double headroom) {
  return human_figure(headroom) + "×";
}

// "memory, 256×": the measured bound and how far the roof is.
// "unknown, 17.4×": FLOPs a lower bound below the ridge leave the bound open, not the headroom.
std::string bound_text(const MeasuredPosition& p) {
  if (!p.bound && !p.headroom) return kMissing;
  return (p.bound ? std::string(bound_name(*p.bound)) : std::string("unknown")) +
         (p.headroom ? ", " + headroom_text(*p.headroom) : std::string());
}

Table launches_table(const MeasuredRooflineResult& r) {
  Table table;
  table.header = {"ID",        "kernel",  "class", "duration",     "DRAM bytes",     "FLOPs",
                  "FLOP/byte", "of peak", "of BW", "SOL SM / mem", "bound, headroom"};
  table.align = {Align::right, Align::left,  Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right, Align::right, Align::left};
  for (std::size_t i = 0; i < r.query.kernels.size(); ++i) {
    const MeasuredKernel& k = r.query.kernels[i];
    const MeasuredPosition& p = r.positions[i];
    const std::string mark = r.priced == i ? "*" : r.selected[i] ? "+" : "";
    const std::string lower_bound = k.flops_miss_tensor_work ? " ≥" : "";
    table.rows.push_back({
        mark + k.id,
        ncu_short_name(k.name),
        std::string(engine::to_string(k.kernel_class)),
        or_missing(k.duration_s.value, seconds_text),
        or_missing(k.dram_bytes.value, bytes_text),
        k.flops.value ? (lower_bound.empty() ? "" : "≥ ") + flops_text(*k.flops.value) : kMissing,
        k.intensity_flop_per_byte
            ? (lower_bound.empty() ? "" : "≥ ") + human_figure(*k.intensity_flop_per_byte)
            : kMissing,
        or_missing(p.compute_fraction, human_percent),
        or_missing(p.bandwidth_fraction, human_percent),
        speed_of_light_text(k.speed_of_light),
        bound_text(p),
    });
  }
  return table;
}

std::string selection_caption(const MeasuredRooflineResult& r) {
  std::string which;
  switch (r.selection) {
    case engine::KernelSelection::pattern:
      which = "+ matches --kernel '" + r.query.pattern + "'";
      break;
    case engine::KernelSelection::attention:
      which = "+ attention_core, as kspeed profile classifies it (--kernel REGEX picks others)";
      break;
    case engine::KernelSelection::all:
      which = "+ selected: no attention kernel found, so all (--kernel REGEX picks some)";
      break;
  }
  const std::string priced = r.query.launch ? "* priced launch, by --launch"
                                            : "* priced launch: the selected one that ran "
                                              "longest (--launch ID picks another)";
  return "(" + priced + "; " + which + ". Duration, bytes and FLOPs measured; fractions of " +
         r.query.gpu_name +
         "'s roofs; "
         "≥: tensor-core work not counted)";
}

Table position_table(const MeasuredRooflineResult& r, const MeasuredKernel& k,
                     const MeasuredPosition& p) {
  Table table;
  table.header = {"figure", "value", "source"};
  table.align = {Align::left, Align::right, Align::left};
  auto add = [&table](std::string name, std::string value, std::string source) {
    table.rows.push_back({std::move(name), std::move(value), std::move(source)});
  };
  auto measured = [](const engine::MeasuredQuantity& q) {
    return q.value ? "measured: " + q.derivation
                   : "missing: " + comma_list(compact_metrics(q.missing));
  };
  add("duration", or_missing(k.duration_s.value, seconds_text), measured(k.duration_s));
  add("DRAM bytes", or_missing(k.dram_bytes.value, bytes_text), measured(k.dram_bytes));
  add("FLOPs (SASS counters)", or_missing(k.flops.value, flops_text), measured(k.flops));
  if (k.tensor.warp_instructions) {
    add("tensor-pipe warp instructions",
        human_count(static_cast<std::int64_t>(*k.tensor.warp_instructions)),
        "measured: " + k.tensor.metric + " (" + std::string(to_string(k.tensor.conversion)) + ")");
  }
  add("arithmetic intensity",
      or_missing(k.intensity_flop_per_byte,
                 [](double v) { return human_figure(v) + " FLOP/byte"; }),
      !k.intensity_flop_per_byte ? "missing"
      : k.flops_miss_tensor_work ? "measured (lower bound)"
                                 : "measured");
  add("achieved", or_missing(k.achieved_flop_per_s, [](double v) { return human_si(v, "FLOP/s"); }),
      "measured");
  add("achieved DRAM bandwidth",
      or_missing(k.achieved_byte_per_s, [](double v) { return human_si(v, "B/s"); }), "measured");
  const std::string preset =
      "preset " + r.query.gpu_name + (r.query.gpu_from_export ? ", the GPU the export names" : "");
  auto provenance = [&preset](engine::Provenance how) {
    return how == engine::Provenance::preset ? preset : std::string(to_string(how));
  };
  add(fmt::format("peak ({}, dense)", r.query.precision),
      human_plain(r.query.peak_tflops.value) + " TFLOP/s",
      provenance(r.query.peak_tflops.provenance));
  add("HBM bandwidth", human_plain(r.query.bandwidth_tbs.value) + " TB/s",
      provenance(r.query.bandwidth_tbs.provenance));
  add("ridge (peak / bandwidth)", human_fixed(p.ridge_flop_per_byte, 1) + " FLOP/byte",
      "peak / bandwidth");
  add("fraction of peak", or_missing(p.compute_fraction, human_percent), "measured");
  add("fraction of bandwidth", or_missing(p.bandwidth_fraction, human_percent), "measured");
  add("Speed-of-Light SM / memory / DRAM",
      speed_of_light_text(k.speed_of_light) + " / " +
          or_missing(k.speed_of_light.dram, human_percent),
      "measured (ncu)");
  add("bound", p.bound ? std::string(to_string(*p.bound)) : kMissing, "measured");
  add("headroom to the roof", or_missing(p.headroom, headroom_text), "measured");
  if (r.comparison) {
    const engine::ModelComparison& c = *r.comparison;
    add("model: arithmetic intensity",
        human_figure(c.modelled_intensity_flop_per_byte) + " FLOP/byte",
        "modelled " + r.query.model_name);
    add("model: bound", std::string(to_string(c.modelled_bound)), "modelled");
    add("model: attainable", human_percent(c.modelled_attainable_fraction) + " of peak",
        "modelled");
    add("measured / modelled bytes", or_missing(c.bytes_ratio, human_figure),
        "measured / modelled");
    add("measured / modelled FLOPs", or_missing(c.flops_ratio, human_figure),
        "measured / modelled");
  }
  return table;
}

std::string lever_label(const engine::MeasuredLeverRow& row) {
  switch (row.kind) {
    case engine::LeverKind::compute:
      return human_speedup(row.levers.compute_speedup) + " compute speedup";
    case engine::LeverKind::bytes:
      return human_speedup(row.levers.bytes_reduction) + " fewer bytes";
    case engine::LeverKind::bandwidth:
      // the measured η scaled by --bandwidth-efficiency's AFTER / BEFORE
      return "bandwidth efficiency → " +
             human_percent(row.levers.bandwidth_efficiency_after.value_or(1));
    case engine::LeverKind::combined:
      return "all levers together";
  }
  return "";
}

Table levers_table(const MeasuredRooflineResult& r) {
  Table table;
  table.header = {"lever",          "before",
                  "after",          "speedup (measured)",
                  "ideal roofline", r.comparison ? "model's roofline" : ""};
  if (!r.comparison) table.header.pop_back();
  table.align = {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right};
  for (const engine::MeasuredLeverRow& row : r.levers) {
    std::vector<std::string> cells = {lever_label(row), seconds_text(row.outcome.time_before_s),
                                      seconds_text(row.outcome.time_after_s),
                                      human_speedup(row.outcome.speedup),
                                      human_speedup(row.outcome.ideal_speedup)};
    if (r.comparison) {
      engine::Levers ideal;
      ideal.compute_speedup = row.levers.compute_speedup;
      ideal.bytes_reduction = row.levers.bytes_reduction;
      cells.push_back(
          row.kind == engine::LeverKind::bandwidth
              ? std::string(kMissing)
              : human_speedup(engine::apply_levers(*r.query.modelled, r.roof, ideal).speedup));
    }
    table.rows.push_back(std::move(cells));
  }
  return table;
}

std::string answer(const MeasuredRooflineResult& r, const MeasuredKernel& k,
                   const MeasuredPosition& p) {
  const std::string who = "Launch " + k.id + " (" + ncu_short_name(k.name) + ")";
  std::string text;
  if (!p.bound && p.headroom && k.flops_miss_tensor_work && k.intensity_flop_per_byte) {
    text = fmt::format(
        "{} is at ≥ {} FLOP/byte, below the ridge ({}), but its FLOPs miss the tensor-core work, "
        "so it is not known to be memory-bound (--mma-shape MxNxK counts that work; 16x8x16 for "
        "HMMA.16816). It reaches {} of the bandwidth and ≥ {} of the peak: the roof allows at "
        "most {} faster.",
        who, human_figure(*k.intensity_flop_per_byte), human_figure(p.ridge_flop_per_byte),
        human_percent(p.bandwidth_fraction.value_or(0)),
        human_percent(p.compute_fraction.value_or(0)), headroom_text(*p.headroom));
  } else if (!p.bound || !p.headroom) {
    return who + " cannot be placed on the roofline: the export lacks " +
           comma_list(compact_metrics(r.missing_metrics)) + ".";
  } else {
    text = fmt::format(
        "{} is {}-bound at {} FLOP/byte, reaching {} of the bandwidth and {} of the peak: the "
        "roof allows {} faster.",
        who, bound_name(*p.bound), human_figure(*k.intensity_flop_per_byte),
        human_percent(p.bandwidth_fraction.value_or(0)),
        human_percent(p.compute_fraction.value_or(0)), headroom_text(*p.headroom));
  }
  if (!r.levers.empty()) {
    const engine::MeasuredLeverRow& row = r.levers.back();
    text += fmt::format(
        " {} is worth {} from the measured position ({} on the ideal roofline).",
        r.levers_illustrative ? "Halving its bytes and doubling its arithmetic" : lever_label(row),
        human_speedup(row.outcome.speedup), human_speedup(row.outcome.ideal_speedup));
  }
  return text;
}

}  // namespace

View ncu_view(const MeasuredRooflineResult& result) {
  View view;
  const engine::MeasuredRooflineQuery& q = result.query;
  view.title(fmt::format("kspeed roofline --ncu · {} ({} page, {} launches) · on {} ({})", q.file,
                         q.page, human_count(static_cast<std::int64_t>(q.kernels.size())),
                         q.gpu_name, q.precision));
  view.table(launches_table(result));
  view.caption(selection_caption(result), "", false);
  const std::size_t i = result.priced.value_or(0);
  const MeasuredKernel& k = q.kernels[i];
  const MeasuredPosition& p = result.positions[i];
  view.subheading("launch " + k.id + ": " + k.name);
  view.table(position_table(result, k, p));
  if (!result.levers.empty()) {
    view.table(levers_table(result));
    view.caption(
        std::string(result.levers_illustrative
                        ? "(illustrative: no lever given; pass --compute-speedup, "
                          "--bytes-reduction or --bandwidth-efficiency BEFORE:AFTER. "
                        : "(") +
            "Measured: the time neither roof explains stays unless the bandwidth efficiency "
            "changes; ideal: the same FLOPs and bytes at 100% of the roof)",
        "", false);
  }
  if (!result.missing_metrics.empty()) {
    view.note("missing from the export: " + comma_list(compact_metrics(result.missing_metrics)) +
              "; collect with ncu " + ncu_collect_flags(result.missing_metrics));
  }
  view.answer(answer(result, k, p));
  for (const auto& warning : result.warnings) {
    view.warning(warning_sentence(warning));
  }
  return view;
}

}  // namespace kspeed::report
