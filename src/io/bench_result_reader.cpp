// Benchmark results for `kspeed diff` and `kspeed audit` (bench_result.hpp): one detector and one
// reader per format, in this file because each is a handful of field look-ups over one JSON value.
// Field names are the tools' own: vLLM vllm/benchmarks/serve.py, AIPerf
// docs/reference/json-export-schema.md, SGLang python/sglang/bench_serving.py.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/requests/request_log.hpp"
#include "kspeed/io/serving/measured_load.hpp"
#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "requests/request_json.hpp"

namespace kspeed::io {

namespace {

using engine::ConditionEntry;
using engine::ConditionStatus;
using engine::LatencyMetric;
using nlohmann::json;
using requests::member;

constexpr std::size_t kHeadLineBytes = std::size_t{1}
                                       << 20;  // a first record longer is not AIPerf's

// A number for people and for comparison: at most 4 significant digits, no trailing zeros.
std::string number_text(double value) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "nan";
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::general, 4);
  return std::string(buffer.data(), result.ptr);
}

std::string json_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return number_text(value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

const json* non_null(const json& object, std::initializer_list<const char*> keys) {
  const json* value = member(object, keys);
  return value != nullptr && !value->is_null() ? value : nullptr;
}

std::optional<double> number(const json& object, std::initializer_list<const char*> keys) {
  const json* value = non_null(object, keys);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

// The ten conditions, all omitted, to fill in.
std::vector<ConditionEntry> blank_conditions() {
  std::vector<ConditionEntry> entries;
  for (const char* key : engine::kConditionKeys) entries.push_back(engine::omitted_condition(key));
  return entries;
}

ConditionEntry& condition(BenchResult& result, std::string_view key) {
  for (ConditionEntry& entry : result.conditions.conditions) {
    if (entry.key == key) return entry;
  }
  throw std::logic_error("unknown condition key");
}

void state(BenchResult& result, std::string_view key, std::string value, std::string missing = "") {
  ConditionEntry& entry = condition(result, key);
  entry.status = missing.empty() ? ConditionStatus::stated : ConditionStatus::partial;
  entry.compared = value;
  entry.value = std::move(value);
  entry.missing = std::move(missing);
}

BenchResult blank_result(std::string source, std::string format) {
  BenchResult result;
  result.source = source;
  result.format = format;
  result.conditions.source = std::move(source);
  result.conditions.format = std::move(format);
  result.conditions.conditions = blank_conditions();
  result.latencies.source = result.source;
  return result;
}

// Token counts per request (totals grow with the number of requests; means do not).
void state_token_means(BenchResult& result, std::optional<double> input_mean,
                       std::optional<double> output_mean) {
  if (!input_mean && !output_mean) return;
  std::string value;
  if (input_mean) value += number_text(*input_mean) + " input";
  if (output_mean) value += (value.empty() ? "" : " + ") + number_text(*output_mean) + " output";
  state(result, "token_counts", value + " tokens per request (mean)",
        "cached input and reasoning tokens");
  // Compared to two significant digits: two runs of one random dataset differ in the last
  // digits of their means (508.4 and 508.5 input tokens), not in what they measure.
  const auto rounded = [](std::optional<double> mean) {
    if (!mean || *mean <= 0) return std::string("-");
    const double scale = std::pow(10.0, std::floor(std::log10(*mean)) - 1);
    return number_text(std::round(*mean / scale) * scale);
  };
  condition(result, "token_counts").compared =
      rounded(input_mean) + " in, " + rounded(output_mean) + " out";
}

// What a file states beyond the token means: reasoning tokens among the output, and prompt
// tokens read from the prefix cache. `token_counts` says which it states and lacks.
void state_token_details(BenchResult& result, std::optional<double> reasoning_mean,
                         std::optional<double> cached_mean) {
  ConditionEntry& entry = condition(result, "token_counts");
  if (entry.status == ConditionStatus::omitted) return;
  std::string details;
  if (cached_mean) details += number_text(*cached_mean) + " cached input";
  if (reasoning_mean) {
    details += (details.empty() ? "" : ", ") + number_text(*reasoning_mean) + " reasoning";
  }
  if (!details.empty()) entry.value += "; " + details + " (mean)";
  std::string missing;
  if (!cached_mean) missing = "cached input";
  if (!reasoning_mean)
    missing += (missing.empty() ? "" : " and ") + std::string("reasoning tokens");
  entry.missing = missing;
  entry.status = missing.empty() ? ConditionStatus::stated : ConditionStatus::partial;
}

// The ceiling on a latency a file states: 10^9 ms (11.6 days), far above any benchmark run, far
// below where arithmetic on it loses digits.
constexpr double kMaxLatencyMs = 1e9;
// The ceilings on a request count (10^12 requests) and on a token total (10^18 tokens).
constexpr double kMaxRequests = 1e12;
constexpr double kMaxBenchTokens = 1e18;

// The first of `keys` that `object` holds (not null), for messages.
std::string found_key(const json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (non_null(object, {key}) != nullptr) return key;
  }
  return *keys.begin();
}

// A latency statistic, range-checked where it is read: a duration in ms, finite, >= 0 and at
// most kMaxLatencyMs; otherwise an InputError naming the file (and line), the field and value.
void state_stat(BenchResult& result, LatencyMetric metric, engine::LatencyStatistic statistic,
                const json& object, std::initializer_list<const char*> keys) {
  const std::optional<double> value = number(object, keys);
  if (!value) return;
  if (!(*value >= 0 && *value <= kMaxLatencyMs)) {
    throw InputError(result.source + ": " + found_key(object, keys) + " is " + number_text(*value) +
                     ": expected a latency in milliseconds, >= 0 and at most 1e9 (11.6 days); "
                     "correct the value or remove the field");
  }
  result.latencies.stated.at(static_cast<std::size_t>(metric))
      .at(static_cast<std::size_t>(statistic)) = value;
}

// The same for a value already read (and scaled to ms), named by `field` in the message.
void state_stat(BenchResult& result, LatencyMetric metric, engine::LatencyStatistic statistic,
                std::optional<double> value, std::string_view field) {
  if (!value) return;
  if (!(*value >= 0 && *value <= kMaxLatencyMs)) {
    throw InputError(result.source + ": " + std::string(field) + " is " + number_text(*value) +
                     " ms: expected a latency in milliseconds, >= 0 and at most 1e9 (11.6 days); "
                     "correct the value or remove the field");
  }
  result.latencies.stated.at(static_cast<std::size_t>(metric))
      .at(static_cast<std::size_t>(statistic)) = value;
}

// A request or token count a file states: a whole number, >= 0, at most `ceiling`.
double checked_count(const BenchResult& result, double value, std::string_view field,
                     double ceiling = kMaxRequests) {
  if (!(value >= 0 && value <= ceiling && value == std::floor(value))) {
    throw InputError(result.source + ": " + std::string(field) + " is " + number_text(value) +
                     ": expected a whole number >= 0 and at most " + number_text(ceiling));
  }
  return value;
}

// ---- vLLM bench serve JSON ----------------------------------------------------------------

bool is_vllm_bench(const json& document) {
  return document.is_object() && member(document, {"completed"}) != nullptr &&
         (member(document, {"mean_ttft_ms", "ttfts"}) != nullptr);
}

// Which percentile keys the file reports ("p90_ttft_ms" -> "p90").
std::string reported_percentiles(const json& document, const std::string& suffix) {
  std::string list;
  for (const auto& item : document.items()) {
    const std::string& key = item.key();
    if (key.size() > suffix.size() + 1 && key[0] == 'p' &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      list += (list.empty() ? "" : ", ") + key.substr(0, key.size() - suffix.size());
    }
  }
  return list;
}

void read_vllm_conditions(BenchResult& result, const json& document) {
  if (const json* model = non_null(document, {"model_id", "model"})) {
    state(result, "model", json_text(*model));
  }
  const std::optional<double> completed = number(document, {"completed"});
  if (completed && checked_count(result, *completed, "completed") > 0) {
    std::optional<double> input = number(document, {"total_input_tokens", "total_input"});
    std::optional<double> output = number(document, {"total_output_tokens", "total_output"});
    if (input) input = checked_count(result, *input, "total_input_tokens", kMaxBenchTokens);
    if (output) output = checked_count(result, *output, "total_output_tokens", kMaxBenchTokens);
    state_token_means(result, input ? std::optional(*input / *completed) : std::nullopt,
                      output ? std::optional(*output / *completed) : std::nullopt);
  }
  std::string load;
  if (const json* concurrency = member(document, {"max_concurrency"})) {
    load += "max concurrency " + (concurrency->is_null() ? "unlimited" : json_text(*concurrency));
  }
  if (const json* rate = non_null(document, {"request_rate"})) {
    load += (load.empty() ? "" : ", ") + ("request rate " + json_text(*rate) + "/s");
  }
  if (const json* burstiness = non_null(document, {"burstiness"})) {
    load += (load.empty() ? "" : ", ") + ("burstiness " + json_text(*burstiness));
  }
  if (!load.empty()) state(result, "concurrency", load);
  const json* goodput = non_null(document, {"request_goodput", "request_goodput:"});
  const std::string percentiles = reported_percentiles(document, "_ttft_ms");
  if (goodput != nullptr) {
    state(result, "goodput",
          "goodput " + json_text(*goodput) + " req/s; percentiles " +
              (percentiles.empty() ? "none" : percentiles));
  } else if (!percentiles.empty()) {
    state(result, "goodput", "percentiles " + percentiles, "a goodput SLO");
  }
}

void read_vllm_aggregates(BenchResult& result, const json& document) {
  using engine::LatencyStatistic;
  const std::array<std::pair<LatencyMetric, const char*>, 4> names = {
      {{LatencyMetric::ttft, "ttft"},
       {LatencyMetric::tpot, "tpot"},
       {LatencyMetric::itl, "itl"},
       {LatencyMetric::e2e, "e2el"}}};
  for (const auto& [metric, name] : names) {
    const std::string suffix = std::string("_") + name + "_ms";
    state_stat(result, metric, LatencyStatistic::mean, document, {("mean" + suffix).c_str()});
    state_stat(result, metric, LatencyStatistic::p50, document,
               {("median" + suffix).c_str(), ("p50" + suffix).c_str()});
    state_stat(result, metric, LatencyStatistic::p99, document, {("p99" + suffix).c_str()});
  }
  if (const std::optional<double> completed = number(document, {"completed"})) {
    result.latencies.requests =
        static_cast<std::int64_t>(checked_count(result, *completed, "completed"));
  }
}

// The most requests in flight at once, from each request's start and latency (a sweep over
// start and end events; an end before a start at the same instant).
std::int64_t most_in_flight(std::vector<std::pair<double, int>>& events) {
  std::sort(events.begin(), events.end());
  std::int64_t in_flight = 0;
  std::int64_t most = 0;
  for (const auto& [time, change] : events) {
    in_flight += change;
    most = std::max(most, in_flight);
  }
  return most;
}

// The observed concurrency, compared to one significant digit: two runs at one setting differ
// in their peak by a request or two (89 and 87 in flight), not by a factor.
void state_observed_concurrency(BenchResult& result, std::int64_t most, std::int64_t requests) {
  if (most <= 0) return;
  const double scale = std::pow(10.0, std::floor(std::log10(static_cast<double>(most))));
  state(result, "concurrency",
        "at most " + std::to_string(most) + " of " + std::to_string(requests) +
            " requests in flight (observed from request start times and latencies)",
        "the configured concurrency or request rate");
  condition(result, "concurrency").compared =
      "about " + number_text(std::round(static_cast<double>(most) / scale) * scale) + " in flight";
}

// Per-request values through the request-log readers (vLLM --save-detailed, AIPerf JSONL): the
// same fields, units and error handling as `kspeed mix`.
// `read(sink)` streams the requests to `sink` (from text in memory, or from a file).
void read_per_request(BenchResult& result,
                      const std::function<RequestLogReport(const RequestSink&)>& read) {
  engine::BenchSide& side = result.latencies;
  side.per_request = true;
  double input_sum = 0;
  double output_sum = 0;
  std::int64_t cached_requests = 0;
  double cached_sum = 0;
  std::int64_t reasoning_requests = 0;
  double reasoning_sum = 0;
  // AIPerf draws dataset entries with replacement: the k-th use of one prompt pairs with the
  // k-th use in another run, so repeated ids get "#k".
  std::unordered_map<std::string, std::int64_t> id_uses;
  std::vector<std::pair<double, int>> flight;  // (time s, +1 start / -1 end) per timed request
  bool every_request_timed = true;
  const auto push = [&side](LatencyMetric metric, std::optional<double> value) {
    if (value && std::isfinite(*value))
      side.samples.at(static_cast<std::size_t>(metric)).push_back(*value);
  };
  const RequestLogReport read_report = read([&](const engine::Request& request) {
    ++side.requests;
    input_sum += static_cast<double>(request.prompt_tokens);
    output_sum += static_cast<double>(request.response_tokens);
    if (request.cached_tokens) {
      ++cached_requests;
      cached_sum += static_cast<double>(*request.cached_tokens);
    }
    if (request.arrival_s && request.e2e_ms) {
      flight.emplace_back(*request.arrival_s, 1);
      flight.emplace_back(*request.arrival_s + *request.e2e_ms / 1000, -1);
    } else {
      every_request_timed = false;
    }
    if (request.reasoning_tokens) {
      ++reasoning_requests;
      reasoning_sum += static_cast<double>(*request.reasoning_tokens);
    }
    push(LatencyMetric::ttft, request.ttft_ms);
    // TPOT = (E2E - TTFT) / (n - 1), vLLM's definition, when the file does not give it.
    std::optional<double> tpot = request.tpot_ms;
    if (!tpot && request.e2e_ms && request.ttft_ms && request.response_tokens >= 2) {
      tpot =
          (*request.e2e_ms - *request.ttft_ms) / static_cast<double>(request.response_tokens - 1);
    }
    push(LatencyMetric::tpot, tpot);
    push(LatencyMetric::itl, request.itl_ms);
    push(LatencyMetric::e2e, request.e2e_ms);
    if (!request.id.empty()) {  // for pairing with another run (bench_diff.hpp)
      const std::int64_t use = ++id_uses[request.id];
      side.identified.push_back({use == 1 ? request.id : request.id + "#" + std::to_string(use),
                                 request.prompt_tokens,
                                 {request.ttft_ms, tpot, request.itl_ms, request.e2e_ms}});
    }
  });
  if (side.requests > 0) {
    const double n = static_cast<double>(side.requests);
    state_token_means(result, input_sum / n, output_sum / n);
    // A detail counts as stated when every request states it.
    state_token_details(
        result,
        reasoning_requests == side.requests ? std::optional(reasoning_sum / n) : std::nullopt,
        cached_requests == side.requests ? std::optional(cached_sum / n) : std::nullopt);
    if (every_request_timed)
      state_observed_concurrency(result, most_in_flight(flight), side.requests);
  }
  side.skipped = read_report.skipped_total();
  if (!read_report.skipped.empty()) side.first_skipped = read_report.skipped.front().first_detail;
  engine::summarise_samples(side);
}

// ---- AIPerf -----------------------------------------------------------------------------

// ms per unit of an AIPerf duration ("ms", "ns", "us", "s", "sec"); nullopt for another unit.
std::optional<double> ms_per_unit(std::string_view unit) {
  if (unit == "ms") return 1.0;
  if (unit == "ns") return 1e-6;
  if (unit == "us") return 1e-3;
  if (unit == "s" || unit == "sec") return 1000.0;
  return std::nullopt;
}

// Before 0.10 the metrics sit under "records"; from schema 1.0 (AIPerf 0.10) at the top level,
// beside "schema_version" (json-export-schema.md).
bool is_aiperf_aggregate(const json& document) {
  return document.is_object() && non_null(document, {"records"}) != nullptr &&
         non_null(document, {"input_config"}) != nullptr;
}

bool is_aiperf_flat_aggregate(const json& document) {
  if (!document.is_object() || non_null(document, {"records"}) != nullptr) return false;
  const json* latency = non_null(document, {"request_latency", "time_to_first_token", "ttft"});
  return latency != nullptr && latency->is_object() && non_null(*latency, {"unit"}) != nullptr &&
         non_null(document, {"schema_version", "aiperf_version", "input_config"}) != nullptr;
}

void read_aiperf_aggregate(BenchResult& result, const json& document, const json& records) {
  static const json kNone = json::object();
  const json* config_json = non_null(document, {"input_config"});
  const json& config = config_json != nullptr ? *config_json : kNone;
  const json* endpoint = non_null(config, {"endpoint"});
  // Warm-up requests AIPerf sent before measuring (input_config.loadgen.warmup_request_count,
  // --warmup-request-count; warmup_duration, --warmup-duration, in seconds).
  std::string warmup;
  if (const json* loadgen = non_null(config, {"loadgen"})) {
    if (const json* count = non_null(*loadgen, {"warmup_request_count"})) {
      warmup = "warm-up " + json_text(*count) + " requests";
    } else if (const json* duration = non_null(*loadgen, {"warmup_duration"})) {
      warmup = "warm-up " + json_text(*duration) + " s";
    }
  }
  const std::string warmup_missing = warmup.empty() ? "; warm-up" : "";
  if (endpoint == nullptr || non_null(*endpoint, {"streaming"}) == nullptr) {
    if (!warmup.empty())
      state(result, "metric_definitions", warmup, "streaming; whether TTFT includes queueing");
  }
  if (endpoint != nullptr) {
    if (const json* models = non_null(*endpoint, {"model_names"}); models && models->is_array()) {
      std::string names;
      for (const json& name : *models) names += (names.empty() ? "" : ", ") + json_text(name);
      if (!names.empty()) state(result, "model", names);
    }
    if (const json* streaming = non_null(*endpoint, {"streaming"})) {
      state(result, "metric_definitions",
            "streaming " + json_text(*streaming) + (warmup.empty() ? "" : ", " + warmup),
            "whether TTFT includes queueing" + warmup_missing);
    }
  }
  if (const json* loadgen = non_null(config, {"loadgen"})) {
    std::string load;
    if (const json* concurrency = non_null(*loadgen, {"concurrency"})) {
      load += "max concurrency " + json_text(*concurrency);
    }
    if (const json* rate = non_null(*loadgen, {"request_rate"})) {
      load += (load.empty() ? "" : ", ") + ("request rate " + json_text(*rate) + "/s");
    }
    if (const json* mode = non_null(*loadgen, {"request_rate_mode"})) {
      load += (load.empty() ? "" : ", ") + ("mode " + json_text(*mode));
    }
    if (!load.empty()) state(result, "concurrency", load);
  }
  const auto stat = [&records](const char* tag, const char* field) -> std::optional<double> {
    const json* metric = non_null(records, {tag});
    return metric != nullptr && metric->is_object() ? number(*metric, {field}) : std::nullopt;
  };
  state_token_means(result, stat("input_sequence_length", "avg"),
                    stat("output_sequence_length", "avg"));
  state_token_details(result, stat("reasoning_token_count", "avg"),
                      stat("usage_prompt_cache_read_tokens", "avg"));
  if (const json* ttft = non_null(records, {"ttft", "time_to_first_token"});
      ttft && ttft->is_object()) {
    std::string percentiles;
    for (const auto& item : ttft->items()) {
      if (item.key().size() > 1 && item.key()[0] == 'p' && !item.value().is_null()) {
        percentiles += (percentiles.empty() ? "" : ", ") + item.key();
      }
    }
    if (!percentiles.empty()) {
      state(result, "goodput", "percentiles " + percentiles, "a goodput SLO");
    }
  }
  using engine::LatencyStatistic;
  // AIPerf's inter_token_latency is (request latency - TTFT) / (output tokens - 1) per request:
  // TPOT in vLLM's terms (json-export-schema.md), as the request-log reader reads it too.
  // Its inter_chunk_latency is the gap between streamed chunks, every gap pooled: ITL in vLLM's
  // terms (a chunk is a token unless the server batches tokens into chunks).
  const std::array<std::pair<LatencyMetric, const char*>, 4> tags = {
      {{LatencyMetric::ttft, "ttft"},
       {LatencyMetric::tpot, "inter_token_latency"},
       {LatencyMetric::itl, "inter_chunk_latency"},
       {LatencyMetric::e2e, "request_latency"}}};
  for (const auto& [metric, tag] : tags) {
    const json* metric_json = metric == LatencyMetric::ttft
                                  ? non_null(records, {"ttft", "time_to_first_token"})
                                  : non_null(records, {tag});
    if (metric_json == nullptr || !metric_json->is_object()) continue;
    const json* unit = non_null(*metric_json, {"unit"});
    const std::optional<double> scale = ms_per_unit(unit != nullptr ? json_text(*unit) : "ms");
    if (!scale) {
      throw InputError(result.source + ": " + tag + " has unit '" + json_text(*unit) +
                       "': expected ms, ns, us or s (AIPerf's unit field)");
    }
    const auto scaled = [&scale](std::optional<double> value) {
      return value ? std::optional(*value * *scale) : std::nullopt;
    };
    state_stat(result, metric, LatencyStatistic::mean, scaled(number(*metric_json, {"avg"})),
               std::string(tag) + ".avg");
    state_stat(result, metric, LatencyStatistic::p50, scaled(number(*metric_json, {"p50"})),
               std::string(tag) + ".p50");
    state_stat(result, metric, LatencyStatistic::p99, scaled(number(*metric_json, {"p99"})),
               std::string(tag) + ".p99");
    // A chunk gap's count is gaps, not requests.
    const std::optional<double> count = number(*metric_json, {"count"});
    if (count && metric != LatencyMetric::itl) {
      result.latencies.requests =
          static_cast<std::int64_t>(checked_count(result, *count, std::string(tag) + ".count"));
    }
  }
}

bool is_aiperf_record(const json& object) {
  return object.is_object() && member(object, {"metrics"}) != nullptr &&
         member(object, {"metadata"}) != nullptr;
}

// ---- AIPerf profile_export_aiperf.csv -------------------------------------------------------
// Sections separated by blank lines: "Metric,avg,min,max,p1,...,p99,std" with one row per
// record metric named "Display Name (unit)", then "Metric,Value" with run totals, then GPU
// telemetry (working-with-profile-exports.md). Display names are AIPerf's metric headers.

bool is_aiperf_csv(std::string_view first) {
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  return first.starts_with("Metric,avg,") || first == "Metric,Value";
}

std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

// "Time to First Token (ms)" -> {"Time to First Token", "ms"}.
std::pair<std::string, std::string> name_and_unit(const std::string& cell) {
  const std::size_t open = cell.rfind(" (");
  if (open == std::string::npos || cell.back() != ')') return {cell, ""};
  return {cell.substr(0, open), cell.substr(open + 2, cell.size() - open - 3)};
}

std::optional<double> csv_number(const std::string& text, const std::string& where) {
  if (text.empty() || text == "N/A" || text == "nan") return std::nullopt;
  std::string digits;
  for (const char c : text) {
    if (c != ',') digits += c;
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(value)) {
    throw InputError(where + ": '" + text + "' is not a number: expected AIPerf's figure");
  }
  return value;
}

// One metric row of the CSV with its section's header.
struct CsvRow {
  std::int64_t line = 0;
  std::string unit;                 // from "Name (unit)"; empty when the name has none
  std::vector<std::string> header;  // "Metric", "avg", ... or "Metric", "Value"
  std::vector<std::string> fields;  // the row, its name first
};

void read_aiperf_csv(BenchResult& result, std::string_view text) {
  using engine::LatencyStatistic;
  std::vector<std::string> header;
  std::int64_t line_number = 0;
  std::unordered_map<std::string, CsvRow> rows;  // "avg:" or "Value:" + display name
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      header.clear();  // a blank line ends a section
      continue;
    }
    std::vector<std::string> fields = csv_fields(line);
    if (header.empty()) {
      header = std::move(fields);
      continue;
    }
    if (header.front() != "Metric" || header.size() < 2) continue;  // telemetry sections
    auto [name, unit] = name_and_unit(fields.front());
    rows[header[1] + ":" + name] = CsvRow{line_number, unit, header, std::move(fields)};
  }
  // A figure of a row: a distribution column ("avg", "p50", "p99") or a total ("Value").
  const auto figure = [&](const std::string& name, const std::string& column,
                          bool duration) -> std::optional<double> {
    const auto row = rows.find((column == "Value" ? "Value:" : "avg:") + name);
    if (row == rows.end()) return std::nullopt;
    const CsvRow& csv = row->second;
    for (std::size_t i = 1; i < csv.header.size() && i < csv.fields.size(); ++i) {
      if (csv.header[i] != column) continue;
      const std::string where = result.source + ":" + std::to_string(csv.line);
      std::optional<double> value = csv_number(csv.fields[i], where);
      if (value && duration) {
        const std::optional<double> scale = ms_per_unit(csv.unit);
        if (!scale) {
          throw InputError(where + ": '" + name + "' is in '" + csv.unit +
                           "': expected ms, ns, us or sec");
        }
        *value *= *scale;
      }
      return value;
    }
    return std::nullopt;
  };
  state_token_means(result, figure("Input Sequence Length", "avg", false),
                    figure("Output Sequence Length", "avg", false));
  state_token_details(result, figure("Reasoning Token Count", "avg", false),
                      figure("Usage Prompt Cache Read Tokens", "avg", false));
  const std::array<std::pair<LatencyMetric, const char*>, 3> names = {
      {{LatencyMetric::ttft, "Time to First Token"},
       {LatencyMetric::tpot, "Inter Token Latency"},
       {LatencyMetric::e2e, "Request Latency"}}};
  for (const auto& [metric, name] : names) {
    state_stat(result, metric, LatencyStatistic::mean, figure(name, "avg", true),
               std::string(name) + " avg");
    state_stat(result, metric, LatencyStatistic::p50, figure(name, "p50", true),
               std::string(name) + " p50");
    state_stat(result, metric, LatencyStatistic::p99, figure(name, "p99", true),
               std::string(name) + " p99");
  }
  if (const std::optional<double> count = figure("Request Count", "Value", false)) {
    if (!(*count >= 0 && *count <= 1e15)) {
      throw InputError(result.source + ": Request Count " + number_text(*count) +
                       " is not a count of requests: is the file corrupt?");
    }
    result.latencies.requests = static_cast<std::int64_t>(*count);
  }
  bool any = false;
  for (const auto& statistics : result.latencies.stated) {
    for (const auto& value : statistics) any = any || value.has_value();
  }
  if (!any) {
    throw InputError(result.source +
                     ": an AIPerf CSV without Time to First Token, Inter Token Latency or "
                     "Request Latency rows: expected profile_export_aiperf.csv as aiperf "
                     "profile writes it");
  }
}

