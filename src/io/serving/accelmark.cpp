// FreedomIntelligence/AccelMark's result.json (schema_version "1.0"), the scenarios the
// validation reads:
//   metrics.interactive: {ttft_ms_p50, ttft_ms_p90, ttft_ms_p99, tpot_ms_p50, tpot_ms_p90,
//                         tpot_ms_p99, ...}           one request at a time
//   metrics.online: {results_by_qps: [{target_qps, achieved_qps, ttft_ms_p50 … tpot_ms_p99,
//                    elapsed_seconds_median, sla_met}], ...}   Poisson arrivals at target_qps
// Times in ms; no means. Other scenarios (offline, sustained, burst, ...) are not load levels of
// this kind and are skipped.
#include <nlohmann/json.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

namespace {

std::optional<double> number_at(const nlohmann::json& object, const std::string& key) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) return {};
  return object.at(key).get<double>();
}

MeasuredStat percentiles_of(const nlohmann::json& object, const std::string& metric) {
  MeasuredStat stat;
  stat.p50_ms = number_at(object, metric + "_ms_p50");
  stat.p90_ms = number_at(object, metric + "_ms_p90");
  stat.p99_ms = number_at(object, metric + "_ms_p99");
  return stat;
}

std::string rate_text(double rate) {
  std::string text = std::to_string(rate);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::vector<MeasuredLoad> parse_accelmark_result(std::string_view text, const std::string& source) {
  const nlohmann::json root = parse_json_document(text, source);
  if (!root.is_object() || !root.contains("metrics") || !root.at("metrics").is_object()) {
    throw InputError(source + ": no 'metrics' object (expected an AccelMark result.json)");
  }
  const nlohmann::json& metrics = root.at("metrics");
  std::vector<MeasuredLoad> loads;
  if (metrics.contains("interactive")) {
    MeasuredLoad load;
    load.label = "one at a time";
    load.arrivals = ArrivalPattern::one_at_a_time;
    load.ttft = percentiles_of(metrics.at("interactive"), "ttft");
    load.tpot = percentiles_of(metrics.at("interactive"), "tpot");
    load.tpot_basis = "AccelMark's TPOT (per output token)";
    loads.push_back(load);
  }
  if (metrics.contains("online") && metrics.at("online").contains("results_by_qps")) {
    for (const nlohmann::json& level : metrics.at("online").at("results_by_qps")) {
      const std::optional<double> rate = number_at(level, "target_qps");
      if (!rate || *rate <= 0) {
        throw InputError(source +
                         ": metrics.online.results_by_qps[]: target_qps missing or not "
                         "positive");
      }
      MeasuredLoad load;
      load.label = "Poisson " + rate_text(*rate) + " req/s";
      load.arrivals = ArrivalPattern::poisson;
      load.rate_per_s = rate;
      load.achieved_rate_per_s = number_at(level, "achieved_qps");
      load.ttft = percentiles_of(level, "ttft");
      load.tpot = percentiles_of(level, "tpot");
      load.tpot_basis = "AccelMark's TPOT (per output token)";
      loads.push_back(load);
    }
  }
  if (loads.empty()) {
    throw InputError(source +
                     ": neither metrics.interactive nor metrics.online.results_by_qps (AccelMark "
                     "writes them for --scenario interactive and online)");
  }
  return loads;
}

std::vector<MeasuredLoad> read_accelmark_result(const std::string& path) {
  return parse_accelmark_result(read_text_file(path, "AccelMark result"), path);
}

}  // namespace kspeed::io
