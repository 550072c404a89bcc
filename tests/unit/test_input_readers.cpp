// Input hardening of the JSON readers (issue 12): numbers beyond a double, duplicate keys,
// absurd figures, misspelt presets, size limits, linear time on large inputs, and messages
// that quote at most a short escaped excerpt.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/pattern_reader.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"

namespace unit_input_readers {

using namespace kspeed::io;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using kspeed::excerpt;
using kspeed::InputError;

namespace {

const std::string kGpu = R"({"peak_dense_tflops": {"bf16": 989.4}, "hbm_bandwidth_tbs": 3.35,
  "memory_gb": 80})";

std::string gpu_with(const std::string& key, const std::string& value) {
  std::string text = kGpu;
  const std::size_t at = text.find("\"" + key + "\": ") + key.size() + 4;
  const std::size_t end = text.find_first_of(",}", at);
  return text.replace(at, end - at, value);
}

const std::string kModel = R"({"layers": 32, "attention": {"type": "gqa", "query_heads": 32,
  "kv_heads": 8, "head_dim": 128}, "parameters": {"total_billions": 8, "active_billions": 8},
  "weight_dtype": "bf16", "kv_dtype": "bf16"})";

// Sets KSPEED_MAX_INPUT_BYTES for one scope.
class InputLimit {
 public:
  explicit InputLimit(const char* bytes) { ::setenv(kMaxInputBytesVariable, bytes, 1); }
  ~InputLimit() { ::unsetenv(kMaxInputBytesVariable); }
  InputLimit(const InputLimit&) = delete;
  InputLimit& operator=(const InputLimit&) = delete;
};

std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() / ("kspeed-test-" + name);
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

}  // namespace

TEST_CASE("excerpt: short, escaped, cut with the full size", "[io]") {
  CHECK(excerpt("flash_fwd") == "flash_fwd");
  CHECK(excerpt("a\x1b[31mred\a\r\n\t\x7f") == "a\\e[31mred\\a\\r\\n\\t\\x7f");
  CHECK(excerpt("caf\xC3\xA9 \xE2\x80\x94 ok") == "caf\xC3\xA9 \xE2\x80\x94 ok");  // UTF-8 kept
  CHECK(excerpt("\xff\xfe") == "\\xff\\xfe");                                      // not UTF-8
  CHECK(excerpt("\xC2\x9B"
                "2J") == "\\u009b2J");                  // C1 CSI: a terminal escape
  CHECK(excerpt("\xED\xA0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  CHECK(excerpt(std::string(10'000'000, 'k')) == std::string(60, 'k') + "... (10000000 bytes)");
  CHECK(excerpt("abcdef", 3) == "abc... (6 bytes)");
}

TEST_CASE("JSON numbers beyond a double name file:line:col and the field", "[io]") {
  CHECK_THROWS_WITH(parse_workload("{\"request\": {\n  \"ttft_ms\": 7E777}}", "w.json"),
                    "w.json:2:14: request.ttft_ms: the number 7E777 is beyond the range of a "
                    "double (about 1.8e308): expected a plausible figure");
  CHECK_THROWS_WITH(parse_gpu(gpu_with("memory_gb", "-1e999"), "g.json"),
                    StartsWith("g.json:2:16: memory_gb: the number -1e999 is beyond"));
  CHECK_THROWS_WITH(parse_workload(R"({"attention_share": {"prefill": [{"context": 1, "share": 0.5},
        {"context": 2, "share": 1e400}]}})",
                                   "w.json"),
                    StartsWith("w.json:2:33: attention_share.prefill[1].share: the number 1e400"));
  CHECK_THROWS_WITH(parse_pattern_file(R"({"patterns": [], "x": 1e999})", "p.json"),
                    StartsWith("p.json:1:23: x: the number 1e999"));
  CHECK_THROWS_WITH(parse_workload("{\"batch\": " + std::string(200, '9') + "}", "w.json"),
                    StartsWith("w.json:1:11: batch: a number of 200 characters"));
  // Underflow is no overflow: 1e-999 reads as 0 and the field's own check refuses it.
  CHECK_THROWS_WITH(parse_gpu(gpu_with("memory_gb", "1e-999"), "g.json"),
                    Contains("memory_gb: expected a number greater than 0, found 0.0"));
}