// ---- SGLang bench_serving JSONL -----------------------------------------------------------

bool is_sglang_run(const json& object) {
  // SGLang names the request latency e2e_latency (vLLM: e2el) and states the dataset.
  return object.is_object() && member(object, {"backend"}) != nullptr &&
         member(object, {"completed"}) != nullptr &&
         member(object, {"mean_e2e_latency_ms", "median_e2e_latency_ms", "dataset_name"}) !=
             nullptr;
}

void read_sglang_run(BenchResult& result, const json& run) {
  if (const json* model = non_null(run, {"model_id", "model"})) {
    state(result, "model", json_text(*model));
  }
  if (const json* backend = non_null(run, {"backend"})) {
    state(result, "engine", json_text(*backend), "version and attention backend");
  }
  const std::optional<double> completed = number(run, {"completed"});
  if (completed && checked_count(result, *completed, "completed") > 0) {
    std::optional<double> input = number(run, {"total_input_tokens", "total_input"});
    std::optional<double> output = number(run, {"total_output_tokens", "total_output"});
    if (input) input = checked_count(result, *input, "total_input_tokens", kMaxBenchTokens);
    if (output) output = checked_count(result, *output, "total_output_tokens", kMaxBenchTokens);
    state_token_means(result, input ? std::optional(*input / *completed) : std::nullopt,
                      output ? std::optional(*output / *completed) : std::nullopt);
    result.latencies.requests = static_cast<std::int64_t>(*completed);
  }
  std::string load;
  if (const json* concurrency = member(run, {"max_concurrency"})) {
    load += "max concurrency " + (concurrency->is_null() ? "unlimited" : json_text(*concurrency));
  }
  // Infinity (offline runs) was read as null: all requests at once.
  if (const json* rate = member(run, {"request_rate"})) {
    load += (load.empty() ? "" : ", ") +
            ("request rate " + (rate->is_null() ? std::string("inf") : json_text(*rate)) + "/s");
  }
  if (!load.empty()) state(result, "concurrency", load);
  using engine::LatencyStatistic;
  state_stat(result, LatencyMetric::ttft, LatencyStatistic::mean, run, {"mean_ttft_ms"});
  state_stat(result, LatencyMetric::ttft, LatencyStatistic::p50, run, {"median_ttft_ms"});
  state_stat(result, LatencyMetric::ttft, LatencyStatistic::p99, run, {"p99_ttft_ms"});
  state_stat(result, LatencyMetric::tpot, LatencyStatistic::mean, run, {"mean_tpot_ms"});
  state_stat(result, LatencyMetric::tpot, LatencyStatistic::p50, run, {"median_tpot_ms"});
  state_stat(result, LatencyMetric::itl, LatencyStatistic::mean, run, {"mean_itl_ms"});
  state_stat(result, LatencyMetric::itl, LatencyStatistic::p50, run, {"median_itl_ms"});
  state_stat(result, LatencyMetric::itl, LatencyStatistic::p99, run, {"p99_itl_ms"});
  state_stat(result, LatencyMetric::e2e, LatencyStatistic::mean, run, {"mean_e2e_latency_ms"});
  state_stat(result, LatencyMetric::e2e, LatencyStatistic::p50, run, {"median_e2e_latency_ms"});
  state_stat(result, LatencyMetric::e2e, LatencyStatistic::p99, run, {"p99_e2e_latency_ms"});
}

