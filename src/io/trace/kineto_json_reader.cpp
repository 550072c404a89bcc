// PyTorch/Kineto Chrome-trace JSON, read as a stream: a purpose-built scanner walks the event
// array one event at a time over a fixed-size window, decodes only the fields kspeed uses (ph,
// cat, name, pid, tid, ts, dur and three args) and skips the rest with a SIMD bracket scan.
// Memory holds the window, the kept kernels/launches/annotations and nothing else.
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "json_scan.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "reader_common.hpp"

namespace kspeed::io::trace {

namespace {

using json_scan::JsonSyntaxError;
using profile::Trace;

constexpr std::uint64_t kProgressEvery = 1 << 16;  // events between progress checks

// A window over the stream: [begin, end) is unread; more() keeps it and appends.
class Window {
 public:
  Window(ByteSource& source, std::size_t initial_bytes, std::uint64_t max_bytes)
      : source_(source),
        buffer_(static_cast<std::size_t>(
            std::clamp<std::uint64_t>(initial_bytes, 16, std::max<std::uint64_t>(max_bytes, 16)))),
        max_bytes_(max_bytes) {}

  const char* cur() const { return buffer_.data() + begin_; }
  const char* limit() const { return buffer_.data() + end_; }
  void consume_to(const char* p) { begin_ = static_cast<std::size_t>(p - buffer_.data()); }
  std::uint64_t offset_of(const char* p) const {
    return base_ + static_cast<std::uint64_t>(p - buffer_.data());
  }
  std::uint64_t bytes_read() const { return base_ + end_; }

  /// Moves the unread bytes to the front (doubling the window when one unit fills it) and
  /// fills the rest. False at the end of the stream. Filling, not one read, keeps a unit that
  /// spans many reads linear: it is rescanned once per doubling, not once per read. A unit
  /// larger than the limit (an unterminated string in a gzip bomb) is refused.
  bool more() {
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      base_ += begin_;
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buffer_.size()) {
      if (buffer_.size() >= max_bytes_) return grow_refused();
      buffer_.resize(static_cast<std::size_t>(
          std::min<std::uint64_t>(std::uint64_t{buffer_.size()} * 2, max_bytes_)));
    }
    std::size_t got = 0;
    while (end_ < buffer_.size()) {
      const std::size_t n = source_.read(buffer_.data() + end_, buffer_.size() - end_);
      if (n == 0) break;
      end_ += n;
      got += n;
    }
    return got > 0;
  }

  std::size_t capacity() const { return buffer_.size(); }
  /// Whether more() stopped at the size limit rather than the end of the stream.
  bool at_limit() const { return at_limit_; }

 private:
  bool grow_refused() {
    at_limit_ = true;
    return false;
  }

  ByteSource& source_;
  std::vector<char> buffer_;
  std::uint64_t max_bytes_;
  bool at_limit_ = false;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::uint64_t base_ = 0;  // stream offset of buffer_[0]
};

enum class Category { unknown, kernel, runtime, cpu_annotation, gpu_annotation, ignored };

bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] + 32) : text[i];
    if (c != lower[i]) return false;
  }
  return true;
}

// Category names are compared case-insensitively: old traces write "Kernel" and "Runtime".
Category categorize(std::string_view cat) {
  if (equals_lower(cat, "kernel")) return Category::kernel;
  if (equals_lower(cat, "cuda_runtime") || equals_lower(cat, "cuda_driver") ||
      equals_lower(cat, "runtime") || equals_lower(cat, "driver")) {
    return Category::runtime;
  }
  if (equals_lower(cat, "gpu_user_annotation")) return Category::gpu_annotation;
  if (equals_lower(cat, "user_annotation") || equals_lower(cat, "cpu_op")) {
    return Category::cpu_annotation;
  }
  return Category::ignored;  // python_function, gpu_memcpy, ac2g flows, overhead, ...
}

// The fields of one event that kspeed reads. Views point into the window (valid until more()).
struct EventFields {
  std::string_view ph, cat, name;
  bool name_escaped = false;
  const char* name_at = nullptr;
  Category category = Category::unknown;
  std::uint64_t pid = 0, tid = 0;
  json_scan::ExactMicroseconds ts;  // as written; keep() subtracts the file's origin
  std::int64_t ts_ns = 0, dur_ns = 0;
  bool has_ts = false, has_dur = false;
  std::string_view unrepresentable_time;  // a ts or dur beyond 64-bit nanoseconds, as written
  std::uint64_t correlation = 0;
  std::optional<std::int64_t> external_id;
  std::optional<std::int64_t> device;
};

