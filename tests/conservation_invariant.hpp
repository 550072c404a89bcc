#pragma once
// Issue 27's invariant over an answer's JSON, shared by the property test
// (unit/test_conservation_property.cpp) and the whole-command fuzz target
// (fuzz/fuzz_command.cpp), which aborts on a violation. For every phase an answer targets:
//   saved = attention × (1 − 1/s)      attention ≤ the phase's latency      saved ≤ latency
// estimate: `prefill`/`decode` carry attention_ms, attention_speedup, saved_ms, time_before_ms.
// sweep: each row's phase latency (ttft_ms less ttft_fixed_ms, tpot_ms), its share of it and its
// after-time: saved = before − after, attention = share × latency. An empty string: it holds.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace kspeed::invariant {

// Within a relative 1e-9 (and 1e-9 ms): the answer's own arithmetic, not a tolerance for error.
// A double NaN (<cmath>'s NAN is a float: -Wdouble-promotion).
inline constexpr double kNotANumber = std::numeric_limits<double>::quiet_NaN();

inline bool same_ms(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-9;
}
inline bool at_most_ms(double a, double b) {
  return a <= b * (1 + 1e-12) + 1e-9;
}

// One phase: empty when conserved, else what broke, with the numbers.
inline std::string phase_violation(const std::string& where, double attention, double s,
                                   double saved, double latency) {
  std::ostringstream out;
  if (!same_ms(saved, attention * (1 - 1 / s))) {
    out << where << ": saved " << saved << " ms != attention " << attention << " ms x (1 - 1/" << s
        << ")";
  } else if (!at_most_ms(attention, latency)) {
    out << where << ": attention " << attention << " ms > latency " << latency << " ms";
  } else if (!at_most_ms(saved, latency)) {
    out << where << ": saved " << saved << " ms > latency " << latency << " ms";
  }
  return out.str();
}

inline double number_or(const nlohmann::json& object, const char* key, double fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

// estimate's document: each targeted phase's own fields.
inline std::string estimate_violation(const nlohmann::json& document) {
  for (const char* name : {"prefill", "decode"}) {
    const auto it = document.find(name);
    if (it == document.end() || !it->is_object() || !it->value("targeted", false)) continue;
    const nlohmann::json& phase = *it;
    if (!phase.contains("saved_ms") || !phase.at("saved_ms").is_number()) continue;
    std::string broke = phase_violation(
        std::string("estimate ") + name, phase.at("attention_ms").get<double>(),
        phase.at("attention_speedup").get<double>(), phase.at("saved_ms").get<double>(),
        phase.at("time_before_ms").get<double>());
    if (!broke.empty()) return broke;
  }
  return {};
}

// One sweep row (a kernel speedup, not levers: the decode side's s is the kernel speedup).
inline std::string sweep_row_violation(const nlohmann::json& row, std::size_t index) {
  const std::string phase = row.value("phase", "");
  const std::string where = "sweep row " + std::to_string(index);
  if (phase == "prefill" || phase == "both") {
    const double latency = number_or(row, "ttft_ms", kNotANumber) - number_or(row, "ttft_fixed_ms", 0);
    const double after_ttft = number_or(row, "request_ttft_after_ms", kNotANumber);
    const double saved = number_or(row, "ttft_ms", kNotANumber) - after_ttft;
    const double attention = number_or(row, "prefill_attention_share", kNotANumber) * latency;
    const double s = number_or(row, "prefill_attention_speedup", kNotANumber);
    if (std::isfinite(latency) && std::isfinite(saved) && std::isfinite(s)) {
      std::string broke = phase_violation(where + " prefill", attention, s, saved, latency);
      if (!broke.empty()) return broke;
    }
  }
  const bool levers =
      row.contains("levers_compute_speedup") && !row.at("levers_compute_speedup").is_null();
  // A one-token response has no decode step: nothing of decode to conserve.
  const bool decodes = number_or(row, "response_tokens", 2) > 1;
  if ((phase == "decode" || phase == "both") && !levers && decodes) {
    const double latency = number_or(row, "tpot_ms", kNotANumber);
    const double saved = latency - number_or(row, "request_tpot_after_ms", kNotANumber);
    const double attention = number_or(row, "decode_attention_share", kNotANumber) * latency;
    const double s = number_or(row, "kernel_speedup", kNotANumber);
    if (std::isfinite(latency) && std::isfinite(saved) && std::isfinite(attention) &&
        std::isfinite(s)) {
      std::string broke = phase_violation(where + " decode", attention, s, saved, latency);
      if (!broke.empty()) return broke;
    }
  }
  return {};
}

// Any answer kspeed writes as JSON: estimate's or sweep's checked, others have no saved time.
inline std::string conservation_violation(const nlohmann::json& document) {
  if (!document.is_object()) return {};
  if (document.contains("prefill") && document.contains("decode")) {
    return estimate_violation(document);
  }
  const auto rows = document.find("rows");
  if (rows != document.end() && rows->is_array()) {
    for (std::size_t i = 0; i < rows->size(); ++i) {
      std::string broke = sweep_row_violation(rows->at(i), i);
      if (!broke.empty()) return broke;
    }
  }
  return {};
}

}  // namespace kspeed::invariant
