// The trace readers: each declines what is not its format, the streaming Kineto scanner (whatever
// the chunk boundaries), timestamps to the nanosecond, and errors that say what and where.
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

namespace unit_profile_readers {

using namespace kspeed::io::trace;
using Catch::Matchers::Contains;

namespace {

const std::string kFixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/profile/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Delivers the bytes a few at a time, so every scanning unit gets cut somewhere.
class TrickleSource final : public ByteSource {
 public:
  TrickleSource(std::string bytes, std::size_t step) : bytes_(std::move(bytes)), step_(step) {}
  std::size_t read(char* out, std::size_t capacity) override {
    const std::size_t n = std::min({capacity, step_, bytes_.size() - position_});
    std::memcpy(out, bytes_.data() + position_, n);
    position_ += n;
    return n;
  }
  std::uint64_t file_position() const override { return position_; }

 private:
  std::string bytes_;
  std::size_t step_;
  std::size_t position_ = 0;
};

std::string kernel_event(const std::string& name, const std::string& ts, const std::string& dur) {
  return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
         ts + R"(, "dur": )" + dur + R"(, "args": {"correlation": 5, "device": 0}})";
}

}  // namespace

namespace {

// Whether `try_read` accepts `head` (a whole, short stream): nullopt means it declined.
bool accepts(std::optional<kspeed::profile::Trace> (*try_read)(TraceInput&),
             const std::string& head) {
  TraceInput input;
  input.source = "t";
  input.head = head;
  input.rest = memory_source("");
  try {
    return try_read(input).has_value();
  } catch (const kspeed::InputError&) {
    return true;  // accepted, then found wanting
  }
}

}  // namespace

TEST_CASE("each reader declines what is not its format: content, not names", "[profile]") {
  CHECK(accepts(try_read_gzip, "\x1f\x8b\x08"));
  CHECK_FALSE(accepts(try_read_gzip, "{}"));
  CHECK(accepts(try_read_nsys_sqlite, std::string("SQLite format 3\0rest", 20)));
  CHECK_FALSE(accepts(try_read_nsys_sqlite, "SQLite format 3"));
  CHECK(accepts(try_read_kineto_json, "  \n{\"traceEvents\": []}"));
  CHECK(accepts(try_read_kineto_json, "\xEF\xBB\xBF[{}]"));
  CHECK_FALSE(accepts(try_read_kineto_json, "Time (%),Total Time (ns)"));
  CHECK(accepts(try_read_nsys_stats_csv, "Time (%),Total Time (ns),Instances\n"));
  CHECK(accepts(try_read_nsys_stats_csv, "name,value\n"));
  CHECK_FALSE(accepts(try_read_nsys_stats_csv, "Generating SQLite file\nProcessing ...\n"));
  CHECK_FALSE(accepts(try_read_nsys_stats_csv, "hello world"));
  CHECK_FALSE(accepts(try_read_nsys_stats_csv, std::string("a,b\0", 4)));
}

TEST_CASE("when no reader accepts, the error lists the formats tried and the first bytes",
          "[profile]") {
  CHECK_THROWS_WITH(
      read_trace_bytes("hello\x1b[31m world\r\n", "h.txt"),
      Contains("h.txt: not a trace kspeed can read (it starts with 'hello\\e[31m world\\r\\n'; "
               "tried gzip, Nsight Systems SQLite export, Kineto/Chrome-trace JSON and `nsys "
               "stats` CSV)"));
}

TEST_CASE("timestamps become exact nanoseconds, old and new styles", "[profile]") {
  const std::string text = "[" + kernel_event("a", "4909914216204.635", "465716.634") + ", " +
                           kernel_event("b", "1700000000", "12") + ", " +
                           kernel_event("c", "1.5e3", "0.0004") + ", " +
                           kernel_event("d", "10.1239", "2.0005") + "]";
  const auto trace = read_trace_bytes(text, "t.json");
  REQUIRE(trace.kernels.size() == 4);
  // Times are kept from the file's first complete event, its origin, which keeps the clock.
  const std::int64_t origin = trace.time_origin_ns;
  CHECK(origin == 4909914216204635LL);
  CHECK(trace.kernels[0].start_ns == 0);
  CHECK(trace.kernels[0].duration_ns == 465716634LL);
  CHECK(origin + trace.kernels[1].start_ns == 1700000000000LL);
  CHECK(trace.kernels[1].duration_ns == 12000);
  CHECK(origin + trace.kernels[2].start_ns == 1500000);
  CHECK(trace.kernels[2].duration_ns == 0);
  CHECK(origin + trace.kernels[3].start_ns == 10124);  // rounded to the nearest ns
  CHECK(trace.kernels[3].duration_ns == 2001);
}

TEST_CASE("the streaming scanner gives the same trace whatever the chunk size", "[profile]") {
  const std::string text = slurp(kFixtures + "vllm-eager.trace.json");
  const auto whole = read_trace_bytes(text, "whole");
  REQUIRE(whole.kernels.size() == 7);
  for (std::size_t step : {1U, 2U, 3U, 7U, 64U, 4095U}) {
    INFO("chunk " << step);
    const auto trickled = read_trace_stream(std::make_unique<TrickleSource>(text, step), "t");
    REQUIRE(trickled.kernels.size() == whole.kernels.size());
    CHECK(trickled.kernel_names == whole.kernel_names);
    CHECK(trickled.launches.size() == whole.launches.size());
    CHECK(trickled.annotations.size() == whole.annotations.size());
    for (std::size_t i = 0; i < whole.kernels.size(); ++i) {
      CHECK(trickled.kernels[i].start_ns == whole.kernels[i].start_ns);
      CHECK(trickled.kernels[i].duration_ns == whole.kernels[i].duration_ns);
      CHECK(trickled.kernels[i].correlation == whole.kernels[i].correlation);
    }
    CHECK(trickled.info.gpu == "NVIDIA H100 80GB HBM3");
  }
}

TEST_CASE("the Kineto reader keeps kernels, launches and step annotations only", "[profile]") {
  const auto trace = read_trace_bytes(slurp(kFixtures + "vllm-eager.trace.json"), "v.json");
  CHECK(trace.events_read == 21);
  CHECK(trace.kernels.size() == 7);
  CHECK(trace.launches.size() == 6);  // cuda_runtime and cuda_driver calls with correlation
  REQUIRE(trace.annotations.size() == 3);
  CHECK(trace.annotations[1].gpu_side);
  CHECK(trace.annotations[1].external_id == 1);
  CHECK(trace.info.platform == "CUDA");
  // JSON escapes in names are decoded: "gemm_\u0031" is gemm_1.
  CHECK(std::find(trace.kernel_names.begin(), trace.kernel_names.end(),
                  "void gemm_1<float>(int)") != trace.kernel_names.end());
}

TEST_CASE("legacy categories, string tids and ROCm runtime names", "[profile]") {
  const auto trace = read_trace_bytes(slurp(kFixtures + "rocm-legacy.trace.json"), "r.json");
  CHECK(trace.kernels.size() == 5);
  CHECK(trace.launches.size() == 5);
  CHECK(trace.annotations.size() == 2);
  CHECK(trace.info.platform == "ROCm");
  CHECK(trace.kernels.front().device == 2);
}

TEST_CASE("gzip and plain read the same", "[profile]") {
  const auto plain = read_trace_file(kFixtures + "sglang-graph.trace.json");
  const auto gzip = read_trace_file(kFixtures + "sglang-graph.trace.json.gz");
  CHECK(gzip.compressed);
  CHECK_FALSE(plain.compressed);
  CHECK(gzip.kernels.size() == plain.kernels.size());
  CHECK(gzip.bytes_read == plain.bytes_read);
}

TEST_CASE("bad JSON input is named with its byte offset", "[profile]") {
  CHECK_THROWS_WITH(
      read_trace_bytes(R"({"traceEvents": [{"ph": "X" "cat": "kernel"}]})", "bad.json"),
      Contains("bad.json: byte 28: not valid JSON: expected ',' or '}' in the event, found '\"'"));
  CHECK_THROWS_WITH(read_trace_bytes(R"({"traceEvents": [{"ph": "X"}, 5]})", "bad.json"),
                    Contains("expected an event object '{' (traceEvents[1]), found '5'"));
  CHECK_THROWS_WITH(read_trace_bytes(R"({"traceEvents": [{"args": {"a": [1, 2}}]})", "bad.json"),
                    Contains("expected ']', found '}'"));
  CHECK_THROWS_WITH(read_trace_bytes(R"({"traceEvents": []} x)", "bad.json"),
                    Contains("expected the end of the file after the JSON document, found 'x'"));
}

TEST_CASE("truncated JSON says so, with how far it got", "[profile]") {
  CHECK_THROWS_WITH(
      read_trace_bytes(R"({"traceEvents": [{"ph": "X", "cat": "kernel"}, {"ph": "X", "na)",
                       "cut.json"),
      Contains("cut.json: the JSON ends early at byte 62 (after 1 events): the file is truncated"));
}

