// Nsight Systems SQLite export (`nsys export --type sqlite`): kernels from
// CUPTI_ACTIVITY_KIND_KERNEL, launches from CUPTI_ACTIVITY_KIND_RUNTIME, step annotations from
// NVTX_EVENTS; names are ids into StringIds. Correlation ids repeat across processes, so every
// record carries its process (globalPid = globalTid & 0xFFFFFFFFFF000000).
#include <sqlite3.h>

#include <set>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

namespace kspeed::io::trace {

namespace {

constexpr std::uint64_t kProcessMask = 0xFFFFFFFFFF000000ULL;
constexpr int kNvtxPushPop = 59;
constexpr int kNvtxStartEnd = 60;

class Database {
 public:
  explicit Database(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw InputError(path + ": cannot open as SQLite: " + reason);
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
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) on_row(statement);
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

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

std::string join(const std::set<std::string>& names) {
  std::string out;
  std::size_t shown = 0;
  for (const std::string& name : names) {
    if (shown++ == 8) return out + ", ...";
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none" : out;
}

void read_kernels(Database& db, profile::Trace& trace) {
  const std::set<std::string> columns = db.columns("CUPTI_ACTIVITY_KIND_KERNEL");
  const std::string name_column = columns.contains("demangledName") ? "demangledName" : "shortName";
  const std::string process = columns.contains("globalPid") ? "k.globalPid" : "0";
  profile::KernelNameTable names(trace.kernel_names);
  db.each("SELECT k.start, k.end, k.deviceId, k.correlationId, " + process +
              ", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k." +
              name_column,
          [&](sqlite3_stmt* row) {
            profile::KernelEvent kernel;
            kernel.start_ns = sqlite3_column_int64(row, 0);
            kernel.duration_ns = sqlite3_column_int64(row, 1) - kernel.start_ns;
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
  db.each("SELECT start, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME",
          [&](sqlite3_stmt* row) {
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
  db.each("SELECT n.start, n.end, n.globalTid, " + text + " WHERE n.eventType IN (" +
              std::to_string(kNvtxPushPop) + ", " + std::to_string(kNvtxStartEnd) +
              ") AND n.end IS NOT NULL",
          [&](sqlite3_stmt* row) {
            ++trace.events_read;
            std::string name = Database::text(row, 3);
            if (!profile::looks_like_step_annotation(name)) return;
            profile::AnnotationEvent annotation;
            annotation.name = std::move(name);
            annotation.start_ns = sqlite3_column_int64(row, 0);
            annotation.end_ns = sqlite3_column_int64(row, 1);
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

}  // namespace

profile::Trace read_nsys_sqlite(const std::string& path) {
  profile::Trace trace;
  trace.source = path;
  trace.format = profile::TraceFormat::nsys_sqlite;
  trace.info.platform = "CUDA";
  Database db(path);
  const std::set<std::string> tables = db.tables();
  if (!tables.contains("CUPTI_ACTIVITY_KIND_KERNEL") || !tables.contains("StringIds")) {
    throw InputError(path +
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

}  // namespace kspeed::io::trace
