// Request-log readers: every format on small inline samples, the bad inputs the issue lists, and
// the column mapping. Real files are in test_mix_real_logs.cpp.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/requests/request_log.hpp"

namespace unit_request_readers {

using namespace kspeed::io;
using Catch::Matchers::Contains;
using kspeed::InputError;
using kspeed::engine::Request;

namespace {

struct Read {
  RequestLogReport report;
  std::vector<Request> requests;
};

Read read(const std::string& text, ReadOptions options = {}) {
  Read out;
  out.report = read_request_log_text(text, "log", options,
                                     [&out](const Request& r) { out.requests.push_back(r); });
  return out;
}

std::string error_of(const std::string& text, ReadOptions options = {}) {
  try {
    read(text, options);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Azure 2023 CSV: datetime arrivals with 7 fractional digits, CRLF, BOM", "[requests]") {
  const Read r = read(
      "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
      "2023-11-16 18:15:46.6805900,374,44\r\n"
      "2023-11-16 18:15:50.9951690,396,109\r\n");
  CHECK(r.report.format == RequestFormat::azure_csv);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[0].prompt_tokens == 374);
  CHECK(r.requests[0].response_tokens == 44);
  CHECK(*r.requests[0].arrival_s == 0.0);
  CHECK(*r.requests[1].arrival_s == Approx(4.314579).epsilon(1e-12));
  CHECK(r.requests[1].line == 3);
}

TEST_CASE("Azure 2024 CSV: a UTC offset on the timestamp", "[requests]") {
  const Read r = read(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2024-05-10 00:00:00.009930+00:00,2048,28\n"
      "2024-05-10 00:00:01.5+00:00,100,1\n");
  REQUIRE(r.requests.size() == 2);
  CHECK(*r.requests[1].arrival_s == Approx(1.49007).epsilon(1e-12));
}

TEST_CASE("BurstGPT CSV with a model column", "[requests]") {
  const Read r = read(
      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
      "5,ChatGPT,472,18,490,Conversation log\n"
      "45,GPT-4,1087,0,1087,Conversation log\n");
  CHECK(r.report.format == RequestFormat::burstgpt_csv);
  REQUIRE(r.requests.size() == 1);
  CHECK(r.requests[0].model == "ChatGPT");
  CHECK(r.requests[0].prompt_tokens == 472);
  // Response tokens = 0 is a failed request in BurstGPT (HPMLL/BurstGPT README): skipped and
  // counted with its reason and line, never kept as a success.
  CHECK(r.report.zero_response == 0);
  CHECK(r.report.records == 2);
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "failed request");
  CHECK(r.report.skipped[0].count == 1);
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{3});
  CHECK_THAT(r.report.skipped[0].first_detail, Contains("'Response tokens' is 0"));
}

TEST_CASE("Mooncake JSONL with hash ids and millisecond timestamps", "[requests]") {
  const Read r = read(
      "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 1500, \"input_length\": 7322, \"output_length\": 490, \"hash_ids\": [0, 14, "
      "15]}\n");
  CHECK(r.report.format == RequestFormat::mooncake_jsonl);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[1].block_hashes == std::vector<std::uint64_t>{0, 14, 15});
  CHECK(*r.requests[1].arrival_s == 1.5);
}

TEST_CASE("a truncated JSONL line is skipped, counted and located", "[requests]") {
  const std::string text =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 1, \"input_length\": 20, \"outp\n"
      "{\"timestamp\": 2, \"input_length\": 30, \"output_length\": 5}\n";
  const Read r = read(text);
  CHECK(r.requests.size() == 2);
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "not a complete JSON value");
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{2});
  CHECK(r.report.records == 3);
  ReadOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict), Contains("log:2: ") && Contains("not a complete JSON value"));
}

