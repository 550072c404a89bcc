#pragma once
// Reading Nsight Compute CSV exports (`ncu --csv`, or `ncu --import report.ncu-rep --csv`), both
// pages and old and new versions:
//
//   details (the default `--page details`): one row per metric,
//     "ID",...,"Kernel Name",...,"Section Name","Metric Name","Metric Unit","Metric Value",...
//   raw (`--page raw`): one column per metric, a second row of units, then one row per launch.
//
// Tolerated, because real exports have them: `==PROF==` lines and the program's own output before
// the `"ID"` header (ncu prints the table after the run), a UTF-8 BOM, CRLF line ends, rows
// shorter than the header (trailing empty fields omitted), thousands separators ("61,824"),
// `n/a`, scaled units ("nsecond", "usecond", "Kbyte", "Mbyte", "cycle/nsecond", ...; decimal
// prefixes as ncu prints them), `;`-separated arrays in legacy raw exports, rule rows (no metric
// name), text values ("cudaFuncCachePreferNone", "(384, 1, 1)").
//
// Decided: the rows of one launch must be contiguous, as ncu writes them. A row of a launch ID
// whose rows ended earlier (a concatenated or re-sorted file) is an error naming both lines, not a
// silent merge: two exports concatenated reuse IDs for different launches.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/roofline/measured_roofline.hpp"

namespace kspeed::io {

enum class NcuPage { details, raw };

constexpr std::string_view to_string(NcuPage page) {
  return page == NcuPage::details ? "details" : "raw";
}

/// One export: its launches in file order.
struct NcuReport {
  std::string source;  ///< file name, for messages
  NcuPage page = NcuPage::details;
  std::vector<engine::ProfiledKernel> kernels;
};

/// Reads `text` as an ncu CSV export, or returns nullopt when it is not one (no `"ID"` header
/// with a "Kernel Name" column), so a caller can try another reader. Throws InputError, naming
/// `source` and the line, for an ncu run that failed (only `==PROF==`/`==ERROR==` lines), an
/// ncu table that is broken (interleaved launch IDs, a value that is not a number where the unit
/// says it is a quantity, a raw page without its units row).
std::optional<NcuReport> try_parse_ncu_csv(std::string_view text, const std::string& source);

/// As try_parse_ncu_csv, but a file that is not an ncu export is an InputError saying what was
/// expected.
NcuReport parse_ncu_csv(std::string_view text, const std::string& source);

/// True when `head` (a file's first bytes) is an Nsight Compute export or run log: a `==PROF==`
/// line, or an "ID" header line with a "Kernel Name" column. For `kspeed profile` to point at
/// `kspeed roofline --ncu` instead of failing as an unknown trace.
bool looks_like_ncu_export(std::string_view head);

/// Reads the file at `path` (InputError for a missing or unreadable file).
NcuReport load_ncu_csv(const std::string& path);

/// The scale from `unit` (as ncu writes it) to SI base units: "nsecond" 1e-9, "Kbyte" 1e3,
/// "KiB" 1024, "cycle/usecond" 1e6, "Ghz" 1e9; 1 for a unit without a scale ("%", "byte",
/// "register/thread", "").
double ncu_unit_scale(std::string_view unit);

/// A built-in GPU named by an export's device: the preset (`kspeed gpus`) whose exact part the
/// display name states ("NVIDIA B200" b200, "NVIDIA H100 80GB HBM3" h100-sxm), or nullopt (a
/// PCIe or NVL part, a 40 GB A100, a device index, a GPU kspeed has no preset for).
std::optional<std::string> gpu_preset_for_device(std::string_view display_name);

/// The compute capability ("9.0") of a built-in NVIDIA GPU, or nullopt (AMD, a user's file).
std::optional<std::string> compute_capability_of_preset(std::string_view preset);

}  // namespace kspeed::io
