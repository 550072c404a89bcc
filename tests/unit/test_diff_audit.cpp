// kspeed diff (traces and benchmark results) and kspeed audit: the synthetic fixtures in
// tests/fixtures/diff always; copies of the shared traces and bench samples (../shared/data) that
// the tests write with known changes, skipped with a warning when that folder is absent.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kspeed/engine/verify/bench_diff.hpp"
#include "kspeed/engine/verify/conditions_audit.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/profile/trace_diff.hpp"

namespace unit_diff_audit {

using namespace kspeed;
using profile::PhaseChange;
using profile::TraceDiff;

namespace {

const std::string kFixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/diff/";
const std::string kShared = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/";

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real files)");
  return false;
}

TraceDiff diff_files(const std::string& before, const std::string& after) {
  const profile::KernelClassifier classifier(profile::builtin_patterns());
  return profile::diff_traces(io::trace::read_trace_file(before), io::trace::read_trace_file(after),
                              classifier, {});
}

const PhaseChange& phase(const TraceDiff& diff, profile::Phase which) {
  for (const PhaseChange& change : diff.phases) {
    if (!change.whole_trace && change.phase == which) return change;
  }
  FAIL("no phase " << to_string(which));
  return diff.phases.front();
}

const PhaseChange& whole(const TraceDiff& diff) {
  REQUIRE(diff.phases.back().whole_trace);
  return diff.phases.back();
}

// A file in the system's temporary folder, removed when the test ends.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("kspeed-test-" + std::to_string(::getpid()) + "-" + name))
                  .string()) {}
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }
  void write(const std::string& text) const {
    std::ofstream out(path_, std::ios::binary);
    out << text;
  }

 private:
  std::string path_;
};

std::string inflate(const std::string& path) {
  auto source = io::trace::gzip_source(io::trace::open_file_source(path), path);
  std::string text;
  std::array<char, 1 << 16> buffer{};
  while (const std::size_t n = source->read(buffer.data(), buffer.size())) {
    text.append(buffer.data(), n);
  }
  return text;
}

// The Kineto trace at `path` with every kernel of class `target` scaled by `factor`, and the
// kernel named `other` (if any) scaled by `other_factor`.
std::string scaled_copy(const std::string& path, profile::KernelClass target, double factor,
                        const std::string& other = "", double other_factor = 1) {
  const profile::KernelClassifier classifier(profile::builtin_patterns());
  nlohmann::json document = nlohmann::json::parse(inflate(path));
  for (nlohmann::json& event : document["traceEvents"]) {
    if (!event.is_object() || event.value("cat", "") != "kernel" || !event.contains("dur")) {
      continue;
    }
    const std::string name = event.value("name", "");
    if (classifier.classify(name) == target) {
      event["dur"] = event["dur"].get<double>() * factor;
    } else if (!other.empty() && name == other) {
      event["dur"] = event["dur"].get<double>() * other_factor;
    }
  }
  return document.dump();
}

}  // namespace

TEST_CASE("trace diff: every attention kernel halved (fixture)", "[diff][trace]") {
  const TraceDiff diff =
      diff_files(kFixtures + "before.trace.json", kFixtures + "attention-halved.trace.json");
  const PhaseChange& prefill = phase(diff, profile::Phase::prefill);
  CHECK(prefill.attention_before_ns == 30000);
  CHECK(prefill.attention_after_ns == 15000);
  CHECK(*prefill.attention_speedup == Approx(2.0).epsilon(1e-12));
  CHECK(prefill.share_before == Approx(0.30).epsilon(1e-12));
  CHECK(prefill.measured_speedup == Approx(100.0 / 85).epsilon(1e-12));
  CHECK(*prefill.predicted_speedup == Approx(100.0 / 85).epsilon(1e-12));
  CHECK(std::fabs(*prefill.prediction_error) < 1e-12);
  CHECK(prefill.steps.matched_steps == 1);
  const PhaseChange& decode = phase(diff, profile::Phase::decode);
  CHECK(decode.measured_speedup == Approx(100.0 / 90).epsilon(1e-12));
  CHECK(std::fabs(*decode.prediction_error) < 1e-12);
  CHECK(decode.other_change_ns() == 0);
  CHECK(decode.rest_change_ns() == 0);
  CHECK(whole(diff).measured_speedup == Approx(200.0 / 175).epsilon(1e-12));
  const auto& core =
      diff.classes.at(static_cast<std::size_t>(profile::KernelClass::attention_core));
  CHECK(*core.speedup() == Approx(2.0));
  for (const profile::KernelChange& kernel : diff.kernels) {
    CHECK_FALSE(kernel.is_new());
    CHECK_FALSE(kernel.vanished());
  }
}

