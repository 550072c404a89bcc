// Nsight Systems SQLite export (`nsys export --type sqlite`): kernels from
// CUPTI_ACTIVITY_KIND_KERNEL, launches from CUPTI_ACTIVITY_KIND_RUNTIME, step annotations from
// NVTX_EVENTS; names are ids into StringIds. Correlation ids repeat across processes, so every
// record carries its process (globalPid = globalTid & 0xFFFFFFFFFF000000).
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "reader_common.hpp"

namespace kspeed::io::trace {

namespace {

constexpr std::uint64_t kProcessMask = 0xFFFFFFFFFF000000ULL;
constexpr int kNvtxPushPop = 59;
constexpr int kNvtxStartEnd = 60;

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

class Database {
 public:
  // `path` is opened; `source` names it in errors (they differ for a copied pipe).
  Database(const std::string& path, std::string source) : path_(std::move(source)) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw InputError(path_ + ": cannot open as SQLite: " + reason);
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  std::set<std::string> tables() {
    std::set<std::string> names;
    each("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')",
         [&](sqlite3_stmt* row) { names.insert(text(row, 0)); });
    return names;
  }

  std::set<std::string> columns(const std::string& table) {
    std::set<std::string> names;
    each("PRAGMA table_info(" + table + ")",
         [&](sqlite3_stmt* row) { names.insert(text(row, 1)); });
    return names;
  }

  template <class RowFn>
  void each(const std::string& sql, RowFn on_row) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      const std::string reason = sqlite3_errmsg(db_);
      sqlite3_finalize(statement);
      throw InputError(path_ + ": not a readable Nsight Systems export: " + reason +
                       " (query: " + sql + ")");
    }
    int status = 0;
    try {
      while ((status = sqlite3_step(statement)) == SQLITE_ROW) on_row(statement);
    } catch (...) {
      // A row check threw: an unfinalized statement would keep sqlite3_close from freeing the
      // connection (LeakSanitizer found it).
      sqlite3_finalize(statement);
      throw;
    }
    sqlite3_finalize(statement);
    if (status != SQLITE_DONE) {
      throw InputError(path_ + ": reading the SQLite file failed: " + sqlite3_errmsg(db_) +
                       " (is it a complete `nsys export --type sqlite` file?)");
    }
  }

  static std::string text(sqlite3_stmt* row, int column) {
    const unsigned char* value = sqlite3_column_text(row, column);
    return value == nullptr ? std::string() : reinterpret_cast<const char*>(value);
  }

  const std::string& source() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// Times come from the file as 64-bit integers: anything past +-1e18 ns is corrupt, and a range
// must not end before it starts. Checked here so that every later sum and difference fits.
class RangeCheck {
 public:
  RangeCheck(const Database& db, std::string table) : db_(db), table_(std::move(table)) {}

  void next_row() { ++row_; }

  void timestamp(std::int64_t ns, const char* column) const {
    if (ns < -kMaxTimestampNs || ns > kMaxTimestampNs) {
      fail(std::string(column) + " = " + std::to_string(ns) +
           " ns is beyond +-1e18 ns (31 years) from the capture's start");
    }
  }

  // The duration end - start, after both passed timestamp().
  std::int64_t duration(std::int64_t start, std::int64_t end) const {
    timestamp(start, "start");
    timestamp(end, "end");
    if (end < start) {
      fail("end " + std::to_string(end) + " ns is before start " + std::to_string(start) +
           " ns (a duration of " + std::to_string(end - start) + " ns)");
    }
    return end - start;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(db_.source() + ": " + table_ + " row " + std::to_string(row_) + ": " + what +
                     ": the export is corrupt; re-export it with `nsys export --type sqlite`");
  }

