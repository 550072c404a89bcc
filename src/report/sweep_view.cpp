// `kspeed sweep` for people: one row per point (the swept inputs, the share, each level's
// speedup), the range in one sentence with both "faster" and "less time", where the numbers
// come from, and each kind of warning once. Also the sweep's charts (terminal and SVG).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Sweep;
using engine::SweepRow;

bool swept(const Sweep& sweep, std::string_view name) {
  return std::find(sweep.swept.begin(), sweep.swept.end(), name) != sweep.swept.end();
}

std::string optional_speedup(const std::optional<double>& value) {
  return value ? human_speedup(*value) : std::string("—");
}

// The swept inputs first (as the rows vary), then what every point reports.
Table points_table(const Sweep& sweep) {
  Table table;
  struct Column {
    const char* name;
    const char* header;
    std::string (*cell)(const SweepRow& row);
  };
  static const Column kInputs[] = {
      {"batch", "batch", [](const SweepRow& r) { return r.batch ? human_count(*r.batch) : "—"; }},
      {"kernel_speedup", "kernel",
       [](const SweepRow& r) {
         return r.kernel_speedup ? human_speedup(r.kernel_speedup->value) : std::string("—");
       }},
      {"compute_speedup", "compute",
       [](const SweepRow& r) { return optional_speedup(r.compute_speedup); }},
      {"bytes_reduction", "bytes ÷",
       [](const SweepRow& r) { return optional_speedup(r.bytes_reduction); }},
      {"prefill_attention_share", "share",
       [](const SweepRow& r) { return human_percent(r.prefill_share.value); }},
      {"response_tokens", "response",
       [](const SweepRow& r) { return human_count(r.response_tokens.value); }},
      {"prompt_tokens", "context",
       [](const SweepRow& r) { return human_count(r.prompt_tokens.value); }},
  };
  std::vector<const Column*> inputs;
  for (const Column& column : kInputs) {
    if (swept(sweep, column.name)) {
      inputs.push_back(&column);
    }
  }
  for (const Column* column : inputs) {
    table.header.emplace_back(column->header);
    table.align.push_back(Align::right);
  }
  const bool share_swept = swept(sweep, "prefill_attention_share");
  if (!share_swept) {
    table.header.emplace_back("share");
    table.align.push_back(Align::right);
  }
  // Over contexts TTFT changes with the prompt: show it and how it was obtained (fitted...).
  const bool ttft_varies = swept(sweep, "prompt_tokens");
  if (ttft_varies) {
    table.header.emplace_back("TTFT");
    table.align.push_back(Align::right);
  }
  for (const char* header : {"prefill", "ceiling", "request", "less time"}) {
    table.header.emplace_back(header);
    table.align.push_back(Align::right);
  }
  for (const SweepRow& row : sweep.rows) {
    std::vector<std::string> cells;
    cells.reserve(table.header.size());
    for (const Column* column : inputs) {
      cells.push_back(column->cell(row));
    }
    if (!share_swept) {
      cells.push_back(human_percent(row.prefill_share.value) + " " +
                      std::string(to_string(row.prefill_share.provenance)));
    }
    const engine::EstimateResult& r = row.result;
    if (ttft_varies) {
      cells.push_back(human_ms(row.ttft_ms.value) + " " +
                      std::string(to_string(row.ttft_ms.provenance)));
    }
    cells.push_back(human_speedup(r.prefill.phase.speedup));
    cells.push_back(human_ceiling(r.prefill.phase.ceiling));
    cells.push_back(human_speedup(r.request.speedup));
    cells.push_back(human_percent(1 - 1 / r.request.speedup));
    table.rows.push_back(std::move(cells));
  }
  return table;
}

// "prefill 1.10× to 1.74× (9.3% to 42.6% less time); request …" over all points.
std::string range_sentence(const Sweep& sweep) {
  auto range = [&sweep](const char* name, double (*speedup)(const SweepRow&)) {
    double lo = speedup(sweep.rows.front());
    double hi = lo;
    for (const SweepRow& row : sweep.rows) {
      lo = std::min(lo, speedup(row));
      hi = std::max(hi, speedup(row));
    }
    return fmt::format("{} {} to {} faster ({} to {} less time)", name, human_speedup(lo),
                       human_speedup(hi), human_percent(1 - 1 / lo), human_percent(1 - 1 / hi));
  };
  const std::size_t points = sweep.rows.size();
  return fmt::format(
      "Over {} point{}: {}; {}.", human_count(static_cast<std::int64_t>(points)),
      points == 1 ? "" : "s",
      range("prefill", [](const SweepRow& r) { return r.result.prefill.phase.speedup; }),
      range("request", [](const SweepRow& r) { return r.result.request.speedup; }));
}