TEST_CASE("trace diff: a GEMM changed too: the difference goes to other kernels (fixture)",
          "[diff][trace]") {
  const TraceDiff diff =
      diff_files(kFixtures + "before.trace.json", kFixtures + "gemm-changed.trace.json");
  const PhaseChange& decode = phase(diff, profile::Phase::decode);
  CHECK(*decode.attention_speedup == Approx(2.0));
  CHECK(*decode.predicted_speedup == Approx(100.0 / 90).epsilon(1e-12));
  CHECK(decode.measured_speedup == Approx(100.0 / 70).epsilon(1e-12));
  CHECK(*decode.prediction_error == Approx((100.0 / 90) / (100.0 / 70) - 1).epsilon(1e-12));
  CHECK(decode.other_change_ns() == -20000);
  CHECK(decode.attention_change_ns() == -10000);
  // Amdahl's after-time plus what it does not model is the measured after-time.
  CHECK(decode.total_before_ns - decode.attention_before_ns + decode.attention_after_ns +
            decode.other_change_ns() + decode.rest_change_ns() ==
        decode.total_after_ns);
  int added = 0;
  int vanished = 0;
  for (const profile::KernelChange& kernel : diff.kernels) {
    added += kernel.is_new() ? 1 : 0;
    vanished += kernel.vanished() ? 1 : 0;
  }
  CHECK(added == 1);
  CHECK(vanished == 1);
  CHECK(phase(diff, profile::Phase::prefill).other_change_ns() == 0);
}

TEST_CASE("trace diff: shared traces against copies with attention halved", "[diff][real]") {
  for (const char* name : {"vllm-b200-gptoss-prefill.trace.json.gz",
                           "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz"}) {
    const std::string path = kShared + "traces/" + name;
    if (!present(path)) continue;
    TemporaryFile copy(std::string(name) + ".halved.json");
    copy.write(scaled_copy(path, profile::KernelClass::attention_core, 0.5));
    const TraceDiff diff = diff_files(path, copy.path());
    for (const PhaseChange& change : diff.phases) {
      INFO(name << " phase " << to_string(change.phase) << (change.whole_trace ? " (all)" : ""));
      REQUIRE(change.attention_speedup);
      // Microsecond durations halved, then rounded to ns: 2.00x to the third decimal.
      CHECK(*change.attention_speedup == Approx(2.0).margin(1e-3));
      // Amdahl on the before-share with the realized s is the measured speedup (kernel time).
      CHECK(std::fabs(*change.predicted_speedup - change.measured_speedup) < 1e-6);
      CHECK(std::fabs(*change.prediction_error) < 1e-9);
      CHECK(change.other_change_ns() == 0);
      CHECK(change.steps.matched_steps ==
            std::max(change.steps.before_steps, change.steps.after_steps));
    }
  }
}

