// Reliability (issue 31): bounded JSON depth with non-recursive excerpts, one table of flag
// ranges, a bounded wait for a named pipe's other end, one open of a --calibrate file, and the
// files inside a folder given as an input counted as inputs. The whole-command cases are golden
// tests under tests/golden/cases/rel-31-*.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/report/render.hpp"
#include "kspeed/report/reports.hpp"

namespace unit_reliability {

using Catch::Matchers::Contains;
using kspeed::InputError;
namespace fs = std::filesystem;
namespace io = kspeed::io;

namespace {

struct Scratch {
  fs::path dir;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "kspeed-rel-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string file(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }
};

struct PeerWait {
  explicit PeerWait(const char* seconds) { ::setenv(io::kPeerWaitVariable, seconds, 1); }
  ~PeerWait() { ::unsetenv(io::kPeerWaitVariable); }
};

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("JSON nesting is measured in one pass, strings skipped", "[rel][json]") {
  CHECK_FALSE(io::json_nesting_beyond("{\"a\": [[1]]}", 3));
  CHECK(io::json_nesting_beyond("{\"a\": [[1]]}", 2) == std::size_t{7});  // the second '['
  CHECK_FALSE(io::json_nesting_beyond("\"[[[[[[\\\"[[[\"", 1));           // inside a string
  CHECK(io::json_nesting_beyond(nested(100000), io::kMaxRecordDepth) == io::kMaxRecordDepth);
  CHECK_FALSE(io::json_nesting_beyond(nested(io::kMaxRecordDepth), io::kMaxRecordDepth));
}

TEST_CASE("a bad value is quoted without recursion, however deep", "[rel][json]") {
  // 200,000 levels built with a loop: dump() would recurse once a level and overflow the stack.
  nlohmann::json deep = nlohmann::json::array();
  nlohmann::json* inner = &deep;
  for (int i = 0; i < 200000; ++i) {
    inner->push_back(nlohmann::json::array());
    inner = &inner->back();
  }
  const std::string quoted = io::json_value_excerpt(deep, 40);
  CHECK(quoted.size() <= 42);
  CHECK(quoted == std::string(quoted.size(), '['));
  // A flat value reads as dump() writes it.
  const nlohmann::json flat = nlohmann::json::parse(R"({"a":[1,2.5,"x"],"b":{"c":null}})");
  CHECK(io::json_value_excerpt(flat, 1000) == flat.dump());
  CHECK(io::json_value_excerpt(nlohmann::json(7), 40) == "7");
}

TEST_CASE("a request log line nested 100,000 deep is refused or skipped, never a crash",
          "[rel][json]") {
  const std::string deep_hash_ids =
      R"({"timestamp": 1, "input_length": 10, "output_length": 5, "hash_ids": )" + nested(100000) +
      "}";
  const std::string good =
      R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]})";
  SECTION("the first line: the detector says why") {
    CHECK_THAT(error_of([&] {
                 io::read_request_log_text(deep_hash_ids + "\n", "deep.jsonl", {},
                                           [](const kspeed::engine::Request&) {});
               }),
               Contains("deep.jsonl:1: the JSON nests deeper than 64 levels (at character 133)"));
  }
  SECTION("a later line: skipped and counted with the reason") {
    int delivered = 0;
    const io::RequestLogReport report =
        io::read_request_log_text(good + "\n" + deep_hash_ids + "\n", "deep.jsonl", {},
                                  [&](const kspeed::engine::Request&) { ++delivered; });
    CHECK(delivered == 1);
    REQUIRE(report.skipped.size() == 1);
    CHECK(report.skipped.front().reason == "nested deeper than 64 levels");
    CHECK(report.skipped.front().count == 1);
  }
  SECTION("a benchmark result") {
    CHECK_THAT(error_of([&] {
                 io::parse_bench_results("{\"backend\": " + nested(100000) + "}", "r.json");
               }),
               Contains("r.json: the JSON nests deeper than 64 levels (at byte 75)"));
  }
}