std::uint64_t hash_id(std::string_view text) {
  // Some writers give pid/tid as strings ("stream 7"); a stable hash keeps them distinct.
  return std::hash<std::string_view>()(text) | (1ULL << 63);
}

class KinetoScanner {
 public:
  KinetoScanner(ByteSource& input, Trace& trace, const TraceReadOptions& options)
      : window_(input, options.window_bytes, value_limit(options)),
        input_(input),
        trace_(trace),
        names_(trace.kernel_names),
        progress_(options.progress) {}

  void run() {
    try {
      read_document();
    } catch (const JsonSyntaxError& error) {
      syntax_error(error);
    }
    trace_.bytes_read = window_.bytes_read();
    trace_.events_read = events_;
  }

 private:
  // ---- Document structure ----

  void read_document() {
    const char* p = next_token("the start of the document");
    if (window_.limit() - p >= 3 && std::string_view(p, 3) == "\xEF\xBB\xBF") {
      window_.consume_to(p + 3);
      p = next_token("the start of the document");
    }
    if (*p == '[') {
      saw_events_ = true;
      read_events(p);
    } else if (*p == '{') {
      read_top_object(p);
    } else {
      throw JsonSyntaxError{p, "'{' or '['"};
    }
    if (const char* rest = next_token(nullptr)) {
      throw JsonSyntaxError{rest, "the end of the file after the JSON document"};
    }
    if (!saw_events_) not_a_trace();
  }

  void read_top_object(const char* p) {
    window_.consume_to(p + 1);
    p = next_token("a key or '}'");
    if (*p == '}') {
      window_.consume_to(p + 1);
      return;
    }
    for (;;) {
      if (*p != '"') throw JsonSyntaxError{p, "a key string"};
      std::string key;
      p = scan_unit([&key](const char* s, const char* e) {
        std::string_view raw;
        bool escaped = false;
        const char* after = json_scan::scan_string(s, e, raw, escaped);
        if (after != nullptr) key = escaped ? json_scan::unescape(raw, s) : std::string(raw);
        return after;
      });
      window_.consume_to(p);
      p = next_token("':'");
      if (*p != ':') throw JsonSyntaxError{p, "':' after the key"};
      window_.consume_to(p + 1);
      p = next_token("a value");
      read_top_value(key, p);
      p = next_token("',' or '}'");
      if (*p == '}') {
        window_.consume_to(p + 1);
        return;
      }
      if (*p != ',') throw JsonSyntaxError{p, "',' or '}' after a top-level value"};
      window_.consume_to(p + 1);
      p = next_token("a key");
    }
  }

  void read_top_value(const std::string& key, const char* p) {
    if (top_keys_.size() < 8) top_keys_.push_back(key);  // the error quotes eight at most
    if (key == "traceEvents") {
      if (*p != '[') throw JsonSyntaxError{p, "'[' (traceEvents is an array of events)"};
      saw_events_ = true;
      read_events(p);
      return;
    }
    if (key == "roctracer_version" || key.starts_with("hip_")) trace_.info.platform = "ROCm";
    if ((key == "cuda_runtime_version" || key == "cupti_version") && trace_.info.platform.empty()) {
      trace_.info.platform = "CUDA";
    }
    const char* after = scan_unit(json_scan::skip_value);
    if (key == "deviceProperties" || key == "distributedInfo") {
      read_metadata(
          key, std::string_view(window_.cur(), static_cast<std::size_t>(after - window_.cur())));
    }
    window_.consume_to(after);
  }

  // Small metadata objects are parsed whole; a malformed one is ignored (it is optional).
  void read_metadata(const std::string& key, std::string_view text) {
    const nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
    if (value.is_discarded()) return;
    if (key == "deviceProperties" && value.is_array()) {
      for (const auto& device : value) {
        if (device.is_object() && device.contains("name") && device["name"].is_string()) {
          const std::string name = device["name"].get<std::string>();
          if (trace_.info.gpu.empty()) trace_.info.gpu = name;
          if (trace_.info.platform.empty() && name.find("NVIDIA") != std::string::npos) {
            trace_.info.platform = "CUDA";
          }
          if (name.find("AMD") != std::string::npos) trace_.info.platform = "ROCm";
        }
      }
    } else if (key == "distributedInfo" && value.is_object()) {
      if (value.contains("rank") && value["rank"].is_number_integer()) {
        trace_.info.rank = value["rank"].get<int>();
      }
      if (value.contains("world_size") && value["world_size"].is_number_integer()) {
        trace_.info.world_size = value["world_size"].get<int>();
      }
    }
  }

