#include "kspeed/engine/verify/measured_analysis.hpp"

#include <algorithm>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// At most this many launch IDs are listed in an error message.
constexpr std::size_t kListedLaunches = 12;

// "7 (fmha_fwd_loop_kernel...), 8 (...)": the launches a user can choose from.
std::string launch_list(const std::vector<MeasuredKernel>& kernels, const std::vector<bool>& use) {
  std::string out;
  std::size_t listed = 0;
  std::size_t total = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (!use[i]) continue;
    ++total;
    if (listed == kListedLaunches) continue;
    const std::string name = kernels[i].name.substr(0, 60);
    out += (listed == 0 ? "" : ", ") + kernels[i].id + " (" + name + ")";
    ++listed;
  }
  if (total > listed)
    out += ", and " + count_mark(static_cast<long long>(total - listed)) + " more";
  return out;
}

// Without --launch, the selected launch that ran longest: the attention kernel a user profiled,
// not the small merge or reshape kernel that launched before it. Ties and launches without a
// duration: the first in the file.
std::optional<std::size_t> longest_launch(const MeasuredRooflineQuery& query,
                                          const std::vector<bool>& selected) {
  std::optional<std::size_t> out;
  for (std::size_t i = 0; i < query.kernels.size(); ++i) {
    if (!selected[i]) continue;
    const std::optional<double>& t = query.kernels[i].duration_s.value;
    if (!out || (t && t > query.kernels[*out].duration_s.value)) out = i;
  }
  return out;
}

std::size_t priced_launch(const MeasuredRooflineQuery& query, const std::vector<bool>& selected) {
  if (!query.launch) {
    if (const auto longest = longest_launch(query, selected)) return *longest;
  }
  for (std::size_t i = 0; i < query.kernels.size(); ++i) {
    if (selected[i] && query.launch && query.kernels[i].id == *query.launch) return i;
  }
  throw InputError(flag_mark("launch") + " " + query.launch.value_or("") +
                   ": no selected launch of " + query.file +
                   " has this ID; the selected ones are " + launch_list(query.kernels, selected));
}

// One row per lever given (or 2x compute and 2x fewer bytes, illustrative), then all together.
std::vector<MeasuredLeverRow> lever_rows(const MeasuredKernel& kernel, const Roof& roof,
                                         const MeasuredPosition& position,
                                         const MeasuredRooflineQuery& query, bool& illustrative) {
  MeasuredLevers given =
      with_measured_bandwidth(query.levers, query.bandwidth_efficiency_gain, position);
  illustrative = !query.levers_given;
  if (illustrative) {
    given.compute_speedup = 2;
    given.bytes_reduction = 2;
  }
  std::vector<std::pair<LeverKind, MeasuredLevers>> rows;
  if (given.compute_speedup != 1) {
    rows.push_back({LeverKind::compute, {given.compute_speedup, 1, {}}});
  }
  if (given.bytes_reduction != 1) {
    rows.push_back({LeverKind::bytes, {1, given.bytes_reduction, {}}});
  }
  if (given.bandwidth_efficiency_after) {
    rows.push_back({LeverKind::bandwidth, {1, 1, given.bandwidth_efficiency_after}});
  }
  if (rows.size() > 1) rows.emplace_back(LeverKind::combined, given);
  std::vector<MeasuredLeverRow> out;
  for (const auto& [kind, levers] : rows) {
    if (const auto outcome = price_levers(kernel, roof, levers)) {
      out.push_back({kind, levers, *outcome});
    }
  }
  return out;
}

void add_missing(std::vector<std::string>& out, const std::vector<std::string>& metrics) {
  for (const std::string& metric : metrics) {
    if (std::find(out.begin(), out.end(), metric) == out.end()) out.push_back(metric);
  }
}

std::vector<Warning> launch_warnings(const MeasuredKernel& kernel, const MeasuredPosition& position,
                                     const std::string& gpu) {
  std::vector<Warning> out;
  if (kernel.flops_miss_tensor_work) {
    Warning w;
    w.code = WarningCode::tensor_work_uncounted;
    w.input = "flops";
    w.numbers = {{"tensor_warp_instructions", kernel.tensor.warp_instructions.value_or(0)}};
    w.names = {{"launch", kernel.id}, {"metric", kernel.tensor.metric}};
    out.push_back(w);
  }
  if (position.above_roof) {
    Warning w;
    w.code = WarningCode::measured_above_roof;
    w.input = "gpu";
    w.numbers = {{"compute_fraction", position.compute_fraction.value_or(0)},
                 {"bandwidth_fraction", position.bandwidth_fraction.value_or(0)}};
    w.names = {{"launch", kernel.id}, {"gpu", gpu}};
    out.push_back(w);
  }
  return out;
}

// The export names its GPU (a device name that is a preset, a compute capability) and the roof
// is another GPU's: every fraction and price would be against the wrong roof.
std::optional<Warning> gpu_mismatch(const MeasuredKernel& kernel,
                                    const MeasuredRooflineQuery& query) {
  const std::string cc = kernel.compute_capability.value_or("");
  const bool other_cc =
      !cc.empty() && !query.gpu_compute_capability.empty() && cc != query.gpu_compute_capability;
  const bool other_preset = !query.export_preset.empty() && query.export_preset != query.gpu_name;
  if (!other_cc && !other_preset) return std::nullopt;
  Warning w;
  w.code = WarningCode::ncu_gpu_mismatch;
  w.input = "gpu";
  w.names = {{"launch", kernel.id},   {"export_device", kernel.device.value_or("")},
             {"export_cc", cc},       {"export_preset", query.export_preset},
             {"gpu", query.gpu_name}, {"gpu_cc", query.gpu_compute_capability}};
  return w;
}