// "; TPOT 50.0 ms (workload)", or where the latency changes over the points (a swept context, a
// swept batch: the decodes beside each prompt): "; TPOT 52.5 ms to 95.0 ms (fitted, given)", the
// numbers the rows used, not the first row's.
std::string latency_caption(const Sweep& sweep, const char* name,
                            engine::WithProvenance<double> SweepRow::*latency) {
  const auto [low, high] = std::minmax_element(sweep.rows.begin(), sweep.rows.end(),
                                               [latency](const SweepRow& a, const SweepRow& b) {
                                                 return (a.*latency).value < (b.*latency).value;
                                               });
  std::vector<std::string_view> sources;  // each provenance once, in row order
  for (const SweepRow& row : sweep.rows) {
    const std::string_view source = to_string((row.*latency).provenance);
    if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
      sources.push_back(source);
    }
  }
  const std::string shown = fmt::format("{}", fmt::join(sources, ", "));
  if ((*low.*latency).value == (*high.*latency).value) {
    return fmt::format("; {} {} ({})", name, human_ms((*low.*latency).value), shown);
  }
  return fmt::format("; {} {} to {} ({})", name, human_ms((*low.*latency).value),
                     human_ms((*high.*latency).value), shown);
}

std::string fixed_inputs_caption(const Sweep& sweep) {
  const SweepRow& first = sweep.rows.front();
  std::string text =
      fmt::format("workload {}; phase {}", sweep.workload.name, to_string(sweep.phase));
  if (!swept(sweep, "kernel_speedup") && first.kernel_speedup) {
    text += fmt::format("; kernel {} ({})", human_speedup(first.kernel_speedup->value),
                        to_string(first.kernel_speedup->provenance));
  }
  if (!swept(sweep, "prompt_tokens")) {
    text += fmt::format("; context {} tokens ({})", human_count(first.prompt_tokens.value),
                        to_string(first.prompt_tokens.provenance));
  }
  if (!swept(sweep, "prompt_tokens")) text += latency_caption(sweep, "TTFT", &SweepRow::ttft_ms);
  text += latency_caption(sweep, "TPOT", &SweepRow::tpot_ms);
  // A fixed term in TTFT: say how big it is and that "prefill" stays Amdahl on the GPU time.
  const auto with_fixed = std::find_if(sweep.rows.begin(), sweep.rows.end(),
                                       [](const SweepRow& r) { return r.result.ttft.has_value(); });
  if (with_fixed != sweep.rows.end()) {
    const engine::EstimateResult& r = with_fixed->result;
    text += fmt::format(
        ". TTFT holds a fixed term of {} no kernel touches (fitted to the measured TTFT points, "
        "or --ttft-overhead): \"prefill\" is Amdahl on TTFT less it, \"request\" includes it",
        human_ms(r.ttft->time_before_ms - r.prefill.phase.time_before_ms));
  }
  return text + ". \"less time\" is the request's: 1 − 1/speedup.";
}

// Each kind of warning once, with the number of points it concerns.
void add_warnings(View& view, const Sweep& sweep) {
  std::map<std::string, std::pair<const engine::Warning*, std::size_t>> by_code;
  std::vector<std::string> order;
  for (const SweepRow& row : sweep.rows) {
    for (const engine::Warning& warning : row.warnings) {
      const std::string code = warning_code(warning);
      auto [it, added] = by_code.try_emplace(code, &warning, 0);
      ++it->second.second;
      if (added) {
        order.push_back(code);
      }
    }
  }
  for (const std::string& code : order) {
    const auto& [warning, count] = by_code.at(code);
    view.warning(fmt::format("{} (at {} of {} points; the first is quoted)",
                             warning_sentence(*warning),
                             human_count(static_cast<std::int64_t>(count)),
                             human_count(static_cast<std::int64_t>(sweep.rows.size()))));
  }
}

// What the sweep is about, in the headline: the deployment (its lengths came from the
// illustrative request, everything else from the step model), the illustrative request, or a
// workload.
std::string sweep_subject(const Sweep& sweep) {
  if (sweep.workload.request.illustrative && sweep.platform) {
    // --share-model calibrated without --workload: the share is fitted to another deployment's.
    const bool borrowed =
        !sweep.workload.borrowed_share_table.empty() && sweep.phase != engine::Phase::decode &&
        !sweep.rows.empty() &&
        sweep.rows.front().prefill_share.provenance == engine::Provenance::modelled;
    return "deployment " + deployment_name(*sweep.platform) +
           (borrowed
                ? " (prefill share calibrated on " +
                      engine::borrowed_table(sweep.workload.borrowed_share_table) + ", borrowed)"
                : std::string());
  }
  if (sweep.workload.request.illustrative) {
    return "illustrative request (workload " + sweep.workload.name + "), not your deployment";
  }
  return "workload " + sweep.workload.name;
}

}  // namespace

View sweep_warnings_view(const Sweep& sweep) {
  View view;
  add_warnings(view, sweep);
  return view;
}

View sweep_view(const Sweep& sweep) {
  View view;
  view.title("kspeed sweep: what the change is worth across " +
             std::string(swept(sweep, "prompt_tokens") ? "contexts" : "inputs") + " · " +
             sweep_subject(sweep));
  if (sweep.rows.empty()) {
    view.answer("The sweep has no points.");
    return view;
  }
  view.answer(range_sentence(sweep));
  view.table(points_table(sweep));
  view.caption(fixed_inputs_caption(sweep));
  add_warnings(view, sweep);
  return view;
}

}  // namespace kspeed::report