TEST_CASE("AIPerf records: error records skipped with their reason, ns timestamps exact",
          "[requests]") {
  const std::string ok1 =
      R"({"metadata":{"timestamp_ns":1759522419154568925},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"ttft":{"value":730.147344,"unit":"ms"},"request_latency":{"value":8877.620132,"unit":"ms"},"output_sequence_length":{"value":247,"unit":"tokens"},"inter_token_latency":{"value":33.11980808130081,"unit":"ms"}},"error":null})";
  const std::string ok2 =
      R"({"metadata":{"timestamp_ns":1759522419154568926},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"ttft":{"value":0.5,"unit":"s"},"output_sequence_length":{"value":1,"unit":"tokens"}},"error":null})";
  const std::string bad =
      R"({"metadata":{"timestamp_ns":1759522419155727799},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},"error":{"code":499,"type":"RequestCancellationError","message":"cancelled"}})";
  const Read r = read(bad + "\n" + ok1 + "\n" + ok2 + "\n");
  CHECK(r.report.format == RequestFormat::aiperf_jsonl);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[0].prompt_tokens == 550);
  CHECK(r.requests[0].response_tokens == 247);
  CHECK(*r.requests[0].ttft_ms == 730.147344);
  CHECK(*r.requests[0].e2e_ms == 8877.620132);
  CHECK(*r.requests[0].tpot_ms == Approx(33.11980808130081));
  CHECK(*r.requests[1].ttft_ms == 500.0);  // unit s
  // 1 ns apart: a double of 1.76e18 could not tell them apart, the integer reading can.
  CHECK(*r.requests[1].arrival_s == Approx(1e-9).epsilon(1e-6));
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "error record: RequestCancellationError");
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{1});
}

TEST_CASE("vllm --save-detailed JSON: per-request arrays in seconds, failures skipped",
          "[requests]") {
  const Read r = read(R"({"date": "20250101-000000", "model_id": "m", "request_rate": Infinity,
    "input_lens": [100, 200, 300],
    "output_lens": [3, 0, 1],
    "ttfts": [0.25, 0.0, 0.5],
    "itls": [[0.01, 0.03], [], []],
    "errors": ["", "Bad Request", ""]})");
  CHECK(r.report.format == RequestFormat::vllm_json);
  REQUIRE(r.requests.size() == 2);
  CHECK(*r.requests[0].ttft_ms == 250.0);
  CHECK(*r.requests[0].e2e_ms == Approx(290.0));
  CHECK(r.requests[0].model == "m");
  CHECK(r.requests[1].prompt_tokens == 300);
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "failed request");
  CHECK_THAT(r.report.skipped[0].first_detail, Contains("request #2"));
}

// GuideLLM's benchmarks.json as GenerativeRequestStats serialises each request
// (vllm-project/guidellm src/guidellm/schemas/request_stats.py: the computed fields prompt_tokens,
// output_tokens, request_start_time in Unix s, time_to_first_token_ms, inter_token_latency_ms,
// request_latency in s), grouped by status under benchmarks[].requests
// (benchmark/schemas/report.py).
namespace {

std::string guidellm_report(const std::string& successful, const std::string& errored,
                            int run_successful) {
  return R"({"metadata": {"version": 2}, "benchmarks": [{"type_": "generative_benchmark",
    "config": {"strategy": {"type_": "concurrent", "streams": 2}},
    "metrics": {"request_totals": {"successful": )" +
         std::to_string(run_successful) + R"(, "errored": 1, "incomplete": 0, "total": )" +
         std::to_string(run_successful + 1) + R"(}},
    "requests": {"successful": [)" +
         successful + R"(], "errored": [)" + errored + R"(], "incomplete": []}}]})";
}

const std::string kGuidellmRequests =
    R"({"request_id": "5b0c", "request_start_time": 1733000000.25, "request_latency": 0.15,
        "prompt_tokens": 100, "output_tokens": 11, "time_to_first_token_ms": 50.0,
        "inter_token_latency_ms": 10.0, "time_per_output_token_ms": 13.6},
       {"request_id": "9e1f", "request_start_time": 1733000000.75, "request_latency": 0.04,
        "prompt_tokens": 120, "output_tokens": 1, "time_to_first_token_ms": 40.0,
        "inter_token_latency_ms": null})";
const std::string kGuidellmErrored =
    R"({"request_id": "c3d2", "request_start_time": 1733000000.5, "request_latency": 0.01,
        "prompt_tokens": 90, "output_tokens": 0, "time_to_first_token_ms": null})";

}  // namespace

