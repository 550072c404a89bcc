// Verifying honestly (issue 18): Kineto times of any magnitude kept exact (the shared traces
// shifted to Unix-epoch microseconds give byte-identical reports), every AIPerf export shape,
// paired statistics and percentile verdicts the sample can support. The shifted and jittered
// copies of the shared files are written here, into the temporary folder, never committed;
// the tests that need ../shared/data skip with a warning when it is absent.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "../../src/io/trace/json_scan.hpp"
#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/engine/verify/conditions_audit.hpp"
#include "kspeed/engine/verify/power.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/profile/trace_diff.hpp"
#include "kspeed/report/reports.hpp"

namespace unit_verify {

using namespace kspeed;
namespace json_scan = io::trace::json_scan;

namespace {

const std::string kShared = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";
const std::string kExpected = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/verify/";

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
  return false;
}

// A scratch folder in the system's temporary folder, removed with everything in it.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("kspeed-verify-" + std::to_string(::getpid()) + "-" + name)) {
    std::filesystem::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const std::string file = (path_ / name).string();
    std::ofstream out(file, std::ios::binary);
    out << text;
    return file;
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string inflate(const std::string& path) {
  auto source = io::trace::gzip_source(io::trace::open_file_source(path), path);
  std::string text;
  std::array<char, 1 << 16> buffer{};
  while (const std::size_t n = source->read(buffer.data(), buffer.size())) {
    text.append(buffer.data(), n);
  }
  return text;
}

// Every "ts" of a Chrome trace moved by `offset_us` whole microseconds, its text edited exactly
// (the fraction kept digit for digit): what a capture stamped in Unix-epoch time looks like.
std::string shifted_to_epoch(const std::string& text, std::int64_t offset_us) {
  std::string out;
  out.reserve(text.size() + text.size() / 20);
  std::size_t at = 0;
  for (;;) {
    const std::size_t key = text.find("\"ts\":", at);
    if (key == std::string::npos) break;
    std::size_t p = key + 5;
    while (p < text.size() && text[p] == ' ') ++p;
    std::size_t end = p;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) != 0 ||
                                 text[end] == '.' || text[end] == '-')) {
      ++end;
    }
    out.append(text, at, p - at);
    const std::string number = text.substr(p, end - p);
    const std::size_t point = number.find('.');
    const std::int64_t whole = std::stoll(number.substr(0, point));
    REQUIRE(whole >= 0);
    out += std::to_string(whole + offset_us);
    if (point != std::string::npos) out += number.substr(point);
    at = end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

// The trace's real Unix-epoch base: its own baseTimeNanoseconds (1775078550000000000 ns in the
// SGLang trace, 2026-04-01), as HTA and many PyTorch captures add it to every ts.
constexpr std::int64_t kEpochOffsetUs = 1775078550000000;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// The profile report of one trace under one denominator, in one format.
std::string profile_text(const profile::Trace& trace, profile::Denominator denominator,
                         std::string_view format) {
  const profile::KernelClassifier classifier(profile::builtin_patterns());
  profile::AnalysisOptions options;
  options.denominator = denominator;
  profile::ProfileResult result;
  result.options = options;
  result.patterns_source = "built-in";
  result.files.push_back(profile::analyse_trace(trace, classifier, options));
  return report::render(report::make_report(result, report::profile_view, report::profile_document),
                        *report::parse_format(format), {});
}

}  // namespace

// ---- exact times -------------------------------------------------------------------------------

TEST_CASE("Chrome-trace times are exact at any magnitude", "[verify][time]") {
  const auto ns = [](std::string_view text) { return json_scan::microseconds_text_to_ns(text); };
  CHECK(ns("12") == 12000);
  CHECK(ns("1.5") == 1500);
  CHECK(ns("0.0005") == 1);  // rounded to the nearest ns
  CHECK(ns("0.0004") == 0);
  CHECK(ns("-1.5") == -1500);
  CHECK(ns("1.5e3") == 1500000);
  CHECK(ns("2E-3") == 2);
  // Unix-epoch microseconds with fractional ns: 1.78e18 ns, beyond a double's exact range.
  CHECK(ns("1779988464216204.635") == 1779988464216204635);
  CHECK(ns("1779988464216204.6355") == 1779988464216204636);
  CHECK(ns("9223372036854775.807") == INT64_MAX);
  CHECK_FALSE(ns("9223372036854775.808"));  // one ns past 64 bits: refused, not clamped
  CHECK_FALSE(ns("1779988464216204635"));   // nanoseconds written where us belong
  const auto time = json_scan::exact_microseconds("1779988464216204635");
  REQUIRE(time);  // the whole microseconds still fit: a difference of two such times is exact
  const auto later = json_scan::exact_microseconds("1779988464216204636.5");
  CHECK(json_scan::ns_since(*later, *time) == 1500);
}

TEST_CASE("a Kineto time beyond 64-bit ns is an error naming the event", "[verify][time]") {
  Scratch scratch("ns-as-us");
  const std::string path = scratch.write(
      "t.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,)"
                R"( "ts": 1779988464216204635, "dur": 5}]})");
  CHECK_THROWS_WITH(io::trace::read_trace_file(path),
                    Catch::Contains("traceEvents[0]: 'k' has a ts or dur beyond what 64-bit "
                                    "nanoseconds hold") &&
                        Catch::Contains("was the trace written in nanoseconds?"));
}

