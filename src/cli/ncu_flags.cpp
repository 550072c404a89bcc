#include "ncu_flags.hpp"

#include <stdexcept>

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
                  "With --ncu: the launch ID to price (ncu's \"ID\" column). Default: the first "
                  "selected")
      ->type_name("ID");
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

engine::MeasuredLevers measured_levers(const LeverFlags& flags, bool& given) {
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
    out.bandwidth_efficiency_after = levers->bandwidth_efficiency_after;
  }
  given = out.compute_speedup != 1 || out.bytes_reduction != 1 ||
          out.bandwidth_efficiency_after.has_value();
  return out;
}

}  // namespace

engine::MeasuredRooflineQuery ncu_query(const NcuFlags& flags, const LeverFlags& levers) {
  const io::NcuReport report = io::load_ncu_csv(flags.file);
  static const profile::KernelClassifier classifier(profile::builtin_patterns());
  engine::MeasuredRooflineQuery query;
  query.file = flags.file;
  query.page = std::string(io::to_string(report.page));
  for (const engine::ProfiledKernel& kernel : report.kernels) {
    query.kernels.push_back(engine::measure_kernel(kernel, classifier));
  }
  query.pattern = flags.kernel;
  query.pattern_matches = pattern_matches(flags.kernel, query.kernels);
  if (!flags.launch.empty()) query.launch = flags.launch;
  query.levers = measured_levers(levers, query.levers_given);
  return query;
}

}  // namespace kspeed::cli