  void read_events(const char* p) {
    window_.consume_to(p + 1);
    p = next_token("an event or ']'");
    if (*p == ']') {
      window_.consume_to(p + 1);
      return;
    }
    for (;;) {
      if (*p != '{') {
        throw JsonSyntaxError{p,
                              "an event object '{' (traceEvents[" + std::to_string(events_) + "])"};
      }
      EventFields fields;
      p = scan_unit([&fields](const char* s, const char* e) { return parse_event(s, e, fields); });
      keep(fields);
      window_.consume_to(p);
      if (++events_ % kProgressEvery == 0 && progress_) progress_(input_.file_position(), 0);
      p = next_token("',' or ']' after an event");
      if (*p == ']') {
        window_.consume_to(p + 1);
        return;
      }
      if (*p != ',') throw JsonSyntaxError{p, "',' or ']' after an event"};
      window_.consume_to(p + 1);
      p = next_token("an event");
    }
  }

  // ---- One event ----

  // Keys are short ("ph", "cat", "External id"): a plain loop over at most 16 bytes finds the
  // closing quote sooner than the SIMD string scan. nullptr when it does not (a long or escaped
  // key, or the window's end): scan_string then takes over.
  static const char* short_key(const char* p, const char* end, std::string_view& key) {
    const char* body = p + 1;
    const char* limit = end - body > 16 ? body + 16 : end;
    for (const char* q = body; q < limit; ++q) {
      if (*q == '"') {
        key = std::string_view(body, static_cast<std::size_t>(q - body));
        return q + 1;
      }
      if (*q == '\\') return nullptr;
    }
    return nullptr;
  }

  // Reads `"key" :` and returns where the value starts; nullptr when the window ends first (the
  // caller then reads more and retries). Keys of events and args are plain ASCII, so an escaped
  // key is compared as written.
  static const char* parse_key(const char* p, const char* end, std::string_view& key,
                               const char* expected) {
    if (*p != '"') throw JsonSyntaxError{p, expected};
    const char* after = short_key(p, end, key);
    if (after == nullptr) {
      bool escaped = false;
      after = json_scan::scan_string(p, end, key, escaped);
      if (after == nullptr) return nullptr;
    }
    p = after;
    p = json_scan::skip_space(p, end);
    if (p >= end) return nullptr;
    if (*p != ':') throw JsonSyntaxError{p, "':' after the key"};
    p = json_scan::skip_space(p + 1, end);
    return p >= end ? nullptr : p;
  }

  static const char* parse_event(const char* p, const char* end, EventFields& f) {
    f = EventFields{};
    p = json_scan::skip_space(p + 1, end);
    if (p >= end) return nullptr;
    if (*p == '}') return p + 1;
    for (;;) {
      std::string_view key;
      p = parse_key(p, end, key, "a key string in the event");
      if (p == nullptr) return nullptr;
      p = parse_member(key, p, end, f);
      if (p == nullptr) return nullptr;
      if (irrelevant(f)) return json_scan::skip_rest_of_object(p, end);
      p = json_scan::skip_space(p, end);
      if (p >= end) return nullptr;
      if (*p == '}') return p + 1;
      if (*p != ',') throw JsonSyntaxError{p, "',' or '}' in the event"};
      p = json_scan::skip_space(p + 1, end);
      if (p >= end) return nullptr;
    }
  }

  // Whether the rest of the event can be skipped unread.
  static bool irrelevant(const EventFields& f) {
    if (!f.ph.empty() && f.ph != "X") return true;
    if (f.category == Category::ignored) return true;
    if ((f.category == Category::cpu_annotation || f.category == Category::gpu_annotation) &&
        !f.name.empty() && !profile::looks_like_step_annotation(f.name)) {
      return true;
    }
    return false;
  }