TEST_CASE("the shared traces shifted to Unix-epoch us give byte-identical reports",
          "[verify][time][real]") {
  for (const char* name : {"vllm-b200-gptoss-prefill.trace.json.gz",
                           "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz"}) {
    const std::string path = kShared + "traces/" + name;
    if (!present(path)) continue;
    INFO(name);
    Scratch scratch("epoch");
    const std::string original_text = inflate(path);
    const std::string original = scratch.write("plain.json", original_text);
    const std::string shifted =
        scratch.write("epoch.json", shifted_to_epoch(original_text, kEpochOffsetUs));
    const profile::Trace before = io::trace::read_trace_file(original);
    const profile::Trace after = io::trace::read_trace_file(shifted);
    CHECK(after.time_origin_ns - before.time_origin_ns == kEpochOffsetUs * 1000);
    REQUIRE(before.kernels.size() == after.kernels.size());
    for (const auto denominator :
         {profile::Denominator::kernel_time, profile::Denominator::busy_time,
          profile::Denominator::wall_time}) {
      INFO(to_string(denominator));
      for (const std::string_view format : {"text", "json"}) {
        std::string expected =
            replace_all(profile_text(before, denominator, format), "plain.json", "TRACE");
        std::string actual =
            replace_all(profile_text(after, denominator, format), "epoch.json", "TRACE");
        // Steps report the file's own clock: exactly the offset apart; everything else equal.
        if (format == "json") {
          nlohmann::json a = nlohmann::json::parse(expected);
          nlohmann::json b = nlohmann::json::parse(actual);
          auto& steps_a = a["files"][0]["steps"];
          auto& steps_b = b["files"][0]["steps"];
          REQUIRE(steps_a.size() == steps_b.size());
          for (std::size_t i = 0; i < steps_a.size(); ++i) {
            CHECK(steps_b[i]["start_ns"].get<std::int64_t>() -
                      steps_a[i]["start_ns"].get<std::int64_t>() ==
                  kEpochOffsetUs * 1000);
            steps_a[i].erase("start_ns");
            steps_b[i].erase("start_ns");
          }
          // The shifted text is longer (two more digits a ts): bytes read differ by design.
          CHECK(b["files"][0]["bytes_read"] > a["files"][0]["bytes_read"]);
          a["files"][0].erase("bytes_read");
          b["files"][0].erase("bytes_read");
          expected = a.dump(1);
          actual = b.dump(1);
        }
        CHECK(actual == expected);
      }
    }
    // diff: the original against its shifted copy reads exactly as against a plain copy (every
    // class, phase, step and attribution number identical, all denominators).
    const profile::KernelClassifier classifier(profile::builtin_patterns());
    const std::string copy = scratch.write("copy0.json", original_text);
    const profile::Trace copied = io::trace::read_trace_file(copy);
    const auto render_diff = [](const profile::TraceDiff& diff, const std::string& a,
                                const std::string& b) {
      std::string text = report::render(
          report::make_report(diff, report::trace_diff_view, report::trace_diff_document),
          *report::parse_format("json"), {});
      return replace_all(replace_all(text, a, "BEFORE"), b, "AFTER");
    };
    for (const auto denominator :
         {profile::Denominator::kernel_time, profile::Denominator::busy_time,
          profile::Denominator::wall_time}) {
      profile::TraceDiffOptions options;
      options.denominator = denominator;
      const std::string against_shifted = render_diff(
          profile::diff_traces(before, after, classifier, options), "plain.json", "epoch.json");
      CHECK(against_shifted ==
            render_diff(profile::diff_traces(before, copied, classifier, options), "plain.json",
                        "copy0.json"));
      CHECK(against_shifted.find("AFTER") != std::string::npos);
    }
  }
}

// ---- AIPerf exports ----------------------------------------------------------------------------