// ---- GuideLLM benchmarks.json -------------------------------------------------------------
// GuideLLM's report (vllm-project/guidellm src/guidellm/benchmark/schemas/report.py, metrics.py;
// docs/guides/outputs.md): "benchmarks", one per strategy run, each with "metrics" whose
// distributions are split by request status ("successful", "errored", "incomplete", "total"),
// each {mean, median, count, percentiles: {p50, p99, ...}}. Only the successful requests are
// read, as vLLM and AIPerf report them. time_to_first_token_ms and inter_token_latency_ms are in
// ms, request_latency in seconds; GuideLLM's inter_token_latency_ms is (last token - first
// token) / (output tokens - 1) per request, vLLM's TPOT, while its time_per_output_token_ms
// includes the first token and is not read. The per-request "requests" may be a sample
// (--metrics sample_size): the aggregates describe the whole run.

bool is_guidellm_report(const json& document) {
  if (!document.is_object()) return false;
  const json* benchmarks = non_null(document, {"benchmarks"});
  if (benchmarks == nullptr || !benchmarks->is_array()) return false;
  if (benchmarks->empty()) return non_null(document, {"metadata", "config", "args"}) != nullptr;
  const json& first = benchmarks->front();
  return first.is_object() && non_null(first, {"metrics"}) != nullptr;
}

