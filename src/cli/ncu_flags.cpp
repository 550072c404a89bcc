#include "ncu_flags.hpp"

#include <stdexcept>
#include <utility>

#include "kspeed/error.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/profile/classify.hpp"
#include "kspeed/profile/regex.hpp"

namespace kspeed::cli {

void add_ncu_flags(CLI::App& command, NcuFlags& flags) {
  command
      .add_option("--ncu", flags.file,
                  "An Nsight Compute CSV export (ncu --csv, details or raw page): place its "
                  "measured kernels on the roofline; see docs/profile.md")
      ->type_name("FILE");
  command
      .add_option("--kernel", flags.kernel,
                  "With --ncu: the launches whose kernel name matches this POSIX regex. Default: "
                  "the attention kernels, else all")
      ->type_name("REGEX");
  command
      .add_option("--launch", flags.launch,
                  "With --ncu: the launch ID to price (ncu's \"ID\" column). Default: the "
                  "selected launch that ran longest")
      ->type_name("ID");
  command
      .add_option("--mma-shape", flags.mma_shape,
                  "With --ncu: the kernel's tensor-core instruction shape MxNxK (Ampere and "
                  "Hopper HMMA.16816: 16x8x16), turning the tensor-pipe instruction count into "
                  "FLOPs (2·M·N·K each); without it the FLOPs miss the tensor-core work")
      ->type_name("MxNxK");
}

void check_ncu_flags_need_file(const NcuFlags& flags) {
  if (!flags.file.empty()) return;
  for (const auto& [text, flag] : {std::pair{flags.kernel, "--kernel"},
                                   {flags.launch, "--launch"},
                                   {flags.mma_shape, "--mma-shape"}}) {
    if (!text.empty()) {
      throw InputError(std::string(flag) +
                       " reads an Nsight Compute export's launches: it needs --ncu FILE");
    }
  }
}

namespace {

std::vector<bool> pattern_matches(const std::string& pattern,
                                  const std::vector<engine::MeasuredKernel>& kernels) {
  if (pattern.empty()) return {};
  std::optional<profile::Regex> regex;
  try {
    regex.emplace(pattern);
  } catch (const std::invalid_argument& error) {
    throw InputError("--kernel '" + pattern + "': " + error.what() +
                     ": use POSIX extended syntax, e.g. \"flash_fwd|fmha\"");
  }
  std::vector<bool> out;
  out.reserve(kernels.size());
  for (const engine::MeasuredKernel& kernel : kernels) out.push_back(regex->search(kernel.name));
  return out;
}

// "16x8x16": three positive whole numbers, the MMA instruction's m, n and k.
std::optional<engine::MmaShape> parse_mma_shape(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto fail = [&text]() -> InputError {
    return InputError("--mma-shape '" + text +
                      "': expected MxNxK, three positive whole numbers (16x8x16 for HMMA.16816 "
                      "on Ampere and Hopper)");
  };
  int values[3] = {0, 0, 0};
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t end = i < 2 ? text.find('x', at) : text.size();
    if (end == std::string::npos || end == at || end - at > 4) throw fail();
    for (std::size_t j = at; j < end; ++j) {
      if (text[j] < '0' || text[j] > '9') throw fail();
      values[i] = values[i] * 10 + (text[j] - '0');
    }
    if (values[i] <= 0) throw fail();
    at = end + 1;
  }
  return engine::MmaShape{values[0], values[1], values[2]};
}

engine::MeasuredLevers measured_levers(const LeverFlags& flags, std::optional<double>& gain,
                                       bool& given) {
  engine::MeasuredLevers out;
  given = false;
  if (!flags.compute_efficiency.empty()) {
    throw InputError(
        "--compute-efficiency: with --ncu the kernel's efficiency is measured; describe the "
        "change with --compute-speedup, --bytes-reduction or --bandwidth-efficiency");
  }
  const std::optional<engine::Levers> levers = parse_levers(flags);
  if (!levers) return out;
  out.compute_speedup = levers->compute_speedup;
  out.bytes_reduction = levers->bytes_reduction;
  if (!flags.bandwidth_efficiency.empty()) {
    // The export measures η_bandwidth: BEFORE:AFTER is the relative change AFTER / BEFORE
    gain = levers->bandwidth_efficiency_after / levers->bandwidth_efficiency_before;
  }
  given = out.compute_speedup != 1 || out.bytes_reduction != 1 || gain.has_value();
  return out;
}

}  // namespace

engine::MeasuredRooflineQuery ncu_query(const NcuFlags& flags, const LeverFlags& levers) {
  const io::NcuReport report = io::load_ncu_csv(flags.file);
  static const profile::KernelClassifier classifier(profile::builtin_patterns());
  engine::MeasuredRooflineQuery query;
  query.file = flags.file;
  query.page = std::string(io::to_string(report.page));
  engine::MeasureOptions measure;
  measure.mma_shape = parse_mma_shape(flags.mma_shape);
  for (const engine::ProfiledKernel& kernel : report.kernels) {
    query.kernels.push_back(
        engine::measure_kernel(kernel, classifier.classify(kernel.name), measure));
  }
  query.pattern = flags.kernel;
  query.pattern_matches = pattern_matches(flags.kernel, query.kernels);
  if (!flags.launch.empty()) query.launch = flags.launch;
  query.levers = measured_levers(levers, query.bandwidth_efficiency_gain, query.levers_given);
  return query;
}

std::string export_gpu_preset(engine::MeasuredRooflineQuery& query) {
  for (const engine::MeasuredKernel& kernel : query.kernels) {
    if (!kernel.device) continue;
    if (auto preset = io::gpu_preset_for_device(*kernel.device)) {
      query.export_preset = *preset;
      return *preset;
    }
  }
  return {};
}

std::string profiled_gpu(const std::string& gpu, engine::MeasuredRooflineQuery& query,
                         const std::string& alternatives) {
  const std::string preset = export_gpu_preset(query);
  if (!gpu.empty()) return gpu;
  if (!preset.empty()) {
    query.gpu_from_export = true;
    return preset;
  }
  std::string named;
  for (const engine::MeasuredKernel& kernel : query.kernels) {
    if (kernel.device && !kernel.device->empty() &&
        kernel.device->find_first_not_of("0123456789") != std::string::npos) {
      named = *kernel.device;
      break;
    }
  }
  const std::string what = named.empty()
                               ? "the export does not say which GPU it profiled"
                               : "the export names " + named + ", which is no built-in GPU";
  throw InputError("--ncu " + query.file + ": " + what + ": pass --gpu NAME (kspeed gpus lists " +
                   "them)" + alternatives);
}

}  // namespace kspeed::cli
