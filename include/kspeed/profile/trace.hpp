#pragma once
// A profiler trace reduced to what the analysis needs: GPU kernel executions, the runtime calls
// that launched them, and the engines' step annotations. The readers in io/trace fill it from
// Kineto JSON, an Nsight Systems SQLite export or an `nsys stats` CSV; everything else in the
// file (CPU ops, Python frames, flows) is dropped while reading, so memory follows the number
// of kernels, not the size of the file.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kspeed/profile/chunked_vector.hpp"

namespace kspeed::profile {

enum class TraceFormat {
  kineto_json,     ///< PyTorch/Kineto Chrome-trace JSON, plain or gzip
  nsys_sqlite,     ///< `nsys export --type sqlite`
  nsys_stats_csv,  ///< `nsys stats --report cuda_gpu_kern_sum --format csv`
};

/// "kineto-json", "nsys-sqlite", "nsys-stats-csv".
std::string_view to_string(TraceFormat format);

/// One GPU kernel execution, or (in a summary without a timeline) one row of per-name totals.
/// 40 bytes: a dense trace holds a million of them (a summary's instance counts are kept apart,
/// in Trace::instances).
struct KernelEvent {
  std::uint32_t name_id = 0;      ///< index into Trace::kernel_names
  std::int32_t device = 0;        ///< GPU index
  std::uint64_t process = 0;      ///< process that launched it (0 when the format has one)
  std::uint64_t correlation = 0;  ///< runtime correlation id; 0: none recorded
  std::int64_t start_ns = 0;      ///< GPU start time, ns (0 in a summary)
  std::int64_t duration_ns = 0;   ///< GPU execution time, ns (the total, in a summary)
};

/// A CPU-side runtime or driver call that carries a correlation id (cudaLaunchKernel,
/// cudaGraphLaunch, hipModuleLaunchKernel, cuLaunchKernel, ...).
struct LaunchEvent {
  std::uint64_t process = 0;      ///< same key space as KernelEvent::process
  std::uint64_t correlation = 0;  ///< shared with the kernels it launched
  std::uint64_t cpu_process = 0;  ///< CPU process of the calling thread (Kineto pid)
  std::uint64_t thread = 0;       ///< CPU thread (Kineto tid, nsys globalTid)
  std::int64_t start_ns = 0;      ///< CPU time of the call, ns
};

/// A range whose name looks like an engine step annotation (the analysis parses the name).
struct AnnotationEvent {
  std::string name;                         ///< e.g. "step[DECODE bs=32]"
  std::uint64_t process = 0;                ///< CPU process (CPU side) or device (GPU side)
  std::uint64_t thread = 0;                 ///< CPU thread (CPU side) or stream (GPU side)
  std::int64_t start_ns = 0;                ///< range start, ns
  std::int64_t end_ns = 0;                  ///< range end, ns
  bool gpu_side = false;                    ///< a GPU projection (Kineto gpu_user_annotation)
  std::optional<std::int64_t> external_id;  ///< Kineto "External id": pairs CPU and GPU ranges
};

/// What the file says about the system it was captured on.
struct TraceInfo {
  std::string gpu;                ///< e.g. "NVIDIA B200"; empty when unstated
  std::string platform;           ///< "CUDA", "ROCm" or empty
  std::optional<int> rank;        ///< distributed rank, when stated
  std::optional<int> world_size;  ///< distributed world size, when stated
};

struct Trace {
  std::string source;  ///< the path as given (names the file in every output)
  TraceFormat format = TraceFormat::kineto_json;
  bool compressed = false;                ///< read through gzip
  bool has_timeline = true;               ///< false for summaries (no start times, no steps)
  std::vector<std::string> kernel_names;  ///< distinct kernel names, indexed by name_id
  ChunkedVector<KernelEvent> kernels;     ///< chunked: growing never copies (millions in a trace)
  /// Executions each kernel record stands for, by record (a summary's Instances column, 64-bit:
  /// a row may count more than 2^32); empty when every record is one execution (a timeline).
  std::vector<std::int64_t> instances;
  std::int64_t instances_of(std::size_t kernel) const {
    return instances.empty() ? 1 : instances[kernel];
  }
  ChunkedVector<LaunchEvent> launches;
  std::vector<AnnotationEvent> annotations;
  TraceInfo info;
  std::uint64_t bytes_read = 0;   ///< bytes of trace text parsed (after decompression)
  std::uint64_t events_read = 0;  ///< events (or rows) seen, kept or not
  /// The file's own clock at time 0 of every start_ns and end_ns above, ns: a reader subtracts
  /// it before anything narrows (a Kineto trace stamped in Unix-epoch us is at 1.8e18 ns).
  std::int64_t time_origin_ns = 0;
};

/// Interns kernel names while a reader fills a Trace, so each distinct name is stored once.
class KernelNameTable {
 public:
  explicit KernelNameTable(std::vector<std::string>& names) : names_(names) {}
  std::uint32_t intern(std::string_view name);

 private:
  // Looked up by string_view: finding a name already interned allocates nothing.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const noexcept {
      return std::hash<std::string_view>()(name);
    }
  };
  static constexpr std::size_t kRecentSets = 256;
  static constexpr std::size_t kRecentWays = 4;
  static constexpr std::uint32_t kNoName = UINT32_MAX;

  std::vector<std::string>& names_;
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> ids_;
  /// Recent names' ids, kRecentWays per cheap key of a few of their bytes (see intern()).
  std::vector<std::uint32_t> recent_ =
      std::vector<std::uint32_t>(kRecentSets * kRecentWays, kNoName);
};

/// True when `name` may be an engine step annotation worth keeping (a cheap prefix test; the
/// analysis does the real parse). Readers call it to drop every other annotation.
bool looks_like_step_annotation(std::string_view name);

}  // namespace kspeed::profile
