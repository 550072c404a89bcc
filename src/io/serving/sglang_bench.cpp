// sgl-project/sglang's `python -m sglang.bench_serving ... --output-file FILE` (JSONL, one object
// appended per invocation; python/sglang/bench_serving.py, Dec 2024 and later). The fields read:
//   dataset_name, request_rate (Infinity: all at once), max_concurrency (null: no cap),
//   random_input_len, random_output_len, random_range_ratio, completed, duration,
//   total_input_tokens, total_output_tokens, median_ttft_ms, median_itl_ms, mean_e2e_latency_ms,
//   median_e2e_latency_ms; optional: mean_ttft_ms, p99_ttft_ms, mean_tpot_ms, median_tpot_ms,
//   p99_tpot_ms, p99_itl_ms, p99_e2e_latency_ms (newer versions write them).
// The random dataset draws each request's input and output lengths uniformly from
// max(1, floor(len × random_range_ratio)) to len (sample_random_requests); its arrivals are
// Poisson at request_rate (get_request: np.random.exponential(1 / rate)).
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

namespace {

std::optional<double> sglang_number(const nlohmann::json& line, const char* key) {
  if (!line.contains(key) || !line.at(key).is_number()) return {};
  return line.at(key).get<double>();
}

double sglang_required(const nlohmann::json& line, const char* key, const std::string& where) {
  const std::optional<double> value = sglang_number(line, key);
  if (!value || !(*value > 0)) {
    throw InputError(where + ": " + key +
                     " is missing or not positive (sglang.bench_serving writes it on every "
                     "line of --output-file)");
  }
  return *value;
}

std::string sglang_rate_text(double rate) {
  std::string text = std::to_string(rate);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Python's json writes float('inf') as the bare word Infinity, which JSON does not have: the one
// place bench_serving writes it is request_rate (--request-rate inf, its default).
std::string sglang_without_infinity(std::string_view line) {
  std::string out(line);
  const std::string word = "Infinity";
  for (std::size_t at = out.find(word); at != std::string::npos; at = out.find(word, at)) {
    out.replace(at, word.size(), "null");
  }
  return out;
}

UniformLengths sglang_uniform(double len, double ratio) {
  const auto high = static_cast<std::int32_t>(std::llround(len));
  const auto low = static_cast<std::int32_t>(std::floor(len * ratio));
  return {std::max<std::int32_t>(1, std::min(low, high)), std::max<std::int32_t>(1, high)};
}

struct SglangLine {
  std::string run_key;
  double rate_sort = 0;
  MeasuredLoad load;
};

SglangLine sglang_level(const nlohmann::json& line, const std::string& where) {
  if (!line.is_object()) throw InputError(where + ": expected a JSON object a line");
  SglangLine out;
  MeasuredLoad& load = out.load;
  const std::string dataset = line.contains("dataset_name") && line.at("dataset_name").is_string()
                                  ? line.at("dataset_name").get<std::string>()
                                  : "";
  if (dataset.empty()) {
    throw InputError(where + ": dataset_name is missing (sglang.bench_serving writes it)");
  }
  const std::optional<double> rate = sglang_number(line, "request_rate");
  if (line.contains("request_rate") && line.at("request_rate").is_null()) {
    load.arrivals = ArrivalPattern::all_at_once;
    out.rate_sort = HUGE_VAL;
    load.label = "all at once";
  } else if (rate && *rate > 0) {
    load.arrivals = ArrivalPattern::poisson;
    load.rate_per_s = rate;
    out.rate_sort = *rate;
    load.label = "Poisson " + sglang_rate_text(*rate) + " req/s";
  } else {
    throw InputError(where +
                     ": request_rate is missing or not positive (expected req/s, or "
                     "Infinity for every request at once)");
  }
  const std::optional<double> cap = sglang_number(line, "max_concurrency");
  if (cap) {
    if (*cap < 1 || *cap != std::floor(*cap)) {
      throw InputError(where + ": max_concurrency " + sglang_rate_text(*cap) +
                       ": expected a whole number of requests in flight, or null");
    }
    load.max_inflight = static_cast<std::int64_t>(*cap);
    load.label += ", at most " + sglang_rate_text(*cap) + " in flight";
  }
  const double completed = sglang_required(line, "completed", where);
  load.requests = static_cast<std::int64_t>(completed);
  load.duration_s = sglang_required(line, "duration", where);
  load.achieved_rate_per_s = completed / *load.duration_s;
  load.prompt_tokens_mean = sglang_required(line, "total_input_tokens", where) / completed;
  load.output_tokens_mean = sglang_required(line, "total_output_tokens", where) / completed;
  std::string lengths = "lengths as sent (means from the totals)";
  if (dataset == "random") {
    const double input = sglang_required(line, "random_input_len", where);
    const double output = sglang_required(line, "random_output_len", where);
    const double ratio = sglang_number(line, "random_range_ratio").value_or(0);
    load.prompt_uniform = sglang_uniform(input, ratio);
    load.output_uniform = sglang_uniform(output, ratio);
    lengths = sglang_rate_text(input) + "/" + sglang_rate_text(output) + " range ratio " +
              sglang_rate_text(ratio);
  }
  out.run_key =
      dataset + " " + lengths + (cap ? ", at most " + sglang_rate_text(*cap) + " in flight" : "");
  load.ttft.mean_ms = sglang_number(line, "mean_ttft_ms");
  load.ttft.p50_ms = sglang_number(line, "median_ttft_ms");
  load.ttft.p99_ms = sglang_number(line, "p99_ttft_ms");
  load.e2e.mean_ms = sglang_number(line, "mean_e2e_latency_ms");
  load.e2e.p50_ms = sglang_number(line, "median_e2e_latency_ms");
  load.e2e.p99_ms = sglang_number(line, "p99_e2e_latency_ms");
  // The per-token figure: TPOT per request where the line has it, else the ITL median.
  load.tpot.p50_ms = sglang_number(line, "median_tpot_ms");
  load.tpot.p99_ms = sglang_number(line, "p99_tpot_ms");
  load.tpot_basis = "sglang's TPOT (per request, per output token after the first)";
  if (!load.tpot.p50_ms) {
    load.tpot.p50_ms = sglang_number(line, "median_itl_ms");
    load.tpot.p99_ms = sglang_number(line, "p99_itl_ms");
    load.tpot_is_itl = true;
    load.tpot_basis = "sglang's ITL (gaps between streamed tokens, over all tokens)";
  }
  if (!load.ttft.p50_ms && !load.ttft.mean_ms) {
    throw InputError(where + ": neither median_ttft_ms nor mean_ttft_ms");
  }
  return out;
}

}  // namespace

bool looks_like_sglang_bench_serving(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text[start] != '{') return false;
  const std::string_view first = text.substr(start, text.find('\n', start) - start);
  return first.find("\"backend\"") != std::string_view::npos &&
         first.find("\"request_rate\"") != std::string_view::npos &&
         first.find("\"completed\"") != std::string_view::npos;
}