namespace {

const std::string kAiperfRecords = kShared + "bench/aiperf-gptoss20b-profile_export.jsonl";
const std::string kAiperfJson = kShared + "bench/aiperf-gptoss20b-profile_export_aiperf.json";
const std::string kAiperfCsv = kShared + "bench/aiperf-gptoss20b-profile_export_aiperf.csv";

const engine::ConditionEntry& entry(const engine::FileConditions& file, const std::string& key) {
  for (const engine::ConditionEntry& condition : file.conditions) {
    if (condition.key == key) return condition;
  }
  FAIL("no condition " << key);
  return file.conditions.front();
}

std::optional<double> stated(const engine::BenchSide& side, engine::LatencyMetric metric,
                             engine::LatencyStatistic statistic) {
  return side.stated.at(static_cast<std::size_t>(metric)).at(static_cast<std::size_t>(statistic));
}

// The pre-0.10 aggregate rewritten as schema 1.3 (json-export-schema.md): the metric blocks at
// the top level beside schema_version, aiperf_version, run_info; "ttft" under its later tag.
std::string aggregate_as_schema_1_3(const std::string& text) {
  const nlohmann::ordered_json old = nlohmann::ordered_json::parse(text);
  nlohmann::ordered_json out;
  out["schema_version"] = "1.3";
  out["aiperf_version"] = "0.10.0";
  out["benchmark_id"] = "b1";
  for (const auto& [tag, block] : old["records"].items()) {
    nlohmann::ordered_json metric = block;
    metric.erase("tag");
    metric.erase("header");
    out[tag == "ttft" ? "time_to_first_token" : tag] = metric;
  }
  out["input_config"] = old["input_config"];
  out["run_info"] = {{"benchmark_id", "b1"},
                     {"sweep_id", nullptr},
                     {"random_seed", 0},
                     {"trial", 0},
                     {"run_label", "run_0001"}};
  out["was_cancelled"] = false;
  return out.dump(2);
}

// The per-request export in the later record schema (working-with-profile-exports.md):
// request_start_ns and benchmark_phase in the metadata, TTFT under time_to_first_token.
std::string records_as_later_schema(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::string out;
  std::int64_t session = 0;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json record = nlohmann::ordered_json::parse(line);
    auto& metadata = record["metadata"];
    nlohmann::ordered_json later;
    later["session_num"] = session++;
    for (const auto& [key, value] : metadata.items()) {
      if (key == "timestamp_ns") {
        later["request_start_ns"] = value;
      } else if (key == "credit_phase") {
        later["benchmark_phase"] = value;
      } else {
        later[key] = value;
      }
    }
    record["metadata"] = later;
    auto& metrics = record["metrics"];
    if (metrics.contains("ttft")) {
      metrics["time_to_first_token"] = metrics["ttft"];
      metrics.erase("ttft");
    }
    out += record.dump() + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("AIPerf aggregate JSON: pre-0.10 and schema 1.3 read alike", "[verify][aiperf][real]") {
  if (!present(kAiperfJson)) return;
  const std::string text = read_file(kAiperfJson);
  const io::BenchResult old = io::parse_bench_results(text, "old.json").at(0);
  const io::BenchResult later =
      io::parse_bench_results(aggregate_as_schema_1_3(text), "later.json").at(0);
  CHECK(later.format == "aiperf-json");
  for (const auto metric :
       {engine::LatencyMetric::ttft, engine::LatencyMetric::tpot, engine::LatencyMetric::e2e}) {
    for (const auto statistic : engine::kLatencyStatistics) {
      REQUIRE(stated(later.latencies, metric, statistic));
      CHECK(*stated(later.latencies, metric, statistic) ==
            *stated(old.latencies, metric, statistic));
    }
  }
  // AIPerf's own figures (the file's "avg" of ttft and request_latency).
  CHECK(*stated(later.latencies, engine::LatencyMetric::ttft, engine::LatencyStatistic::mean) ==
        2343.219436988764);
  CHECK(later.latencies.requests == 89);
  CHECK(entry(later.conditions, "model").value == "openai/gpt-oss-20b");
  CHECK(entry(later.conditions, "concurrency").value ==
        "max concurrency 100, mode concurrency_burst");
  // The file states reasoning tokens (reasoning_token_count): only cached input is lacking.
  CHECK(entry(later.conditions, "token_counts").missing == "cached input");
  CHECK(entry(later.conditions, "token_counts").value ==
        "550 input + 243 output tokens per request (mean); 222.4 reasoning (mean)");
}

TEST_CASE("AIPerf CSV export: the shared file's figures", "[verify][aiperf][real]") {
  if (!present(kAiperfCsv)) return;
  const io::BenchResult csv = io::read_bench_results(kAiperfCsv).at(0);
  CHECK(csv.format == "aiperf-csv");
  CHECK_FALSE(csv.latencies.per_request);
  CHECK(csv.latencies.requests == 89);
  // The CSV rounds to two decimals: "Time to First Token (ms),2343.22,...,2369.32,...,3833.39".
  CHECK(*stated(csv.latencies, engine::LatencyMetric::ttft, engine::LatencyStatistic::mean) ==
        2343.22);
  CHECK(*stated(csv.latencies, engine::LatencyMetric::ttft, engine::LatencyStatistic::p50) ==
        2369.32);
  CHECK(*stated(csv.latencies, engine::LatencyMetric::e2e, engine::LatencyStatistic::p99) ==
        9297.61);
  CHECK(*stated(csv.latencies, engine::LatencyMetric::tpot, engine::LatencyStatistic::mean) ==
        27.76);
  CHECK(entry(csv.conditions, "token_counts").missing == "cached input");
  // A unit AIPerf writes in seconds is converted, not misread.
  const io::BenchResult seconds =
      io::parse_bench_results(
          "Metric,avg,min,max,p1,p5,p25,p50,p75,p90,p95,p99,std\r\n"
          "Request Latency (sec),2.5,1,4,1,1,2,2.25,3,3.5,3.9,3.99,0.5\r\n",
          "s.csv")
          .at(0);
  CHECK(*stated(seconds.latencies, engine::LatencyMetric::e2e, engine::LatencyStatistic::p50) ==
        2250);
}

TEST_CASE("AIPerf per-request JSONL: both record schemas read alike", "[verify][aiperf][real]") {
  if (!present(kAiperfRecords)) return;
  const std::string text = read_file(kAiperfRecords);
  const io::BenchResult early = io::parse_bench_results(text, "early.jsonl").at(0);
  const io::BenchResult later =
      io::parse_bench_results(records_as_later_schema(text), "later.jsonl").at(0);
  CHECK(later.latencies.per_request);
  CHECK(later.latencies.requests == 89);
  for (std::size_t m = 0; m < 4; ++m)
    CHECK(later.latencies.samples[m] == early.latencies.samples[m]);
  // reasoning_token_count is in every record: stated, not "missing".
  CHECK(entry(early.conditions, "token_counts").missing == "cached input");
  // Concurrency from the file itself: requests in flight from start times and latencies.
  const engine::ConditionEntry& concurrency = entry(early.conditions, "concurrency");
  CHECK(concurrency.status == engine::ConditionStatus::partial);
  CHECK(concurrency.value ==
        "at most 89 of 89 requests in flight (observed from request start times and latencies)");
  // Each request has an identity: its dataset entry (repeated entries numbered).
  CHECK(early.latencies.identified.size() == 89);
}

TEST_CASE("AIPerf artifact directory: records for the latencies, the aggregate for conditions",
          "[verify][aiperf][real]") {
  if (!present(kAiperfRecords) || !present(kAiperfJson) || !present(kAiperfCsv)) return;
  Scratch run("artifacts");
  run.write("profile_export.jsonl", read_file(kAiperfRecords));
  run.write("profile_export_aiperf.json", read_file(kAiperfJson));
  run.write("profile_export_aiperf.csv", read_file(kAiperfCsv));
  const io::BenchResult result = io::read_bench_results(run.path()).at(0);
  CHECK(result.format == "aiperf-artifacts");
  CHECK(result.source == run.path());
  CHECK(result.latencies.per_request);
  CHECK(result.latencies.requests == 89);
  CHECK(entry(result.conditions, "model").value == "openai/gpt-oss-20b");
  CHECK(entry(result.conditions, "concurrency").value ==
        "max concurrency 100, mode concurrency_burst");
  // kspeed mix reads the directory through its per-request export.
  CHECK(io::per_request_export(run.path()) == run.path() + "/profile_export.jsonl");
  CHECK(io::per_request_export(kAiperfCsv) == kAiperfCsv);
  Scratch empty("no-exports");
  empty.write("notes.txt", "x");
  CHECK_THROWS_WITH(io::read_bench_results(empty.path()),
                    Catch::Contains("a directory without AIPerf exports"));
}

TEST_CASE("unknown benchmark files: the error says what the file looks like", "[verify]") {
  CHECK_THROWS_WITH(io::parse_bench_results("{\"x\": 1, \"y\": 2}", "x.json"),
                    Catch::Contains("x.json: not a benchmark result kspeed reads (a JSON object "
                                    "with keys x, y)"));
  CHECK_THROWS_WITH(
      io::parse_bench_results("a,b,c\n1,2,3\n", "t.csv"),
      Catch::Contains("(CSV with header 'a,b,c')") && Catch::Contains("profile_export_aiperf.csv"));
}

TEST_CASE("a duplicate key in a benchmark result is refused with its line", "[verify][audit]") {
  const std::string text =
      "{\n  \"completed\": 10,\n  \"mean_ttft_ms\": 5,\n  \"max_concurrency\": 4,\n"
      "  \"max_concurrency\": 64\n}\n";
  CHECK_THROWS_WITH(io::parse_bench_results(text, "dup.json"),
                    Catch::Contains("dup.json:5:") &&
                        Catch::Contains("'max_concurrency' appears twice") &&
                        Catch::Contains("first at line 4"));
}

// ---- paired statistics and percentile verdicts
// ---------------------------------------------------

TEST_CASE("requests a distribution-free percentile interval needs", "[verify][stats]") {
  // 1 - q^n - (1-q)^n >= c, smallest n: independent check in the report (python).
  CHECK(engine::requests_for_quantile(0.99, 0.95) == 299);
  CHECK(engine::requests_for_quantile(0.99, 0.99) == 459);
  CHECK(engine::requests_for_quantile(0.5, 0.95) == 6);
  const double q = 0.99;
  const auto coverage = [q](double n) { return 1 - std::pow(q, n) - std::pow(1 - q, n); };
  CHECK(coverage(299) >= 0.95);
  CHECK(coverage(298) < 0.95);
}

namespace {

// The AIPerf records with each successful request's TTFT changed by `change(i, ttft)` ms (i:
// the record's line), and its request latency by the same amount (TTFT is part of it).
template <class Change>
std::string aiperf_with_ttft_change(const std::string& text, Change change) {
  std::istringstream lines(text);
  std::string line;
  std::string out;
  int index = 0;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json record = nlohmann::ordered_json::parse(line);
    auto& metrics = record["metrics"];
    if (metrics.contains("ttft")) {
      const double ttft = metrics["ttft"]["value"].get<double>();
      const double delta = change(index, ttft);
      metrics["ttft"]["value"] = ttft + delta;
      metrics["request_latency"]["value"] =
          metrics["request_latency"]["value"].get<double>() + delta;
    }
    ++index;
    out += record.dump() + "\n";
  }
  return out;
}

// ±3% TTFT jitter, a fixed sequence with no trend: request i's TTFT x (1 + u_i), u_i in
// [-3%, +3%].
double jitter(int i) {
  return 0.03 * static_cast<double>((i * 37) % 61 - 30) / 30;
}

std::string diff_text(const engine::BenchDiff& diff) {
  return report::render(
      report::make_report(diff, report::bench_diff_view, report::bench_diff_document),
      report::Format::text(), {});
}

// Compares `text` with the checked-in expected file (KSPEED_REGEN=1 rewrites it).
void check_expected(const std::string& text, const std::string& name) {
  const std::string path = kExpected + name;
  if (const char* regen = std::getenv("KSPEED_REGEN");
      regen != nullptr && std::string(regen) == "1") {
    std::ofstream(path, std::ios::binary) << text;
  }
  CHECK(text == read_file(path));
}

}  // namespace

TEST_CASE("noise only: within noise everywhere, p99 rows too few requests",
          "[verify][stats][real]") {
  if (!present(kAiperfRecords)) return;
  const std::string text = read_file(kAiperfRecords);
  const io::BenchResult before = io::parse_bench_results(text, "before.jsonl").at(0);
  const io::BenchResult after =
      io::parse_bench_results(
          aiperf_with_ttft_change(text, [](int i, double ttft) { return ttft * jitter(i); }),
          "after-noise.jsonl")
          .at(0);
  const engine::BenchDiff diff = engine::compare_bench(before.latencies, after.latencies, {});
  CHECK(diff.pairing.paired);
  CHECK(diff.pairing.pairs == 89);
  for (const engine::LatencyChange& change : diff.changes) {
    INFO(to_string(change.metric) << " " << to_string(change.statistic));
    if (change.statistic == engine::LatencyStatistic::p99) {
      CHECK(change.no_interval == engine::NoInterval::too_few_for_percentile);
      CHECK(change.requests_needed == 299);
      CHECK_FALSE(change.within_noise);
    } else {
      REQUIRE(change.within_noise);
      CHECK(*change.within_noise);
    }
  }
  check_expected(diff_text(diff), "aiperf-noise-only.txt");
}

TEST_CASE("paired -10% TTFT: faster, with a paired interval excluding 0", "[verify][stats][real]") {
  if (!present(kAiperfRecords)) return;
  const std::string text = read_file(kAiperfRecords);
  const io::BenchResult before = io::parse_bench_results(text, "before.jsonl").at(0);
  const io::BenchResult after =
      io::parse_bench_results(
          aiperf_with_ttft_change(text, [](int, double ttft) { return -0.1 * ttft; }),
          "after-ttft-10.jsonl")
          .at(0);
  const engine::BenchDiff diff = engine::compare_bench(before.latencies, after.latencies, {});
  CHECK(diff.pairing.paired);
  for (const auto metric : {engine::LatencyMetric::ttft, engine::LatencyMetric::e2e}) {
    for (const engine::LatencyChange& change : diff.changes) {
      if (change.metric != metric || change.statistic == engine::LatencyStatistic::p99) continue;
      INFO(to_string(change.metric) << " " << to_string(change.statistic));
      REQUIRE(change.ci_high_ms);
      CHECK(*change.ci_high_ms < 0);
      CHECK(*change.within_noise == false);
    }
  }
  // Unpaired (the request ids dropped), the same change is hidden by the spread of TTFT
  // across requests (sd 1.05 s against a 234 ms shift of the mean).
  engine::BenchSide before_unpaired = before.latencies;
  before_unpaired.identified.clear();
  const engine::BenchDiff unpaired = engine::compare_bench(before_unpaired, after.latencies, {});
  CHECK_FALSE(unpaired.pairing.paired);
  CHECK(*unpaired.changes.front().within_noise);  // TTFT mean
  check_expected(diff_text(diff), "aiperf-paired-ttft-10.txt");
}

TEST_CASE("pairing needs the same requests with the same prompts", "[verify][stats]") {
  engine::BenchSide before;
  engine::BenchSide after;
  before.source = "b";
  after.source = "a";
  before.per_request = after.per_request = true;
  for (int i = 0; i < 10; ++i) {
    const double value = 100 + i;
    before.samples[0].push_back(value);
    after.samples[0].push_back(value + 1);
    before.identified.push_back({"r" + std::to_string(i), 100, {value, {}, {}, {}}});
    after.identified.push_back({"r" + std::to_string(9 - i), 100, {value + 1, {}, {}, {}}});
  }
  before.requests = after.requests = 10;
  CHECK(engine::pair_requests(before, after).paired);  // order does not matter, ids do
  after.identified[3].prompt_tokens = 101;
  const engine::Pairing mismatch = engine::pair_requests(before, after);
  CHECK(mismatch.problem == engine::PairingProblem::prompt_mismatch);
  CHECK(mismatch.id == "r6");
  CHECK(mismatch.before_prompt_tokens == 100);
  CHECK(mismatch.after_prompt_tokens == 101);
  after.identified[3].prompt_tokens = 100;
  after.identified[3].id = "other";
  const engine::Pairing different = engine::pair_requests(before, after);
  CHECK_FALSE(different.paired);
  CHECK(different.problem == engine::PairingProblem::different_requests);
  CHECK(different.pairs == 9);
  after.identified.clear();
  const engine::Pairing unidentified = engine::pair_requests(before, after);
  CHECK(unidentified.problem == engine::PairingProblem::unidentified);
  CHECK(unidentified.source == "a");
}

// ---- kspeed plan -------------------------------------------------------------------------------

TEST_CASE("normal quantiles of the power formula", "[verify][plan]") {
  CHECK(engine::normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(engine::normal_quantile(0.8) == Approx(0.8416212335729143).epsilon(1e-12));
  CHECK(engine::normal_quantile(0.5) == Approx(0.0).margin(1e-12));
}

TEST_CASE("plan: the AIPerf sample against a predicted 1% E2E gain", "[verify][plan][real]") {
  if (!present(kAiperfRecords)) return;
  const io::BenchResult run = io::read_bench_results(kAiperfRecords).at(0);
  engine::PlanInput input;
  engine::BaselineRun baseline;
  baseline.source = "aiperf";
  baseline.values_ms = run.latencies.samples[static_cast<std::size_t>(engine::LatencyMetric::e2e)];
  input.runs.push_back(baseline);
  input.effect = 0.01;
  const engine::Plan plan = engine::plan_ab(input);
  // Independently (python statistics over the file's request_latency values): n 89, mean
  // 9059.654633 ms, sd 221.465979 ms, k 2.801585; the normal formula's MDE k sd sqrt(2/n) / mean
  // = 1.0266% and needed ceil(2 k^2 sd^2 / (0.01 mean)^2) = 94. The t test with 2n - 2 = 176
  // degrees of freedom (mpmath: the noncentral t's integral): delta 2.816985, MDE 1.032286%,
  // power at 94 a side 0.79674, at 95 0.80094, so 95 are needed; power at 89: see below.
  CHECK(plan.requests == 89);
  CHECK(plan.mean_ms == Approx(9059.654633033708).epsilon(1e-12));
  CHECK(plan.unpaired.sd_ms == Approx(221.46597878086217).epsilon(1e-10));
  CHECK(plan.unpaired.mde_fraction == Approx(0.0103228557636304).epsilon(1e-6));
  CHECK(plan.unpaired.needed == 95);
  CHECK(plan.unpaired.df == 176);
  CHECK_FALSE(plan.unpaired.detectable);
  CHECK_FALSE(plan.impractical);
  CHECK_FALSE(plan.paired);
  CHECK_FALSE(plan.between_runs);
}

TEST_CASE("plan: a simulated A/B at the minimum detectable effect has the planned power",
          "[verify][plan]") {
  // Normal requests (mean 1000 ms, sd 100 ms), n = 200 a side, the after side shifted by the
  // MDE the plan states; a two-sided z test at 5% on each simulated A/B. The share of A/Bs that
  // detect the shift is the power, 0.8 (binomial sd over 4,000 trials: 0.0063).
  constexpr int kRequests = 200;
  constexpr int kTrials = 4000;
  std::mt19937_64 generator(20260430);
  std::normal_distribution<double> request(1000.0, 100.0);
  engine::PlanInput input;
  engine::BaselineRun baseline;
  baseline.source = "simulated";
  for (int i = 0; i < 100000; ++i) baseline.values_ms.push_back(request(generator));
  input.runs.push_back(baseline);
  input.requests = kRequests;
  input.effect = 0.05;
  const engine::Plan plan = engine::plan_ab(input);
  const double shift_ms = plan.unpaired.mde_fraction * plan.mean_ms;
  CHECK(shift_ms == Approx(2.801585 * 100 * std::sqrt(2.0 / kRequests)).epsilon(0.01));
  int detected = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    double sum_a = 0, sum_b = 0, squares_a = 0, squares_b = 0;
    for (int i = 0; i < kRequests; ++i) {
      const double a = request(generator);
      const double b = request(generator) - shift_ms;
      sum_a += a;
      sum_b += b;
      squares_a += a * a;
      squares_b += b * b;
    }
    const double n = kRequests;
    const double var_a = (squares_a - sum_a * sum_a / n) / (n - 1);
    const double var_b = (squares_b - sum_b * sum_b / n) / (n - 1);
    const double z = (sum_a / n - sum_b / n) / std::sqrt(var_a / n + var_b / n);
    if (std::fabs(z) > 1.959964) ++detected;
  }
  CHECK(static_cast<double>(detected) / kTrials == Approx(0.8).margin(0.025));
}

// ---- GuideLLM and llm-d benchmark reports ------------------------------------------------------
// The fixtures are written from the tools' documented fields (tests/fixtures/guidellm/README.md,
// tests/fixtures/llm-d/README.md); the checks are the figures those fields state, in ms.

namespace {

const std::string kFixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/";

double stated_ms(const io::BenchResult& result, engine::LatencyMetric metric,
                 engine::LatencyStatistic statistic) {
  const std::optional<double> value = stated(result.latencies, metric, statistic);
  REQUIRE(value);
  return *value;
}

}  // namespace

TEST_CASE("GuideLLM benchmarks.json: the successful requests' figures", "[verify][guidellm]") {
  using engine::LatencyMetric;
  using engine::LatencyStatistic;
  const std::vector<io::BenchResult> results =
      io::read_bench_results(kFixtures + "guidellm/before.json");
  REQUIRE(results.size() == 1);
  const io::BenchResult& run = results.front();
  CHECK(run.format == "guidellm-json");
  CHECK(run.source == kFixtures + "guidellm/before.json");
  CHECK_FALSE(run.latencies.per_request);
  CHECK(run.latencies.requests == 500);
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::mean) == 150.0);
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::p50) == 140.0);
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::p99) == 400.0);
  // inter_token_latency_ms is vLLM's TPOT; time_per_output_token_ms (20 ms) includes the first
  // token and is not read.
  CHECK(stated_ms(run, LatencyMetric::tpot, LatencyStatistic::mean) == 18.0);
  CHECK_FALSE(stated(run.latencies, LatencyMetric::itl, LatencyStatistic::mean));
  // request_latency is in seconds.
  CHECK(stated_ms(run, LatencyMetric::e2e, LatencyStatistic::mean) == Approx(2450.0));
  CHECK(stated_ms(run, LatencyMetric::e2e, LatencyStatistic::p99) == Approx(3600.0));
  CHECK(entry(run.conditions, "concurrency").value == "strategy concurrent, 16 streams");
  CHECK(entry(run.conditions, "token_counts").value ==
        "512 input + 128 output tokens per request (mean)");
  CHECK(entry(run.conditions, "model").status == engine::ConditionStatus::omitted);
}