TEST_CASE("a duplicate JSON key names the key and both lines", "[io]") {
  CHECK_THROWS_WITH(parse_workload("{\"request\": {\"ttft_ms\": 5,\n \"ttft_ms\": 6}}", "w.json"),
                    "w.json:2:2: request.ttft_ms: the key 'ttft_ms' appears twice in one object "
                    "(first at line 1): JSON readers disagree on which one counts; keep one");
  // Escaped spellings of one key are the same key.
  CHECK_THROWS_WITH(parse_model(R"({"layers": 1, "l\u0061yers": 2})", "m.json"),
                    Contains("m.json:1:15: layers: the key 'layers' appears twice"));
  // The same key in two objects is fine.
  CHECK_NOTHROW(parse_json_document(R"([{"a": 1}, {"a": 2}])", "x.json"));
}

TEST_CASE("depth is limited without a parse callback, in linear time", "[io]") {
  CHECK_THROWS_WITH(parse_json_document(std::string(33, '[') + std::string(33, ']'), "d.json"),
                    "d.json: nesting is deeper than 32 levels: expected a flat kspeed document");
  CHECK_NOTHROW(parse_json_document(std::string(32, '[') + std::string(32, ']'), "d.json"));
  // 200,000 share points: nlohmann's callback made this O(n^2) (10.8 s); now one linear pass.
  std::string points = "{\"attention_share\": {\"prefill\": [";
  for (int i = 1; i <= 200'000; ++i) {
    points += (i == 1 ? "" : ",") + std::string("{\"context\": ") + std::to_string(i) +
              ", \"share\": 0.5}";
  }
  points += "]}}";
  const auto workload = parse_workload(points, "big.json");
  CHECK(workload.prefill_shares.size() == 200'000);
  CHECK(workload.prefill_shares.back().context_tokens == 200'000);
}

TEST_CASE("an unknown 10 MB key: no suggestion search, a short message", "[io]") {
  const std::string key(10'000'000, 'q');
  try {
    parse_workload("{\"" + key + "\": 1}", "w.json");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    const std::string message = error.what();
    CHECK(message.size() < 400);
    CHECK_THAT(message, StartsWith("w.json: " + std::string(60, 'q') +
                                   "... (10000000 bytes): "
                                   "unknown key '" +
                                   std::string(60, 'q')));
    CHECK_THAT(message, Contains("expected one of: name, description"));
  }
  CHECK_FALSE(closest_match(std::string(65, 'n'), {"name"}));
  CHECK(closest_match("nmae", {"name"}) == "name");
}

TEST_CASE("control characters from files reach messages escaped", "[io]") {
  CHECK_THROWS_WITH(parse_workload(R"({"share_origin": "meas\u001b[2Jured"})", "w.json"),
                    Contains("unknown value 'meas\\e[2Jured'"));
  CHECK_THROWS_WITH(parse_workload("{\"re\\u0007quest\": {}}", "w.json"),
                    Contains("unknown key 're\\aquest'"));
}

TEST_CASE("absurd GPU and model figures are refused with their field", "[io]") {
  CHECK_THROWS_WITH(parse_gpu(gpu_with("hbm_bandwidth_tbs", "5e-324"), "g.json"),
                    "g.json: hbm_bandwidth_tbs: expected TB/s from 0.001 to 100, found 5e-324");
  CHECK_THROWS_WITH(parse_gpu(gpu_with("bf16", "1e300"), "g.json"),
                    "g.json: peak_dense_tflops.bf16: expected dense TFLOP/s from 0.01 to 1e6, "
                    "found 1e+300");
  CHECK_THROWS_WITH(parse_gpu(gpu_with("hbm_bandwidth_tbs", "3350"), "g.json"),
                    Contains("that looks like GB/s"));
  std::string model = kModel;
  model.replace(model.find("\"total_billions\": 8"), 19, "\"total_billions\": 1e300");
  CHECK_THROWS_WITH(parse_model(model, "m.json"),
                    "m.json: parameters.total_billions: expected billions of parameters from "
                    "1e-6 to 1e6, found 1e+300");
  CHECK_THROWS_WITH(parse_workload(R"({"request": {"tpot_ms": 5e-324}})", "w.json"),
                    "w.json: request.tpot_ms: expected at least 1e-6 ms (1 ns), found 5e-324");
  CHECK_THROWS_WITH(parse_duration_ms("5e-300s", "--ttft"),
                    "--ttft: '5e-300s' is too short: expected at least 1 ns (1e-6 ms)");
  CHECK_NOTHROW(parse_model(kModel, "m.json"));
  CHECK_NOTHROW(parse_gpu(kGpu, "g.json"));
}

TEST_CASE("a workload naming a misspelt model or GPU preset is refused", "[io]") {
  CHECK_THROWS_WITH(parse_workload(R"({"model": "llama-3.1-7b"})", "w.json"),
                    "w.json: model: unknown model 'llama-3.1-7b', did you mean 'llama-3.1-70b'? "
                    "(kspeed models lists them; a path to a model file works too)");
  CHECK_THROWS_WITH(parse_workload(R"({"gpu": "h10-sxm"})", "w.json"),
                    "w.json: gpu: unknown GPU 'h10-sxm', did you mean 'h100-sxm'? (kspeed gpus "
                    "lists them; a path to a GPU file works too)");
  const auto workload = parse_workload(R"({"model": "llama-3.1-70b", "gpu": "my/gpu.json"})", "w");
  CHECK(workload.model == "llama-3.1-70b");
  CHECK(workload.gpu == "my/gpu.json");  // a path: read when an estimate uses it
}

TEST_CASE("load_named: built-in or file, one rule for workloads, GPUs and models", "[io]") {
  CHECK(load_gpu("h100-sxm").hbm_bandwidth_tbs == 3.35);
  CHECK(load_model("llama-3.1-8b").name == "llama-3.1-8b");
  const std::string path = temp_file("my-gpu.json", kGpu);
  CHECK(load_gpu(path).name == "kspeed-test-my-gpu");  // no name: the file's stem
  CHECK_THROWS_WITH(load_gpu("h10-sxm"),
                    StartsWith("unknown GPU 'h10-sxm', did you mean 'h100-sxm'?"));
  CHECK_THROWS_WITH(load_workload("deepseek-r1"),
                    StartsWith("unknown built-in workload 'deepseek-r1', did you mean "
                               "'deepseek-r1-fp8'?"));
  CHECK_THROWS_WITH(load_model("nope.json"), StartsWith("model file 'nope.json' does not exist"));
  std::filesystem::remove(path);
}

TEST_CASE("input files are read with a size limit; /dev/zero fails at once", "[io]") {
  CHECK(max_input_bytes() == 256ULL << 20);
  const std::string path = temp_file("limit.json", "{\"name\": \"" + std::string(100, 'x') + "\"}");
  {
    const InputLimit limit("50");
    CHECK(max_input_bytes() == 50);
    CHECK_THROWS_WITH(
        read_text_file(path, "workload file"),
        Contains("is larger than 50 bytes, the most kspeed reads from an input file") &&
            Contains("set KSPEED_MAX_INPUT_BYTES to raise the limit"));
  }
  CHECK(read_text_file(path, "workload file").size() == 112);
  {
    const InputLimit limit("12q");
    CHECK_THROWS_WITH(max_input_bytes(),
                      "KSPEED_MAX_INPUT_BYTES='12q' is not valid: expected a "
                      "whole number of bytes >= 1 (268435456 is the default, "
                      "256 MiB)");
  }
  std::filesystem::remove(path);
  // A device: refused at its first NUL byte, after one 64 KiB read.
  CHECK_THROWS_WITH(read_text_file("/dev/zero", "workload file"),
                    "workload file '/dev/zero' is binary (it contains NUL bytes); expected text");
  // A never-ending text stream is cut at the limit, however it arrives.
  {
    const InputLimit limit("100000");
    const auto fifo = std::filesystem::temp_directory_path() / "kspeed-test-fifo";
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const pid_t writer = ::fork();
    if (writer == 0) {
      const int fd = ::open(fifo.c_str(), O_WRONLY);
      const std::string spaces(4096, ' ');
      while (::write(fd, spaces.data(), spaces.size()) > 0) {
      }
      ::_exit(0);
    }
    CHECK_THROWS_WITH(read_text_file(fifo.string(), "GPU file"),
                      Contains("is larger than 100000 bytes"));
    ::waitpid(writer, nullptr, 0);
    std::filesystem::remove(fifo);
  }
}

TEST_CASE("the same input file twice is refused, by path or by content", "[io]") {
  const auto folder =
      std::filesystem::temp_directory_path() / ("kspeed-distinct-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto write = [&folder](const char* name, const char* text) {
    std::ofstream(folder / name) << text;
    return (folder / name).string();
  };
  const std::string a = write("a.json", "{\"traceEvents\": []}");
  const std::string b = write("b.json", "{\"traceEvents\": []}");   // same bytes
  const std::string c = write("c.json", "{\"traceEvents\": [1]}");  // other size
  const std::string d = write("d.json", "{\"traceEvents\": [2]}");  // same size, other bytes
  CHECK_NOTHROW(kspeed::io::check_distinct_files({a, c, d}, "trace file"));
  CHECK_THROWS_WITH(kspeed::io::check_distinct_files({a, b}, "trace file"),
                    Catch::Contains("has the same content as"));
  CHECK_THROWS_WITH(
      kspeed::io::check_distinct_files({a, (folder / "." / "a.json").string()}, "trace file"),
      Catch::Contains("is the same file as"));
  std::filesystem::remove_all(folder);
}

}  // namespace unit_input_readers