// "dram__bytes_read.sum, dram__bytes_write.sum and the SASS FLOP counters (sm__sass_...)".
std::string missing_summary(const std::vector<std::string>& metrics) {
  constexpr std::string_view kSass = "sm__sass_thread_inst_executed_op_";
  std::string out;
  bool sass = false;
  for (const std::string& metric : metrics) {
    if (metric.rfind(kSass, 0) == 0) {
      sass = true;
      continue;
    }
    out += (out.empty() ? "" : ", ") + metric;
  }
  if (sass)
    out += (out.empty() ? "" : " and ") + std::string("the SASS FLOP counters (") +
           std::string(kSass) + "*_pred_on.sum)";
  return out.empty() ? "the metrics it needs" : out;
}

// What a price needs and the launch lacks: its duration, DRAM bytes and FLOPs metrics.
std::vector<std::string> pricing_metrics_missing(const MeasuredKernel& kernel) {
  std::vector<std::string> out;
  add_missing(out, kernel.duration_s.missing);
  add_missing(out, kernel.dram_bytes.missing);
  add_missing(out, kernel.flops.missing);
  return out;
}

}  // namespace

std::vector<bool> select_launches(const MeasuredRooflineQuery& query, KernelSelection& selection) {
  const std::size_t n = query.kernels.size();
  if (!query.pattern_matches.empty()) {
    selection = KernelSelection::pattern;
    if (std::none_of(query.pattern_matches.begin(), query.pattern_matches.end(),
                     [](bool match) { return match; })) {
      throw InputError(flag_mark("kernel") + " '" + query.pattern + "' matches none of the " +
                       count_mark(static_cast<long long>(n)) + " launches in " + query.file +
                       ": they are " + launch_list(query.kernels, std::vector<bool>(n, true)));
    }
    return query.pattern_matches;
  }
  std::vector<bool> attention(n);
  for (std::size_t i = 0; i < n; ++i) {
    attention[i] = query.kernels[i].kernel_class == KernelClass::attention_core;
  }
  if (std::any_of(attention.begin(), attention.end(), [](bool a) { return a; })) {
    selection = KernelSelection::attention;
    return attention;
  }
  selection = KernelSelection::all;
  return std::vector<bool>(n, true);
}

MeasuredRooflineResult analyse_measured_roofline(const MeasuredRooflineQuery& query) {
  MeasuredRooflineResult out;
  out.query = query;
  out.roof = Roof{query.peak_tflops.value, query.bandwidth_tbs.value};
  if (query.kernels.empty()) {
    throw InputError(
        query.file +
        ": the export holds no kernel launch; profile again with ncu's kernel-name and "
        "launch-skip options selecting a launch that runs");
  }
  out.selected = select_launches(query, out.selection);
  for (const MeasuredKernel& kernel : query.kernels) {
    out.positions.push_back(place_on_roof(kernel, out.roof));
  }
  const std::size_t priced = priced_launch(query, out.selected);
  out.priced = priced;
  const MeasuredKernel& kernel = query.kernels[priced];
  const MeasuredPosition& position = out.positions[priced];
  out.warnings = launch_warnings(kernel, position, query.gpu_name);
  if (auto mismatch = gpu_mismatch(kernel, query))
    out.warnings.insert(out.warnings.begin(), *mismatch);
  add_missing(out.missing_metrics, kernel.duration_s.missing);
  add_missing(out.missing_metrics, kernel.dram_bytes.missing);
  add_missing(out.missing_metrics, kernel.flops.missing);
  add_missing(out.missing_metrics, kernel.speed_of_light.missing);
  if (!position.above_roof) {
    out.levers = lever_rows(kernel, out.roof, position, query, out.levers_illustrative);
  }
  if (query.modelled) {
    out.comparison = compare_with_model(
        kernel, *query.modelled, out.roof,
        with_measured_bandwidth(query.levers, query.bandwidth_efficiency_gain, position));
  }
  return out;
}

WithProvenance<double> measured_kernel_speedup(const MeasuredRooflineResult& result) {
  const MeasuredKernel& kernel = result.query.kernels[result.priced.value_or(0)];
  if (result.levers.empty() || result.levers_illustrative) {
    const bool above = result.positions[result.priced.value_or(0)].above_roof;
    std::string why = above ? "it measures above the roof of " + result.query.gpu_name +
                                  " (pass the profiled GPU with " + flag_mark("gpu") + ")"
                      : result.levers_illustrative
                          ? "no change was described (pass " + flag_mark("bytes-reduction") + ", " +
                                flag_mark("compute-speedup") + " or " +
                                flag_mark("bandwidth-efficiency") + ")"
                          : "the export lacks " + missing_summary(pricing_metrics_missing(kernel)) +
                                "; kspeed roofline " + flag_mark("ncu") + " " + result.query.file +
                                " lists what it lacks with the ncu options that collect it";
    throw InputError(result.query.file + ": launch " + kernel.id + " (" +
                     kernel.name.substr(0, 60) + ") cannot be priced: " + why);
  }
  // The last row is the combined one when more than one lever was given, else the only one.
  return {result.levers.back().outcome.speedup, result.levers.back().outcome.provenance};
}

}  // namespace kspeed::engine
