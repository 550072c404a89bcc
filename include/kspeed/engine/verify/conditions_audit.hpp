#pragma once
// The ten conditions of MODEL.md section 6 (docs/audit.md words them, with sources) checked
// across benchmark results: which each states, which it omits, and for several results which
// stated conditions differ. Two results are comparable only when no condition that both state
// differs; conditions one of them omits cannot be checked and are listed as such. Pure.

#include <cstddef>
#include <string>
#include <vector>

namespace kspeed::engine {

enum class ConditionStatus {
  stated,   ///< the file states it
  partial,  ///< the file states part of it (e.g. token totals but no cached input)
  omitted,  ///< the file does not say
};
/// "stated", "partial", "omitted".
std::string_view to_string(ConditionStatus status);

/// One condition as one file states it.
struct ConditionEntry {
  std::string key;  ///< from kConditionKeys (workload.hpp)
  ConditionStatus status = ConditionStatus::omitted;
  std::string value;  ///< what the file says, for people; empty when omitted
  /// What two files must agree on (the value, normalised: a per-request mean instead of a total
  /// that grows with the number of requests); empty when omitted.
  std::string compared;
  std::string missing;  ///< what a partial condition lacks, for people
};

/// One benchmark result's conditions, all ten in checklist order.
struct FileConditions {
  std::string source;  ///< file name (with ":line" for one run of a multi-run file)
  std::string format;  ///< "vllm-bench-json", "aiperf-json", ...
  std::vector<ConditionEntry> conditions;
};

/// One condition across the files.
struct ConditionComparison {
  std::string key;
  bool differs = false;     ///< two files state different values
  std::size_t omitted = 0;  ///< how many files omit it
};

struct Audit {
  /// The files, in the order given; empty for a summary (AuditTally::summary), whose files were
  /// reported as they came.
  std::vector<FileConditions> files;
  std::size_t file_count = 0;                    ///< how many files were compared
  std::vector<ConditionComparison> comparisons;  ///< one per condition; empty for one file
  bool comparable = true;              ///< no stated condition differs (meaningful for 2+ files)
  std::vector<std::string> differing;  ///< keys that differ, in checklist order
  std::vector<std::string> unchecked;  ///< keys some file omits, in checklist order
};

/// An entry with no value: the file does not state the condition.
ConditionEntry omitted_condition(std::string key);

/// Compares the files' conditions (each must hold the ten keys in checklist order).
Audit audit_conditions(std::vector<FileConditions> files);

/// audit_conditions one file at a time, keeping no file: what each condition's first stated
/// value is, whether another differs, how many files omit it. For 10^5 runs reported as they are
/// read (kspeed audit of an SGLang JSONL), whose conditions need not stay in memory.
class AuditTally {
 public:
  void add(const FileConditions& file);
  /// The comparison so far, with no files (Audit::files empty, file_count set).
  Audit summary() const;

 private:
  struct KeyTally {
    std::string key;
    bool stated_once = false;
    std::string first_compared;
    bool differs = false;
    std::size_t omitted = 0;
  };
  std::vector<KeyTally> keys_;
  std::size_t files_ = 0;
};

}  // namespace kspeed::engine
