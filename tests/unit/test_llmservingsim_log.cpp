// LLMServingSim's per-request vLLM records as a request log (mix, --calibrate): detection, the
// server-side latencies, tolerance (CRLF, missing fields, Infinity, epoch-µs integers), a bad
// line, the queue-dominated TTFTs --calibrate leaves out, and the real RTX PRO 6000 run.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/requests/request_log.hpp"

namespace unit_llmservingsim_log {

using namespace kspeed::io;
using Catch::Matchers::Contains;
using kspeed::InputError;
using kspeed::engine::Request;

namespace {

std::vector<Request> read_all(const std::string& text, RequestLogReport& report,
                              ReadOptions options = {}) {
  std::vector<Request> out;
  report =
      read_request_log_text(text, "log", options, [&out](const Request& r) { out.push_back(r); });
  return out;
}

// queued 100 s; scheduled 1 ms later; first token 101 ms after queued; 11 tokens over 1 s more.
const std::string kFirst =
    R"({"request_id": "bench-0", "input_toks": 2358, "output_toks": 11, "arrival_time": )"
    R"(1777142838.338653, "queued_ts": 100.0, "scheduled_ts": 100.001, "first_token_ts": )"
    R"(100.101, "last_token_ts": 101.101})";

}  // namespace

TEST_CASE("LLMServingSim records: server-side latencies from queued_ts, arrival by queued_ts",
          "[requests][llmservingsim]") {
  const std::string second =
      R"({"request_id": "bench-1", "input_toks": 900, "output_toks": 1, "queued_ts": 100.5, )"
      R"("first_token_ts": Infinity, "last_token_ts": 100.7})";
  RequestLogReport report;
  const std::vector<Request> requests = read_all(kFirst + "\r\n" + second + "\r\n", report);
  CHECK(report.format == RequestFormat::llmservingsim_jsonl);
  CHECK(to_string(report.format) == "llmservingsim");
  REQUIRE(requests.size() == 2);
  const Request& r = requests[0];
  CHECK(r.prompt_tokens == 2358);
  CHECK(r.response_tokens == 11);
  CHECK(*r.ttft_ms == Approx(101.0));
  CHECK(*r.queue_ms == Approx(1.0));
  CHECK(*r.e2e_ms == Approx(1101.0));
  CHECK(*r.tpot_ms == Approx(100.0));  // (101.101 - 100.101) s / (11 - 1)
  CHECK(*r.arrival_s == 0.0);
  CHECK(r.id == "bench-0");
  // Infinity reads as absent: no TTFT or TPOT; no scheduled_ts: no queue; E2E still measured.
  CHECK(*requests[1].arrival_s == Approx(0.5));
  CHECK_FALSE(requests[1].ttft_ms);
  CHECK_FALSE(requests[1].tpot_ms);
  CHECK_FALSE(requests[1].queue_ms);
  CHECK(*requests[1].e2e_ms == Approx(200.0));
}

TEST_CASE("LLMServingSim records: integer epoch-µs timestamps are read exactly",
          "[requests][llmservingsim]") {
  RequestLogReport report;
  const std::vector<Request> requests = read_all(
      R"({"input_toks": 5, "output_toks": 3, "queued_ts": 1777142838338653, "first_token_ts": )"
      R"(1777142838348653, "last_token_ts": 1777142838368653})"
      "\n"
      R"({"input_toks": 5, "output_toks": 3, "queued_ts": 1777142838338654})"
      "\n",
      report);
  REQUIRE(requests.size() == 2);
  CHECK(*requests[0].ttft_ms == 10.0);
  CHECK(*requests[0].tpot_ms == 10.0);
  CHECK(*requests[1].arrival_s == Approx(1e-6));
  CHECK_FALSE(requests[1].ttft_ms);
}

TEST_CASE("LLMServingSim records: a bad line is skipped and located, fatal in strict mode",
          "[requests][llmservingsim]") {
  const std::string text =
      kFirst + "\n" + R"({"input_toks": 10, "output_toks": 4, "queued_ts": 1)" + "\n" +
      R"({"input_toks": 10, "output_toks": 4, "queued_ts": 5.0, "first_token_ts": 4.0})" + "\n";
  RequestLogReport report;
  const std::vector<Request> requests = read_all(text, report);
  CHECK(requests.size() == 1);
  CHECK(report.records == 3);
  REQUIRE(report.skipped.size() == 2);
  CHECK(report.skipped[0].reason == "not a complete JSON value");
  CHECK(report.skipped[0].first_lines == std::vector<std::int64_t>{2});
  CHECK(report.skipped[1].reason == "timestamps out of order");
  CHECK_THAT(report.skipped[1].first_detail, Contains("first token -1000.000 ms after queued_ts"));
  ReadOptions strict;
  strict.strict = true;
  CHECK_THROWS_WITH(read_all(text, report, strict),
                    Contains("log:2: ") && Contains("not a complete JSON value"));
}

TEST_CASE("--calibrate leaves out the TTFTs that are mostly queue",
          "[calibration][llmservingsim]") {
  // One request scheduled at once, one that waited 5 s of its 5.1 s TTFT.
  const std::string queued =
      R"({"input_toks": 2000, "output_toks": 11, "queued_ts": 101.0, "scheduled_ts": 106.0, )"
      R"("first_token_ts": 106.1, "last_token_ts": 107.1})";
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "kspeed_test_llmservingsim_requests.jsonl";
  std::ofstream(path) << kFirst << "\n" << queued << "\n";
  const CalibrationFile file = read_calibration_file(path.string(), 4.0);
  std::filesystem::remove(path);
  CHECK(file.format == "llmservingsim");
  REQUIRE(file.points.size() == 2);
  CHECK(*file.points[0].ttft_ms == Approx(101.0));
  CHECK_FALSE(file.points[1].ttft_ms);  // 5000 ms queued of 5100: left out
  CHECK(*file.points[1].tpot_ms == Approx(100.0));
  CHECK(file.ttft_note ==
        "TTFT of the 1 requests that queued for at most 10% of it; the 1 that queued longer "
        "(mean 5000 ms) are left out of the overhead fit");
}

TEST_CASE("the RTX PRO 6000 Llama-3.1-8B run reads as a request log", "[llmservingsim][real]") {
  const std::string path = std::string(KSPEED_SOURCE_DIR) +
                           "/../shared/data/serving/llmservingsim-vllm0.19-per-request/"
                           "RTXPRO6000_Llama-3.1-8B/requests.jsonl";
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
    return;
  }
  std::vector<Request> requests;
  const RequestLogReport report =
      read_request_log(path, {}, [&](const Request& r) { requests.push_back(r); });
  REQUIRE(requests.size() == 300);
  CHECK(report.skipped.empty());
  double ttft = 0;
  double queue = 0;
  for (const Request& r : requests) {
    ttft += *r.ttft_ms;
    queue += *r.queue_ms;
  }
  // python3 over the same file: mean (first_token_ts - queued_ts) = 7097.157 ms, mean
  // (scheduled_ts - queued_ts) = 6975.22 ms: the run's TTFT is mostly queue.
  CHECK(ttft / 300 == Approx(7097.157).epsilon(1e-6));
  CHECK(queue / 300 == Approx(6975.22).epsilon(1e-6));
}

}  // namespace unit_llmservingsim_log
