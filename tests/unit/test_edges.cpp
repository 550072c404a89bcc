// Reliability at the edges of the commands (issue 19): one way to open an input, output paths
// compared by device and inode, bounded line reading, numbers range-checked where they are read,
// and no inf or nan in a report. The whole-command cases (FIFOs, /dev/full, /dev/zero, sparse
// files) are golden tests under tests/golden/cases/edges-*.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/report/human.hpp"

namespace unit_edges {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using kspeed::InputError;
namespace fs = std::filesystem;
namespace io = kspeed::io;

namespace {

// A scratch folder, removed with everything in it.
struct Scratch {
  fs::path dir;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "kspeed-edges-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string file(const std::string& name, const std::string& content) const {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

// KSPEED_MAX_INPUT_BYTES for one test.
struct InputLimit {
  explicit InputLimit(const char* bytes) { ::setenv(io::kMaxInputBytesVariable, bytes, 1); }
  ~InputLimit() { ::unsetenv(io::kMaxInputBytesVariable); }
};

template <class Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string drain(io::trace::ByteSource& source) {
  std::string out;
  char chunk[7];
  while (const std::size_t n = source.read(chunk, sizeof chunk)) out.append(chunk, n);
  return out;
}

}  // namespace

TEST_CASE("an input file is opened once: its head is read from the descriptor the rest is",
          "[edges][io]") {
  Scratch scratch;
  const std::string path = scratch.file("a.txt", "0123456789abcdef");
  SECTION("the size of a regular file comes from fstat") {
    io::InputFile file(path, "input");
    CHECK(file.regular());
    CHECK(file.size() == 16);
  }
  SECTION("the head, asked for twice, then the text: nothing read twice or lost") {
    io::InputFile file(path, "input");
    CHECK(file.head(4) == "0123");
    CHECK(file.head(6) == "012345");
    CHECK(file.read_text() == "0123456789abcdef");
  }
  SECTION("a stream from an offset inside the head replays the rest of the head") {
    io::InputFile file(path, "input");
    CHECK(file.head(10) == "0123456789");
    std::unique_ptr<io::trace::ByteSource> stream = file.stream(4);
    CHECK(drain(*stream) == "456789abcdef");
  }
  SECTION("a pipe is read once, from its one descriptor") {
    int ends[2];
    REQUIRE(::pipe(ends) == 0);
    REQUIRE(::write(ends[1], "{\"a\": 1}\n", 9) == 9);
    ::close(ends[1]);
    io::InputFile file("/dev/fd/" + std::to_string(ends[0]), "input");
    ::close(ends[0]);  // the InputFile holds its own descriptor
    CHECK_FALSE(file.regular());
    CHECK(file.head(3) == "{\"a");
    CHECK(file.read_text() == "{\"a\": 1}\n");
  }
  SECTION("missing and folder inputs are named") {
    CHECK_THAT(error_of([&] { io::InputFile file(scratch.path("none.json"), "workload file"); }),
               Contains("does not exist"));
    CHECK_THAT(error_of([&] { io::InputFile file(scratch.dir.string(), "workload file"); }),
               Contains("is a folder"));
  }
}

TEST_CASE("an oversized regular file is refused by its size, before it is read", "[edges][io]") {
  Scratch scratch;
  const std::string path = scratch.path("sparse.json");
  { std::ofstream(path) << ""; }
  // 3 GB of NULs that take no disk: refused by fstat's size, not by reading 256 MB of zeros.
  REQUIRE(::truncate(path.c_str(), std::int64_t{3} << 30) == 0);
  CHECK_THAT(error_of([&] { io::read_text_file(path, "workload file"); }),
             Contains("is larger than 268435456 bytes"));
  const InputLimit limit("8");
  const std::string small = scratch.file("small.json", "{\"a\": 12345}");
  CHECK_THAT(error_of([&] { io::read_text_file(small, "workload file"); }),
             Contains("is larger than 8 bytes") && Contains("KSPEED_MAX_INPUT_BYTES"));
}

TEST_CASE("outputs are compared with inputs and with each other by device and inode",
          "[edges][io]") {
  Scratch scratch;
  const std::string log = scratch.file("log.csv", "a,b\n1,2\n");
  const std::string link = scratch.path("link.csv");
  const std::string hard = scratch.path("hard.csv");
  fs::create_symlink(log, link);
  fs::create_hard_link(log, hard);
  const auto refused = [](const std::vector<io::NamedPath>& inputs,
                          const std::vector<io::NamedPath>& outputs) {
    return error_of([&] { io::check_outputs_distinct(inputs, outputs); });
  };
  SECTION("an output that is an input, by any name") {
    for (const std::string& name : {log, link, hard, scratch.dir.string() + "/./log.csv"}) {
      CHECK_THAT(refused({{log, "the input"}}, {{name, "--per-request"}}),
                 StartsWith("--per-request '") && Contains("is also the input") &&
                     Contains("write to another file"));
    }
  }
  SECTION("two outputs that are one file, existing or not yet") {
    CHECK_THAT(refused({}, {{log, "-o"}, {hard, "--plot"}}),
               Contains("--plot '") && Contains("is the same file as -o '"));
    const std::string fresh = scratch.path("out.svg");
    CHECK_THAT(refused({}, {{fresh, "-o"}, {scratch.dir.string() + "/./out.svg", "--plot"}}),
               Contains("one output would replace the other"));
    const std::string dangling = scratch.path("dangling.svg");
    fs::create_symlink("out.svg", dangling);  // writing through it would create out.svg
    CHECK_THAT(refused({}, {{fresh, "-o"}, {dangling, "--plot"}}),
               Contains("one output would replace the other"));
  }
  SECTION("distinct files, stdout and devices pass") {
    CHECK(refused({{log, "the input"}}, {{scratch.path("a.json"), "-o"},
                                         {scratch.path("b.svg"), "--plot"}}) == "(no error)");
    CHECK(refused({{log, "the input"}}, {{"-", "-o"}, {"-", "--plot"}}) == "(no error)");
    CHECK(refused({}, {{"/dev/null", "-o"}, {"/dev/null", "--plot"}}) == "(no error)");
  }
}

TEST_CASE("request-log lines are bounded, NULs refused, and a long line read once",
          "[edges][requests]") {
  const auto read = [](const std::string& text) {
    return error_of(
        [&] { io::read_request_log_text(text, "log", io::ReadOptions{}, [](const auto&) {}); });
  };
  SECTION("NUL bytes (/dev/zero, a sparse file) are not a text log") {
    CHECK_THAT(read(std::string(100000, '\0')),
               StartsWith("log: the file is binary (a NUL byte at byte 0)"));
  }
  SECTION("one line longer than the limit stops at the limit, with the limit's message") {
    const InputLimit limit("100000");
    CHECK_THAT(read(std::string(300000, 'x')),
               StartsWith("log:1: one line or record is larger than 100000 bytes") &&
                   Contains("KSPEED_MAX_INPUT_BYTES"));
  }
  SECTION("a whole-file vLLM JSON log is bounded as one record") {
    const InputLimit limit("100000");
    std::string text = "{\"input_lens\": [\n";
    for (int i = 0; i < 50000; ++i) text += "1,\n";
    CHECK_THAT(read(text), Contains("is larger than 100000 bytes"));
  }
  SECTION("a JSONL number past a double is named, not called truncated") {
    io::ReadOptions strict;
    strict.strict = true;
    const std::string good = "{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 3}\n";
    const std::string bad = "{\"timestamp\": 2, \"input_length\": 1e400, \"output_length\": 3}\n";
    CHECK_THAT(
        error_of([&] { io::read_request_log_text(bad, "log", strict, [](const auto&) {}); }),
        StartsWith("log:1: the number 1e400 (field input_length) is beyond the range of a double"));
    CHECK_THAT(
        error_of([&] { io::read_request_log_text(good + bad, "log", strict, [](const auto&) {}); }),
        StartsWith("log:2: the number 1e400 (field input_length) is beyond the range of a double"));
  }
  SECTION("a date past 2262 is a range problem, not a format one") {
    io::ReadOptions strict;
    strict.strict = true;
    strict.columns =
        io::parse_column_mapping("prompt=p,response=r,arrival=t:datetime", "--columns");
    CHECK_THAT(error_of([&] {
                 io::read_request_log_text("p,r,t\n1,2,9999-01-01 00:00:00\n", "log", strict,
                                           [](const auto&) {});
               }),
               Contains("a year outside 1678-2261"));
  }
}

TEST_CASE("ncu quantities are range-checked where they are read", "[edges][ncu]") {
  const std::string header =
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  const auto row = [&](const std::string& metric, const std::string& unit,
                       const std::string& value) {
    return error_of([&] {
      io::parse_ncu_csv(
          header + "\"0\",\"k\",\"s\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\"\n",
          "t.csv");
    });
  };
  CHECK_THAT(row("dram__bytes_read.sum", "byte", "-3,000,000"),
             StartsWith("t.csv:2: metric 'dram__bytes_read.sum' holds -3,000,000 byte") &&
                 Contains("expected a measured quantity, >= 0"));
  CHECK_THAT(row("gpu__time_duration.sum", "usecond", "-5000"), Contains("holds -5000 usecond"));
  CHECK_THAT(row("dram__bytes_read.sum", "Gbyte", "1e300"), Contains("at most 1e18"));
  CHECK(row("dram__bytes_read.sum", "byte", "3,000,000") == "(no error)");
}

TEST_CASE("benchmark-result latencies and counts are range-checked where they are read",
          "[edges][bench]") {
  const auto vllm = [](const std::string& field, const std::string& value) {
    return error_of([&] {
      io::parse_bench_results("{\"backend\": \"vllm\", \"completed\": 10, \"mean_ttft_ms\": 5, \"" +
                                  field + "\": " + value + "}",
                              "b.json");
    });
  };
  CHECK_THAT(vllm("mean_tpot_ms", "-1"),
             StartsWith("b.json: mean_tpot_ms is -1: expected a latency in milliseconds, >= 0"));
  CHECK_THAT(vllm("p99_ttft_ms", "18446744073709551616"), Contains("at most 1e9"));
  CHECK_THAT(vllm("median_ttft_ms", "1e300"), Contains("median_ttft_ms is 1e+300"));
  CHECK_THAT(vllm("total_input_tokens", "-5"), Contains("total_input_tokens is -5"));
  CHECK_THAT(vllm("median_ttft_ms", "1e309"),
             StartsWith("b.json:1: the number 1e309 is beyond the range of a double"));
  CHECK(vllm("median_ttft_ms", "4") == "(no error)");
  SECTION("an SGLang line past a double is named with its line, not misdiagnosed") {
    const std::string run =
        "{\"backend\": \"sglang\", \"completed\": 3, \"mean_e2e_latency_ms\": 7, "
        "\"dataset_name\": \"random\"}\n";
    CHECK_THAT(error_of([&] {
                 io::parse_bench_results(run +
                                             "{\"backend\": \"sglang\", \"completed\": 3, "
                                             "\"mean_e2e_latency_ms\": 1e309}\n",
                                         "s.jsonl");
               }),
               StartsWith("s.jsonl:2: the number 1e309 is beyond the range of a double"));
  }
}

TEST_CASE("a ratio that is not a number is never printed as inf or nan", "[edges][report]") {
  using kspeed::report::human_figure;
  using kspeed::report::human_ms;
  using kspeed::report::human_percent;
  using kspeed::report::human_speedup;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(human_speedup(inf) == "n/a");
  CHECK(human_speedup(-nan) == "n/a");
  CHECK(human_ms(inf) == "n/a");
  CHECK(human_percent(nan) == "n/a");
  CHECK(human_figure(-inf) == "n/a");
  SECTION("a before of 5e-324 ms gives no ratio, not inf") {
    kspeed::engine::BenchSide before;
    kspeed::engine::BenchSide after;
    const auto ttft = static_cast<std::size_t>(kspeed::engine::LatencyMetric::ttft);
    const auto mean = static_cast<std::size_t>(kspeed::engine::LatencyStatistic::mean);
    before.stated.at(ttft).at(mean) = 5e-324;
    after.stated.at(ttft).at(mean) = 1.0;
    const kspeed::engine::BenchDiff diff =
        kspeed::engine::compare_bench(before, after, kspeed::engine::BootstrapOptions{});
    REQUIRE(diff.changes.size() == 1);
    CHECK(diff.changes.front().ratio == 0);
  }
}

TEST_CASE("a staged output written in pieces replaces the file only when committed",
          "[edges][io]") {
  Scratch scratch;
  const std::string path = scratch.file("out.ndjson", "old\n");
  SECTION("pieces, then commit") {
    io::StagedOutput output(path, "--per-request");
    output.begin();
    output.write("{\"a\": 1}\n");
    output.write("{\"a\": 2}\n");
    output.end();
    CHECK(io::read_text_file(path, "output") == "old\n");
    output.commit();
    CHECK(io::read_text_file(path, "output") == "{\"a\": 1}\n{\"a\": 2}\n");
  }
  SECTION("abandoned half way: the old file stays and no temporary file is left") {
    {
      io::StagedOutput output(path, "--per-request");
      output.begin();
      output.write("{\"a\": 1}\n");
    }
    CHECK(io::read_text_file(path, "output") == "old\n");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(scratch.dir)) ++files;
    CHECK(files == 1);
  }
  SECTION("a device is written through when committed: /dev/full fails with the reason") {
    io::StagedOutput output("/dev/full", "--plot");
    output.begin();
    output.write("<svg/>");
    output.end();
    CHECK_THAT(error_of([&] { output.commit(); }),
               StartsWith("--plot '/dev/full': writing failed: No space left on device"));
  }
}

}  // namespace unit_edges
