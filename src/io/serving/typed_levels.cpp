// Load levels typed by hand (io/serving/typed_levels.hpp): KEY=VALUE pairs, or a CSV of the same
// keys. Strict like every kspeed reader: an unknown key gets a did-you-mean, a key given twice,
// a value that is not a positive number, a load with neither a rate nor a concurrency (or both),
// percentiles out of order: each an error naming the level and the key.
#include "kspeed/io/serving/typed_levels.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io {

namespace {

using TypedFields = std::map<std::string, std::string>;

std::string_view typed_trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split_on_commas(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(typed_trim(text.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// One level's keys, checked against the known ones; `where` names the level.
void add_typed_field(TypedFields& fields, std::string_view key, std::string_view value,
                     const std::string& where) {
  const std::string name(key);
  const std::vector<std::string>& known = typed_level_keys();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    throw InputError(where + ": '" + name + "' is not a level key" +
                     suggestion_suffix(name, known) +
                     " (docs/calibrate.md lists the keys and their units)");
  }
  if (fields.contains(name)) {
    throw InputError(where + ": " + name + " is given twice: give each key once");
  }
  if (value.empty()) {
    throw InputError(where + ": " + name + " has no value: expected " + name + "=VALUE");
  }
  fields.emplace(name, std::string(value));
}

class TypedLevelReader {
 public:
  TypedLevelReader(const TypedFields& fields, std::string where)
      : fields_(fields), where_(std::move(where)) {}

  bool has(const char* key) const { return fields_.contains(key); }

  std::optional<double> number(const char* key) const {
    const auto found = fields_.find(key);
    if (found == fields_.end()) return std::nullopt;
    return parse_positive_number(found->second, where_ + " " + key);
  }

  std::optional<std::int64_t> whole(const char* key) const {
    const std::optional<double> value = number(key);
    if (!value) return std::nullopt;
    if (*value != std::floor(*value)) {
      fail(std::string(key) + "=" + fields_.at(key) + " is not a whole number: expected a count");
    }
    return static_cast<std::int64_t>(*value);
  }

  MeasuredStat stat(const std::string& metric) const {
    MeasuredStat out;
    out.mean_ms = number((metric + "_mean_ms").c_str());
    out.p50_ms = number((metric + "_p50_ms").c_str());
    out.p90_ms = number((metric + "_p90_ms").c_str());
    out.p99_ms = number((metric + "_p99_ms").c_str());
    check_order(metric, out.p50_ms, "p50", out.p90_ms, "p90");
    check_order(metric, out.p90_ms, "p90", out.p99_ms, "p99");
    check_order(metric, out.p50_ms, "p50", out.p99_ms, "p99");
    return out;
  }

  std::string text(const char* key) const {
    const auto found = fields_.find(key);
    return found == fields_.end() ? std::string() : found->second;
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(where_ + ": " + what); }

 private:
  void check_order(const std::string& metric, const std::optional<double>& low,
                   const char* low_name, const std::optional<double>& high,
                   const char* high_name) const {
    if (low && high && *low > *high) {
      fail(
          fmt::format("{}_{}_ms {} is above {}_{}_ms {}: a percentile cannot fall as it rises; "
                      "check the two figures",
                      metric, low_name, *low, metric, high_name, *high));
    }
  }

  const TypedFields& fields_;
  std::string where_;
};

std::string typed_rate_text(double rate) {
  return fmt::format("{:.4g} req/s", rate);
}

// The load: an open loop at a rate (arrivals named: the two are different loads) or a closed
// loop of clients, and how many requests it sent.
void read_typed_load(const TypedLevelReader& in, TypedLevel& level) {
  MeasuredLoad& load = level.load;
  const std::optional<double> rate = in.number("rate");
  const std::optional<std::int64_t> clients = in.whole("concurrency");
  if (rate && clients) {
    in.fail(
        "rate and concurrency are both given: a level is an open loop at a rate (rate=R with "
        "arrivals=constant|poisson) or a closed loop of clients (concurrency=N); give one");
  }
  if (!rate && !clients) {
    in.fail(
        "no load: give rate=R (req/s) with arrivals=constant|poisson for an open loop, or "
        "concurrency=N for a closed loop of N clients");
  }
  const std::optional<std::int64_t> requests = in.whole("requests");
  load.duration_s = in.number("duration_s");
  load.requests = requests.value_or(0);
  if (rate) {
    const std::string arrivals = in.text("arrivals");
    if (arrivals == "constant") {
      load.arrivals = ArrivalPattern::constant_rate;
    } else if (arrivals == "poisson") {
      load.arrivals = ArrivalPattern::poisson;
    } else {
      in.fail(arrivals.empty()
                  ? "rate=" + in.text("rate") +
                        " without arrivals: say how the requests arrived (arrivals=constant, "
                        "evenly spaced as inference-perf's constant load; arrivals=poisson, as "
                        "vllm bench serve and sglang.bench_serving send them)"
                  : "arrivals=" + arrivals + ": expected constant or poisson");
    }
    if (!requests && !load.duration_s) {
      in.fail("rate=" + in.text("rate") +
              " without requests=N or duration_s=S: say how many requests the level sent");
    }
    if (load.arrivals == ArrivalPattern::poisson && !requests) {
      load.requests = std::max<std::int64_t>(1, std::llround(*rate * *load.duration_s));
    }
    load.rate_per_s = rate;
    load.max_inflight = in.whole("max_inflight");
    load.label = (load.arrivals == ArrivalPattern::poisson ? "Poisson " : "constant ") +
                 typed_rate_text(*rate);
    return;
  }
  for (const char* open_only : {"arrivals", "duration_s", "max_inflight"}) {
    if (in.has(open_only)) {
      in.fail(std::string(open_only) + " is an open loop's (rate=R); concurrency=" +
              in.text("concurrency") + " is a closed loop: leave " + open_only + " out");
    }
  }
  if (!requests) {
    in.fail("concurrency=" + in.text("concurrency") +
            " without requests=N: say how many requests the clients sent");
  }
  load.arrivals = ArrivalPattern::one_at_a_time;
  level.concurrency = *clients;
  load.label = "concurrency " + std::to_string(*clients);
}

// The figures: TTFT, the per-token time (TPOT, or ITL as sglang reports it, or derived from the
// means), E2E and the achieved rate.
void read_typed_figures(const TypedLevelReader& in, MeasuredLoad& load) {
  load.ttft = in.stat("ttft");
  load.e2e = in.stat("e2e");
  const MeasuredStat tpot = in.stat("tpot");
  const bool has_tpot = tpot.mean_ms || tpot.p50_ms || tpot.p90_ms || tpot.p99_ms;
  load.tpot_is_itl = in.has("itl_p50_ms") || in.has("itl_p99_ms");
  if (has_tpot && load.tpot_is_itl) {
    in.fail(
        "tpot_ and itl_ figures are both given: the per-token time is one or the other (TPOT per "
        "request, or the gaps between tokens over all tokens): give one");
  }
  if (load.tpot_is_itl) {
    load.tpot.p50_ms = in.number("itl_p50_ms");
    load.tpot.p99_ms = in.number("itl_p99_ms");
    if (load.tpot.p50_ms && load.tpot.p99_ms && *load.tpot.p50_ms > *load.tpot.p99_ms) {
      in.fail("itl_p50_ms is above itl_p99_ms: check the two figures");
    }
    load.tpot_basis = "ITL as typed";
  } else if (has_tpot) {
    load.tpot = tpot;
    load.tpot_basis = "TPOT as typed";
  } else if (load.e2e.mean_ms && load.ttft.mean_ms && *load.output_tokens_mean > 1) {
    load.tpot.mean_ms = (*load.e2e.mean_ms - *load.ttft.mean_ms) / (*load.output_tokens_mean - 1);
    if (*load.tpot.mean_ms <= 0) {
      in.fail("e2e_mean_ms is not above ttft_mean_ms: a request ends after its first token");
    }
    load.tpot_basis = "(E2E - TTFT) / (output - 1) from the typed means";
  }
  load.achieved_rate_per_s = in.number("achieved_rate");
  const bool any = load.ttft.mean_ms || load.ttft.p50_ms || load.tpot.mean_ms || load.tpot.p50_ms ||
                   load.e2e.mean_ms || load.e2e.p50_ms;
  if (!any) {
    in.fail(
        "no measured figure: give what the benchmark reported, e.g. ttft_mean_ms and "
        "tpot_mean_ms (or e2e_mean_ms with ttft_mean_ms), or their p50s");
  }
}

TypedLevel typed_level_of(const TypedFields& fields, const std::string& where, std::size_t number) {
  const TypedLevelReader in(fields, where);
  TypedLevel level;
  MeasuredLoad& load = level.load;
  load.prompt_tokens_mean = in.number("prompt");
  load.output_tokens_mean = in.number("output");
  if (!load.prompt_tokens_mean || !load.output_tokens_mean) {
    in.fail(
        "prompt=TOKENS and output=TOKENS (the level's mean prompt and output lengths) are "
        "needed to rebuild its load in the replay");
  }
  read_typed_load(in, level);
  read_typed_figures(in, load);
  const std::string label = in.text("label");
  load.label = label.empty() ? "level " + std::to_string(number) + " (" + load.label + ")" : label;
  return level;
}

}  // namespace

const std::vector<std::string>& typed_level_keys() {
  static const std::vector<std::string> keys = {
      "label",       "rate",        "arrivals",    "concurrency",  "requests",
      "duration_s",  "prompt",      "output",      "max_inflight", "ttft_mean_ms",
      "ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms", "tpot_mean_ms", "tpot_p50_ms",
      "tpot_p90_ms", "tpot_p99_ms", "itl_p50_ms",  "itl_p99_ms",   "e2e_mean_ms",
      "e2e_p50_ms",  "e2e_p90_ms",  "e2e_p99_ms",  "achieved_rate"};
  return keys;
}

TypedLevel parse_typed_level(std::string_view text, const std::string& where, std::size_t number) {
  TypedFields fields;
  for (const std::string_view item : split_on_commas(text)) {
    if (item.empty()) continue;  // a trailing comma
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw InputError(where + ": '" + std::string(item) +
                       "' is not KEY=VALUE: expected pairs separated by commas, e.g. "
                       "rate=2,arrivals=poisson,requests=200,prompt=1024,output=256,"
                       "ttft_mean_ms=45,tpot_mean_ms=9.5");
    }
    add_typed_field(fields, typed_trim(item.substr(0, equals)), typed_trim(item.substr(equals + 1)),
                    where);
  }
  if (fields.empty()) {
    throw InputError(where + ": empty: expected KEY=VALUE pairs separated by commas");
  }
  return typed_level_of(fields, where, number);
}

std::vector<TypedLevel> parse_typed_levels_csv(std::string_view text, const std::string& source) {
  std::vector<std::string_view> header;
  std::vector<TypedLevel> levels;
  std::size_t at = 0;
  std::size_t line_number = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = typed_trim(text.substr(at, end - at));
    at = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = source + ":" + std::to_string(line_number);
    if (header.empty()) {
      header = split_on_commas(line);
      TypedFields check;
      for (const std::string_view key : header) add_typed_field(check, key, "x", where);
      continue;
    }
    const std::vector<std::string_view> cells = split_on_commas(line);
    if (cells.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(cells.size()) + " cells, the header has " +
                       std::to_string(header.size()) +
                       ": one value a key (an empty cell leaves it out; labels hold no comma)");
    }
    TypedFields fields;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (!cells[i].empty()) add_typed_field(fields, header[i], cells[i], where);
    }
    levels.push_back(typed_level_of(fields, where, levels.size() + 1));
  }
  if (levels.empty()) {
    throw InputError(source +
                     ": no level: expected a header of keys (rate,arrivals,requests,prompt,"
                     "output,ttft_mean_ms,...) and one level a row");
  }
  return levels;
}

std::vector<TypedLevel> read_typed_levels_csv(const std::string& path) {
  return parse_typed_levels_csv(read_text_file(path, "--levels"), path);
}

}  // namespace kspeed::io