std::vector<MeasuredRun> parse_sglang_bench_serving(std::string_view text,
                                                    const std::string& source) {
  std::vector<MeasuredRun> runs;
  std::map<std::string, std::size_t> run_of;
  std::map<std::string, std::vector<SglangLine>> lines_of;
  std::size_t line_number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view raw = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = source + ":" + std::to_string(line_number);
    SglangLine line = sglang_level(parse_json_document(sglang_without_infinity(raw), where), where);
    if (!run_of.count(line.run_key)) {
      run_of[line.run_key] = runs.size();
      runs.push_back({line.run_key, {}});
    }
    lines_of[line.run_key].push_back(std::move(line));
  }
  if (runs.empty()) {
    throw InputError(source + ": no lines (expected sglang.bench_serving --output-file JSONL)");
  }
  for (MeasuredRun& run : runs) {
    std::vector<SglangLine>& lines = lines_of[run.name];
    std::stable_sort(lines.begin(), lines.end(), [](const SglangLine& a, const SglangLine& b) {
      return a.rate_sort < b.rate_sort;
    });
    for (SglangLine& line : lines) run.loads.push_back(std::move(line.load));
  }
  return runs;
}

std::vector<MeasuredRun> read_sglang_bench_serving(const std::string& path) {
  return parse_sglang_bench_serving(read_text_file(path, "sglang.bench_serving output"), path);
}

}  // namespace kspeed::io
