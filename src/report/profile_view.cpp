// `kspeed profile` for people: per trace file, the shares per phase and where they come from, the
// kernels behind them and the largest kernels kspeed did not classify; then, with several files,
// the time-weighted shares across them.
#include <fmt/format.h>

#include <filesystem>

#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using profile::FileResult;
using profile::PhaseResult;

constexpr std::size_t kKernelNameWidth = 72;

// A long kernel name cut to `width` displayed characters with "…".
std::string short_name(const std::string& name, std::size_t width) {
  if (display_width(name) <= width) return name;
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < name.size() && shown < width - 1; ++i) {
    out += name[i];
    if ((static_cast<unsigned char>(name[i]) & 0xC0) != 0x80) ++shown;
  }
  // Drop a partial UTF-8 sequence at the cut.
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80) != 0) out.pop_back();
  return out + "…";
}

std::string phase_label(const PhaseResult& phase, bool whole_trace) {
  return whole_trace ? "whole trace" : std::string(to_string(phase.phase));
}

std::string tokens_cell(const PhaseResult& phase) {
  std::string out;
  if (phase.context_tokens && *phase.context_tokens > 0) {
    out = human_count(*phase.context_tokens) + " prompt";
  }
  if (phase.generation_tokens && *phase.generation_tokens > 0) {
    out += (out.empty() ? "" : " + ") + human_count(*phase.generation_tokens) + " generated";
  }
  return out.empty() ? "-" : out;
}

std::vector<std::string> phase_row(const PhaseResult& phase, bool whole_trace) {
  const profile::Shares shares = phase.times.share_times.shares();
  return {phase_label(phase, whole_trace),       phase.steps == 0 ? "-" : human_count(phase.steps),
          whole_trace ? "" : tokens_cell(phase), human_percent(shares.core),
          human_percent(shares.core_kv),         human_percent(shares.core_kv_rope),
          human_count(phase.times.kernel_count), human_ns(phase.times.share_times.denominator_ns)};
}

std::string denominator_words(profile::Denominator denominator) {
  switch (denominator) {
    case profile::Denominator::kernel_time:
      return "the sum of kernel durations";
    case profile::Denominator::busy_time:
      return "the union of kernel intervals per GPU";
    case profile::Denominator::wall_time:
      return "each step's first kernel start to last kernel end";
  }
  return "";
}

// "vllm-b200.trace.json.gz · kineto-json (gzip) · NVIDIA B200 (CUDA) · vLLM · rank 0"
std::string file_heading(const FileResult& file) {
  std::string heading = std::filesystem::path(file.source).filename().string() + " · " +
                        std::string(to_string(file.format)) + (file.compressed ? " (gzip)" : "");
  if (!file.info.gpu.empty()) {
    heading +=
        " · " + file.info.gpu + (file.info.platform.empty() ? "" : " (" + file.info.platform + ")");
  } else if (!file.info.platform.empty()) {
    heading += " · " + file.info.platform;
  }
  if (!file.engine.empty()) heading += " · " + file.engine;
  if (file.info.rank) heading += " · rank " + human_count(*file.info.rank);
  return heading;
}

Table phase_table(const FileResult& file, profile::Denominator denominator) {
  const std::string_view name = to_string(denominator);
  const std::string denominator_header =
      "of " + std::string(name.substr(0, name.find('-'))) + " time";
  Table table;
  table.header = {"phase",     "steps", "tokens",  "core",
                  "+KV write", "+RoPE", "kernels", denominator_header};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right, Align::right};
  for (const PhaseResult& phase : file.phases) table.rows.push_back(phase_row(phase, false));
  // The whole-trace row adds information only when it differs from the single phase row.
  std::int64_t in_phases = 0;
  for (const PhaseResult& phase : file.phases) in_phases += phase.times.kernel_count;
  if (file.phases.size() != 1 || in_phases != file.whole_trace.times.kernel_count) {
    table.rows.push_back(phase_row(file.whole_trace, true));
  }
  return table;
}

// Where the shares come from: measured, which file, which denominator.
std::string provenance_line(const FileResult& file, profile::Denominator denominator) {
  return fmt::format(
      "measured from {}; share = attention kernel time / {} ({}), {}", file.source,
      std::string(to_string(denominator)), denominator_words(denominator),
      file.steps.empty() ? "over the whole capture" : "time-weighted over each phase's steps");
}

Table kernel_table(const std::vector<profile::KernelTotal>& kernels, bool attention) {
  Table table;
  table.header = {attention ? "attention kernel" : "unclassified kernel", "time", "share", "count"};
  table.align = {Align::left, Align::right, Align::right, Align::right};
  if (attention) {
    table.header.insert(table.header.begin() + 1, "class");
    table.align = {Align::left, Align::left, Align::right, Align::right, Align::right};
  }
  for (const profile::KernelTotal& kernel : kernels) {
    std::vector<std::string> row = {
        short_name(kernel.name, kKernelNameWidth), human_ns(kernel.total_ns),
        human_percent(kernel.share_of_kernel_time), human_count(kernel.count)};
    if (attention) row.insert(row.begin() + 1, std::string(to_string(kernel.kernel_class)));
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table aggregate_table(const profile::ProfileResult& result) {
  Table table;
  table.header = {"phase", "files", "steps", "core", "+KV write", "+RoPE", "core min–max"};
  table.align = {Align::left,  Align::right, Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  for (const profile::PhaseSpread& spread : result.aggregate) {
    const profile::Shares shares = spread.share_times.shares();
    table.rows.push_back({std::string(to_string(spread.phase)), human_count(spread.files),
                          human_count(spread.steps), human_percent(shares.core),
                          human_percent(shares.core_kv), human_percent(shares.core_kv_rope),
                          human_percent(spread.min.core) + "–" + human_percent(spread.max.core)});
  }
  return table;
}

void add_file(View& view, const FileResult& file, const profile::ProfileResult& result) {
  const std::string heading = file_heading(file);
  view.title("kspeed profile · " + heading, "kspeed profile: " + heading);
  view.table(phase_table(file, result.options.denominator));
  const std::string provenance = provenance_line(file, result.options.denominator);
  view.caption(provenance + "\nkernel classes: " + result.patterns_source + " patterns",
               provenance + "; kernel classes: " + result.patterns_source + " patterns.");
  for (const PhaseResult& phase : file.phases) {
    const std::string label = phase_label(phase, false);
    if (!phase.top_attention.empty()) {
      view.subheading(label + ": attention kernels");
      view.table(kernel_table(phase.top_attention, true));
    }
    if (!phase.top_unclassified.empty()) {
      view.subheading(label + ": largest unclassified kernels (check none is attention)",
                      label + ": largest unclassified kernels");
      view.table(kernel_table(phase.top_unclassified, false));
    }
  }
  for (const engine::Warning& note : file.notes) view.note(warning_sentence(note));
  view.section_break();
}

}  // namespace

View profile_view(const profile::ProfileResult& result) {
  View view;
  for (const FileResult& file : result.files) add_file(view, file, result);
  if (!result.aggregate.empty()) {
    const std::size_t files = result.files.size();
    view.title(fmt::format("all {} files (ranks): time-weighted", files),
               fmt::format("All {} files (ranks), time-weighted", files));
    view.table(aggregate_table(result));
  }
  return view;
}

}  // namespace kspeed::report