TEST_CASE("GuideLLM benchmarks.json: each successful request's stats, errored ones counted",
          "[requests][guidellm]") {
  const Read r = read(guidellm_report(kGuidellmRequests, kGuidellmErrored, 2));
  CHECK(r.report.format == RequestFormat::guidellm_json);
  CHECK(to_string(r.report.format) == "guidellm");
  CHECK(r.report.records == 3);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[0].prompt_tokens == 100);
  CHECK(r.requests[0].response_tokens == 11);
  CHECK(*r.requests[0].ttft_ms == 50.0);
  CHECK(*r.requests[0].tpot_ms == 10.0);          // inter_token_latency_ms: vLLM's TPOT
  CHECK(*r.requests[0].e2e_ms == Approx(150.0));  // request_latency is in seconds
  CHECK(*r.requests[0].arrival_s == 0.0);
  CHECK(*r.requests[1].arrival_s == Approx(0.5));
  CHECK_FALSE(r.requests[1].tpot_ms);  // null for a one-token response: not a zero
  CHECK(r.requests[1].id == "9e1f");
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "errored request");
  CHECK(r.report.skipped[0].count == 1);
}

TEST_CASE("GuideLLM: a sample of the run's requests is counted; sweeps and empty reports refused",
          "[requests][guidellm]") {
  // Two of the run's ten successful requests were saved (--sample-requests 2).
  const Read sample = read(guidellm_report(kGuidellmRequests, "", 10));
  CHECK(sample.requests.size() == 2);
  CHECK(sample.report.records == 10);
  REQUIRE(sample.report.skipped.size() == 1);
  CHECK(sample.report.skipped[0].reason == "successful request not kept in the report (a sample)");
  CHECK(sample.report.skipped[0].count == 8);
  CHECK_THAT(sample.report.skipped[0].first_detail, Contains("GuideLLM kept 2 of the run's 10"));
  ReadOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(guidellm_report(kGuidellmRequests, "", 10), strict),
             Contains("log:1: GuideLLM kept 2 of the run's 10 successful requests"));

  // Saved with --sample-requests 0: aggregates only.
  CHECK_THAT(error_of(guidellm_report("", "", 500)),
             Contains("log:1: a GuideLLM report that keeps no successful request's stats "
                      "(metrics.request_totals.successful is 500") &&
                 Contains("--sample-requests 0") && Contains("kspeed diff or kspeed audit"));
  // A sweep: each benchmark ran at its own load, so their requests are not one log.
  const std::string one = R"({"config": {"strategy": {"type_": "synchronous"}}, "metrics": {},
    "requests": {"successful": [)" +
                          kGuidellmRequests + R"(]}})";
  const std::string two = R"({"config": {"strategy": {"type_": "constant", "rate": 2.5}},
    "metrics": {}, "requests": {"successful": [)" +
                          kGuidellmRequests + R"(]}})";
  CHECK_THAT(error_of(R"({"benchmarks": [)" + one + ", " + two + "]}"),
             Contains("log:1: a GuideLLM report with 2 benchmarks (a sweep: synchronous, "
                      "constant)") &&
                 Contains("jq '.benchmarks |= [.[0]]' log > run0.json"));
  CHECK_THAT(error_of(R"({"metadata": {"version": 2}, "benchmarks": []})"),
             Contains("log:1: a GuideLLM report with no benchmarks"));
  // A request without its prompt length is a counted bad row, not a crash.
  const Read bad = read(guidellm_report(
      R"({"prompt_tokens": null, "output_tokens": 3}, )" + kGuidellmRequests, "", 3));
  REQUIRE(bad.requests.size() == 2);
  CHECK(bad.report.skipped[0].reason == "prompt_tokens is not a whole number >= 1");
  CHECK_THAT(bad.report.skipped[0].first_detail, Contains("requests.successful[0]: prompt_tokens"));
}

TEST_CASE("llm-d benchmark reports state aggregates only: mix says what it needs",
          "[requests][llm-d]") {
  const std::string fixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/llm-d/";
  for (const char* name : {"report-v0.1.json", "report-v0.2.json"}) {
    CAPTURE(name);
    try {
      read_request_log(fixtures + name, {}, [](const Request&) {});
      FAIL("an llm-d report was read as a request log");
    } catch (const InputError& error) {
      const std::string message = error.what();
      CHECK_THAT(message, Contains("an llm-d benchmark report (version 0.") &&
                              Contains("states aggregates only") &&
                              Contains("no request's prompt and output lengths") &&
                              Contains("vllm bench serve --save-detailed"));
    }
  }
  CHECK_THAT(error_of(R"({"version": "0.2", "scenario": {}, "results": {}})"),
             Contains("log:1: an llm-d benchmark report (version 0.2) states aggregates only "
                      "(results.request_performance.aggregate and time_series)"));
}

TEST_CASE("results with aggregates only are refused with the per-request output to give",
          "[requests]") {
  // vllm bench serve --save-result without --save-detailed (vllm/benchmarks/serve.py).
  CHECK_THAT(error_of(R"({"date": "20250101-000000", "completed": 100, "mean_ttft_ms": 12.5,
    "median_ttft_ms": 11.0, "p99_ttft_ms": 30.0})"),
             Contains("log:1: a vllm bench serve result saved without --save-detailed: "
                      "aggregates only") &&
                 Contains("--save-result --save-detailed"));
  // AIPerf 0.10's profile_export_aiperf.json, schema 1.3: metrics at the top level.
  CHECK_THAT(error_of(R"({"schema_version": "1.3", "aiperf_version": "0.10.0",
    "time_to_first_token": {"unit": "ms", "avg": 2400.0, "p50": 2369.3}})"),
             Contains("AIPerf's aggregate export (profile_export_aiperf.json)") &&
                 Contains("give profile_export.jsonl from the same artifact directory"));
  // AIPerf's profile_export_aiperf.csv.
  CHECK_THAT(error_of("Metric,avg,min,max,p1,p5,p25,p50,p75,p90,p95,p99,std\n"
                      "Time to First Token (ms),2400.0,100,5000,1,2,3,4,5,6,7,8,9\n"),
             Contains("log:1: AIPerf's aggregate export (profile_export_aiperf.csv)"));
  // SGLang bench_serving JSONL, one run a line, without --output-details.
  CHECK_THAT(
      error_of("{\"backend\": \"sglang\", \"completed\": 50, \"mean_e2e_latency_ms\": 900.0}\n"
               "{\"backend\": \"sglang\", \"completed\": 50, \"mean_e2e_latency_ms\": 950.0}\n"),
      Contains("log:1: an SGLang bench_serving result: aggregates only") &&
          Contains("--output-details"));
  // With --output-details an SGLang line carries the per-request lists vLLM's reader takes.
  const Read detailed = read(R"({"backend": "sglang", "completed": 2, "mean_e2e_latency_ms": 9.0,
    "input_lens": [100, 200], "output_lens": [2, 3], "ttfts": [0.01, 0.02],
    "itls": [[0.005], [0.004, 0.006]], "errors": ["", ""]})");
  CHECK(detailed.report.format == RequestFormat::vllm_json);
  REQUIRE(detailed.requests.size() == 2);
  CHECK(*detailed.requests[1].e2e_ms == Approx(30.0));
}

