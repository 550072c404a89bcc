#include "roofline_rows.hpp"

#include <fmt/format.h>

#include "kspeed/report/human.hpp"

namespace kspeed::report::estimate_rows {

namespace {

using engine::Scenario;

std::string levers_text(const engine::Levers& levers) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (levers.compute_speedup != 1) {
    add(human_speedup(levers.compute_speedup) + " faster arithmetic");
  }
  if (levers.bytes_reduction != 1) {
    add(human_speedup(levers.bytes_reduction) + " fewer bytes");
  }
  if (levers.bandwidth_efficiency_before != levers.bandwidth_efficiency_after) {
    add(fmt::format("bandwidth efficiency {} → {}", levers.bandwidth_efficiency_before,
                    levers.bandwidth_efficiency_after));
  }
  return text.empty() ? "no change" : text;
}

std::string bound_cell(const std::optional<engine::PhaseRoofline>& position) {
  return position ? std::string(to_string(position->bound)) : std::string();
}

}  // namespace

std::string change_name(const Scenario& s) {
  if (!s.levers || !s.prefill_roofline || !s.decode_roofline) {
    return fmt::format("A {} attention kernel", human_speedup(s.kernel_speedup.value));
  }
  std::string speedups;
  if (s.phase != engine::Phase::decode) {
    speedups = "prefill attention " + human_speedup(*s.prefill_roofline->attention_speedup);
  }
  if (s.phase != engine::Phase::prefill) {
    speedups += (speedups.empty() ? "" : ", ") + std::string("decode attention ") +
                human_speedup(*s.decode_roofline->attention_speedup);
  }
  return fmt::format("A change of {} ({})", levers_text(*s.levers), speedups);
}

void add_lever_inputs(Table& inputs, const Scenario& s) {
  const engine::Levers& levers = *s.levers;
  auto add = [&inputs](std::string name, std::string value, const char* source) {
    inputs.rows.push_back({std::move(name), std::move(value), source});
  };
  add("compute speedup", human_speedup(levers.compute_speedup),
      levers.compute_speedup != 1 ? "given" : "default");
  add("bytes reduction", human_speedup(levers.bytes_reduction),
      levers.bytes_reduction != 1 ? "given" : "default");
  const bool bandwidth_given =
      levers.bandwidth_efficiency_before != 1 || levers.bandwidth_efficiency_after != 1;
  add("bandwidth efficiency",
      fmt::format("{} → {}", levers.bandwidth_efficiency_before, levers.bandwidth_efficiency_after),
      bandwidth_given ? "given" : "default");
  if (s.prefill_roofline && s.prefill_roofline->attention_speedup) {
    add("prefill attention speedup", human_speedup(*s.prefill_roofline->attention_speedup),
        "modelled");
  }
  if (s.decode_roofline && s.decode_roofline->attention_speedup) {
    add("decode attention speedup", human_speedup(*s.decode_roofline->attention_speedup),
        "modelled");
  }
}

void add_platform_inputs(Table& inputs, const engine::Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  if (!s.platform) {
    return;
  }
  const engine::Platform& p = *s.platform;
  auto add = [&inputs](std::string name, std::string value, engine::Source source) {
    inputs.rows.push_back({std::move(name), std::move(value), std::string(to_string(source))});
  };
  add("model", p.model.value.name, p.model.source);
  add("GPU", p.gpu.value.name, p.gpu.source);
  add("batch", std::to_string(p.batch.value), p.batch.source);
  add("tensor parallel", std::to_string(p.tensor_parallel.value), p.tensor_parallel.source);
  add("KV cache type", p.kv_dtype.value, p.kv_dtype.source);
  add("compute precision", p.precision.value, p.precision.source);
  if (s.prefill_roofline) {
    add("prefill attention intensity",
        fmt::format("{:.1f} FLOP/byte", s.prefill_roofline->intensity_flop_per_byte),
        engine::Source::modelled);
  }
  if (s.decode_roofline) {
    add("decode attention intensity",
        fmt::format("{:.1f} FLOP/byte", s.decode_roofline->intensity_flop_per_byte),
        engine::Source::modelled);
    add("ridge", fmt::format("{:.1f} FLOP/byte", s.decode_roofline->ridge_flop_per_byte),
        engine::Source::preset);
  }
  if (s.phase != engine::Phase::prefill && s.decode_share) {
    // Every decode step gains the decode phase's speedup: TPOT' = TPOT · ((1 - p) + p / s).
    const double speedup = estimate.result.decode.phase.speedup;
    add("TPOT after the change",
        fmt::format("{} ({:.3f}×)", human_ms(s.tpot_ms.value / speedup), speedup),
        engine::Source::modelled);
  }
}

void add_bound_column(Table& chain, const Scenario& s) {
  if (!s.prefill_roofline && !s.decode_roofline) {
    return;
  }
  constexpr std::size_t kAfterShare = 2;
  chain.header.insert(chain.header.begin() + kAfterShare, "bound");
  std::vector<Align> align;  // rebuilt, not insert()ed: GCC 12 warns on inserting enums
  for (std::size_t i = 0; i < chain.align.size(); ++i) {
    if (i == kAfterShare) {
      align.push_back(Align::left);
    }
    align.push_back(chain.align[i]);
  }
  chain.align = std::move(align);
  for (auto& row : chain.rows) {
    const std::string cell = row.front() == "prefill attention"  ? bound_cell(s.prefill_roofline)
                             : row.front() == "decode attention" ? bound_cell(s.decode_roofline)
                                                                 : std::string();
    row.insert(row.begin() + kAfterShare, cell);
  }
}

}  // namespace kspeed::report::estimate_rows