// A successful-request distribution of one GuideLLM metric; nullptr when the file lacks it.
const json* guidellm_successful(const json& metrics, const char* name) {
  const json* metric = non_null(metrics, {name});
  if (metric == nullptr || !metric->is_object()) return nullptr;
  const json* successful = non_null(*metric, {"successful"});
  return successful != nullptr && successful->is_object() ? successful : nullptr;
}

// "strategy concurrent, 16 streams": how GuideLLM scheduled the run (guidellm/scheduler/
// strategies.py: type_, streams, rate, max_concurrency).
void state_guidellm_strategy(BenchResult& result, const json& benchmark) {
  const json* config = non_null(benchmark, {"config", "args"});
  const json* strategy = config != nullptr && config->is_object()
                             ? non_null(*config, {"strategy"})
                             : non_null(benchmark, {"strategy"});
  if (strategy == nullptr || !strategy->is_object()) return;
  std::string load;
  if (const json* type = non_null(*strategy, {"type_", "type"})) {
    load = "strategy " + json_text(*type);
  }
  if (const json* streams = non_null(*strategy, {"streams"})) {
    load += (load.empty() ? "" : ", ") + json_text(*streams) + " streams";
  }
  if (const json* rate = non_null(*strategy, {"rate"})) {
    load += (load.empty() ? "" : ", ") + ("request rate " + json_text(*rate) + "/s");
  }
  if (const json* most = non_null(*strategy, {"max_concurrency"})) {
    load += (load.empty() ? "" : ", ") + ("max concurrency " + json_text(*most));
  }
  if (!load.empty()) state(result, "concurrency", load);
}

// Every successful request's own figures, when the report keeps them all (GuideLLM saves every
// request unless `--metrics sample_size` limits it): an interval needs them. A sample, or a
// request without its figures, leaves the aggregates, which describe the whole run. GuideLLM's
// request_id is a fresh UUID per request, no identity across runs: the requests are not paired.
std::optional<std::vector<engine::Request>> guidellm_requests(const json& benchmark,
                                                              std::int64_t successful) {
  const json* requests = non_null(benchmark, {"requests"});
  const json* list =
      requests != nullptr && requests->is_object() ? non_null(*requests, {"successful"}) : nullptr;
  if (list == nullptr || !list->is_array() || list->empty() ||
      static_cast<std::int64_t>(list->size()) != successful) {
    return std::nullopt;
  }
  std::vector<engine::Request> out;
  double first_start = std::numeric_limits<double>::infinity();
  for (const json& stats : *list) {
    if (!stats.is_object()) return std::nullopt;
    const std::optional<double> prompt = number(stats, {"prompt_tokens"});
    const std::optional<double> output = number(stats, {"output_tokens"});
    const std::optional<double> latency_s = number(stats, {"request_latency"});
    if (!prompt || !output || !latency_s || !(*prompt >= 1 && *prompt <= 1e12) ||
        !(*output >= 0 && *output <= 1e12)) {
      return std::nullopt;
    }
    engine::Request request;
    request.prompt_tokens = static_cast<std::int64_t>(*prompt);
    request.response_tokens = static_cast<std::int64_t>(*output);
    request.ttft_ms = number(stats, {"time_to_first_token_ms"});
    request.tpot_ms = number(stats, {"inter_token_latency_ms"});  // vLLM's TPOT (see above)
    request.e2e_ms = *latency_s * 1000;
    if (const std::optional<double> cached = number(stats, {"cached_tokens"});
        cached && *cached >= 0 && *cached < *prompt) {
      request.cached_tokens = static_cast<std::int64_t>(*cached);
    }
    request.arrival_s = number(stats, {"request_start_time"});  // Unix seconds
    if (request.arrival_s) first_start = std::min(first_start, *request.arrival_s);
    out.push_back(std::move(request));
  }
  for (engine::Request& request : out) {
    if (request.arrival_s) *request.arrival_s -= first_start;
  }
  return out;
}