TEST_CASE("flag ranges come from one table, which --help prints", "[rel][ranges]") {
  CHECK(io::check_range("--alpha", 0.05, "0.05") == 0.05);
  CHECK_THAT(error_of([] { io::check_range("--alpha", 1e-17, "1e-17"); }),
             Contains("--alpha: '1e-17' is outside 1e-09 to 0.5"));
  CHECK_THAT(error_of([] { io::check_range("--power", 0.01, "0.01"); }),
             Contains("--power: '0.01' is outside 0.5 to 0.999999"));
  CHECK_THAT(error_of([] { io::check_range("--step-model KEY", 1e200, "fixed_ms=1e200"); }),
             Contains("--step-model: 'fixed_ms=1e200' is outside 0 to 100000"));
  CHECK_THAT(error_of([] { io::check_range("--bandwidth-efficiency", 1e-300, "1e-300"); }),
             Contains("is outside 0.01 to 1"));
  CHECK_THROWS_AS(io::flag_range("--no-such-flag"), std::logic_error);
  const std::string help = io::ranges_help({"--alpha", "--power", "--effect"});
  CHECK(help ==
        "\nRanges (values outside are refused):\n  --alpha  1e-09 to 0.5\n"
        "  --power  0.5 to 0.999999\n");
  CHECK(io::ranges_help({"--ctx"}).empty());
}

TEST_CASE("a named pipe without its other end is waited for, then refused", "[rel][fifo]") {
  Scratch scratch;
  const std::string fifo = scratch.path("f");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const PeerWait wait("0.2");
  SECTION("an input with no writer") {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { io::InputFile file(fifo, "request log"); }),
               Contains("is a named pipe that no program writes to (waited 0.2 s)"));
    CHECK(seconds_since(start) < 5);
  }
  SECTION("an output with no reader") {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { io::write_file_atomically(fifo, "x", "-o"); }),
               Contains("is a named pipe that no program reads from (waited 0.2 s)"));
    CHECK(seconds_since(start) < 5);
  }
  SECTION("an input whose writer comes within the wait") {
    const PeerWait longer("10");
    std::thread writer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::ofstream(fifo) << "hello";
    });
    io::InputFile file(fifo, "request log");
    CHECK(file.read_text() == "hello");
    writer.join();
  }
  SECTION("a bad setting") {
    const PeerWait bad("soon");
    CHECK_THAT(error_of([&] { io::InputFile file(fifo, "request log"); }),
               Contains("KSPEED_PEER_WAIT_SECONDS='soon' is not valid"));
  }
}

TEST_CASE("--calibrate reads its file once: a named pipe works", "[rel][fifo]") {
  Scratch scratch;
  const std::string fifo = scratch.path("f");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A second open would find no writer: with a short wait it is refused instead of hanging.
  const PeerWait wait("0.5");
  std::string log;
  for (int i = 0; i < 4; ++i) {
    const double arrival = 100.0 + i * 10;
    log += "{\"input_toks\": " + std::to_string(100 << i) +
           ", \"output_toks\": 20, \"arrival_time\": " + std::to_string(arrival) +
           ", \"queued_ts\": " + std::to_string(arrival) +
           ", \"first_token_ts\": " + std::to_string(arrival + 0.05) +
           ", \"last_token_ts\": " + std::to_string(arrival + 0.05 + 19 * 0.01) + "}\n";
  }
  std::thread writer([&] { std::ofstream(fifo) << log; });
  const io::CalibrationFile file = io::read_calibration_file(fifo, 1.0);
  writer.join();
  CHECK(file.format == "llmservingsim");
  CHECK(file.points.size() == 4);
  CHECK(file.points.front().ttft_ms == Approx(50.0));
  CHECK(file.points.front().tpot_ms == Approx(10.0));
}

TEST_CASE("the files inside a folder given as an input are inputs", "[rel][outputs]") {
  Scratch scratch;
  fs::create_directories(scratch.dir / "run1" / "sub");
  const std::string record = scratch.file("run1/profile_export.jsonl", "{}\n");
  const std::string deeper = scratch.file("run1/sub/x.json", "{}\n");
  const std::string folder = scratch.path("run1");
  const auto refused = [&](const std::string& output) {
    return error_of([&] { io::check_outputs_distinct({{folder, "the input"}}, {{output, "-o"}}); });
  };
  CHECK(refused(record) == "-o '" + record + "' is also a file of the input '" + folder + "': '" +
                               record +
                               "': writing it would replace what kspeed reads; write to another "
                               "file");
  CHECK_THAT(refused(deeper), Contains("is also a file of the input"));
  CHECK(refused(scratch.path("run1/new.json")) == "(no error)");  // a new file replaces nothing
  CHECK(refused(scratch.path("elsewhere.json")) == "(no error)");
}