TEST_CASE("JSON that is not a trace, and files that are nothing", "[profile]") {
  CHECK_THROWS_WITH(read_trace_bytes(R"({"name": "x", "values": [1, 2]})", "w.json"),
                    Contains("w.json: a JSON object without \"traceEvents\": not a Chrome/Kineto "
                             "trace (its keys: name, values)"));
  CHECK_THROWS_WITH(read_trace_bytes("", "e.json"), Contains("e.json: the file is empty"));
  CHECK_THROWS_WITH(read_trace_bytes("hello", "h.txt"),
                    Contains("h.txt: not a trace kspeed can read (it starts with 'hello'; tried"));
  CHECK_THROWS_WITH(read_trace_bytes(std::string("\x1f\x8b\x08\x00\x00\x00", 6), "t.gz"),
                    Contains("t.gz: the gzip stream ends early"));
}

TEST_CASE("truncated gzip is caught by the inflater", "[profile]") {
  const std::string gz = slurp(kFixtures + "sglang-graph.trace.json.gz");
  CHECK_THROWS_WITH(read_trace_bytes(gz.substr(0, gz.size() / 2), "cut.json.gz"),
                    Contains("cut.json.gz: the gzip stream ends early after") &&
                        Contains("compressed bytes: the file is truncated"));
  std::string corrupt = gz;
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
  CHECK_THROWS_AS(read_trace_bytes(corrupt, "bad.gz"), kspeed::InputError);
}