TEST_CASE("GuideLLM sweeps give one result per benchmark; empty reports are refused",
          "[verify][guidellm]") {
  const auto benchmark = [](const std::string& strategy, double ttft_ms) {
    return R"({"config": {"strategy": )" + strategy +
           R"(}, "metrics": {"time_to_first_token_ms": {"successful": {"mean": )" +
           std::to_string(ttft_ms) +
           R"(, "median": 1, "count": 30, "percentiles": {"p50": 1, "p99": 2}}}}})";
  };
  const std::string sweep = R"({"metadata": {"version": 2}, "benchmarks": [)" +
                            benchmark(R"({"type_": "synchronous"})", 40) + ", " +
                            benchmark(R"({"type_": "constant", "rate": 2.5})", 55) + "]}";
  const std::vector<io::BenchResult> results = io::parse_bench_results(sweep, "sweep.json");
  REQUIRE(results.size() == 2);
  CHECK(results[0].source == "sweep.json:benchmarks[0]");
  CHECK(results[1].source == "sweep.json:benchmarks[1]");
  CHECK(entry(results[0].conditions, "concurrency").value == "strategy synchronous");
  CHECK(entry(results[1].conditions, "concurrency").value ==
        "strategy constant, request rate 2.5/s");
  CHECK(*stated(results[1].latencies, engine::LatencyMetric::ttft,
                engine::LatencyStatistic::mean) == 55.0);
  CHECK(results[1].latencies.requests == 30);
  CHECK_THROWS_WITH(
      io::parse_bench_results(R"({"metadata": {"version": 2}, "benchmarks": []})", "e.json"),
      Catch::Contains("e.json: a GuideLLM report with no benchmarks"));
  CHECK_THROWS_WITH(
      io::parse_bench_results(
          R"({"benchmarks": [{"metrics": {"request_totals": {"successful": 0}}}]})", "f.json"),
      Catch::Contains("f.json: a GuideLLM benchmark without successful time_to_first_token_ms") &&
          Catch::Contains("metrics.<name>.successful.{mean, median, percentiles}"));
}