TEST_CASE("a signal mid-write removes the temporary file and keeps the old output",
          "[rel][signal]") {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    Scratch scratch;
    const std::string output = scratch.file("out.json", "old\n");
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      io::remove_temporaries_on_signal();
      io::StagedOutput staged(output, "-o");
      staged.begin();
      staged.write(std::string(1 << 20, 'x'));  // part of the new file
      std::raise(signal_number);
      ::_exit(0);  // not reached: the handler ends the process with the signal
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(scratch.dir)) {
      ++files;
      CHECK(entry.path().filename() == "out.json");
    }
    CHECK(files == 1);
    CHECK(io::read_text_file(output, "output") == "old\n");
  }
}

TEST_CASE("binary inputs are named by what they are", "[rel][messages]") {
  using namespace std::string_literals;
  CHECK(io::describe_binary("\xFF\xFE{\0\"\0"s).starts_with("UTF-16 text (little-endian)"));
  CHECK(io::describe_binary("{\0\"\0a\0\"\0:\0 \0\x31\0}\0"s).starts_with("UTF-16 text (little"));
  CHECK(io::describe_binary("\0{\0\"\0a\0\"\0:\0 \0\x31\0}"s).starts_with("UTF-16 text (big"));
  CHECK(io::describe_binary("\x1F\x8B\x08\0\0\0"s).starts_with("gzip-compressed"));
  CHECK(io::describe_binary("PK\x03\x04\0\0"s).starts_with("a zip archive"));
  CHECK(io::describe_binary("SQLite format 3\0"s).starts_with("an SQLite database"));
  CHECK(io::describe_binary("\0\0\0\0"s) == "binary (it contains NUL bytes)");
  Scratch scratch;
  const std::string utf16 = scratch.file("log.csv", "\xFF\xFEp\0r\0o\0m\0p\0t\0\n\0"s);
  CHECK_THAT(error_of([&] { io::read_text_file(utf16, "workload file"); }),
             Contains("workload file '" + utf16 + "' is UTF-16 text (little-endian)"));
  CHECK_THAT(
      error_of([&] { io::read_request_log(utf16, {}, [](const kspeed::engine::Request&) {}); }),
      Contains(": the file is UTF-16 text (little-endian): kspeed reads UTF-8"));
}

TEST_CASE("a number beyond a double names its field", "[rel][messages]") {
  const auto ignore = [](const kspeed::engine::Request&) {};
  CHECK_THAT(error_of([&] {
               io::read_request_log_text(
                   "{\"metadata\": {\"timestamp_ns\": 1}, \"metrics\": {\"ttft\": {\"value\": "
                   "1e309, \"unit\": \"ms\"}}, \"error\": null}\n",
                   "n.jsonl", {}, ignore);
             }),
             Contains("n.jsonl:1: the number 1e309 (field value) is beyond the range of a double"));
  io::ReadOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of([&] {
               io::read_request_log_text(
                   "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": "
                   "[1]}\n{\"timestamp\": 1e309, \"input_length\": 10, \"output_length\": 5, "
                   "\"hash_ids\": [1]}\n",
                   "n2.jsonl", strict, ignore);
             }),
             Contains("n2.jsonl:2: the number 1e309 (field timestamp) is beyond the range"));
}

namespace {

// Three SGLang bench_serving runs (the fields the reader looks at), the third at another rate.
std::string sglang_runs_text() {
  const std::string run =
      R"({"backend": "sglang", "dataset_name": "random", "request_rate": RATE, )"
      R"("max_concurrency": null, "total_input_tokens": 152612, "total_output_tokens": 160347, )"
      R"("mean_e2e_latency_ms": 24370.8, "median_ttft_ms": 218.8, "duration": 317.5, )"
      R"("completed": 300, "random_input_len": 1024, "random_output_len": 1024})";
  const auto at_rate = [&run](const char* rate) {
    std::string line = run;
    line.replace(line.find("RATE"), 4, rate);
    return line + "\n";
  };
  return "\xEF\xBB\xBF" + at_rate("1.0") + "\n" + at_rate("1.0") + at_rate("4.0");
}

std::string audit_text(const kspeed::report::View& view) {
  return kspeed::report::render(kspeed::report::Report{view, {}}, kspeed::report::Format::text(),
                                {});
}

}  // namespace