 private:
  const Database& db_;
  std::string table_;
  std::uint64_t row_ = 0;
};

std::string join(const std::set<std::string>& names) {
  std::string out;
  std::size_t shown = 0;
  for (const std::string& name : names) {
    if (shown++ == 8) return out + ", ...";
    out += (out.empty() ? "" : ", ") + excerpt(name);
  }
  return out.empty() ? "none" : out;
}

void read_kernels(Database& db, profile::Trace& trace) {
  const std::set<std::string> columns = db.columns("CUPTI_ACTIVITY_KIND_KERNEL");
  const std::string name_column = columns.contains("demangledName") ? "demangledName" : "shortName";
  const std::string process = columns.contains("globalPid") ? "k.globalPid" : "0";
  profile::KernelNameTable names(trace.kernel_names);
  RangeCheck check(db, "CUPTI_ACTIVITY_KIND_KERNEL");
  CheckedTotal kernel_time;
  db.each("SELECT k.start, k.end, k.deviceId, k.correlationId, " + process +
              ", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k." +
              name_column,
          [&](sqlite3_stmt* row) {
            check.next_row();
            profile::KernelEvent kernel;
            kernel.start_ns = sqlite3_column_int64(row, 0);
            kernel.duration_ns = check.duration(kernel.start_ns, sqlite3_column_int64(row, 1));
            if (kernel.duration_ns > kMaxKernelNs) {
              check.fail("a kernel of " + std::to_string(kernel.duration_ns) +
                         " ns is not a plausible kernel time (expected at most 11.6 days)");
            }
            if (!kernel_time.add(kernel.duration_ns)) {
              check.fail("the kernel times add up to more than 2^63 ns (292 years)");
            }
            kernel.device = sqlite3_column_int(row, 2);
            kernel.correlation = static_cast<std::uint64_t>(sqlite3_column_int64(row, 3));
            kernel.process =
                static_cast<std::uint64_t>(sqlite3_column_int64(row, 4)) & kProcessMask;
            kernel.name_id = names.intern(Database::text(row, 5));
            trace.kernels.push_back(kernel);
            ++trace.events_read;
          });
}

void read_launches(Database& db, profile::Trace& trace) {
  RangeCheck check(db, "CUPTI_ACTIVITY_KIND_RUNTIME");
  db.each("SELECT start, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME",
          [&](sqlite3_stmt* row) {
            check.next_row();
            check.timestamp(sqlite3_column_int64(row, 0), "start");
            const auto thread = static_cast<std::uint64_t>(sqlite3_column_int64(row, 1));
            trace.launches.push_back({thread & kProcessMask,
                                      static_cast<std::uint64_t>(sqlite3_column_int64(row, 2)),
                                      thread & kProcessMask, thread, sqlite3_column_int64(row, 0)});
            ++trace.events_read;
          });
}

void read_annotations(Database& db, profile::Trace& trace) {
  const std::set<std::string> columns = db.columns("NVTX_EVENTS");
  const std::string text = columns.contains("textId")
                               ? "COALESCE(n.text, s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds "
                                 "s ON s.id = n.textId"
                               : "n.text FROM NVTX_EVENTS n";
  RangeCheck check(db, "NVTX_EVENTS");
  db.each("SELECT n.start, n.end, n.globalTid, " + text + " WHERE n.eventType IN (" +
              std::to_string(kNvtxPushPop) + ", " + std::to_string(kNvtxStartEnd) +
              ") AND n.end IS NOT NULL",
          [&](sqlite3_stmt* row) {
            ++trace.events_read;
            check.next_row();
            std::string name = Database::text(row, 3);
            if (!profile::looks_like_step_annotation(name)) return;
            profile::AnnotationEvent annotation;
            annotation.name = std::move(name);
            annotation.start_ns = sqlite3_column_int64(row, 0);
            annotation.end_ns = sqlite3_column_int64(row, 1);
            check.duration(annotation.start_ns, annotation.end_ns);
            annotation.thread = static_cast<std::uint64_t>(sqlite3_column_int64(row, 2));
            annotation.process = annotation.thread & kProcessMask;
            trace.annotations.push_back(std::move(annotation));
          });
}

void read_gpu_name(Database& db, profile::Trace& trace) {
  if (!db.columns("TARGET_INFO_GPU").contains("name")) return;
  db.each("SELECT name FROM TARGET_INFO_GPU LIMIT 1",
          [&](sqlite3_stmt* row) { trace.info.gpu = Database::text(row, 0); });
}

// SQLite opens files by name, and a pipe (`<(cat x.sqlite)`) cannot be opened twice: its bytes
// are copied once to a temporary file, removed when this goes out of scope. The copy stops at
// 64 times the input limit (16 GiB by default), larger than any export, so an endless stream
// cannot fill the disk.
class TemporaryCopy {
 public:
  explicit TemporaryCopy(TraceInput& input) {
    const char* folder = std::getenv("TMPDIR");
    path_ =
        std::string(folder != nullptr && *folder != '\0' ? folder : "/tmp") + "/kspeed-nsys-XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) {
      throw InputError(input.source +
                       ": an SQLite export from a pipe must be copied to a file "
                       "first, and creating one in '" +
                       path_ + "' failed: " + std::strerror(errno) + "; pass the file itself");
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    try {
      write_all(fd, input.head, input.source);
      const std::uint64_t limit = 64 * value_limit(input.options);
      std::uint64_t copied = input.head.size();
      std::vector<char> chunk(std::size_t{1} << 20);
      while (const std::size_t n = input.rest->read(chunk.data(), chunk.size())) {
        copied += n;
        if (copied > limit) {
          throw InputError(input.source + ": an SQLite export from a pipe longer than " +
                           std::to_string(limit) + " bytes: pass the file itself");
        }
        write_all(fd, std::string_view(chunk.data(), n), input.source);
      }
    } catch (...) {
      ::unlink(path_.c_str());
      throw;
    }
  }
  ~TemporaryCopy() { ::unlink(path_.c_str()); }
  TemporaryCopy(const TemporaryCopy&) = delete;
  TemporaryCopy& operator=(const TemporaryCopy&) = delete;