  // The keys kspeed reads are 2 to 4 bytes long: the length picks the candidates, so the other
  // keys ("id", "bp", "s", "cname", ...) cost one or two comparisons.
  static const char* parse_member(std::string_view key, const char* p, const char* end,
                                  EventFields& f) {
    switch (key.size()) {
      case 2:
        if (key == "ph") return string_value(p, end, f.ph);
        if (key == "ts") return time_value(p, end, f.ts, f.has_ts, f.unrepresentable_time);
        break;
      case 3:
        if (key == "cat") {
          p = string_value(p, end, f.cat);
          if (p != nullptr) f.category = categorize(f.cat);
          return p;
        }
        if (key == "pid") return id_value(p, end, f.pid);
        if (key == "tid") return id_value(p, end, f.tid);
        if (key == "dur") {
          json_scan::ExactMicroseconds dur;
          p = time_value(p, end, dur, f.has_dur, f.unrepresentable_time);
          if (f.has_dur) {
            const auto ns = json_scan::ns_since(dur, {});
            if (ns) f.dur_ns = *ns;
            if (!ns) f.unrepresentable_time = "dur";
          }
          return p;
        }
        break;
      case 4:
        if (key == "name") {
          if (*p != '"') return json_scan::skip_value(p, end);
          f.name_at = p;
          return json_scan::scan_string(p, end, f.name, f.name_escaped);
        }
        if (key == "args" && *p == '{') return parse_args(p, end, f);
        break;
      default:
        break;
    }
    return json_scan::skip_value(p, end);
  }

  static const char* string_value(const char* p, const char* end, std::string_view& out) {
    if (*p != '"') return json_scan::skip_value(p, end);  // not a string: treated as absent
    bool escaped = false;
    return json_scan::scan_string(p, end, out, escaped);
  }

  static const char* id_value(const char* p, const char* end, std::uint64_t& out) {
    if (*p == '"') {
      std::string_view text;
      bool escaped = false;
      p = json_scan::scan_string(p, end, text, escaped);
      if (p != nullptr) out = hash_id(text);
      return p;
    }
    if (*p != '-' && (*p < '0' || *p > '9')) return json_scan::skip_value(p, end);
    std::string_view text;
    p = json_scan::scan_number(p, end, text);
    if (p != nullptr) out = static_cast<std::uint64_t>(json_scan::integer_text_value(text));
    return p;
  }

  // Times stay exact as written (whole us + ns); `bad` names a value no 64-bit count holds.
  static const char* time_value(const char* p, const char* end, json_scan::ExactMicroseconds& out,
                                bool& has, std::string_view& bad) {
    std::string_view text;
    if (*p == '"') {  // a few writers quote numbers
      bool escaped = false;
      p = json_scan::scan_string(p, end, text, escaped);
      if (p == nullptr || text.empty() || (text[0] != '-' && (text[0] < '0' || text[0] > '9')))
        return p;
    } else {
      if (*p != '-' && (*p < '0' || *p > '9')) return json_scan::skip_value(p, end);
      p = json_scan::scan_number(p, end, text);
      if (p == nullptr) return p;
    }
    const auto time = json_scan::exact_microseconds(text);
    if (time) {
      out = *time;
      has = true;
    } else {
      bad = text;
    }
    return p;
  }

  static const char* integer_arg(const char* p, const char* end, std::int64_t& out, bool& has) {
    if (*p != '-' && (*p < '0' || *p > '9')) return json_scan::skip_value(p, end);
    std::string_view text;
    p = json_scan::scan_number(p, end, text);
    if (p != nullptr) {
      out = json_scan::integer_text_value(text);
      has = true;
    }
    return p;
  }

  static const char* parse_args(const char* p, const char* end, EventFields& f) {
    if (f.category == Category::ignored) return json_scan::skip_value(p, end);
    p = json_scan::skip_space(p + 1, end);
    if (p >= end) return nullptr;
    if (*p == '}') return p + 1;
    for (;;) {
      std::string_view key;
      p = parse_key(p, end, key, "a key string in args");
      if (p == nullptr) return nullptr;
      std::int64_t value = 0;
      bool has = false;
      if (key == "correlation") {
        p = integer_arg(p, end, value, has);
        if (has) f.correlation = static_cast<std::uint64_t>(value);
      } else if (key == "External id") {
        p = integer_arg(p, end, value, has);
        if (has) f.external_id = value;
      } else if (key == "device") {
        p = integer_arg(p, end, value, has);
        if (has) f.device = value;
      } else {
        p = json_scan::skip_value(p, end);
      }
      if (p == nullptr) return nullptr;
      p = json_scan::skip_space(p, end);
      if (p >= end) return nullptr;
      if (*p == '}') return p + 1;
      if (*p != ',') throw JsonSyntaxError{p, "',' or '}' in args"};
      p = json_scan::skip_space(p + 1, end);
      if (p >= end) return nullptr;
    }
  }