TEST_CASE("nsys stats CSV: totals per name, no timeline", "[profile]") {
  const auto trace = read_trace_file(kFixtures + "nsys-kern-sum.csv");
  CHECK(trace.format == kspeed::profile::TraceFormat::nsys_stats_csv);
  CHECK_FALSE(trace.has_timeline);
  REQUIRE(trace.kernels.size() == 5);
  CHECK(trace.kernels[1].duration_ns == 250000);
  CHECK(trace.instances_of(1) == 10);
  CHECK(trace.kernel_names[1].find("flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64") !=
        std::string::npos);  // a quoted name with commas
  CHECK_THROWS_WITH(read_trace_file(kFixtures + "not-nsys.csv"),
                    Contains("not-nsys.csv: not an `nsys stats` kernel summary"));
}

TEST_CASE("nsys SQLite: kernels, launches per process, NVTX steps, GPU name", "[profile]") {
  const auto trace = read_trace_file(kFixtures + "trtllm-nvtx.sqlite");
  CHECK(trace.format == kspeed::profile::TraceFormat::nsys_sqlite);
  CHECK(trace.kernels.size() == 7);
  CHECK(trace.launches.size() == 3);
  CHECK(trace.annotations.size() == 3);  // the unrelated NVTX range is dropped
  CHECK(trace.info.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(trace.kernels.front().process == 1677721600ULL);
  CHECK_THROWS_WITH(read_trace_file(kFixtures + "no-kernel-table.sqlite"),
                    Contains("an SQLite file without the tables CUPTI_ACTIVITY_KIND_KERNEL and "
                             "StringIds (its tables: NVTX_EVENTS, StringIds)"));
}

TEST_CASE("missing files and folders", "[profile]") {
  CHECK_THROWS_WITH(read_trace_file(kFixtures + "nope.json"), Contains("does not exist"));
  CHECK_THROWS_WITH(read_trace_file(kFixtures), Contains("is a folder"));
}

TEST_CASE("absurd numbers are rejected, never clamped or overflowed", "[profile]") {
  // Beyond 64-bit nanoseconds: an error naming the event (a clamped time would be silently
  // wrong: every step at one instant).
  const std::string big_start = "[" + kernel_event("a", "123456789012345678901234", "1") + "]";
  CHECK_THROWS_WITH(read_trace_bytes(big_start, "big.json"),
                    Contains("big.json: traceEvents[0]: 'a' has a ts or dur beyond what 64-bit "
                             "nanoseconds hold"));
  CHECK_THROWS_WITH(read_trace_bytes("[" + kernel_event("a", "1", "1e300") + "]", "big.json"),
                    Contains("big.json: traceEvents[0]: 'a' has a ts or dur beyond"));
  CHECK_THROWS_WITH(read_trace_bytes("[" + kernel_event("a", "1", "1e13") + "]", "big.json"),
                    Contains("big.json: traceEvents[0]: kernel duration") &&
                        Contains("is not a plausible kernel time"));
  CHECK_THROWS_WITH(read_trace_bytes("[" + kernel_event("a", "1", "-5") + "]", "neg.json"),
                    Contains("kernel duration -5 us"));
}

// ---- Input hardening (issue 12) ----

namespace {

// An nsys-shaped SQLite database with the given kernel rows (start, end), built with SQLite.
std::string sqlite_with_kernels(const std::string& name,
                                const std::vector<std::pair<std::string, std::string>>& rows) {
  const auto path = std::filesystem::temp_directory_path() / ("kspeed-test-" + name + ".sqlite");
  std::filesystem::remove(path);
  std::string sql =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
      " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
      "INSERT INTO StringIds VALUES (1, 'flash_fwd_kernel');";
  for (const auto& [start, end] : rows) {
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + start + ", " + end +
           ", 0, 1, 0, 1, 1);";
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  return path.string();
}

}  // namespace

TEST_CASE("nsys SQLite: end before start and INT64 extremes are refused with the row",
          "[profile]") {
  const std::string reversed = sqlite_with_kernels("reversed", {{"100", "180"}, {"180", "100"}});
  CHECK_THROWS_WITH(read_trace_file(reversed),
                    Contains(": CUPTI_ACTIVITY_KIND_KERNEL row 2: end 100 ns is before start 180 "
                             "ns (a duration of -80 ns): the export is corrupt"));
  const std::string extreme =
      sqlite_with_kernels("extreme", {{"-9223372036854775808", "9223372036854775807"}});
  CHECK_THROWS_WITH(read_trace_file(extreme),
                    Contains("CUPTI_ACTIVITY_KIND_KERNEL row 1: start = -9223372036854775808 ns "
                             "is beyond +-1e18 ns"));
  const std::string good = sqlite_with_kernels("good", {{"100", "180"}});
  CHECK(read_trace_file(good).kernels.at(0).duration_ns == 80);
  for (const auto& path : {reversed, extreme, good}) std::filesystem::remove(path);
}

TEST_CASE("nsys SQLite from a pipe is copied once, not opened twice", "[profile]") {
  const std::string bytes = slurp(kFixtures + "trtllm-nvtx.sqlite");
  const auto piped = read_trace_stream(std::make_unique<TrickleSource>(bytes, 4096), "<pipe>");
  const auto file = read_trace_file(kFixtures + "trtllm-nvtx.sqlite");
  CHECK(piped.format == kspeed::profile::TraceFormat::nsys_sqlite);
  CHECK(piped.kernels.size() == file.kernels.size());
  CHECK(piped.annotations.size() == file.annotations.size());
  CHECK(piped.source == "<pipe>");
}

TEST_CASE("nsys stats CSV: 64-bit instance counts, sums past 2^63 refused", "[profile]") {
  const std::string header = "Time (%),Total Time (ns),Instances,Avg (ns),Name\n";
  const auto trace =
      read_trace_bytes(header + "100.0,5000,4294967296,0,\"flash_fwd\"\n", "big.csv");
  CHECK(trace.instances_of(0) == 4294967296LL);
  std::string rows = header;
  for (int i = 0; i < 1000; ++i) rows += "0.1,9999999999999999,1,0,k" + std::to_string(i) + "\n";
  CHECK_THROWS_WITH(read_trace_bytes(rows, "sum.csv"),
                    Contains("sum.csv:924: the kernel times or instance counts add up past 2^63"));
  CHECK_THROWS_WITH(read_trace_bytes(header + "1,5,many,0,k\n", "i.csv"),
                    Contains("i.csv:2: column 'Instances' holds 'many': expected a whole number"));
  CHECK_THROWS_WITH(read_trace_bytes(header + "1,12345678901234567,1,0,k\n", "t.csv"),
                    Contains("t.csv:2: column 'Total Time (ns)' holds '12345678901234567'"));
}

TEST_CASE("a CSV that is not an nsys stats report is told so, by its header", "[profile]") {
  CHECK_THROWS_WITH(read_trace_bytes("kernel,ms\nflash,3\n", "other.csv"),
                    Contains("other.csv: not an `nsys stats` kernel summary: no header line with "
                             "\"Total Time (ns)\" and \"Name\" columns (the file starts with "
                             "'kernel,ms')"));
}

TEST_CASE("Kineto: kernel times that sum past 2^63 ns and negative ranges are refused",
          "[profile]") {
  std::string text = "[";
  for (int i = 0; i < 9300; ++i) {
    text += (i == 0 ? "" : ",") + kernel_event("k", "1", "1000000000000");  // 1e15 ns each
  }
  text += "]";
  CHECK_THROWS_WITH(read_trace_bytes(text, "sum.json"),
                    Contains("sum.json: traceEvents[9223]: the kernel times add up to more than "
                             "2^63 ns"));
  CHECK_THROWS_WITH(
      read_trace_bytes(R"([{"ph": "X", "cat": "user_annotation", "name": "step[DECODE bs=1]",)"
                       R"( "pid": 1, "tid": 1, "ts": 10, "dur": -5}])",
                       "neg.json"),
      Contains("neg.json: traceEvents[0]: 'step[DECODE bs=1]' has a negative duration"));
}

TEST_CASE("Kineto: one value is bounded, a huge name is read in linear passes", "[profile]") {
  TraceReadOptions small;
  small.window_bytes = 64;
  small.max_value_bytes = 1 << 20;
  // An unterminated string (a gzip bomb's payload) stops at the limit, not at the memory's end.
  const std::string unterminated = R"({"traceEvents": [{"name": ")" + std::string(3 << 20, 'a');
  CHECK_THROWS_WITH(read_trace_bytes(unterminated, "bomb.json", small),
                    Contains("bomb.json: one JSON value at byte 17 is longer than 1048576 bytes "
                             "(after 0 events)") &&
                        Contains("set KSPEED_MAX_INPUT_BYTES to raise the limit"));
  // An 8 MB kernel name delivered 64 KiB at a time: the window fills before it rescans.
  const std::string name(8 << 20, 'n');
  const auto trace = read_trace_stream(
      std::make_unique<TrickleSource>("[" + kernel_event(name, "1", "2") + "]", 1 << 16), "big",
      TraceReadOptions{{}, 64, 0});
  REQUIRE(trace.kernel_names.size() == 1);
  CHECK(trace.kernel_names[0].size() == name.size());
}

TEST_CASE("trace messages quote keys and names short and escaped", "[profile]") {
  CHECK_THROWS_WITH(read_trace_bytes("{\"" + std::string(70, 'x') + "\\u001b\": 1}", "k.json"),
                    Contains("(its keys: " + std::string(60, 'x') + "... (71 bytes))"));
}

// The skip of unused values works on 64-byte blocks (bit masks, strings found by prefix XOR,
// a slower walk for blocks holding a backslash): shifting the same events by 0..150 bytes puts
// every quote, escape and bracket at every block position and across block ends.
TEST_CASE("Kineto: skipped values with brackets in strings and escapes, at every alignment",
          "[profile]") {
  std::string text = "[";
  constexpr int kShifts = 150;
  for (int shift = 0; shift <= kShifts; ++shift) {
    // An event skipped after its category: strings that hold brackets, escaped quotes and
    // backslashes, nested containers, and a backslash pair as a string's last bytes.
    text +=
        R"({"ph": "X", "cat": "python_function", "name": ")" +
        std::string(static_cast<std::size_t>(shift), 'p') +
        R"(", "args": {"a": "]}[{ \"]\\", "b": [{"c": "\\\\"}, "}", [[]], {}], "d": "x\\\\"}}, )";
    // A kept kernel whose args hold nested arrays that are skipped too.
    text += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(shift) +
            R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(shift) +
            R"(, "dur": 2, "args": {"grid": [1, [2, "]"]], "correlation": 5}})";
    text += shift == kShifts ? "]" : ", ";
  }
  const auto trace = read_trace_bytes(text, "shifted.json");
  REQUIRE(trace.kernels.size() == std::size_t{kShifts + 1});
  REQUIRE(trace.kernel_names.size() == std::size_t{kShifts + 1});
  for (int shift = 0; shift <= kShifts; ++shift) {
    const auto& kernel = trace.kernels[static_cast<std::size_t>(shift)];
    CHECK(trace.kernel_names[kernel.name_id] == "k" + std::to_string(shift));
    CHECK(kernel.start_ns == shift * 1000);
    CHECK(kernel.correlation == 5);
  }
  // The same events a few bytes at a time: every block is cut by the window's end somewhere.
  const auto trickled = read_trace_stream(std::make_unique<TrickleSource>(text, 97), "t");
  CHECK(trickled.kernel_names == trace.kernel_names);
}

