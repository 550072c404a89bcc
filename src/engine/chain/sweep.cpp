#include "kspeed/engine/chain/sweep.hpp"

#include <limits>
#include <utility>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// One axis as "set this value on the options", so the loop below is one recursion over axes.
struct Axis {
  const char* name;
  std::size_t size;
  void (*apply)(EstimateOptions& options, const SweepAxes& axes, std::size_t index);
};

std::vector<Axis> axes_in_order(const SweepAxes& a) {
  // Outermost first; the context varies fastest, so each series of a chart is contiguous.
  std::vector<Axis> all = {
      {"batch", a.batch.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.platform->batch = {x.batch[i], Provenance::given};
       }},
      {"kernel_speedup", a.kernel_speedup.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.kernel_speedup = x.kernel_speedup[i];
       }},
      {"compute_speedup", a.compute_speedup.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.levers->compute_speedup = x.compute_speedup[i];
       }},
      {"bytes_reduction", a.bytes_reduction.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.levers->bytes_reduction = x.bytes_reduction[i];
       }},
      {"prefill_attention_share", a.prefill_share.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.prefill_share = x.prefill_share[i];
       }},
      {"response_tokens", a.response_tokens.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.response_tokens = x.response_tokens[i];
       }},
      {"prompt_tokens", a.prompt_tokens.size(),
       [](EstimateOptions& o, const SweepAxes& x, std::size_t i) {
         o.prompt_tokens = x.prompt_tokens[i];
       }},
  };
  std::vector<Axis> swept;
  for (const Axis& axis : all) {
    if (axis.size > 0) {
      swept.push_back(axis);
    }
  }
  return swept;
}

void check_table_fits(const EstimateOptions& base, const SweepAxes& axes,
                      const std::optional<KernelSpeedupTable>& table) {
  if (!table) {
    return;
  }
  if (!axes.kernel_speedup.empty() || base.kernel_speedup || base.levers) {
    throw InputError(flag_mark("kernel-speedup-table") +
                     " gives the kernel speedup at each point: "
                     "drop " +
                     flag_mark("kernel-speedup") + " and the lever flags");
  }
  if (table->key == SpeedupKey::batch && !base.platform) {
    throw InputError(flag_mark("kernel-speedup-table") +
                     ": a table by batch needs a model and a "
                     "GPU (" +
                     flag_mark("model") + " and " + flag_mark("gpu") + ")");
  }
}

void check_axes_fit(const EstimateOptions& base, const SweepAxes& axes) {
  if (!axes.batch.empty() && !base.platform) {
    throw InputError(flag_mark("batch") + ": a batch sweep needs a model and a GPU (" +
                     flag_mark("model") + " and " + flag_mark("gpu") +
                     ", or a workload that names them): without them the batch changes nothing");
  }
  if ((!axes.compute_speedup.empty() || !axes.bytes_reduction.empty()) && !base.levers) {
    throw InputError(flag_mark("compute-speedup") + ": levers need a model and a GPU");
  }
}

// The table's speedup at the point's resolved context or batch, and how it was obtained.
WithProvenance<double> table_speedup(const KernelSpeedupTable& table, const Scenario& s) {
  const std::int64_t at =
      table.key == SpeedupKey::context ? s.prompt_tokens.value : s.platform->batch.value;
  return speedup_at(table, static_cast<double>(at));
}

SweepRow row_of(const Workload& workload, EstimateOptions& options,
                const std::optional<KernelSpeedupTable>& table) {
  Scenario s = resolve_scenario(workload, options);
  std::optional<WithProvenance<double>> from_table;
  if (table) {
    // Resolve once for the point's context and batch, then again with the table's speedup.
    from_table = table_speedup(*table, s);
    options.kernel_speedup = from_table->value;
    s = resolve_scenario(workload, options);
  }
  SweepRow row;
  row.result = estimate_chain(prefill_input(s), decode_input(s));
  row.tpot_after_ms = tpot_after_ms(s, row.result);
  row.prompt_tokens = s.prompt_tokens;
  row.response_tokens = s.response_tokens;
  row.ttft_ms = s.ttft_ms;
  row.tpot_ms = s.tpot_ms;
  row.ttft_from_workload = s.ttft_from_workload;
  row.tpot_from_workload = s.tpot_from_workload;
  if (!s.levers) {
    row.kernel_speedup = from_table ? *from_table : s.kernel_speedup;
  } else {
    row.compute_speedup = s.levers->compute_speedup;
    row.bytes_reduction = s.levers->bytes_reduction;
  }
  row.prefill_share = s.prefill_share;
  row.decode_share = s.decode_share;
  if (s.platform) {
    row.batch = s.platform->batch.value;
  }
  row.warnings = std::move(s.warnings);
  return row;
}

struct SweepContext {
  const Workload& workload;
  const SweepAxes& axes;
  const std::vector<Axis>& order;
  const std::optional<KernelSpeedupTable>& table;
};

void sweep_from(std::size_t depth, const SweepContext& context, EstimateOptions& options,
                std::vector<SweepRow>& rows) {
  if (depth == context.order.size()) {
    rows.push_back(row_of(context.workload, options, context.table));
    return;
  }
  for (std::size_t i = 0; i < context.order[depth].size; ++i) {
    context.order[depth].apply(options, context.axes, i);
    sweep_from(depth + 1, context, options, rows);
  }
}

}  // namespace

std::int64_t sweep_size(const SweepAxes& axes) {
  // Saturates instead of overflowing: seven axes of a million values each do not fit.
  constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max();
  std::int64_t size = 1;
  for (const Axis& axis : axes_in_order(axes)) {
    const auto n = static_cast<std::int64_t>(axis.size);
    size = size > kLargest / n ? kLargest : size * n;
  }
  return size;
}

Sweep run_sweep(const Workload& workload, const EstimateOptions& base, const SweepAxes& axes,
                const std::optional<KernelSpeedupTable>& speedup_table) {
  check_axes_fit(base, axes);
  check_table_fits(base, axes, speedup_table);
  const std::vector<Axis> order = axes_in_order(axes);
  Sweep sweep;
  sweep.workload = workload;
  sweep.phase = base.phase;
  sweep.platform = base.platform;
  if (base.step_model) {
    sweep.step_calibration = base.step_model->calibration;
    sweep.step_calibration_source = base.step_model->calibration_source;
  }
  for (const Axis& axis : order) {
    sweep.swept.emplace_back(axis.name);
  }
  sweep.rows.reserve(static_cast<std::size_t>(sweep_size(axes)));
  EstimateOptions options = base;
  sweep_from(0, SweepContext{workload, axes, order, speedup_table}, options, sweep.rows);
  return sweep;
}

}  // namespace kspeed::engine