  std::string decoded_name(const EventFields& f) const {
    return f.name_escaped ? json_scan::unescape(f.name, f.name_at) : std::string(f.name);
  }

  void keep(EventFields& f) {
    if (f.ph != "X") return;
    if (!f.unrepresentable_time.empty()) unrepresentable_time(f);
    if (!f.has_ts) return;
    relative_to_origin(f);
    switch (f.category) {
      case Category::kernel: {
        if (!f.has_dur) return;
        check_duration(f);
        profile::KernelEvent kernel;
        kernel.name_id = f.name_escaped ? names_.intern(decoded_name(f)) : names_.intern(f.name);
        kernel.device =
            static_cast<std::int32_t>(f.device ? *f.device : static_cast<std::int64_t>(f.pid));
        kernel.correlation = f.correlation;
        kernel.start_ns = f.ts_ns;
        kernel.duration_ns = f.dur_ns;
        trace_.kernels.push_back(kernel);
        return;
      }
      case Category::runtime:
        if (f.correlation != 0)
          trace_.launches.push_back({0, f.correlation, f.pid, f.tid, f.ts_ns});
        if (trace_.info.platform.empty() && f.name.starts_with("hip"))
          trace_.info.platform = "ROCm";
        return;
      case Category::unknown:
      case Category::cpu_annotation:
      case Category::gpu_annotation: {
        if (!f.has_dur || !profile::looks_like_step_annotation(f.name)) return;
        check_range(f);
        profile::AnnotationEvent annotation;
        annotation.name = decoded_name(f);
        annotation.process = f.pid;
        annotation.thread = f.tid;
        annotation.start_ns = f.ts_ns;
        annotation.end_ns = f.ts_ns + f.dur_ns;
        annotation.gpu_side = f.category == Category::gpu_annotation;
        annotation.external_id = f.external_id;
        trace_.annotations.push_back(std::move(annotation));
        return;
      }
      case Category::ignored:
        return;
    }
  }

  // Times are kept as nanoseconds since the file's first complete event, so a Unix-epoch
  // timestamp (1.7e18 ns) keeps every nanosecond and sums of times cannot overflow; the origin
  // is kept to report the file's own clock (a step's start).
  void relative_to_origin(EventFields& f) {
    if (!origin_) {
      const auto origin_ns = json_scan::ns_since(f.ts, {});
      if (!origin_ns) unrepresentable_time(f);
      origin_ = f.ts;
      trace_.time_origin_ns = *origin_ns;
    }
    const auto ns = json_scan::ns_since(f.ts, *origin_);
    std::int64_t end_ns = 0;  // the file's clock at the end must fit too: steps report it
    if (!ns || __builtin_add_overflow(*ns, f.dur_ns, &end_ns) ||
        __builtin_add_overflow(end_ns, trace_.time_origin_ns, &end_ns)) {
      unrepresentable_time(f);
    }
    f.ts_ns = *ns;
  }

  [[noreturn]] void unrepresentable_time(const EventFields& f) const {
    throw InputError(trace_.source + ": traceEvents[" + std::to_string(events_) + "]: '" +
                     excerpt(decoded_name(f)) +
                     "' has a ts or dur beyond what 64-bit nanoseconds hold (" +
                     excerpt(std::string(f.unrepresentable_time.empty() ? std::string_view("ts")
                                                                        : f.unrepresentable_time)) +
                     "; the limit is about 9.2e15 us, the year 2262 in Unix-epoch microseconds): "
                     "Chrome-trace times are microseconds; was the trace written in nanoseconds?");
  }

  // A kernel runs for 0 ns to hours; anything else is a broken trace, and would overflow sums.
  // The kernel times are summed here as the analysis will sum them, so it cannot overflow.
  void check_duration(const EventFields& f) {
    if (f.dur_ns < 0 || f.dur_ns > kMaxKernelNs) {
      throw InputError(trace_.source + ": traceEvents[" + std::to_string(events_) +
                       "]: kernel duration " + std::to_string(f.dur_ns / 1000) +
                       " us is not a plausible kernel time (expected 0 to 11.6 days in "
                       "microseconds): is the trace corrupt?");
    }
    if (!kernel_time_.add(f.dur_ns)) {
      throw InputError(trace_.source + ": traceEvents[" + std::to_string(events_) +
                       "]: the kernel times add up to more than 2^63 ns (292 years): is the "
                       "trace corrupt?");
    }
  }