TEST_CASE("trace diff: shared trace where a non-attention kernel also changed", "[diff][real]") {
  const std::string path = kShared + "traces/sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  if (!present(path)) return;
  // The largest kernel of class other, 1.5x slower.
  const profile::KernelClassifier classifier(profile::builtin_patterns());
  const profile::Trace trace = io::trace::read_trace_file(path);
  std::vector<profile::KernelChange> totals = profile::kernel_totals(trace, classifier, false);
  const profile::KernelChange* largest = nullptr;
  for (const profile::KernelChange& total : totals) {
    if (total.kernel_class == profile::KernelClass::other &&
        (largest == nullptr || total.before_ns > largest->before_ns)) {
      largest = &total;
    }
  }
  REQUIRE(largest != nullptr);
  TemporaryFile copy("sglang-gemm-slower.json");
  copy.write(scaled_copy(path, profile::KernelClass::attention_core, 0.5, largest->name, 1.5));
  const TraceDiff diff = diff_files(path, copy.path());
  const PhaseChange& all = whole(diff);
  CHECK(*all.attention_speedup == Approx(2.0).margin(1e-3));
  // The other kernels' change is the chosen kernel's +50% (ns rounding per event).
  CHECK(static_cast<double>(all.other_change_ns()) ==
        Approx(0.5 * static_cast<double>(largest->before_ns)).epsilon(1e-3));
  CHECK(*all.prediction_error > 0.01);  // Amdahl alone promised more than was measured
  CHECK(all.total_before_ns - all.attention_before_ns + all.attention_after_ns +
            all.other_change_ns() + all.rest_change_ns() ==
        all.total_after_ns);
}

// ---- benchmark results -----------------------------------------------------------------------

namespace {

engine::BenchSide bench_side(const std::string& text, const std::string& name) {
  std::vector<io::BenchResult> results = io::parse_bench_results(text, name);
  REQUIRE(results.size() == 1);
  return results.front().latencies;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The AIPerf per-request export with every TTFT times `factor`.
std::string aiperf_scaled_ttft(const std::string& text, double factor) {
  std::istringstream lines(text);
  std::string line;
  std::string out;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record = nlohmann::json::parse(line);
    if (record["metrics"].contains("ttft")) {
      record["metrics"]["ttft"]["value"] =
          record["metrics"]["ttft"]["value"].get<double>() * factor;
    }
    out += record.dump() + "\n";
  }
  return out;
}

const engine::LatencyChange& change_of(const engine::BenchDiff& diff, engine::LatencyMetric metric,
                                       engine::LatencyStatistic statistic) {
  for (const engine::LatencyChange& change : diff.changes) {
    if (change.metric == metric && change.statistic == statistic) return change;
  }
  FAIL("no change for " << to_string(metric) << " " << to_string(statistic));
  return diff.changes.front();
}

}  // namespace

TEST_CASE("bootstrap: deterministic, and the interval of a known shift excludes 0",
          "[diff][bench]") {
  engine::BenchSide before;
  engine::BenchSide after;
  before.per_request = after.per_request = true;
  for (int i = 0; i < 200; ++i) {
    const double value = 100 + (i * 37 % 101);  // 100..200, spread
    before.samples[0].push_back(value);
    after.samples[0].push_back(value * 0.8);
  }
  before.requests = after.requests = 200;
  const engine::BenchDiff first = engine::compare_bench(before, after, {});
  const engine::BenchDiff second = engine::compare_bench(before, after, {});
  const auto& mean = change_of(first, engine::LatencyMetric::ttft, engine::LatencyStatistic::mean);
  CHECK(mean.change_ms == Approx(-0.2 * mean.before_ms));
  REQUIRE(mean.ci_high_ms);
  CHECK(*mean.ci_high_ms < 0);
  CHECK(*mean.ci_low_ms < mean.change_ms);
  CHECK(*mean.ci_high_ms > mean.change_ms);
  CHECK(*mean.within_noise == false);
  CHECK(*second.changes.front().ci_low_ms == *mean.ci_low_ms);  // same seed, same interval
  const engine::BenchDiff same = engine::compare_bench(before, before, {});
  for (const engine::LatencyChange& change : same.changes) {
    if (change.statistic == engine::LatencyStatistic::p99) {
      CHECK(change.no_interval == engine::NoInterval::too_few_for_percentile);  // 200 < 299
    } else {
      CHECK(*change.within_noise);
    }
  }
  engine::BootstrapOptions none;
  none.resamples = 0;
  CHECK(engine::compare_bench(before, after, none).changes.front().no_interval ==
        engine::NoInterval::no_resamples);
  CHECK(first.missing.size() == 3);  // only TTFT has values
}