void read_guidellm_benchmark(BenchResult& result, const json& benchmark) {
  using engine::LatencyStatistic;
  const json* metrics = benchmark.is_object() ? non_null(benchmark, {"metrics"}) : nullptr;
  if (metrics == nullptr || !metrics->is_object()) {
    throw InputError(result.source +
                     ": a GuideLLM benchmark without \"metrics\": expected each benchmarks[] "
                     "entry to carry metrics as guidellm writes benchmarks.json");
  }
  const auto mean = [&](const char* name) -> std::optional<double> {
    const json* successful = guidellm_successful(*metrics, name);
    return successful != nullptr ? number(*successful, {"mean"}) : std::nullopt;
  };
  state_token_means(result, mean("prompt_token_count"), mean("output_token_count"));
  const std::array<std::tuple<LatencyMetric, const char*, double>, 3> names = {
      {{LatencyMetric::ttft, "time_to_first_token_ms", 1.0},
       {LatencyMetric::tpot, "inter_token_latency_ms", 1.0},
       {LatencyMetric::e2e, "request_latency", 1000.0}}};
  bool any = false;
  for (const auto& [metric, name, scale] : names) {
    const json* successful = guidellm_successful(*metrics, name);
    if (successful == nullptr) continue;
    const json* percentiles = non_null(*successful, {"percentiles"});
    const auto scaled = [scale = scale](std::optional<double> value) {
      return value ? std::optional(*value * scale) : std::nullopt;
    };
    std::optional<double> p50 = number(*successful, {"median"});
    std::optional<double> p99;
    if (percentiles != nullptr && percentiles->is_object()) {
      if (!p50) p50 = number(*percentiles, {"p50"});
      p99 = number(*percentiles, {"p99"});
    }
    const std::string field = std::string("metrics.") + name + ".successful";
    state_stat(result, metric, LatencyStatistic::mean, scaled(number(*successful, {"mean"})),
               field + ".mean");
    state_stat(result, metric, LatencyStatistic::p50, scaled(p50), field + ".median");
    state_stat(result, metric, LatencyStatistic::p99, scaled(p99), field + ".percentiles.p99");
    any = any || number(*successful, {"mean"}).has_value();
    if (const std::optional<double> count = number(*successful, {"count"})) {
      result.latencies.requests = static_cast<std::int64_t>(
          checked_count(result, *count, std::string("metrics.") + name + ".successful.count"));
    }
  }
  if (!any) {
    throw InputError(result.source +
                     ": a GuideLLM benchmark without successful time_to_first_token_ms, "
                     "inter_token_latency_ms or request_latency: expected "
                     "metrics.<name>.successful.{mean, median, percentiles} as guidellm writes "
                     "benchmarks.json (were all requests errored or incomplete?)");
  }
  if (const json* ttft = guidellm_successful(*metrics, "time_to_first_token_ms")) {
    if (const json* percentiles = non_null(*ttft, {"percentiles"});
        percentiles && percentiles->is_object()) {
      std::string list;
      for (const auto& item : percentiles->items()) list += (list.empty() ? "" : ", ") + item.key();
      if (!list.empty()) state(result, "goodput", "percentiles " + list, "a goodput SLO");
    }
  }
  const json* totals = non_null(*metrics, {"request_totals"});
  const std::optional<double> successful =
      totals != nullptr && totals->is_object() ? number(*totals, {"successful"}) : std::nullopt;
  if (const std::optional<std::vector<engine::Request>> requests =
          guidellm_requests(benchmark, successful ? static_cast<std::int64_t>(*successful)
                                                  : result.latencies.requests)) {
    result.latencies = engine::BenchSide{};
    result.latencies.source = result.source;
    read_per_request(result, [&requests, &result](const RequestSink& sink) {
      RequestLogReport report;
      report.source = result.source;
      for (const engine::Request& request : *requests) sink(request);
      report.records = report.requests = static_cast<std::int64_t>(requests->size());
      return report;
    });
  }
  // Last: the configured strategy replaces the concurrency the requests' times show.
  state_guidellm_strategy(result, benchmark);
}

std::vector<BenchResult> read_guidellm_report(const json& document, const std::string& source) {
  const json& benchmarks = document.at("benchmarks");  // is_guidellm_report checked it
  if (benchmarks.empty()) {
    throw InputError(source +
                     ": a GuideLLM report with no benchmarks (\"benchmarks\": []): the run "
                     "ended before a benchmark completed; kspeed needs at least one benchmarks[] "
                     "entry with metrics");
  }
  std::vector<BenchResult> results;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    // One result per benchmark, named FILE:benchmarks[i] when the file has several (a sweep).
    const std::string name =
        benchmarks.size() == 1 ? source : source + ":benchmarks[" + std::to_string(i) + "]";
    BenchResult result = blank_result(name, "guidellm-json");
    read_guidellm_benchmark(result, benchmarks[i]);
    results.push_back(std::move(result));
  }
  return results;
}

// ---- measured load levels: inference-perf lifecycle metrics, AccelMark result.json ----------
// The readers `kspeed validate` uses (io/serving: inference_perf.cpp, accelmark.cpp) give each
// load level's TTFT, TPOT and E2E statistics; here each level becomes one result, so audit, diff
// and plan read the files validate reads (issue 30: one reader per format, every command).

bool is_inference_perf_lifecycle(const json& document) {
  return document.is_object() && document.contains("load_summary") &&
         document.contains("successes");
}

bool is_accelmark_result(const json& document) {
  return document.is_object() && document.contains("metrics") && document.contains("chip") &&
         document.contains("implementation_id");
}

void state_measured_load(BenchResult& result, const MeasuredLoad& load) {
  using engine::LatencyStatistic;
  const std::array<std::pair<LatencyMetric, const MeasuredStat*>, 3> stats = {
      {{LatencyMetric::ttft, &load.ttft},
       {LatencyMetric::tpot, &load.tpot},
       {LatencyMetric::e2e, &load.e2e}}};
  for (const auto& [metric, stat] : stats) {
    const std::string name(to_string(metric));
    state_stat(result, metric, LatencyStatistic::mean, stat->mean_ms, name + " mean");
    state_stat(result, metric, LatencyStatistic::p50, stat->p50_ms, name + " p50");
    state_stat(result, metric, LatencyStatistic::p99, stat->p99_ms, name + " p99");
  }
  if (load.requests > 0) result.latencies.requests = load.requests;
  std::string arrivals = load.label;
  if (load.achieved_rate_per_s) {
    arrivals += " (achieved " + number_text(*load.achieved_rate_per_s) + " req/s)";
  }
  state(result, "concurrency", arrivals);
  state_token_means(result, load.prompt_tokens_mean, load.output_tokens_mean);
}

std::vector<BenchResult> read_inference_perf_lifecycle(std::string_view text,
                                                       const std::string& source) {
  BenchResult result = blank_result(source, "inference-perf-lifecycle");
  state_measured_load(result, parse_inference_perf_stage(text, source));
  return {result};
}

// AccelMark: one result per load level of the file's scenarios (metrics.interactive, then each
// metrics.online.results_by_qps[i]), named FILE:metrics.online.results_by_qps[i] when there are
// several; the deployment from model, chip and software.
std::vector<BenchResult> read_accelmark_levels(std::string_view text, const json& document,
                                               const std::string& source) {
  const std::vector<MeasuredLoad> loads = parse_accelmark_result(text, source);
  std::vector<BenchResult> results;
  std::size_t online = 0;
  for (const MeasuredLoad& load : loads) {
    const bool interactive = load.arrivals == ArrivalPattern::one_at_a_time;
    const std::string name =
        loads.size() == 1 ? source
        : interactive     ? source + ":metrics.interactive"
                      : source + ":metrics.online.results_by_qps[" + std::to_string(online++) + "]";
    BenchResult result = blank_result(name, "accelmark-result");
    const json model_object = document.value("model", json::object());
    if (const json* model = non_null(model_object, {"model_id"})) {
      state(result, "model", json_text(*model));
    }
    if (const json* precision = non_null(model_object, {"precision"})) {
      state(result, "precision", json_text(*precision));
    }
    const json chip = document.value("chip", json::object());
    if (const json* chip_name = non_null(chip, {"name"})) {
      const std::optional<double> count = number(chip, {"count"});
      state(result, "hardware",
            (count ? number_text(*count) + " × " : std::string()) + json_text(*chip_name));
    }
    const json software = document.value("software", json::object());
    if (const json* framework = non_null(software, {"framework"})) {
      const json* version = non_null(software, {"framework_version"});
      state(result, "engine",
            json_text(*framework) + (version ? " " + json_text(*version) : std::string()));
    }
    state_measured_load(result, load);
    results.push_back(std::move(result));
  }
  return results;
}

// ---- llm-d benchmark report -----------------------------------------------------------------
// llm-d-benchmark's standard report (llm-d/llm-d-benchmark docs/benchmark_report.md and
// llmdbenchmark/analysis/benchmark_report/: README.md, schema_v0_1.py, schema_v0_2*.py): a
// string "version"; 0.1 has "scenario" and "metrics" (requests, latency), 0.2 and 0.2.1 have
// "run", "scenario" and "results.request_performance.aggregate" (requests, latency). Each
// statistic is {units, mean, p50, p99, ...}; times in "ms" or "s", per-token times in
// "ms/token" or "s/token". time_per_output_token is (latency - TTFT) / (output tokens - 1), vLLM's
// TPOT; inter_token_latency is ITL. The report may be YAML or JSON; kspeed reads the JSON.

bool is_llmd_report(const json& document) {
  if (!document.is_object()) return false;
  const json* version = non_null(document, {"version"});
  return version != nullptr && version->is_string() &&
         non_null(document, {"scenario"}) != nullptr &&
         non_null(document, {"metrics", "results"}) != nullptr;
}

// ms per unit of an llm-d statistic: "ms", "s", and the same per token.
std::optional<double> llmd_ms_per_unit(std::string unit) {
  if (unit.ends_with("/token")) unit.resize(unit.size() - 6);
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  return std::nullopt;
}