  // A range that ends before it starts is a corrupt record, not a step.
  void check_range(const EventFields& f) const {
    if (f.dur_ns < 0) {
      throw InputError(trace_.source + ": traceEvents[" + std::to_string(events_) + "]: '" +
                       excerpt(decoded_name(f)) + "' has a negative duration (" +
                       std::to_string(f.dur_ns) + " ns): is the trace corrupt?");
    }
  }

  // ---- Window plumbing and errors ----

  // Runs `unit` on the window, reading more until it completes.
  template <class Unit>
  const char* scan_unit(Unit unit) {
    for (;;) {
      const char* next = unit(window_.cur(), window_.limit());
      if (next != nullptr) return next;
      if (!window_.more()) truncated();
      if (progress_) progress_(input_.file_position(), 0);
    }
  }

  // The next non-space byte; at the end of the stream, nullptr when `expected` is null, else
  // the truncation error.
  const char* next_token(const char* expected) {
    for (;;) {
      const char* p = json_scan::skip_space(window_.cur(), window_.limit());
      window_.consume_to(p);
      if (p < window_.limit()) return p;
      if (!window_.more()) {
        if (expected == nullptr) return nullptr;
        if (window_.bytes_read() == 0) {
          throw InputError(trace_.source + ": the trace is empty: expected Kineto JSON");
        }
        truncated();
      }
    }
  }

  std::string where(std::uint64_t offset) const {
    return "byte " + std::to_string(offset) +
           (trace_.compressed ? " of the decompressed text" : "");
  }

  [[noreturn]] void truncated() const {
    if (window_.at_limit()) {
      throw InputError(trace_.source + ": one JSON value at " +
                       where(window_.offset_of(window_.cur())) + " is longer than " +
                       std::to_string(window_.capacity()) + " bytes (after " +
                       std::to_string(events_) +
                       " events), the most kspeed holds at once: an unterminated string or a "
                       "corrupt file (set " +
                       std::string(kMaxInputBytesVariable) + " to raise the limit)");
    }
    throw InputError(trace_.source + ": the JSON ends early at " + where(window_.bytes_read()) +
                     " (after " + std::to_string(events_) +
                     " events): the file is truncated; re-copy it or let the profiler finish "
                     "writing it");
  }

  [[noreturn]] void syntax_error(const JsonSyntaxError& error) const {
    const char c = *error.where;
    const std::string found = c >= 0x20 && c < 0x7f
                                  ? "'" + std::string(1, c) + "'"
                                  : "byte 0x" + hex(static_cast<unsigned char>(c));
    throw InputError(trace_.source + ": " + where(window_.offset_of(error.where)) +
                     ": not valid JSON: expected " + error.expected + ", found " + found +
                     (events_ > 0 ? " (in or after traceEvents[" + std::to_string(events_) + "])"
                                  : std::string()));
  }

  static std::string hex(unsigned value) {
    const char* digits = "0123456789abcdef";
    return {digits[value >> 4], digits[value & 15]};
  }

  [[noreturn]] void not_a_trace() const {
    std::string keys;
    for (std::size_t i = 0; i < top_keys_.size() && i < 8; ++i) {
      keys += (i == 0 ? "" : ", ") + excerpt(top_keys_[i]);
    }
    throw InputError(trace_.source +
                     ": a JSON object without \"traceEvents\": not a Chrome/Kineto "
                     "trace (its keys: " +
                     (keys.empty() ? std::string("none") : keys) +
                     "); expected {\"traceEvents\": [...]} as torch.profiler writes it");
  }

  Window window_;
  ByteSource& input_;
  Trace& trace_;
  profile::KernelNameTable names_;
  const ProgressCallback& progress_;
  std::vector<std::string> top_keys_;
  std::uint64_t events_ = 0;
  bool saw_events_ = false;
  CheckedTotal kernel_time_;
  std::optional<json_scan::ExactMicroseconds> origin_;  // the first complete event's ts
};

bool starts_like_json(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (head[first] == '{' || head[first] == '[');
}

}  // namespace

std::optional<Trace> try_read_kineto_json(TraceInput& input) {
  if (!starts_like_json(input.head)) return std::nullopt;
  Trace trace = new_trace(input, profile::TraceFormat::kineto_json);
  auto stream = prefixed_source(std::move(input.head), std::move(input.rest));
  KinetoScanner scanner(*stream, trace, input.options);
  scanner.run();
  return trace;
}

}  // namespace kspeed::io::trace