TEST_CASE("GuideLLM per-request figures when the report keeps every request",
          "[verify][guidellm]") {
  using engine::LatencyMetric;
  using engine::LatencyStatistic;
  // GenerativeRequestStats' computed fields (guidellm/schemas/request_stats.py).
  const auto report = [](int successful) {
    const std::string request_list =
        R"([{"request_id": "a", "request_start_time": 1000.0, "request_latency": 0.15,)"
        R"( "prompt_tokens": 100, "cached_tokens": 0, "output_tokens": 11,)"
        R"( "time_to_first_token_ms": 50, "inter_token_latency_ms": 10},)"
        R"( {"request_id": "b", "request_start_time": 1000.1, "request_latency": 0.3,)"
        R"( "prompt_tokens": 120, "cached_tokens": 0, "output_tokens": 21,)"
        R"( "time_to_first_token_ms": 60, "inter_token_latency_ms": 12},)"
        R"( {"request_id": "c", "request_start_time": 1000.2, "request_latency": 0.08,)"
        R"( "prompt_tokens": 80, "cached_tokens": 0, "output_tokens": 6,)"
        R"( "time_to_first_token_ms": 40, "inter_token_latency_ms": 8}])";
    return R"({"benchmarks": [{"config": {"strategy": {"type_": "concurrent", "streams": 2}},)"
           R"( "metrics": {"request_totals": {"successful": )" +
           std::to_string(successful) +
           R"(}, "time_to_first_token_ms": {"successful": {"mean": 51, "median": 49,)"
           R"( "count": )" +
           std::to_string(successful) +
           R"(, "percentiles": {"p99": 70}}}},)"
           R"( "requests": {"successful": )" +
           request_list + "}}]}";
  };
  const io::BenchResult all = io::parse_bench_results(report(3), "all.json").at(0);
  CHECK(all.latencies.per_request);
  CHECK(all.latencies.requests == 3);
  CHECK(stated_ms(all, LatencyMetric::ttft, LatencyStatistic::mean) == Approx(50.0));
  CHECK(stated_ms(all, LatencyMetric::tpot, LatencyStatistic::mean) == Approx(10.0));
  CHECK(stated_ms(all, LatencyMetric::e2e, LatencyStatistic::p50) == Approx(150.0));
  CHECK(all.latencies.identified.empty());  // request ids are per run: nothing to pair
  CHECK(entry(all.conditions, "concurrency").value == "strategy concurrent, 2 streams");
  CHECK(entry(all.conditions, "token_counts").value ==
        "100 input + 12.67 output tokens per request (mean); 0 cached input (mean)");
  // Three requests kept of ten: a sample, so the run's aggregates are read instead.
  const io::BenchResult sample = io::parse_bench_results(report(10), "sample.json").at(0);
  CHECK_FALSE(sample.latencies.per_request);
  CHECK(sample.latencies.requests == 10);
  CHECK(stated_ms(sample, LatencyMetric::ttft, LatencyStatistic::mean) == 51.0);
  CHECK(stated_ms(sample, LatencyMetric::ttft, LatencyStatistic::p99) == 70.0);
}