// The aggregate of a report: "metrics" (0.1) or "results.request_performance.aggregate" (0.2).
const json& llmd_aggregate(const json& document, const std::string& source,
                           const std::string& version) {
  const json* aggregate = nullptr;
  if (version == "0.1") {
    aggregate = non_null(document, {"metrics"});
  } else if (version.starts_with("0.2")) {
    const json* results = non_null(document, {"results"});
    const json* performance = results != nullptr && results->is_object()
                                  ? non_null(*results, {"request_performance"})
                                  : nullptr;
    aggregate = performance != nullptr && performance->is_object()
                    ? non_null(*performance, {"aggregate"})
                    : nullptr;
  } else {
    throw InputError(source + ": an llm-d benchmark report version '" + version +
                     "': kspeed reads versions 0.1, 0.2 and 0.2.1 (llm-d-benchmark "
                     "docs/benchmark_report.md)");
  }
  if (aggregate == nullptr || !aggregate->is_object()) {
    throw InputError(source + ": an llm-d benchmark report " + version + " without " +
                     (version == "0.1" ? std::string("\"metrics\"")
                                       : std::string("results.request_performance.aggregate")) +
                     ": kspeed needs the aggregate requests and latency statistics");
  }
  return *aggregate;
}

// "8 × NVIDIA-H100-80GB-HBM3": an llm-d accelerator's count and model.
void state_llmd_accelerator(BenchResult& result, const json* accelerator) {
  if (accelerator == nullptr || !accelerator->is_object()) return;
  const json* gpu = non_null(*accelerator, {"model"});
  const json* count = non_null(*accelerator, {"count"});
  if (gpu != nullptr) {
    state(result, "hardware", (count ? json_text(*count) + " × " : "") + json_text(*gpu));
  }
}

// The conditions an llm-d report states in its scenario: 0.1 names them directly, 0.2 in the
// standardized part of each stack component and of the load.
void read_llmd_conditions(BenchResult& result, const json& document, const std::string& version) {
  const json& scenario = document.at("scenario");  // is_llmd_report checked it
  if (!scenario.is_object()) return;
  if (version == "0.1") {
    // host.accelerator lists one entry per pod (prefill, decode): the first is stated.
    const json* host = non_null(scenario, {"host"});
    const json* accelerators =
        host != nullptr && host->is_object() ? non_null(*host, {"accelerator"}) : nullptr;
    if (accelerators != nullptr && accelerators->is_array() && !accelerators->empty()) {
      state_llmd_accelerator(result, &accelerators->front());
    }
    const json* model = non_null(scenario, {"model"});
    if (model != nullptr && model->is_object()) {
      if (const json* name = non_null(*model, {"name"})) state(result, "model", json_text(*name));
    }
    const json* platform = non_null(scenario, {"platform"});
    const json* engines =
        platform != nullptr && platform->is_object() ? non_null(*platform, {"engine"}) : nullptr;
    if (engines != nullptr && engines->is_array() && !engines->empty() &&
        engines->front().is_object()) {
      const json& engine = engines->front();
      const json* name = non_null(engine, {"name"});
      const json* engine_version = non_null(engine, {"version"});
      if (name != nullptr) {
        state(result, "engine",
              json_text(*name) + (engine_version ? " " + json_text(*engine_version) : ""),
              "attention backend");
      }
    }
    return;
  }
  const json* stack = non_null(scenario, {"stack"});
  if (stack != nullptr && stack->is_array()) {
    for (const json& component : *stack) {
      const json* standard =
          component.is_object() ? non_null(component, {"standardized"}) : nullptr;
      if (standard == nullptr || !standard->is_object()) continue;
      const json* kind = non_null(*standard, {"kind"});
      if (kind == nullptr || json_text(*kind) != "inference_engine") continue;
      const json* model = non_null(*standard, {"model"});
      if (model != nullptr && model->is_object()) {
        if (const json* name = non_null(*model, {"name"})) state(result, "model", json_text(*name));
      }
      if (const json* tool = non_null(*standard, {"tool"})) {
        const json* tool_version = non_null(*standard, {"tool_version"});
        state(result, "engine",
              json_text(*tool) + (tool_version ? " " + json_text(*tool_version) : ""),
              "attention backend");
      }
      state_llmd_accelerator(result, non_null(*standard, {"accelerator"}));
      break;  // the first engine: a disaggregated stack lists prefill and decode engines
    }
  }
  const json* load = non_null(scenario, {"load"});
  const json* standard =
      load != nullptr && load->is_object() ? non_null(*load, {"standardized"}) : nullptr;
  if (standard != nullptr && standard->is_object()) {
    std::string text;
    if (const json* concurrency = member(*standard, {"concurrency"})) {
      text = "max concurrency " + (concurrency->is_null() ? "unlimited" : json_text(*concurrency));
    }
    if (const json* rate = non_null(*standard, {"rate_qps"})) {
      text += (text.empty() ? "" : ", ") + ("request rate " + json_text(*rate) + "/s");
    }
    if (!text.empty()) state(result, "concurrency", text);
  }
}

void read_llmd_report(BenchResult& result, const json& document) {
  using engine::LatencyStatistic;
  const std::string version = json_text(document.at("version"));
  const json& aggregate = llmd_aggregate(document, result.source, version);
  read_llmd_conditions(result, document, version);
  const json* requests = non_null(aggregate, {"requests"});
  if (requests != nullptr && requests->is_object()) {
    const auto mean = [&](const char* name) -> std::optional<double> {
      const json* statistic = non_null(*requests, {name});
      return statistic != nullptr && statistic->is_object() ? number(*statistic, {"mean"})
                                                            : std::nullopt;
    };
    state_token_means(result, mean("input_length"), mean("output_length"));
    // The statistics are over the requests that completed: sent less failed and incomplete.
    if (const std::optional<double> total = number(*requests, {"total"})) {
      const double completed = *total - number(*requests, {"failures"}).value_or(0) -
                               number(*requests, {"incomplete"}).value_or(0);
      if (completed >= 0) result.latencies.requests = static_cast<std::int64_t>(completed);
    }
  }
  const json* latency = non_null(aggregate, {"latency"});
  const std::array<std::pair<LatencyMetric, const char*>, 4> names = {
      {{LatencyMetric::ttft, "time_to_first_token"},
       {LatencyMetric::tpot, "time_per_output_token"},
       {LatencyMetric::itl, "inter_token_latency"},
       {LatencyMetric::e2e, "request_latency"}}};
  bool any = false;
  for (const auto& [metric, name] : names) {
    const json* statistic =
        latency != nullptr && latency->is_object() ? non_null(*latency, {name}) : nullptr;
    if (statistic == nullptr || !statistic->is_object()) continue;
    const json* unit = non_null(*statistic, {"units"});
    const std::optional<double> scale = llmd_ms_per_unit(unit ? json_text(*unit) : "");
    if (!scale) {
      throw InputError(result.source + ": latency." + name + " has units '" +
                       (unit ? json_text(*unit) : std::string("(none)")) +
                       "': expected ms or s (ms/token or s/token per token), as the llm-d "
                       "benchmark report schema allows");
    }
    const auto scaled = [&scale](std::optional<double> value) {
      return value ? std::optional(*value * *scale) : std::nullopt;
    };
    const std::string field = std::string("latency.") + name;
    state_stat(result, metric, LatencyStatistic::mean, scaled(number(*statistic, {"mean"})),
               field + ".mean");
    state_stat(result, metric, LatencyStatistic::p50, scaled(number(*statistic, {"p50"})),
               field + ".p50");
    state_stat(result, metric, LatencyStatistic::p99, scaled(number(*statistic, {"p99"})),
               field + ".p99");
    any = any || number(*statistic, {"mean"}).has_value();
  }
  if (!any) {
    throw InputError(result.source + ": an llm-d benchmark report " + version +
                     " without latency statistics: kspeed needs latency.time_to_first_token (or "
                     "time_per_output_token, inter_token_latency, request_latency) with units "
                     "and mean");
  }
}

// ---- kspeed workloads -----------------------------------------------------------------------

bool is_kspeed_workload(const json& document) {
  return document.is_object() && member(document, {"attention_share", "conditions", "share_origin",
                                                   "measured_steps"}) != nullptr;
}

void read_workload_conditions(BenchResult& result, std::string_view text) {
  const engine::Workload workload = parse_workload(text, result.source);
  for (const auto& [key, value] : workload.conditions) state(result, key, value);
}

// ---- detection ------------------------------------------------------------------------------

// The per-request arrays of vllm bench serve --save-detailed (SGLang --output-details writes
// the same keys): the request-log reader reads them from the text; the format's detection and
// its conditions need only that they are there.
bool is_per_request_array_key(std::string_view key) {
  return key == "input_lens" || key == "output_lens" || key == "ttfts" || key == "itls" ||
         key == "generated_texts";
}

std::optional<json> parse_whole(std::string_view text) {
  // Python's bare Infinity and NaN are rewritten in a copy only when the text holds them: a
  // copy of a 43 MB vLLM --save-detailed file was the largest thing diff held besides the tree.
  const bool nonfinite =
      text.find("Infinity") != std::string_view::npos || text.find("NaN") != std::string_view::npos;
  // The elements of the per-request arrays are dropped as they are parsed (the arrays stay,
  // empty): a 43 MB detailed result's tree was about the size of its text, built to read a
  // dozen conditions.
  std::string top_key;
  const json::parser_callback_t drop_per_request = [&top_key](int depth, json::parse_event_t event,
                                                              json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) {
      top_key = parsed.get<std::string>();
      return true;
    }
    const bool starts_value = event == json::parse_event_t::value ||
                              event == json::parse_event_t::array_start ||
                              event == json::parse_event_t::object_start;
    return !(starts_value && depth >= 2 && is_per_request_array_key(top_key));
  };
  // A line of JSONL (below a megabyte) is parsed without the callback, which costs time a value.
  constexpr std::size_t kDropFrom = std::size_t{1} << 20;
  const json::parser_callback_t none;
  json document =
      json::parse(nonfinite ? std::string_view(requests::without_nonfinite_literals(text)) : text,
                  text.size() >= kDropFrom ? drop_per_request : none, false);
  if (document.is_discarded()) return std::nullopt;
  return document;
}

