// The trace readers: sniffing, the streaming Kineto scanner (whatever the chunk boundaries),
// timestamps to the nanosecond, and errors that say what and where.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"

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

TEST_CASE("sniffing looks at content, not names", "[profile]") {
  CHECK(sniff("\x1f\x8b\x08") == SniffedKind::gzip);
  CHECK(sniff(std::string("SQLite format 3\0rest", 20)) == SniffedKind::sqlite);
  CHECK(sniff("  \n{\"traceEvents\": []}") == SniffedKind::json);
  CHECK(sniff("\xEF\xBB\xBF[{}]") == SniffedKind::json);
  CHECK(sniff("Time (%),Total Time (ns),Instances\n") == SniffedKind::csv);
  CHECK(sniff("Generating SQLite file\nProcessing ...\n") == SniffedKind::unknown);
  CHECK(sniff("hello world") == SniffedKind::unknown);
}

TEST_CASE("timestamps become exact nanoseconds, old and new styles", "[profile]") {
  const std::string text = "[" + kernel_event("a", "4909914216204.635", "465716.634") + ", " +
                           kernel_event("b", "1700000000", "12") + ", " +
                           kernel_event("c", "1.5e3", "0.0004") + ", " +
                           kernel_event("d", "10.1239", "2.0005") + "]";
  const auto trace = read_trace_bytes(text, "t.json");
  REQUIRE(trace.kernels.size() == 4);
  CHECK(trace.kernels[0].start_ns == 4909914216204635LL);
  CHECK(trace.kernels[0].duration_ns == 465716634LL);
  CHECK(trace.kernels[1].start_ns == 1700000000000LL);
  CHECK(trace.kernels[1].duration_ns == 12000);
  CHECK(trace.kernels[2].start_ns == 1500000);
  CHECK(trace.kernels[2].duration_ns == 0);
  CHECK(trace.kernels[3].start_ns == 10124);  // rounded to the nearest ns
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
                    Contains("h.txt: not a trace kspeed can read (it starts with 'hello')"));
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
  CHECK(trace.kernels[1].instances == 10);
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

TEST_CASE("absurd numbers saturate or are rejected, never overflow", "[profile]") {
  const std::string big_start = "[" + kernel_event("a", "123456789012345678901234", "1") + "]";
  const auto trace = read_trace_bytes(big_start, "big.json");
  REQUIRE(trace.kernels.size() == 1);
  CHECK(trace.kernels[0].start_ns == 1000000000000000000LL);
  CHECK_THROWS_WITH(read_trace_bytes("[" + kernel_event("a", "1", "1e300") + "]", "big.json"),
                    Contains("big.json: traceEvents[0]: kernel duration") &&
                        Contains("is not a plausible kernel time"));
  CHECK_THROWS_WITH(read_trace_bytes("[" + kernel_event("a", "1", "-5") + "]", "neg.json"),
                    Contains("kernel duration -5 us"));
}