TEST_CASE("Kineto: a mismatched bracket deep in a skipped value is found at its byte",
          "[profile]") {
  for (int shift : {0, 1, 30, 62, 63, 64, 65, 127, 200}) {
    INFO("shift " << shift);
    const std::string head = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")" +
                             std::string(static_cast<std::size_t>(shift), 'n') +
                             R"(", "args": {"s": "[\"}", "a": [1, {"b": [2]})";
    const std::string text = head + "}}]}";  // the array "a" closed by '}'
    CHECK_THROWS_WITH(read_trace_bytes(text, "bad.json"),
                      Contains("bad.json: byte " + std::to_string(head.size()) +
                               ": not valid JSON: expected ']', found '}'"));
  }
}

// Kernel names that share their length and most bytes (MT32x32 against MT64x32 in the same
// place) still get their own ids through the recent-name cache.
TEST_CASE("Kineto: kernel names that differ in one byte are told apart", "[profile]") {
  const std::string stem = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT";
  std::string text = "[";
  const std::vector<std::string> names = {stem + "32x32x256_MI16",
                                          stem + "64x32x256_MI16",
                                          stem + "32x32x256_MI32",
                                          stem + "32x32x255_MI16",
                                          stem + "32x32x256_MI16x",
                                          "a",
                                          "b",
                                          "ab"};
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (const auto& name : names) text += kernel_event(name, "1", "1") + ", ";
  }
  text += kernel_event(names[0], "1", "1") + "]";
  const auto trace = read_trace_bytes(text, "names.json");
  REQUIRE(trace.kernel_names == names);
  REQUIRE(trace.kernels.size() == 3 * names.size() + 1);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    CHECK(trace.kernels[i].name_id == i % names.size());
  }
}

}  // namespace unit_profile_readers