std::string_view first_line(std::string_view text);

// What a text looks like, for an error about a file kspeed does not read.
std::string describe_text(std::string_view text, const std::optional<json>& document) {
  if (document && document->is_object()) {
    std::string keys;
    std::size_t shown = 0;
    for (const auto& item : document->items()) {
      if (shown++ == 8) {
        keys += ", …";
        break;
      }
      keys += (keys.empty() ? "" : ", ") + item.key();
    }
    return "a JSON object with keys " + (keys.empty() ? std::string("(none)") : keys);
  }
  if (document && document->is_array()) {
    return "a JSON array of " + std::to_string(document->size()) + " values";
  }
  std::string line(first_line(text).substr(0, 60));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find(',') != std::string::npos) return "CSV with header '" + line + "'";
  return line.empty() ? std::string("empty") : "text starting '" + line + "'";
}

// GuideLLM and llm-d also write their reports as YAML, which kspeed does not parse.
std::string yaml_hint(std::string_view text, const std::optional<json>& document) {
  if (document) return "";
  const std::string_view line = first_line(text);
  const std::size_t colon = line.find(':');
  const bool key_line =
      colon != std::string_view::npos && colon > 0 &&
      std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (!key_line && !line.starts_with("---")) return "";
  return "; it looks like YAML: write the report as JSON (guidellm --output kind=json, llm-d's "
         "export_json) and give that";
}

[[noreturn]] void unknown_format(const std::string& source, std::string_view text,
                                 const std::optional<json>& document);

// A request log kspeed mix reads (InferenceX's trace-replay CSV, LLMServingSim's records, Azure,
// Mooncake, BurstGPT, ...; io/requests): read as one run of per-request values when its requests
// carry measured latencies; refused, saying so, when they are traffic only (issue 30: what mix
// reads, audit, diff and plan read or refuse with the reason). Anything else: unknown_format.
std::vector<BenchResult> request_log_or_refuse(const std::string& source, std::string_view text,
                                               const std::optional<json>& document) {
  BenchResult result = blank_result(source, "request-log");
  try {
    RequestFormat format = RequestFormat::mapped_csv;
    read_per_request(result, [&](const RequestSink& sink) {
      RequestLogReport report = read_request_log_text(text, result.source, ReadOptions{}, sink);
      format = report.format;
      return report;
    });
    result.format = std::string(to_string(format));
  } catch (const InputError&) {
    if (result.latencies.requests > 0) throw;  // a request log, with a bad record: its error
    unknown_format(source, text, document);    // no request log either
  }
  const auto& samples = result.latencies.samples;
  const bool timed = !samples[static_cast<std::size_t>(LatencyMetric::ttft)].empty() ||
                     !samples[static_cast<std::size_t>(LatencyMetric::e2e)].empty();
  if (!timed) {
    throw InputError(source + ": a request log (" + result.format + ", " +
                     std::to_string(result.latencies.requests) +
                     " requests) with no measured latency: its requests state arrivals and token "
                     "counts, which kspeed mix replays; audit, diff and plan need each request's "
                     "measured TTFT or E2E (a benchmark's per-request export, e.g. vllm bench "
                     "serve --save-detailed or AIPerf profile_export.jsonl)");
  }
  return {result};
}

[[noreturn]] void unknown_format(const std::string& source, std::string_view text,
                                 const std::optional<json>& document) {
  throw InputError(
      source + ": not a benchmark result kspeed reads (" + describe_text(text, document) +
      "): expected vllm bench serve JSON (completed, mean_ttft_ms or ttfts), AIPerf "
      "profile_export_aiperf.json (records, or schema_version with time_to_first_token), "
      "profile_export_aiperf.csv (a 'Metric,avg,...' header), profile_export.jsonl (metadata "
      "and metrics a line) or an AIPerf artifact directory, SGLang bench_serving JSONL "
      "(backend, completed, mean_e2e_latency_ms a line), GuideLLM benchmarks.json (benchmarks "
      "with metrics), an llm-d benchmark report as JSON (version, scenario, metrics or results), "
      "inference-perf lifecycle metrics (load_summary, successes), an AccelMark result.json "
      "(metrics, chip), a request log with per-request latencies (InferenceX trace replay CSV, "
      "LLMServingSim requests.jsonl), or a kspeed workload (see docs/audit.md)" +
      yaml_hint(text, document));
}

// Duplicate keys are refused with the key's line: nlohmann keeps the last silently, so
// "max_concurrency": 4, "max_concurrency": 64 would read as a 64 run.
void reject_duplicate_keys(std::string_view text, std::string_view source) {
  if (text.find("Infinity") != std::string_view::npos ||
      text.find("NaN") != std::string_view::npos) {
    check_json_document(requests::without_nonfinite_literals(text), source);
  } else {
    check_json_document(text, source);
  }
}

// One SGLang bench_serving run: line `line_number` of `source`, already parsed (`object`, nullopt
// when the line is not JSON). Throws InputError naming the line when it is not such a run.
BenchResult sglang_run_result(std::string_view line, const std::optional<json>& object,
                              std::int64_t line_number, const std::string& source) {
  if (!object) {
    if (const std::optional<std::string> number = requests::number_beyond_double(line)) {
      throw InputError(source + ":" + std::to_string(line_number) + ": the number " +
                       excerpt(*number) +
                       " is beyond the range of a double (about 1.8e308): expected a "
                       "plausible figure");
    }
  }
  if (object) {
    reject_duplicate_keys(line, source + " (line " + std::to_string(line_number) + ")");
  }
  if (!object || !is_sglang_run(*object)) {
    throw InputError(source + ":" + std::to_string(line_number) +
                     ": not an SGLang bench_serving run: expected one JSON object a line with "
                     "backend, completed and mean_e2e_latency_ms (see docs/audit.md)");
  }
  BenchResult result =
      blank_result(source + ":" + std::to_string(line_number), "sglang-bench-jsonl");
  read_sglang_run(result, *object);
  // --output-details adds each request's input_lens, output_lens, ttfts and itls to the line, in
  // vllm bench serve --save-detailed's keys: the run's latencies are then its requests' (an
  // interval, a plan), in place of the aggregates; the conditions stay the line's.
  if (member(*object, {"input_lens"}) != nullptr) {
    result.latencies = blank_result(result.source, result.format).latencies;
    read_per_request(result, [&](const RequestSink& sink) {
      return read_request_log_text(line, result.source, ReadOptions{}, sink);
    });
  }
  return result;
}

std::vector<BenchResult> parse_lines(std::string_view text, const std::string& source) {
  std::vector<BenchResult> results;
  std::size_t start = 0;
  std::int64_t line_number = 0;
  std::optional<bool> aiperf;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::optional<json> object = parse_whole(line);
    if (!aiperf) {
      if (object && is_aiperf_record(*object)) {
        BenchResult result = blank_result(source, "aiperf-jsonl");
        read_per_request(result, [&](const RequestSink& sink) {
          return read_request_log_text(text, result.source, ReadOptions{}, sink);
        });
        return {result};
      }
      aiperf = false;
    }
    if (results.empty() && (!object || !is_sglang_run(*object))) {
      if (!object && requests::number_beyond_double(line)) {
        (void)sglang_run_result(line, object, line_number, source);  // names the number
      }
      return request_log_or_refuse(source, text, object);
    }
    results.push_back(sglang_run_result(line, object, line_number, source));
  }
  if (results.empty()) return request_log_or_refuse(source, text, std::nullopt);
  return results;
}

// An SGLang bench_serving JSONL whose first line (`first`, read already) is a run: each line is
// read, checked and handed to `take` as it comes, so memory holds one line and one result, not
// the text of 10^5 runs (audit of such a file reports each run; it need not keep the text). The
// limits are read_text's: at most max_input_bytes() in all, no NUL byte, no line nesting deeper
// than kMaxRecordDepth.
void stream_sglang_lines(InputFile& file, const BenchResultSink& take) {
  const std::uint64_t limit = max_input_bytes();
  if (file.regular() && file.size() > limit) refuse_too_large(file.label(), limit);
  const std::unique_ptr<trace::ByteSource> source = file.stream(0);
  std::string pending;  // the line being assembled
  std::vector<char> chunk(std::size_t{1} << 16);
  std::uint64_t total = 0;
  std::int64_t line_number = 0;
  const auto finish_line = [&](std::string_view line) {
    ++line_number;
    if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    if (const std::optional<std::size_t> at = json_nesting_beyond(line, kMaxRecordDepth)) {
      throw InputError(file.path() + ":" + std::to_string(line_number) +
                       ": the JSON nests deeper than " + std::to_string(kMaxRecordDepth) +
                       " levels (at byte " + std::to_string(*at) +
                       " of the line): expected an SGLang bench_serving run (real ones nest "
                       "under 10 levels)");
    }
    take(sglang_run_result(line, parse_whole(line), line_number, file.path()));
  };
  for (;;) {
    const std::size_t n = source->read(chunk.data(), chunk.size());
    if (n == 0) break;
    const std::string_view got(chunk.data(), n);
    if (got.find('\0') != std::string_view::npos) {
      throw InputError(file.label() + " is " + describe_binary(pending.empty() ? got : pending) +
                       "; expected text");
    }
    total += n;
    if (total > limit) refuse_too_large(file.label(), limit);
    std::size_t start = 0;
    for (std::size_t end = got.find('\n'); end != std::string_view::npos;
         end = got.find('\n', start)) {
      if (pending.empty()) {
        finish_line(got.substr(start, end - start));
      } else {
        pending.append(got.substr(start, end - start));
        finish_line(pending);
        pending.clear();
      }
      start = end + 1;
    }
    pending.append(got.substr(start));
  }
  if (!pending.empty()) finish_line(pending);
}