TEST_CASE("trace-replay CSV: quoted JSON lists with commas and newlines, cache hits in blocks",
          "[requests]") {
  const Read r = read(
      "request_idx,input_tokens,output_tokens_actual,cache_hit_blocks,ttft,ttlt,itl,success,"
      "request_start_time,token_timestamps\n"
      "1,37720,1494,583,16.44,28.67,0.0081,True,1776748564.6063905,\"[1.0, 2.0,\n 3.0]\"\n"
      "2,100,10,5,0.5,1.0,0.05,True,1776748565.6063905,\"[]\"\n"
      "3,100,0,0,0,0,0,False,1776748566.0,\"[]\"\n");
  CHECK(r.report.format == RequestFormat::trace_replay_csv);
  REQUIRE(r.requests.size() == 2);
  CHECK(*r.requests[0].cached_tokens == 583 * 64);
  CHECK(*r.requests[0].ttft_ms == Approx(16440.0));
  CHECK(*r.requests[0].e2e_ms == Approx(28670.0));
  CHECK(*r.requests[1].cached_tokens == 99);  // 5 blocks of 64 > 100 tokens: capped at prompt - 1
  CHECK(r.requests[1].line == 4);             // the quoted field spanned lines 2-3
  CHECK(*r.requests[1].arrival_s == Approx(1.0));
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].reason == "failed request");
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{5});
}

TEST_CASE("trace-replay CSV: the run's own cache hits win over the source trace's", "[requests]") {
  // A user's first turn: the trace recorded 583 blocks cached in production, but this run had
  // sent none of them (theoretical_cache_hit_blocks 0). The next turn reuses what the first left.
  const Read r = read(
      "user_id,input_tokens,output_tokens_actual,cache_hit_blocks,ttft,success,"
      "theoretical_cache_hit_blocks\n"
      "User-001,37720,1378,583,18.38,True,0\n"
      "User-001,37906,1376,589,0.27,True,589\n");
  REQUIRE(r.requests.size() == 2);
  CHECK(*r.requests[0].cached_tokens == 0);
  CHECK(*r.requests[1].cached_tokens == 589 * 64);
}

