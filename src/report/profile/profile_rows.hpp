#pragma once
// Rows and sentences shared by the text and Markdown profile reporters: one builder, two
// syntaxes.

#include <string>

#include "kspeed/profile/analysis.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::report::profile_rows {

/// "vllm-b200.trace.json.gz · kineto-json (gzip) · NVIDIA B200 (CUDA) · vLLM · rank 0".
std::string file_heading(const profile::FileResult& file);

/// Per phase, then the whole trace: steps, tokens, the three shares, the denominator's time.
Table phase_table(const profile::FileResult& file, profile::Denominator denominator);

/// Where the shares come from: measured, which file, which denominator.
std::string provenance_line(const profile::FileResult& file, profile::Denominator denominator);

/// The top attention (or unclassified) kernels of one phase; empty table when none.
Table kernel_table(const std::vector<profile::KernelTotal>& kernels, bool attention);

/// Across files: time-weighted shares and the per-file spread.
Table aggregate_table(const profile::ProfileResult& result);

/// "prefill" / "decode" / "mixed" / "unphased" / "whole trace" label for a phase result.
std::string phase_label(const profile::PhaseResult& phase, bool whole_trace);

/// A long kernel name cut to `width` displayed characters with "…".
std::string short_name(const std::string& name, std::size_t width = 72);

}  // namespace kspeed::report::profile_rows