TEST_CASE("an SGLang JSONL is read a line at a time, as the whole-text reader reads it",
          "[rel][audit]") {
  Scratch scratch;
  const std::string text = sglang_runs_text();
  const std::string path = scratch.file("runs.jsonl", text);
  std::vector<io::BenchResult> streamed;
  io::for_each_bench_result(
      path, [&](io::BenchResult&& result) { streamed.push_back(std::move(result)); });
  const std::vector<io::BenchResult> whole = io::parse_bench_results(text, path);
  REQUIRE(streamed.size() == 3);
  REQUIRE(whole.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(streamed[i].source == whole[i].source);
    CHECK(streamed[i].format == "sglang-bench-jsonl");
    REQUIRE(streamed[i].conditions.conditions.size() == whole[i].conditions.conditions.size());
    for (std::size_t k = 0; k < whole[i].conditions.conditions.size(); ++k) {
      CHECK(streamed[i].conditions.conditions[k].value == whole[i].conditions.conditions[k].value);
      CHECK(streamed[i].conditions.conditions[k].status ==
            whole[i].conditions.conditions[k].status);
    }
  }
  CHECK(streamed[2].source == path + ":4");  // the blank line 2 counts
  // The limits of the whole-text reader hold line by line: a later bad line names its number, a
  // NUL byte is binary, KSPEED_MAX_INPUT_BYTES bounds the whole file.
  const std::string bad = scratch.file("bad.jsonl", text + "{\"backend\": 1}\n");
  CHECK_THAT(error_of([&] { io::for_each_bench_result(bad, [](io::BenchResult&&) {}); }),
             Contains("bad.jsonl:5: not an SGLang bench_serving run"));
  const std::string nul = scratch.file("nul.jsonl", text + std::string(4, '\0'));
  CHECK_THAT(error_of([&] { io::for_each_bench_result(nul, [](io::BenchResult&&) {}); }),
             Contains("is binary (it contains NUL bytes); expected text"));
  const std::string deep = scratch.file("deep.jsonl", text + nested(100000) + "\n");
  CHECK_THAT(error_of([&] { io::for_each_bench_result(deep, [](io::BenchResult&&) {}); }),
             Contains("deep.jsonl:5: the JSON nests deeper than 64 levels"));
  ::setenv(io::kMaxInputBytesVariable, std::to_string(text.size() - 1).c_str(), 1);
  const std::string capped = error_of([&] { io::for_each_bench_result(path, [](auto&&) {}); });
  ::unsetenv(io::kMaxInputBytesVariable);
  CHECK_THAT(capped, Contains("is larger than " + std::to_string(text.size() - 1) + " bytes"));
}

TEST_CASE("audit's tally and its three view parts make audit_view's text", "[rel][audit]") {
  namespace engine = kspeed::engine;
  namespace report = kspeed::report;
  const std::vector<io::BenchResult> runs = io::parse_bench_results(sglang_runs_text(), "r.jsonl");
  for (const std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
    std::vector<engine::FileConditions> files;
    engine::AuditTally tally;
    for (std::size_t i = 0; i < count; ++i) {
      files.push_back(runs[i].conditions);
      tally.add(runs[i].conditions);
    }
    const engine::Audit whole = engine::audit_conditions(files);
    const engine::Audit summary = tally.summary();
    CHECK(summary.files.empty());
    CHECK(summary.file_count == count);
    CHECK(summary.comparable == whole.comparable);
    CHECK(summary.differing == whole.differing);
    CHECK(summary.unchecked == whole.unchecked);
    REQUIRE(summary.comparisons.size() == whole.comparisons.size());
    for (std::size_t k = 0; k < whole.comparisons.size(); ++k) {
      CHECK(summary.comparisons[k].omitted == whole.comparisons[k].omitted);
    }
    std::string parts =
        audit_text(report::audit_head_view(summary, count == 1 ? &files.front() : nullptr));
    for (const engine::FileConditions& file : files) {
      parts += "\n" + audit_text(report::audit_file_view(file));
    }
    parts += "\n" + audit_text(report::audit_tail_view(summary));
    CHECK(parts == audit_text(report::audit_view(whole)));
  }
  // Runs 1 and 3 differ in their rate: the tally says so.
  engine::AuditTally tally;
  for (const io::BenchResult& run : runs) tally.add(run.conditions);
  CHECK(tally.summary().differing == std::vector<std::string>{"concurrency"});
}

}  // namespace unit_reliability