TEST_CASE("llm-d benchmark report 0.1: metrics in ms, completed requests", "[verify][llm-d]") {
  using engine::LatencyMetric;
  using engine::LatencyStatistic;
  const io::BenchResult run = io::read_bench_results(kFixtures + "llm-d/report-v0.1.json").at(0);
  CHECK(run.format == "llm-d-report");
  CHECK(run.latencies.requests == 198);  // 200 sent, 2 failed
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::mean) == 85.0);
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::p99) == 210.0);
  CHECK(stated_ms(run, LatencyMetric::tpot, LatencyStatistic::mean) == 11.5);
  CHECK(stated_ms(run, LatencyMetric::itl, LatencyStatistic::p99) == 19.0);
  CHECK(stated_ms(run, LatencyMetric::e2e, LatencyStatistic::p50) == 2990.0);
  CHECK(entry(run.conditions, "model").value == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(entry(run.conditions, "engine").value == "vllm 0.9.0.1");
  CHECK(entry(run.conditions, "hardware").value == "1 × H100");
  CHECK(entry(run.conditions, "engine").status == engine::ConditionStatus::partial);
  CHECK(entry(run.conditions, "token_counts").value ==
        "1024 input + 256 output tokens per request (mean)");
}

TEST_CASE("llm-d benchmark report 0.2: aggregate in s, stack and load conditions",
          "[verify][llm-d]") {
  using engine::LatencyMetric;
  using engine::LatencyStatistic;
  const io::BenchResult run = io::read_bench_results(kFixtures + "llm-d/report-v0.2.json").at(0);
  CHECK(run.format == "llm-d-report");
  CHECK(run.latencies.requests == 500);
  CHECK(stated_ms(run, LatencyMetric::ttft, LatencyStatistic::mean) == Approx(36.8578));
  CHECK(stated_ms(run, LatencyMetric::tpot, LatencyStatistic::p99) == Approx(7.5));
  CHECK(stated_ms(run, LatencyMetric::itl, LatencyStatistic::p50) == Approx(5.9));
  CHECK(stated_ms(run, LatencyMetric::e2e, LatencyStatistic::mean) == Approx(6131.0));
  CHECK(entry(run.conditions, "model").value == "Qwen/Qwen3-0.6B");
  CHECK(entry(run.conditions, "hardware").value == "8 × NVIDIA-H100-80GB-HBM3");
  CHECK(entry(run.conditions, "engine").value == "llm-d ghcr.io/llm-d/llm-d-cuda:0.3.1");
  CHECK(entry(run.conditions, "concurrency").value == "max concurrency 64, request rate 10/s");
}