TEST_CASE("a column mapping reads a CSV kspeed does not know by name", "[requests]") {
  ReadOptions options;
  options.columns = parse_column_mapping(
      "prompt=in,response=out,ttft=first:s,arrival=t:ns,cached=hits:16,model=m", "--columns");
  const Read r = read("t,in,out,first,hits,m\n1000,10,2,0.1,1,a\n3000,20,2,,0,b\n", options);
  CHECK(r.report.format == RequestFormat::mapped_csv);
  REQUIRE(r.requests.size() == 2);
  CHECK(*r.requests[0].ttft_ms == Approx(100.0));
  CHECK(*r.requests[0].cached_tokens == 9);  // 16 > 10 - 1
  CHECK_FALSE(r.requests[1].ttft_ms);        // an empty cell is a missing measurement
  CHECK(*r.requests[1].arrival_s == Approx(2e-6));
  CHECK(r.requests[1].model == "b");
  CHECK_THAT(error_of("t,in\n1,2\n", options), Contains("no column 'out' (response)"));
}

TEST_CASE("column mapping errors name the problem", "[requests]") {
  CHECK_THROWS_WITH(parse_column_mapping("prompt=a", "--columns"),
                    Contains("--columns: the mapping needs response=COLUMN"));
  CHECK_THROWS_WITH(parse_column_mapping("prompt=a,response=b,ttft=c:h", "--columns"),
                    Contains("unit 'h' of ttft is not known: expected s, ms, us or ns"));
  CHECK_THROWS_WITH(parse_column_mapping("prompt=a,response=b,latency=c", "--columns"),
                    Contains("unknown key 'latency'"));
  CHECK_THROWS_WITH(parse_column_mapping("prompt", "--columns"),
                    Contains("is not KEY=COLUMN[:UNIT]"));
}

TEST_CASE("bad logs: empty, header only, unknown header, all rows bad", "[requests]") {
  CHECK_THAT(error_of(""), Contains("log: the request log is empty") && Contains("azure:"));
  CHECK_THAT(error_of("\n  \n"), Contains("the request log is empty"));
  CHECK_THAT(error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n"),
             Contains("the azure log has a header but no requests"));
  CHECK_THAT(error_of("when,prompt_len,answer_len\n1,2,3\n"),
             Contains("log:1: not a request log kspeed knows; it starts with "
                      "'when,prompt_len,answer_len'") &&
                 Contains("mooncake:") && Contains("prompt=COLUMN,response=COLUMN"));
  CHECK_THAT(error_of("\x01\x02garbage\n"), Contains("'\\x01\\x02garbage'"));
  CHECK_THAT(error_of("{\"a\": 1}\n"), Contains("not a request log kspeed knows"));
  CHECK_THAT(error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,-5,3\n"),
             Contains("log:2: no usable request") && Contains("'-5' (negative)"));
}

TEST_CASE("negative and non-numeric lengths on line N are skipped and reported", "[requests]") {
  const std::string text =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:47.0,-3,44\n"
      "2023-11-16 18:15:48.0,abc,44\n"
      "2023-11-16 18:15:49.0,12,x\n"
      "2023-11-16 18:15:50.0,0,4\n"
      "2023-11-16 18:15:51.0,12\n"
      "2023-11-16 18:15:52.0,12,4\n";
  const Read r = read(text);
  CHECK(r.requests.size() == 2);
  CHECK(r.report.records == 7);
  CHECK(r.report.skipped_total() == 5);
  REQUIRE(r.report.skipped.size() == 3);
  CHECK(r.report.skipped[0].reason == "prompt length is not a whole number >= 1");
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{3, 4, 6});
  CHECK_THAT(r.report.skipped[0].first_detail, Contains("'-3' (negative)"));
  CHECK(r.report.skipped[1].reason == "response length is not a whole number >= 0");
  CHECK(r.report.skipped[1].first_lines == std::vector<std::int64_t>{5});
  CHECK(r.report.skipped[2].reason == "row has fewer fields than the header");
  ReadOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict),
             Contains("log:3: prompt length is '-3' (negative): expected a whole number >= 1") &&
                 Contains("strict mode"));
}