  const std::string& path() const { return path_; }

 private:
  void write_all(int fd, std::string_view bytes, const std::string& source) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw InputError(source + ": copying the SQLite export from a pipe to '" + path_ +
                         "' failed: " + std::strerror(errno) + "; pass the file itself");
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  std::string path_;
};

profile::Trace read_database(const std::string& path, const TraceInput& input) {
  profile::Trace trace = new_trace(input, profile::TraceFormat::nsys_sqlite);
  trace.info.platform = "CUDA";
  Database db(path, input.source);
  const std::set<std::string> tables = db.tables();
  if (!tables.contains("CUPTI_ACTIVITY_KIND_KERNEL") || !tables.contains("StringIds")) {
    throw InputError(input.source +
                     ": an SQLite file without the tables CUPTI_ACTIVITY_KIND_KERNEL and "
                     "StringIds (its tables: " +
                     join(tables) +
                     "): not an Nsight Systems export with CUDA kernels; capture with `nsys "
                     "profile -t cuda,nvtx` and export with `nsys export --type sqlite`");
  }
  read_kernels(db, trace);
  if (tables.contains("CUPTI_ACTIVITY_KIND_RUNTIME")) read_launches(db, trace);
  if (tables.contains("NVTX_EVENTS")) read_annotations(db, trace);
  if (tables.contains("TARGET_INFO_GPU")) read_gpu_name(db, trace);
  return trace;
}

}  // namespace

std::optional<profile::Trace> try_read_nsys_sqlite(TraceInput& input) {
  if (!input.head.starts_with(kSqliteMagic)) return std::nullopt;
  if (input.compressed) {
    throw InputError(input.source +
                     ": a compressed SQLite file: decompress it first (gunzip), "
                     "SQLite reads only plain files");
  }
  if (!input.path.empty()) {
    input.rest.reset();  // one open file at a time
    return read_database(input.path, input);
  }
  const TemporaryCopy copy(input);
  return read_database(copy.path(), input);
}

}  // namespace kspeed::io::trace