TEST_CASE("llm-d reports kspeed cannot read say why", "[verify][llm-d]") {
  const std::string scenario = R"("scenario": {"model": {"name": "m"}})";
  CHECK_THROWS_WITH(
      io::parse_bench_results(R"({"version": "0.3", )" + scenario + R"(, "results": {}})", "a"),
      Catch::Contains("a: an llm-d benchmark report version '0.3'") &&
          Catch::Contains("0.1, 0.2 and 0.2.1"));
  CHECK_THROWS_WITH(
      io::parse_bench_results(R"({"version": "0.2", )" + scenario + R"(, "results": {}})", "b"),
      Catch::Contains("without results.request_performance.aggregate"));
  CHECK_THROWS_WITH(
      io::parse_bench_results(R"({"version": "0.1", )" + scenario +
                                  R"(, "metrics": {"latency": {"time_to_first_token":)"
                                  R"( {"units": "us", "mean": 5}}}})",
                              "c"),
      Catch::Contains("c: latency.time_to_first_token has units 'us'") &&
          Catch::Contains("expected ms or s"));
  // The tools also write YAML: the error says so and what to give instead.
  CHECK_THROWS_WITH(io::parse_bench_results("version: '0.2'\nrun:\n  uid: x\n", "r.yaml"),
                    Catch::Contains("not a benchmark result kspeed reads") &&
                        Catch::Contains("it looks like YAML: write the report as JSON"));
}

}  // namespace unit_verify
