// `kspeed plan` for people: can the A/B see the predicted effect, and what would it take.
#include "kspeed/report/human.hpp"
#include "kspeed/report/plan_report.hpp"

#include <cmath>

namespace kspeed::report {

namespace {

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "—";
  return human_fixed(fraction * 100, fraction < 0.1 ? 2 : 1) + "%";
}

std::string count_or_beyond(std::int64_t count) {
  return count == INT64_MAX ? std::string("beyond counting") : human_count(count);
}

std::string answer(const engine::Plan& plan, const PlanContext& context) {
  const engine::Detectability& deciding = plan.deciding();
  const std::string effect = percent(plan.input.effect);
  const std::string unit = plan.between_runs ? " runs" : " requests";
  const std::string planned = plan.between_runs ? human_count(plan.repeats) + " runs a side"
                                                : human_count(plan.requests) + " requests a side";
  if (!std::isfinite(deciding.mde_fraction)) {
    return "With 1 run a side there is no t test between runs (it needs 2 or more runs a side "
           "to estimate their spread); detecting the predicted " +
           effect + " needs " + count_or_beyond(deciding.needed) + unit + " a side.";
  }
  std::string text = "With " + planned + ", the smallest change of mean " + context.metric +
                     " this benchmark can detect is " + percent(deciding.mde_fraction) + "; the " +
                     "predicted " + effect + " is " +
                     (deciding.detectable ? "detectable" : "not detectable") + ".";
  if (plan.impractical) {
    return text + " Detecting it needs " + count_or_beyond(deciding.needed) + unit +
           " a side: an end-to-end A/B cannot practically see this change; trust the "
           "kernel-level measurement (kspeed diff of two traces).";
  }
  if (!deciding.detectable) {
    text += " Detecting it needs " + count_or_beyond(deciding.needed) + unit + " a side.";
  }
  return text;
}

}  // namespace

View plan_view(const engine::Plan& plan, const PlanContext& context) {
  View view;
  view.title("kspeed plan: can an A/B see a " + percent(plan.input.effect) + " change in mean " +
             context.metric + "?");
  view.answer(answer(plan, context));
  view.fact("effect", percent(plan.input.effect) + " of the mean (" + context.effect_source + ")");
  view.fact("baseline",
            human_count(static_cast<std::int64_t>(plan.input.runs.size())) + " run(s); mean " +
                human_kernel_ms(plan.mean_ms) + " over " +
                human_count(static_cast<std::int64_t>(plan.input.runs.front().values_ms.size())) +
                " requests of " + plan.input.runs.front().source);
  view.fact("test", "two-sided t test, level " + human_plain(plan.input.options.alpha) +
                        ", power " + human_plain(plan.input.options.power) +
                        " (exact: noncentral t; k = z(1 − α/2) + z(power) = " +
                        human_fixed(plan.k, 3) + " in the normal limit)");
  Table table;
  table.header = {"comparison",       "spread (sd)",   "planned",  "detectable change",
                  "power as planned", "needed a side", "predicted"};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::left};
  const auto row = [&](const std::string& name, const engine::Detectability& d,
                       const std::string& planned, const std::string& unit) {
    table.rows.push_back({name, human_kernel_ms(d.sd_ms), planned, percent(d.mde_fraction),
                          human_fixed(d.power, 2), count_or_beyond(d.needed) + unit,
                          d.detectable ? "detectable" : "not detectable"});
  };
  const std::string requests = human_count(plan.requests * plan.repeats) + " requests";
  row("unpaired requests", plan.unpaired, requests, " requests");
  if (plan.paired) row("paired requests", *plan.paired, requests, " pairs");
  if (plan.between_runs) {
    row("between runs", *plan.between_runs, human_count(plan.repeats) + " runs", " runs");
  }
  view.table(table);
  view.caption(
      "detectable change = δ · se / mean with se = sd · √(2/n) (unpaired, n a side), sd_diff / √n "
      "(paired), sd_run_means · √(2/r) (r runs a side) and δ the shift, in standard errors, a "
      "two-sided t test detects with the power (noncentral t; δ → k for large n); power as "
      "planned = the t test's chance of detecting the predicted change; needed = the fewest n or "
      "r that reach the power (docs/plan.md)");
  if (!plan.paired) {
    view.note(
        "No paired estimate: it needs two baseline runs of the same requests (shared "
        "request ids). A paired A/B is usually far more sensitive: the requests' own "
        "spread cancels.");
  }
  if (plan.input.runs.size() == 2) {
    view.note(
        "Two baseline runs give the spread of the runs' means one degree of freedom: at 95% the "
        "true spread may be 32 times the estimate, so no between-run plan is made. Give 3 or "
        "more runs of the same configuration; real A/Bs often vary more between runs than "
        "within one.");
  } else if (!plan.between_runs) {
    view.note(
        "Run-to-run variation is unknown with one baseline run: give 3 or more runs of the same "
        "configuration; real A/Bs often vary more between runs than within one.");
  }
  if (!plan.between_runs) {
    // The deciding request-level spread's range (Bonett 2006, kurtosis-adjusted): heavy tails
    // widen it, and the baseline's SD most often falls short of the spread the A/B meets.
    const engine::Detectability& d = plan.deciding();
    if (d.sd_high_ms && d.sd_low_ms) {
      const bool paired = plan.paired.has_value();
      view.note("The " + std::string(paired ? "paired differences'" : "requests'") +
                " spread has an approximate 95% range of " + human_kernel_ms(*d.sd_low_ms) +
                " to " + human_kernel_ms(*d.sd_high_ms) +
                " (kurtosis-adjusted: heavy tails widen it); at the upper end detecting the "
                "predicted change needs " +
                count_or_beyond(d.needed_high.value_or(INT64_MAX)) +
                (paired ? " pairs." : " requests a side."));
    }
  }
  if (plan.between_runs && plan.between_runs->sd_high_ms) {
    const engine::Detectability& between = *plan.between_runs;
    view.note("The spread of " + human_count(static_cast<std::int64_t>(plan.input.runs.size())) +
              " run means has " +
              human_count(static_cast<std::int64_t>(plan.input.runs.size()) - 1) +
              " degrees of freedom: its 95% range is " + human_kernel_ms(*between.sd_low_ms) +
              " to " + human_kernel_ms(*between.sd_high_ms) +
              "; at the upper end detecting the predicted change needs " +
              count_or_beyond(between.needed_high.value_or(INT64_MAX)) + " runs a side.");
  }
  if (plan.between_runs && plan.run_floor) {
    view.warning(
        "the runs' means vary more than their requests' spread explains: this floor "
        "does not shrink with more requests a run, only with more runs");
  }
  return view;
}

}  // namespace kspeed::report