TEST_CASE("timestamps going backwards are kept and counted", "[requests]") {
  const Read r = read(
      "{\"timestamp\": 100, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 50, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 150, \"input_length\": 10, \"output_length\": 5}\n");
  REQUIRE(r.requests.size() == 4);
  CHECK(*r.requests[1].arrival_s == Approx(-0.05));
  CHECK(r.report.out_of_order == 2);
  CHECK(r.report.first_out_of_order_line == 2);
}

TEST_CASE("Infinity and NaN in JSON and CSV are reported, not crashed on", "[requests]") {
  const Read r = read(
      "{\"timestamp\": Infinity, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 1, \"input_length\": NaN, \"output_length\": 5}\n"
      "{\"timestamp\": 2, \"input_length\": 10, \"output_length\": 5, \"note\": \"Infinity\"}\n");
  CHECK(r.requests.size() == 1);
  CHECK(r.report.skipped_total() == 2);
  ReadOptions options;
  options.columns = parse_column_mapping("prompt=p,response=r,ttft=t", "--columns");
  const Read c = read("p,r,t\n10,2,inf\n10,2,1\n", options);
  CHECK(c.requests.size() == 1);
  CHECK_THAT(c.report.skipped[0].first_detail, Contains("'inf' (not finite)"));
}

TEST_CASE("the format list names every reader", "[requests]") {
  CHECK(request_formats().size() == 9);
  CHECK(to_string(RequestFormat::aiperf_jsonl) == "aiperf");
}

TEST_CASE("a vllm document with empty arrays holds no requests", "[requests]") {
  CHECK_THAT(error_of(R"({"input_lens": [], "output_lens": []})"),
             Contains("the vllm log holds no requests"));
  CHECK_THAT(error_of(R"({"input_lens": [1, 2], "output_lens": [3]})"),
             Contains("'output_lens' is not a list of 2 values"));
}

TEST_CASE("mutated logs give requests or an InputError, never a crash", "[requests]") {
  // A deterministic stand-in for the libFuzzer target: every sample above with bytes flipped,
  // dropped or duplicated. Run under the sanitizer build, it checks memory safety too.
  const std::vector<std::string> samples = {
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:50.9951690,396,109\n",
      "Timestamp,Model,Request tokens,Response tokens\n5,ChatGPT,472,18\n45,GPT-4,1087,0\n",
      "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 15, \"input_length\": 73, \"output_length\": 4, \"hash_ids\": [0]}\n",
      R"({"metadata":{"timestamp_ns":1759522419154568925},"metrics":{"input_sequence_length":)"
      R"({"value":550,"unit":"tokens"},"ttft":{"value":730.1,"unit":"ms"},)"
      R"("output_sequence_length":{"value":247,"unit":"tokens"}},"error":null})"
      "\n",
      R"({"input_lens": [100, 200], "output_lens": [3, 1], "ttfts": [0.25, 0.5],)"
      R"( "itls": [[0.01, 0.03], []], "errors": ["", ""]})",
      "input_tokens,output_tokens_actual,cache_hit_blocks,ttft,ttlt,success,x\n"
      "37720,1494,583,16.44,28.67,True,\"[1.0,\n2.0]\"\n100,10,5,0.5,1.0,True,\"\"\n",
  };
  std::mt19937 random(2024);
  int requests = 0;
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = samples[static_cast<std::size_t>(round) % samples.size()];
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = static_cast<char>(random() % 256);
          break;
        case 1:
          text.erase(at, 1 + random() % 8);
          break;
        default:
          text.insert(at, text.substr(at, 1 + random() % 8));
      }
    }
    try {
      requests += static_cast<int>(read(text).requests.size());
    } catch (const InputError&) {
      ++errors;
    }
  }
  CHECK(requests > 0);
  CHECK(errors > 0);
}

TEST_CASE("a datetime beyond 64-bit nanoseconds is a counted bad row, not an overflow",
          "[requests]") {
  // Found by fuzz_request_log: year 3023 overflowed seconds * 1e9 (undefined behaviour).
  const Read r = read(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:15:46.6805900,374,44\n"
      "3023-11-16 18:15:46.6805900,100,10\n");
  REQUIRE(r.requests.size() == 1);
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].count == 1);
  CHECK(r.report.skipped[0].first_lines == std::vector<std::int64_t>{3});
}

}  // namespace unit_request_readers
