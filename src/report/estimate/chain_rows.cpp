#include "chain_rows.hpp"

#include <fmt/format.h>

#include "kspeed/report/human.hpp"
#include "roofline_rows.hpp"

namespace kspeed::report::estimate_rows {

namespace {

using engine::Estimate;
using engine::Level;

std::vector<std::string> level_row(std::string name, std::string share, const Level& level) {
  return {std::move(name),
          std::move(share),
          human_ms(level.time_before_ms),
          human_ms(level.time_after_ms),
          human_ms(level.saved_ms),
          human_speedup(level.speedup),
          human_ceiling(level.ceiling)};
}

std::string share_text(double share, const char* parent) {
  return human_percent(share) + " of " + parent;
}

std::string tokens(std::int64_t count) {
  return human_count(count) + " tokens";
}

}  // namespace

Table chain_table(const Estimate& estimate) {
  const engine::EstimateResult& r = estimate.result;
  Table table;
  table.header = {"level", "share", "before", "after", "saved", "speedup", "ceiling"};
  table.align = {Align::left,  Align::left,  Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  table.rows.push_back(level_row("prefill attention",
                                 share_text(r.prefill.attention.share_of_parent, "prefill"),
                                 r.prefill.attention));
  table.rows.push_back(level_row("prefill", share_text(r.prefill.phase.share_of_parent, "request"),
                                 r.prefill.phase));
  if (estimate.scenario.decode_share) {
    table.rows.push_back(level_row("decode attention",
                                   share_text(r.decode.attention.share_of_parent, "decode"),
                                   r.decode.attention));
  }
  table.rows.push_back(
      level_row("decode", share_text(r.decode.phase.share_of_parent, "request"), r.decode.phase));
  table.rows.push_back(level_row("request", "", r.request));
  add_bound_column(table, estimate.scenario);
  return table;
}

Table inputs_table(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  Table table;
  table.header = {"input", "value", "source"};
  table.align = {Align::left, Align::right, Align::left};
  auto add = [&table](std::string name, std::string value, engine::Source source) {
    table.rows.push_back({std::move(name), std::move(value), std::string(to_string(source))});
  };
  add("prompt", tokens(s.prompt_tokens.value), s.prompt_tokens.source);
  add("response", tokens(s.response_tokens.value), s.response_tokens.source);
  add("TTFT", human_ms(s.ttft_ms.value), s.ttft_ms.source);
  add("TPOT", human_ms(s.tpot_ms.value), s.tpot_ms.source);
  if (s.levers) {
    add_lever_inputs(table, s);  // the change as levers: no single kernel speedup
  } else {
    add("kernel speedup", human_speedup(s.kernel_speedup.value), s.kernel_speedup.source);
  }
  add("prefill attention share", human_percent(s.prefill_share.value), s.prefill_share.source);
  if (s.decode_share) {
    add("decode attention share", human_percent(s.decode_share->value), s.decode_share->source);
  } else {
    table.rows.push_back({"decode attention share", "—", "none (decode untouched)"});
  }
  add_platform_inputs(table, estimate);
  return table;
}

std::string summary_sentence(const Estimate& estimate) {
  const engine::Scenario& s = estimate.scenario;
  const engine::EstimateResult& r = estimate.result;
  const std::string target =
      s.phase == engine::Phase::both ? "prefill and decode" : std::string(to_string(s.phase));
  // A gain reads as "0.66% faster" ((S - 1) * 100, MODEL.md's convention); a loss as time added.
  const std::string change =
      r.request.saved_ms >= 0
          ? fmt::format(
                "{} on {} makes the request {} faster ({}, {} of {} "
                "saved)",
                change_name(s), target, human_percent(r.improvement_pct / 100),
                human_speedup(r.request.speedup), human_ms(r.request.saved_ms),
                human_ms(r.request.time_before_ms))
          : fmt::format(
                "{} on {} makes the request slower ({}, {} added to "
                "{})",
                change_name(s), target, human_speedup(r.request.speedup),
                human_ms(-r.request.saved_ms), human_ms(r.request.time_before_ms));
  std::string why;
  if (s.phase != engine::Phase::decode) {
    why = fmt::format("attention is {} of prefill and prefill is {} of the request",
                      human_percent(s.prefill_share.value), human_percent(r.prefill_fraction));
  }
  if (s.phase != engine::Phase::prefill && s.decode_share) {
    why += fmt::format("{}attention is {} of decode and decode is {} of the request",
                       why.empty() ? "" : "; ", human_percent(s.decode_share->value),
                       human_percent(r.decode.phase.share_of_parent));
  }
  return change + ": " + why + ".";
}

std::string conditions_line(const engine::Workload& workload) {
  std::string line;
  for (const auto& [key, value] : workload.conditions) {
    line.append(line.empty() ? "" : "; ").append(key).append(": ").append(value);
  }
  return line.empty() ? "none stated" : line;
}

std::string missing_conditions_line(const engine::Workload& workload) {
  std::string line;
  for (const std::string& key : engine::missing_conditions(workload)) {
    line += (line.empty() ? "" : ", ") + key;
  }
  return line;
}

std::string gate_line(const engine::GateCheck& gate) {
  return fmt::format("{} --{}: estimated {} {} required {}", gate.passed ? "PASS" : "FAIL",
                     gate.name, human_speedup(gate.actual), gate.passed ? ">=" : "<",
                     human_speedup(gate.threshold));
}

}  // namespace kspeed::report::estimate_rows
