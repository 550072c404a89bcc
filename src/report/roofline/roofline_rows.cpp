#include "roofline_rows.hpp"

#include <fmt/format.h>

#include <cmath>

#include "kspeed/report/human.hpp"

namespace kspeed::report::roofline_rows {

namespace {

using engine::LeverKind;
using engine::RooflineResult;

// 2.68 GFLOP, 671 MB: three significant digits with an SI prefix.
std::string si(double value, const char* unit) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  std::size_t prefix = 0;
  while (std::fabs(value) >= 1000 && prefix + 1 < std::size(kPrefixes)) {
    value /= 1000;
    ++prefix;
  }
  const int decimals = std::fabs(value) >= 100 ? 0 : std::fabs(value) >= 10 ? 1 : 2;
  return fmt::format("{:.{}f} {}{}", value, decimals, kPrefixes[prefix], unit);
}

// Three significant digits, no unit: "295", "29.6", "8.00".
std::string figure(double value) {
  const int decimals = std::fabs(value) >= 100 ? 0 : std::fabs(value) >= 10 ? 1 : 2;
  return fmt::format("{:.{}f}", value, decimals);
}

// Microseconds below a millisecond: roofline times of one step are often tens of µs.
std::string kernel_time(double ms) {
  return ms < 1 ? fmt::format("{} µs", figure(ms * 1000)) : human_ms(ms);
}

// The shortest text that reads back as the value: "0.5", "0.55".
std::string plain(double value) {
  return fmt::format("{}", value);
}

std::string lever_label(LeverKind kind, const engine::Levers& levers) {
  switch (kind) {
    case LeverKind::compute:
      return human_speedup(levers.compute_speedup) + " compute speedup";
    case LeverKind::bytes:
      return human_speedup(levers.bytes_reduction) + " fewer bytes";
    case LeverKind::bandwidth:
      return fmt::format("bandwidth efficiency {} → {}", plain(levers.bandwidth_efficiency_before),
                         plain(levers.bandwidth_efficiency_after));
    case LeverKind::combined:
      return "all levers together";
  }
  return "";
}

std::string source_of(engine::Source source, const std::string& gpu) {
  return source == engine::Source::preset ? "preset " + gpu : std::string(to_string(source));
}

}  // namespace

std::string heading(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  std::string text = fmt::format("kspeed roofline · {} attention", to_string(q.phase));
  if (q.platform) {
    const engine::Platform& p = *q.platform;
    text +=
        fmt::format(" · {} on {} ({}) · {} {} · batch {} · tp {}", p.model.value.name, q.gpu_name,
                    q.precision, q.phase == engine::Phase::prefill ? "prompt" : "context",
                    human_count(q.context_tokens.value), p.batch.value, p.tensor_parallel.value);
  } else {
    text += fmt::format(" · intensity {} FLOP/byte on {} ({})", figure(r.intensity_flop_per_byte),
                        q.gpu_name, q.precision);
  }
  return text;
}

Table figures_table(const RooflineResult& r) {
  const engine::RooflineQuery& q = r.query;
  Table table;
  table.header = {"figure", "value", "source"};
  table.align = {Align::left, Align::right, Align::left};
  auto add = [&table](std::string name, std::string value, std::string source) {
    table.rows.push_back({std::move(name), std::move(value), std::move(source)});
  };
  if (q.platform) {
    const engine::Platform& p = *q.platform;
    add("KV cache type", p.kv_dtype.value, std::string(to_string(p.kv_dtype.source)));
    add("FLOPs per step (per GPU)", si(r.step_cost->flops, "FLOP"), "modelled");
    add("bytes per step (per GPU)", si(r.step_cost->bytes, "B"), "modelled");
  }
  add("arithmetic intensity", figure(r.intensity_flop_per_byte) + " FLOP/byte",
      std::string(to_string(r.intensity_source)));
  add(fmt::format("peak ({}, dense)", q.precision), plain(q.peak_tflops.value) + " TFLOP/s",
      source_of(q.peak_tflops.source, q.gpu_name));
  add("HBM bandwidth", plain(q.bandwidth_tbs.value) + " TB/s",
      source_of(q.bandwidth_tbs.source, q.gpu_name));
  add("ridge (peak / bandwidth)", fmt::format("{:.1f} FLOP/byte", r.ridge_flop_per_byte),
      "modelled");
  add("bound", std::string(to_string(r.bound)), "modelled");
  add("attainable",
      fmt::format("{} of peak ({} TFLOP/s)", human_percent(r.attainable_fraction),
                  figure(r.attainable_tflops)),
      "modelled");
  if (r.time_ms) {
    add("time on the roofline", kernel_time(*r.time_ms), "modelled");
  }
  if (r.memory_needed_gb) {
    add("HBM needed per GPU", figure(*r.memory_needed_gb) + " GB", "modelled");
  }
  return table;
}

Table levers_table(const RooflineResult& r) {
  Table table;
  const bool absolute = r.step_cost.has_value();
  table.header =
      absolute ? std::vector<std::string>{"lever", "before", "after", "speedup", "bound after"}
               : std::vector<std::string>{"lever", "speedup", "bound after"};
  table.align = absolute ? std::vector<Align>{Align::left, Align::right, Align::right, Align::right,
                                              Align::left}
                         : std::vector<Align>{Align::left, Align::right, Align::left};
  for (const engine::LeverRow& row : r.levers) {
    std::vector<std::string> cells = {lever_label(row.kind, row.levers)};
    if (absolute) {
      cells.push_back(kernel_time(row.outcome.time_before_ms));
      cells.push_back(kernel_time(row.outcome.time_after_ms));
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
  const std::string where = fmt::format("intensity {} FLOP/byte against a ridge of {:.1f}",
                                        figure(r.intensity_flop_per_byte), r.ridge_flop_per_byte);
  if (r.bound == engine::Bound::memory) {
    return fmt::format(
        "{} is memory-bound ({}): fewer bytes or more of the bandwidth make it "
        "faster; faster arithmetic alone does not.",
        kernel, where);
  }
  return fmt::format(
      "{} is compute-bound ({}): faster arithmetic makes it faster; fewer bytes "
      "alone do not.",
      kernel, where);
}

std::string illustrative_note(const RooflineResult& r) {
  return r.levers_illustrative
             ? "(illustrative: no lever given; pass --compute-speedup, --bytes-reduction or "
               "--bandwidth-efficiency BEFORE:AFTER)"
             : "";
}

}  // namespace kspeed::report::roofline_rows