// The first line that is not blank.
std::string_view first_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
    start = end + 1;
  }
  return {};
}

// ---- AIPerf artifact directory ------------------------------------------------------------
// `aiperf profile` writes its exports into one directory (--artifact-dir): the per-request
// profile_export.jsonl (what an interval needs) and the aggregate profile_export_aiperf.json or
// .csv (which also states the model and the load). A --profile-export-prefix renames them
// PREFIX.jsonl, PREFIX_aiperf.json; the suffixes below find either.

std::optional<std::string> export_in(const std::string& directory, std::string_view suffix) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.ends_with(suffix) && !name.ends_with("_raw.jsonl")) {
      found.push_back(entry.path().string());
    }
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw InputError(directory + ": " + std::to_string(found.size()) + " files end in " +
                     std::string(suffix) + " (" + found[0] + ", " + found[1] +
                     "): give the one to read instead of the directory");
  }
  if (found.empty()) return std::nullopt;
  return found.front();
}

void read_bench_file(InputFile& file, const BenchResultSink& take) {
  // An AIPerf per-request export can be larger than a whole file kspeed reads into memory: it
  // is streamed, one record at a time, as kspeed mix reads it; an SGLang JSONL one run a line.
  // The first line is sniffed from the same descriptor, so a pipe is read once.
  const std::string& start = file.head(kHeadLineBytes);
  const std::size_t newline = start.find('\n');
  if (newline != std::string::npos || start.size() < kHeadLineBytes) {
    std::string head = start.substr(0, newline);
    if (head.rfind("\xEF\xBB\xBF", 0) == 0) head.erase(0, 3);
    const std::optional<json> record =
        json_nesting_beyond(head, kMaxRecordDepth) ? std::nullopt : parse_whole(head);
    if (record && is_aiperf_record(*record)) {
      BenchResult result = blank_result(file.path(), "aiperf-jsonl");
      read_per_request(result, [&file](const RequestSink& sink) {
        return read_request_log(file, ReadOptions{}, sink);
      });
      take(std::move(result));
      return;
    }
    if (record && is_sglang_run(*record)) {
      stream_sglang_lines(file, take);
      return;
    }
  }
  for (BenchResult& result : parse_bench_results(file.read_text(), file.path())) {
    take(std::move(result));
  }
}

std::vector<BenchResult> read_bench_file(InputFile& file) {
  std::vector<BenchResult> results;
  read_bench_file(file, [&results](BenchResult&& result) { results.push_back(std::move(result)); });
  return results;
}

std::vector<BenchResult> read_bench_file(const std::string& path) {
  InputFile file(path, "benchmark result");
  return read_bench_file(file);
}

std::vector<BenchResult> read_artifact_directory(const std::string& directory) {
  const std::optional<std::string> records = export_in(directory, "profile_export.jsonl");
  std::optional<std::string> aggregate = export_in(directory, "_aiperf.json");
  if (!aggregate) aggregate = export_in(directory, "_aiperf.csv");
  if (!records && !aggregate) {
    throw InputError(directory +
                     ": a directory without AIPerf exports: expected profile_export.jsonl or "
                     "profile_export_aiperf.json (or .csv) as aiperf profile writes them into "
                     "its artifact directory; for another tool give its result file");
  }
  BenchResult result = read_bench_file(records ? *records : *aggregate).front();
  if (records && aggregate) {
    // The records carry the latencies; the aggregate adds the conditions they do not state.
    const BenchResult summary = read_bench_file(*aggregate).front();
    for (ConditionEntry& entry : result.conditions.conditions) {
      if (entry.status == ConditionStatus::stated) continue;
      for (const ConditionEntry& stated : summary.conditions.conditions) {
        const bool adds =
            stated.status != ConditionStatus::omitted &&
            (entry.status == ConditionStatus::omitted || stated.status == ConditionStatus::stated);
        if (stated.key == entry.key && adds) entry = stated;
      }
    }
  }
  result.source = directory;
  result.format = "aiperf-artifacts";
  result.conditions.source = directory;
  result.conditions.format = result.format;
  result.latencies.source = directory;
  return {result};
}

}  // namespace

std::vector<BenchResult> parse_bench_results(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // Refused before any parse: a value nested 100,000 deep would overflow the stack of every
  // recursive step after the parse (a copy, a dump for a message).
  if (const std::optional<std::size_t> at = json_nesting_beyond(text, kMaxRecordDepth)) {
    throw InputError(source + ": the JSON nests deeper than " + std::to_string(kMaxRecordDepth) +
                     " levels (at byte " + std::to_string(*at) +
                     "): expected a benchmark result (real ones nest under 10 levels)");
  }
  if (is_aiperf_csv(first_line(text))) {
    BenchResult result = blank_result(source, "aiperf-csv");
    read_aiperf_csv(result, text);
    return {result};
  }
  // One JSON object a line (AIPerf records, SGLang runs) is decided on the first line: parsing a
  // long JSONL text as one document is slow (the parser reads on past the first value).
  if (const std::optional<json> head = parse_whole(first_line(text));
      head && (is_aiperf_record(*head) || is_sglang_run(*head))) {
    return parse_lines(text, source);
  }
  if (std::optional<json> document = parse_whole(text)) {
    if (!is_kspeed_workload(*document)) reject_duplicate_keys(text, source);
    if (is_kspeed_workload(*document)) {
      BenchResult result = blank_result(source, "kspeed-workload");
      read_workload_conditions(result, text);
      return {result};
    }
    if (is_aiperf_aggregate(*document)) {
      BenchResult result = blank_result(source, "aiperf-json");
      read_aiperf_aggregate(result, *document, (*document)["records"]);
      return {result};
    }
    if (is_aiperf_flat_aggregate(*document)) {
      BenchResult result = blank_result(source, "aiperf-json");
      read_aiperf_aggregate(result, *document, *document);
      return {result};
    }
    if (is_guidellm_report(*document)) return read_guidellm_report(*document, source);
    if (is_inference_perf_lifecycle(*document)) return read_inference_perf_lifecycle(text, source);
    if (is_accelmark_result(*document)) return read_accelmark_levels(text, *document, source);
    if (is_llmd_report(*document)) {
      BenchResult result = blank_result(source, "llm-d-report");
      read_llmd_report(result, *document);
      return {result};
    }
    if (is_vllm_bench(*document)) {
      BenchResult result = blank_result(source, "vllm-bench-json");
      read_vllm_conditions(result, *document);
      if (member(*document, {"ttfts"}) != nullptr) {
        // The per-request reader parses the file again: this tree (several times the file's
        // size) is let go first, so the two never coexist (1.8 GB for a 243 MB file otherwise).
        document.reset();
        read_per_request(result, [&](const RequestSink& sink) {
          return read_request_log_text(text, result.source, ReadOptions{}, sink);
        });
      } else {
        read_vllm_aggregates(result, *document);
      }
      return {result};
    }
    if (!is_sglang_run(*document) && !is_aiperf_record(*document)) {
      return request_log_or_refuse(source, text, document);
    }
  } else if (const std::optional<std::string> number = requests::number_beyond_double(text)) {
    const std::size_t at = text.find(*number);
    const auto line =
        1 + std::count(text.begin(),
                       text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())), '\n');
    throw InputError(source + ":" + std::to_string(line) + ": the number " + excerpt(*number) +
                     " is beyond the range of a double (about 1.8e308): expected a plausible "
                     "figure");
  }
  return parse_lines(text, source);
}

std::string per_request_export(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) return path;
  if (std::optional<std::string> records = export_in(path, "profile_export.jsonl")) return *records;
  throw InputError(path +
                   ": a directory without profile_export.jsonl: expected an AIPerf artifact "
                   "directory with per-request records (the aggregate exports state no request)");
}

std::vector<BenchResult> read_bench_results(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return read_artifact_directory(path);
  return read_bench_file(path);
}

std::vector<BenchResult> read_bench_results(InputFile& file) {
  return read_bench_file(file);
}

void for_each_bench_result(const std::string& path, const BenchResultSink& take) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    for (BenchResult& result : read_artifact_directory(path)) take(std::move(result));
    return;
  }
  InputFile file(path, "benchmark result");
  read_bench_file(file, take);
}

}  // namespace kspeed::io