TEST_CASE("bench diff: the AIPerf sample against a copy with every TTFT x0.8", "[diff][real]") {
  const std::string path = kShared + "bench/aiperf-gptoss20b-profile_export.jsonl";
  if (!present(path)) return;
  const std::string text = read_file(path);
  const engine::BenchSide before = bench_side(text, "before.jsonl");
  const engine::BenchSide after = bench_side(aiperf_scaled_ttft(text, 0.8), "after.jsonl");
  CHECK(before.per_request);
  CHECK(before.requests == 89);  // 100 requests, 11 cancelled (python check in the report)
  const engine::BenchDiff diff = engine::compare_bench(before, after, {});
  const auto& mean = change_of(diff, engine::LatencyMetric::ttft, engine::LatencyStatistic::mean);
  CHECK(mean.ratio == Approx(0.8).epsilon(1e-12));
  REQUIRE(mean.ci_high_ms);
  CHECK(*mean.ci_high_ms < 0);
  CHECK(*mean.within_noise == false);
  const auto& p50 = change_of(diff, engine::LatencyMetric::ttft, engine::LatencyStatistic::p50);
  CHECK(p50.ratio == Approx(0.8).epsilon(1e-12));
  // The p50's interval is wide (89 requests, a broad TTFT spread): no verdict asserted on it.
  // TPOT and E2E did not change: their intervals contain 0.
  CHECK(*change_of(diff, engine::LatencyMetric::tpot, engine::LatencyStatistic::mean).within_noise);
  CHECK(*change_of(diff, engine::LatencyMetric::e2e, engine::LatencyStatistic::mean).within_noise);
  // Against itself: every change within noise.
  const engine::BenchDiff same = engine::compare_bench(before, before, {});
  for (const engine::LatencyChange& change : same.changes) {
    CHECK(change.change_ms == 0);
    if (change.statistic == engine::LatencyStatistic::p99) {
      CHECK(change.no_interval == engine::NoInterval::too_few_for_percentile);  // 89 < 299
    } else {
      CHECK(*change.within_noise);
    }
  }
}

TEST_CASE("bench diff: the two vLLM aggregate samples have no interval", "[diff][real]") {
  const std::string a = kShared + "bench/vllm-bench-gptoss120b-disagg-conc4.json";
  const std::string b = kShared + "bench/vllm-bench-minimax-m25-disagg-conc64.json";
  if (!present(a) || !present(b)) return;
  const engine::BenchDiff diff =
      engine::compare_bench(bench_side(read_file(a), a), bench_side(read_file(b), b), {});
  REQUIRE(diff.changes.size() == 12);
  const auto& ttft = change_of(diff, engine::LatencyMetric::ttft, engine::LatencyStatistic::mean);
  CHECK(ttft.before_ms == Approx(330.7963805680629));
  CHECK(ttft.after_ms == Approx(272.4847578108893));
  for (const engine::LatencyChange& change : diff.changes) {
    CHECK(change.no_interval == engine::NoInterval::aggregate);
    CHECK_FALSE(change.ci_low_ms);
  }
}

// ---- audit -------------------------------------------------------------------------------------

namespace {

const engine::ConditionEntry& entry(const engine::FileConditions& file, const std::string& key) {
  for (const engine::ConditionEntry& condition : file.conditions) {
    if (condition.key == key) return condition;
  }
  FAIL("no condition " << key);
  return file.conditions.front();
}

}  // namespace

