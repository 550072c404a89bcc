#include "profile_rows.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "kspeed/report/human.hpp"

namespace kspeed::report::profile_rows {

namespace {

using profile::FileResult;
using profile::PhaseResult;

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

// Kernel times span nanoseconds to seconds: "400 ns", "30.0 µs", then human_ms ("10.9 ms").
std::string ns_as_ms(std::int64_t ns) {
  if (ns < 1000) return std::to_string(ns) + " ns";
  if (ns < 1000000) {
    const double us = static_cast<double>(ns) / 1e3;
    if (us >= 100) return fmt::format("{:.0f} µs", us);
    return us >= 10 ? fmt::format("{:.1f} µs", us) : fmt::format("{:.2f} µs", us);
  }
  return human_ms(static_cast<double>(ns) / 1e6);
}

std::vector<std::string> phase_row(const PhaseResult& phase, bool whole_trace) {
  const profile::Shares shares = phase.times.share_times.shares();
  return {phase_label(phase, whole_trace),
          whole_trace || phase.steps == 0 ? (phase.steps == 0 ? "-" : human_count(phase.steps))
                                          : human_count(phase.steps),
          whole_trace ? "" : tokens_cell(phase),
          human_percent(shares.core),
          human_percent(shares.core_kv),
          human_percent(shares.core_kv_rope),
          human_count(phase.times.kernel_count),
          ns_as_ms(phase.times.share_times.denominator_ns)};
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

}  // namespace

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
  if (file.info.rank) heading += " · rank " + std::to_string(*file.info.rank);
  return heading;
}

Table phase_table(const FileResult& file, profile::Denominator denominator) {
  const std::string denominator_header =
      "of " + std::string(to_string(denominator)).substr(0, to_string(denominator).find('-')) +
      " time";
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

std::string provenance_line(const FileResult& file, profile::Denominator denominator) {
  return fmt::format(
      "measured from {}; share = attention kernel time / {} ({}), {}", file.source,
      std::string(to_string(denominator)), denominator_words(denominator),
      file.steps.empty() ? "over the whole capture" : "time-weighted over each phase's steps");
}

Table kernel_table(const std::vector<profile::KernelTotal>& kernels, bool attention) {
  Table table;
  table.header = {attention ? "attention kernel" : "unclassified kernel", "class", "time", "share",
                  "count"};
  if (!attention) table.header[1] = "";
  table.align = {Align::left, Align::left, Align::right, Align::right, Align::right};
  for (const profile::KernelTotal& kernel : kernels) {
    table.rows.push_back({short_name(kernel.name),
                          attention ? std::string(to_string(kernel.kernel_class)) : std::string(),
                          ns_as_ms(kernel.total_ns), human_percent(kernel.share_of_kernel_time),
                          human_count(kernel.count)});
  }
  if (!attention) {
    for (auto& row : table.rows) row.erase(row.begin() + 1);
    table.header.erase(table.header.begin() + 1);
    table.align.erase(table.align.begin() + 1);
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

}  // namespace kspeed::report::profile_rows
