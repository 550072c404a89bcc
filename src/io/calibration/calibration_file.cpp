// Picks the calibration file's reader by content, and finds what a file leaves to its
// neighbours: AccelMark's suite file (the request lengths) and AIPerf's aggregate file (the
// concurrency and the model).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <system_error>

#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/requests/request_log.hpp"

namespace kspeed::io {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// The suite file <suite_id>.json in a workload/ folder beside the result or up to three folders
// above it (result/interactive/result.json -> ../../workload/), where AccelMark's layout has it.
std::string find_suite_text(const std::string& path, std::string_view text) {
  const json result = parse_json_document(text, path);
  if (!result.contains("suite_id") || !result["suite_id"].is_string()) return {};
  const std::string name = result["suite_id"].get<std::string>() + ".json";
  std::error_code error;
  fs::path folder = fs::absolute(fs::path(path), error).parent_path();
  for (int up = 0; up <= 3; ++up) {
    for (const fs::path& candidate : {folder / "workload" / name, folder / name}) {
      if (is_file(candidate)) return read_text_file(candidate.string(), "AccelMark suite file");
    }
    if (!folder.has_parent_path() || folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  return {};
}

// AIPerf writes profile_export.jsonl beside profile_export_aiperf.json, whose input_config
// states the concurrency and the model.
struct AiperfAggregate {
  std::optional<double> concurrency;
  std::string model;
};

AiperfAggregate aiperf_aggregate_beside(const std::string& path) {
  fs::path aggregate(path);
  aggregate.replace_extension();
  aggregate += "_aiperf.json";
  AiperfAggregate out;
  if (!is_file(aggregate)) return out;
  const json document = parse_json_document(
      read_text_file(aggregate.string(), "AIPerf aggregate file"), aggregate.string());
  const json config = document.value("input_config", json::object());
  const json loadgen = config.value("loadgen", json::object());
  if (loadgen.contains("concurrency") && loadgen["concurrency"].is_number()) {
    out.concurrency = loadgen["concurrency"].get<double>();
  }
  const json endpoint = config.value("endpoint", json::object());
  if (endpoint.contains("model_names") && endpoint["model_names"].is_array() &&
      !endpoint["model_names"].empty() && endpoint["model_names"][0].is_string()) {
    out.model = endpoint["model_names"][0].get<std::string>();
  }
  return out;
}

std::int64_t median(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// A TTFT whose measured queue wait is more than this share of it is left out of the fit.
constexpr double kMostlyQueue = 0.1;

// One request's decode as the per-sequence fit needs it, while the log is read.
struct TimedDecode {
  engine::DecodeInterval interval;
  double prompt_tokens = 0;
  double response_tokens = 0;
  std::int64_t line = 0;
};

// The decode of a request with an arrival, a TTFT and an E2E or per-token time, and 2+ output
// tokens.
template <typename PerTokenTime>
std::optional<TimedDecode> timed_decode(const engine::Request& r,
                                        const std::optional<PerTokenTime>& per_token) {
  if (!r.arrival_s || !r.ttft_ms || r.response_tokens < 2 || (!r.e2e_ms && !per_token)) {
    return std::nullopt;
  }
  const double first_s = *r.arrival_s + *r.ttft_ms / 1000.0;
  const double decode_ms = r.e2e_ms ? *r.e2e_ms - *r.ttft_ms
                                    : per_token->ms * static_cast<double>(r.response_tokens - 1);
  if (!(decode_ms > 0)) return std::nullopt;
  return TimedDecode{{first_s, first_s + decode_ms / 1000.0},
                     static_cast<double>(r.prompt_tokens),
                     static_cast<double>(r.response_tokens),
                     r.line};
}

// `prompts`: every request's prefill end (its first token), whose steps the decodes shared.
std::vector<engine::RunningDecodeObservation> decode_points(
    const std::vector<TimedDecode>& decodes, std::vector<engine::PrefilledPrompt> prompts) {
  std::vector<engine::DecodeInterval> intervals;
  intervals.reserve(decodes.size());
  for (const TimedDecode& d : decodes) intervals.push_back(d.interval);
  const std::vector<double> alongside = engine::mean_decoding_alongside(intervals);
  std::vector<std::vector<engine::PromptStep>> prefilled =
      engine::prompts_prefilled_during(intervals, std::move(prompts));
  std::vector<engine::RunningDecodeObservation> points;
  points.reserve(decodes.size());
  for (std::size_t i = 0; i < decodes.size(); ++i) {
    const TimedDecode& d = decodes[i];
    const double per_token_ms =
        (d.interval.last_token_s - d.interval.first_token_s) * 1000.0 / (d.response_tokens - 1);
    points.push_back({"line " + std::to_string(d.line), alongside[i],
                      std::max(d.prompt_tokens, 1.0), d.response_tokens, per_token_ms,
                      std::move(prefilled[i])});
  }
  return points;
}

// Where a request's time per output token came from, most direct first.
enum class PerTokenSource { tpot, itl, itl_arrays, e2e, count };

constexpr std::size_t index(PerTokenSource source) {
  return static_cast<std::size_t>(source);
}

std::string_view describe(PerTokenSource source) {
  switch (source) {
    case PerTokenSource::tpot:
      return "the log's per-request TPOT";
    case PerTokenSource::itl:
      return "the log's per-request mean inter-token latency";
    case PerTokenSource::itl_arrays:
      return "the inter-token gaps (sum of the ITL array / (output - 1))";
    case PerTokenSource::e2e:
    case PerTokenSource::count:
      break;
  }
  return "(E2E - TTFT) / (output - 1)";
}

struct PerToken {
  double ms = 0;
  PerTokenSource source = PerTokenSource::tpot;
};

// A request's time per output token after the first, from whatever its log recorded: a stated
// TPOT, a mean ITL, else its E2E less its TTFT over the output tokens after the first (vLLM's
// definition; a --save-detailed log's E2E is TTFT + its ITL array, so that is the gaps' sum).
std::optional<PerToken> per_token_time(const engine::Request& r) {
  if (r.response_tokens < 2) return std::nullopt;
  if (r.tpot_ms && *r.tpot_ms > 0) return PerToken{*r.tpot_ms, PerTokenSource::tpot};
  if (r.itl_ms && *r.itl_ms > 0) return PerToken{*r.itl_ms, PerTokenSource::itl};
  if (r.e2e_ms && r.ttft_ms && *r.e2e_ms > *r.ttft_ms) {
    const double ms = (*r.e2e_ms - *r.ttft_ms) / static_cast<double>(r.response_tokens - 1);
    return PerToken{ms, PerTokenSource::e2e};
  }
  return std::nullopt;
}

std::string per_token_note(const std::array<std::int64_t, index(PerTokenSource::count)>& counts) {
  std::string note;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    note += (note.empty() ? "" : "; ") + std::to_string(counts[i]) + " from " +
            std::string(describe(static_cast<PerTokenSource>(i)));
  }
  return note;
}

using LogReader = std::function<RequestLogReport(const RequestSink&)>;

// Where each point came from, to find a run's first requests after the file is read.
struct PointOrigin {
  std::optional<double> arrival_s;
  std::int64_t line = 0;
  std::optional<PerTokenSource> per_token;  ///< where its TPOT came from; none without one
};

bool every_point_timed(const std::vector<PointOrigin>& origins) {
  return std::all_of(origins.begin(), origins.end(),
                     [](const PointOrigin& o) { return o.arrival_s.has_value(); });
}

// The indices of the first `count` points: by arrival when `timed` (every point has one), else
// in file order (a log's lines need not be in arrival order).
std::vector<std::size_t> first_points(const std::vector<PointOrigin>& origins, std::int64_t count,
                                      bool timed) {
  std::vector<std::size_t> order(origins.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return timed ? *origins[a].arrival_s < *origins[b].arrival_s
                 : origins[a].line < origins[b].line;
  });
  order.resize(static_cast<std::size_t>(count));
  return order;
}

// --calibrate-warmup N: a server's first requests after it starts pay one-time costs (kernel JIT,
// CUDA graph capture, autotuning) that no step model carries, and a client that sends no warm-up
// request of its own (vllm bench serve sends one before measuring) logs them as points. They are
// left out of the fit, TTFT and TPOT both; their prefill stays in the running-decode points'
// count of the work other requests decoded alongside, since the GPU did it.
std::string leave_out_warmup(CalibrationFile& file, std::vector<TimedDecode>& decodes,
                             std::vector<PointOrigin>& origins, std::int64_t warmup) {
  if (warmup <= 0) return {};
  if (warmup >= static_cast<std::int64_t>(file.points.size())) {
    throw InputError(flag_mark("calibrate-warmup") + " " + std::to_string(warmup) + ": " +
                     file.source + " has " +
                     count_mark(static_cast<std::int64_t>(file.points.size())) +
                     " latency points, and leaving that many out leaves none to fit: give a "
                     "smaller count");
  }
  const bool timed = every_point_timed(origins);
  std::vector<std::size_t> dropped = first_points(origins, warmup, timed);
  std::vector<std::int64_t> lines;
  lines.reserve(dropped.size());
  for (const std::size_t i : dropped) lines.push_back(origins[i].line);
  std::sort(dropped.begin(), dropped.end());
  for (auto i = dropped.rbegin(); i != dropped.rend(); ++i) {  // last first: indices stay valid
    const auto at = static_cast<std::ptrdiff_t>(*i);
    file.points.erase(file.points.begin() + at);
    file.cached_tokens.erase(file.cached_tokens.begin() + at);
    origins.erase(origins.begin() + at);
  }
  std::erase_if(decodes, [&](const TimedDecode& d) {
    return std::find(lines.begin(), lines.end(), d.line) != lines.end();
  });
  std::string where;
  for (const std::int64_t line : lines) {
    where += (where.empty() ? "" : ", ") + std::to_string(line);
  }
  return std::string("the first ") + std::to_string(warmup) + " request" +
         (warmup == 1 ? "" : "s") + (timed ? " by arrival" : " in the file") + " (line" +
         (warmup == 1 ? " " : "s ") + where +
         ") left out as the server's warm-up (--calibrate-warmup " + std::to_string(warmup) + ")";
}

CalibrationFile read_request_points(const std::string& path, std::optional<double> concurrency,
                                    std::int64_t warmup, const LogReader& read_log) {
  CalibrationFile file;
  std::vector<TimedDecode> decodes;
  std::vector<PointOrigin> origins;
  std::vector<engine::PrefilledPrompt> prefilled;
  file.source = path;
  std::vector<std::int64_t> prompts;
  std::vector<std::int64_t> responses;
  std::int64_t queued_ttfts = 0;
  std::int64_t kept_ttfts = 0;
  double queued_ms = 0;
  const RequestLogReport report = read_log([&](const engine::Request& r) {
    const std::optional<PerToken> per_token = per_token_time(r);
    if (!r.ttft_ms && !per_token) return;
    engine::LatencyObservation point;
    point.label = "line " + std::to_string(r.line);
    point.prompt_tokens = static_cast<double>(r.prompt_tokens);
    point.response_tokens = static_cast<double>(std::max<std::int64_t>(r.response_tokens, 1));
    // The prefix the log says was cached: the prefill step computed the rest only.
    const double cached = std::clamp(r.cached_tokens ? static_cast<double>(*r.cached_tokens) : 0.0,
                                     0.0, std::max(point.prompt_tokens - 1, 0.0));
    // A TTFT that is mostly the engine's queue (an overloaded run) is no evidence of the
    // prefill step or the request overhead: the fit would take seconds of queue for overhead.
    const bool queued = r.ttft_ms && r.queue_ms && *r.queue_ms > kMostlyQueue * *r.ttft_ms;
    if (queued) {
      ++queued_ttfts;
      queued_ms += *r.queue_ms;
    } else if (r.ttft_ms) {
      ++kept_ttfts;
    }
    if (!queued) point.ttft_ms = r.ttft_ms;
    if (per_token) point.tpot_ms = per_token->ms;
    if (!point.ttft_ms && !point.tpot_ms) return;
    file.points.push_back(point);
    file.cached_tokens.push_back(cached);
    origins.push_back(
        {r.arrival_s, r.line, per_token ? std::optional(per_token->source) : std::nullopt});
    if (const std::optional<TimedDecode> decode = timed_decode(r, per_token)) {
      decodes.push_back(*decode);
    }
    if (r.arrival_s && r.ttft_ms) {
      prefilled.push_back({*r.arrival_s + *r.ttft_ms / 1000.0, point.prompt_tokens - cached});
    }
    prompts.push_back(r.prompt_tokens);
    responses.push_back(std::max<std::int64_t>(r.response_tokens, 1));
    if (file.stated_model.empty()) file.stated_model = r.model;
  });
  file.format = std::string(to_string(report.format));
  if (file.points.empty()) {
    throw InputError(path + ": none of its " + count_mark(report.records) +
                     " records has a measured TTFT or per-token time to calibrate on: give a "
                     "benchmark's per-request output (AIPerf profile_export.jsonl, vllm bench "
                     "serve --save-detailed, a trace-replay CSV with ttft and ttlt) or an "
                     "AccelMark result.json");
  }
  file.warmup_note = leave_out_warmup(file, decodes, origins, warmup);
  std::array<std::int64_t, index(PerTokenSource::count)> per_token_counts{};
  for (const PointOrigin& origin : origins) {
    if (origin.per_token) ++per_token_counts[index(*origin.per_token)];
  }
  if (report.format == RequestFormat::vllm_json) {
    // A --save-detailed log's E2E is its TTFT plus its ITL array: the gaps' sum, not an E2E.
    std::swap(per_token_counts[index(PerTokenSource::e2e)],
              per_token_counts[index(PerTokenSource::itl_arrays)]);
  }
  for (const std::int64_t count : per_token_counts) file.tpot_points += count;
  file.tpot_note = per_token_note(per_token_counts);
  if (queued_ttfts > 0) {
    file.ttft_note = "TTFT of the " + std::to_string(kept_ttfts) +
                     " requests that queued for at most 10% of it; the " +
                     std::to_string(queued_ttfts) + " that queued longer (mean " +
                     std::to_string(std::llround(queued_ms / static_cast<double>(queued_ttfts))) +
                     " ms) are left out of the overhead fit";
  }
  const AiperfAggregate aggregate = aiperf_aggregate_beside(path);
  if (file.stated_model.empty()) file.stated_model = aggregate.model;
  const std::optional<double> stated = concurrency ? concurrency : aggregate.concurrency;
  if (!stated || !(*stated >= 1)) {
    throw InputError(path +
                     ": the file does not state the concurrency it was measured at, and "
                     "the step model needs it (a step's batch): pass " +
                     flag_mark("calibrate-concurrency") + " N");
  }
  file.concurrency = *stated;
  for (engine::LatencyObservation& point : file.points) point.concurrency = file.concurrency;
  file.decode_points = decode_points(decodes, std::move(prefilled));
  file.typical_prompt_tokens = median(prompts);
  file.typical_response_tokens = median(responses);
  return file;
}

}  // namespace

std::string describe_points(const CalibrationFile& file) {
  std::int64_t ttft = 0;
  std::int64_t tpot = 0;
  for (const engine::LatencyObservation& point : file.points) {
    ttft += point.ttft_ms ? 1 : 0;
    tpot += point.tpot_ms ? 1 : 0;
  }
  std::string text = std::to_string(ttft) + " TTFT point" + (ttft == 1 ? "" : "s") + ", " +
                     std::to_string(tpot) + " TPOT point" + (tpot == 1 ? "" : "s");
  if (tpot == 0) {
    text +=
        " (no per-token time in the file: the decode side keeps its modelled prior; give a log "
        "with per-request TPOT, ITL, or E2E and TTFT with 2+ output tokens)";
  } else if (!file.tpot_note.empty()) {
    text += " (" + file.tpot_note + ")";
  }
  if (!file.warmup_note.empty()) text += "; " + file.warmup_note;
  return text;
}

CalibrationFile read_calibration_file(const std::string& path, std::optional<double> concurrency,
                                      std::int64_t warmup) {
  // Opened once: a FIFO, /dev/stdin or <(...) has no second reading. An AccelMark result is one
  // small JSON object naming its suite_id near the top; anything else is a request log, read
  // from the same descriptor (streamed), or from the text already read when the head misled.
  InputFile input(path, "calibration file");
  const std::string& head = input.head(4096);
  const std::size_t start = head.find_first_not_of(" \t\r\n");
  const bool maybe_accelmark = start != std::string::npos && head[start] == '{' &&
                               head.find("\"suite_id\"") != std::string::npos;
  std::string text;
  if (maybe_accelmark) text = input.read_text();
  if (maybe_accelmark && looks_like_accelmark_result(text)) {
    CalibrationFile file = parse_accelmark_result(text, find_suite_text(path, text), path);
    if (concurrency && *concurrency != 1) {
      throw InputError(flag_mark("calibrate-concurrency") + " " + number_mark(*concurrency) + ": " +
                       path +
                       " is AccelMark's one-request-at-a-time run, measured at concurrency 1: "
                       "leave the flag out");
    }
    if (warmup > 0) {
      throw InputError(flag_mark("calibrate-warmup") + " " + std::to_string(warmup) + ": " + path +
                       " is AccelMark's aggregate result, which holds no request to leave out: "
                       "leave the flag out");
    }
    return file;
  }
  const LogReader read_log = [&](const RequestSink& sink) {
    return maybe_accelmark ? read_request_log_text(text, path, {}, sink)
                           : read_request_log(input, {}, sink);
  };
  try {
    return read_request_points(path, concurrency, warmup, read_log);
  } catch (const InputError& error) {
    // The request-log detector's message ends with mix's --columns, which estimate does not take:
    // name what --calibrate reads instead.
    if (std::string_view(error.what()).find("not a request log kspeed knows") ==
        std::string_view::npos) {
      throw;
    }
    throw InputError(path +
                     ": not a calibration file kspeed knows: expected an AccelMark result.json "
                     "or a per-request benchmark log with TTFT or TPOT (AIPerf "
                     "profile_export.jsonl, vllm bench serve --save-detailed JSON, a trace-replay "
                     "CSV)");
  }
}

}  // namespace kspeed::io