TEST_CASE("audit: the shared bench samples", "[audit][real]") {
  const std::string a = kShared + "bench/vllm-bench-gptoss120b-disagg-conc4.json";
  const std::string b = kShared + "bench/vllm-bench-minimax-m25-disagg-conc64.json";
  const std::string aiperf = kShared + "bench/aiperf-gptoss20b-profile_export_aiperf.json";
  const std::string sglang = kShared + "bench/sglang-bench-h200-llama-405b-online-output.jsonl";
  if (!present(a) || !present(b) || !present(aiperf) || !present(sglang)) return;
  std::vector<engine::FileConditions> files;
  for (const std::string& path : {a, b})
    files.push_back(io::read_bench_results(path).at(0).conditions);
  const engine::FileConditions& conc4 = files.front();
  CHECK(entry(conc4, "concurrency").value == "max concurrency 4, request rate inf/s, burstiness 1");
  CHECK(entry(conc4, "token_counts").status == engine::ConditionStatus::partial);
  CHECK(entry(conc4, "token_counts").value == "1024 input + 1024 output tokens per request (mean)");
  CHECK(entry(conc4, "hardware").status == engine::ConditionStatus::omitted);
  CHECK(entry(conc4, "prefix_caching").status == engine::ConditionStatus::omitted);
  const engine::Audit audit = engine::audit_conditions(files);
  CHECK_FALSE(audit.comparable);
  CHECK(audit.differing == std::vector<std::string>{"model", "concurrency"});

  const engine::FileConditions ai = io::read_bench_results(aiperf).at(0).conditions;
  CHECK(entry(ai, "model").value == "openai/gpt-oss-20b");
  CHECK(entry(ai, "concurrency").value == "max concurrency 100, mode concurrency_burst");
  CHECK(entry(ai, "metric_definitions").status == engine::ConditionStatus::partial);

  const std::vector<io::BenchResult> runs = io::read_bench_results(sglang);
  REQUIRE(runs.size() > 1);
  CHECK(runs[0].source == sglang + ":1");
  CHECK(entry(runs[0].conditions, "engine").value == "sglang");
  CHECK(entry(runs[0].conditions, "concurrency").value ==
        "max concurrency unlimited, request rate 1/s");
}

TEST_CASE("audit: different prefix caching makes workloads not comparable", "[audit]") {
  const std::string base =
      R"({"name": "w", "attention_share": {"prefill": [{"context": 1024, "share": 0.2}]}, "conditions": {)";
  const auto workload = [&base](const char* caching) {
    return base + R"("model": "m", "prefix_caching": ")" + caching + R"("}})";
  };
  std::vector<engine::FileConditions> files;
  files.push_back(io::parse_bench_results(workload("on, 40% hit rate"), "a.json").at(0).conditions);
  files.push_back(io::parse_bench_results(workload("off"), "b.json").at(0).conditions);
  CHECK(files[0].format == "kspeed-workload");
  const engine::Audit audit = engine::audit_conditions(files);
  CHECK_FALSE(audit.comparable);
  CHECK(audit.differing == std::vector<std::string>{"prefix_caching"});
  CHECK(audit.unchecked.size() == 8);
  const engine::Audit one = engine::audit_conditions({files[0]});
  CHECK(one.comparable);
  CHECK(one.comparisons.empty());
}

TEST_CASE("bench results: unknown formats are errors naming the file", "[audit]") {
  CHECK_THROWS_WITH(io::parse_bench_results("{\"x\": 1}", "x.json"),
                    Catch::Contains("x.json: not a benchmark result"));
  CHECK_THROWS_WITH(
      io::parse_bench_results(
          "{\"backend\": \"sglang\", \"completed\": 1, \"mean_e2e_latency_ms\": 1}\nnope\n",
          "s.jsonl"),
      Catch::Contains("s.jsonl:2: not an SGLang bench_serving run"));
}

TEST_CASE("bench diff: AIPerf's own aggregates equal kspeed's statistics of its per-request export",
          "[diff][real]") {
  const std::string records = kShared + "bench/aiperf-gptoss20b-profile_export.jsonl";
  const std::string aggregate = kShared + "bench/aiperf-gptoss20b-profile_export_aiperf.json";
  if (!present(records) || !present(aggregate)) return;
  // AIPerf computed its avg/p50/p99 with numpy; kspeed's linear percentiles must agree.
  const engine::BenchDiff diff =
      engine::compare_bench(io::read_bench_results(aggregate).at(0).latencies,
                            io::read_bench_results(records).at(0).latencies, {});
  REQUIRE(diff.changes.size() == 9);  // TTFT, TPOT (inter_token_latency), E2E x mean/p50/p99
  for (const engine::LatencyChange& change : diff.changes) {
    INFO(to_string(change.metric) << " " << to_string(change.statistic));
    CHECK(change.after_ms == Approx(change.before_ms).epsilon(1e-9));
    CHECK(change.no_interval == engine::NoInterval::aggregate);
  }
}

}  // namespace unit_diff_audit
