#include "kspeed/engine/chain/answer_inputs.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "kspeed/engine/provenance_order.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

constexpr std::array kAllProvenances = {
    Provenance::given,        Provenance::workload, Provenance::interpolated,  Provenance::clamped,
    Provenance::extrapolated, Provenance::scaled,   Provenance::default_value, Provenance::modelled,
    Provenance::measured,     Provenance::preset,   Provenance::converted,     Provenance::fitted,
    Provenance::illustrative};

bool has_warning(const Scenario& scenario, WarningCode code) {
  return std::any_of(scenario.warnings.begin(), scenario.warnings.end(),
                     [code](const Warning& w) { return w.code == code; });
}

}  // namespace

std::string borrowed_table(const std::string& workload_name) {
  return "the built-in example " + workload_name + "'s share table";
}

std::string borrowed_phrase(const AnswerInput& input) {
  return "borrowed from " + (input.borrowed_from.empty() ? "another model" : input.borrowed_from);
}

std::vector<AnswerInput> answer_inputs(const Scenario& scenario) {
  // A share read from a workload measured on another model (warn_on_model_mismatch).
  const bool mismatch = has_warning(scenario, WarningCode::share_model_mismatch);
  std::vector<AnswerInput> inputs = {
      {"prompt", scenario.prompt_tokens.provenance},
      {"response", scenario.response_tokens.provenance},
  };
  // A latency read from a workload of another model is that model's (issue 27).
  if (scenario.phase != Phase::decode || scenario.ttft_ms.value > 0) {
    inputs.push_back(
        {"TTFT", scenario.ttft_ms.provenance, mismatch && scenario.ttft_from_workload});
  }
  if (scenario.ttft_fixed_ms) {
    inputs.push_back({"TTFT fixed term", scenario.ttft_fixed_ms->provenance,
                      mismatch && scenario.ttft_from_workload});
  }
  if (scenario.response_tokens.value > 1) {
    inputs.push_back(
        {"TPOT", scenario.tpot_ms.provenance, mismatch && scenario.tpot_from_workload});
  }
  if (!scenario.levers) {
    inputs.push_back({"kernel speedup", scenario.kernel_speedup.provenance});
  }
  if (scenario.phase != Phase::decode) {
    inputs.push_back({"prefill attention share", scenario.prefill_share.provenance,
                      mismatch && scenario.prefill_share.provenance != Provenance::given &&
                          scenario.prefill_share.provenance != Provenance::modelled});
    if (!scenario.prefill_share_borrowed_from.empty()) {
      inputs.back().borrowed = true;
      inputs.back().borrowed_from = borrowed_table(scenario.prefill_share_borrowed_from);
    }
  }
  if (scenario.phase != Phase::prefill && scenario.decode_share) {
    inputs.push_back({"decode attention share", scenario.decode_share->provenance,
                      mismatch && scenario.decode_share->provenance != Provenance::given &&
                          scenario.decode_share->provenance != Provenance::modelled});
  }
  return inputs;
}

std::vector<AnswerInput> answer_inputs(const RooflineResult& result) {
  const RooflineQuery& query = result.query;
  std::vector<AnswerInput> inputs = {{"peak TFLOP/s", query.peak_tflops.provenance},
                                     {"HBM bandwidth", query.bandwidth_tbs.provenance}};
  if (query.platform) {
    const Platform& platform = *query.platform;
    inputs.push_back({"model", platform.model.provenance});
    inputs.push_back({"GPU", platform.gpu.provenance});
    inputs.push_back({"context", query.context_tokens.provenance});
    inputs.push_back({"batch", platform.batch.provenance});
    inputs.push_back({"tensor parallelism", platform.tensor_parallel.provenance});
    inputs.push_back({"KV cache type", platform.kv_dtype.provenance});
  } else {
    inputs.push_back({"arithmetic intensity", result.intensity_source});
  }
  inputs.push_back(
      {"levers", result.levers_illustrative ? Provenance::illustrative : Provenance::given});
  return inputs;
}

InputFilter strict_filter() {
  InputFilter filter;
  filter.provenances = {Provenance::illustrative, Provenance::clamped, Provenance::extrapolated};
  filter.borrowed = true;
  filter.conservation = true;
  filter.within_context = true;
  return filter;
}

InputFilter parse_input_filter(std::string_view list, std::string_view flag) {
  InputFilter filter;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view word = list.substr(start, comma - start);
    start = comma + 1;
    if (word == "borrowed") {
      filter.borrowed = true;
      continue;
    }
    const auto known = std::find_if(kAllProvenances.begin(), kAllProvenances.end(),
                                    [word](Provenance p) { return to_string(p) == word; });
    if (known == kAllProvenances.end()) {
      std::string names = "borrowed";
      for (const Provenance p : kAllProvenances) names += ", " + std::string(to_string(p));
      throw InputError(std::string(flag) + " " + std::string(list) + ": unknown provenance '" +
                       std::string(word) + "': expected a comma-separated list of " + names);
    }
    filter.provenances.push_back(*known);
  }
  return filter;
}

std::vector<AnswerInput> refused_inputs(const Scenario& scenario, const InputFilter& filter) {
  std::vector<AnswerInput> refused;
  for (const AnswerInput& input : answer_inputs(scenario)) {
    const bool listed = std::find(filter.provenances.begin(), filter.provenances.end(),
                                  input.provenance) != filter.provenances.end();
    if (listed || (filter.borrowed && input.borrowed)) refused.push_back(input);
  }
  return refused;
}

namespace {

// A sweep point's inputs, as answer_inputs names a scenario's.
std::vector<AnswerInput> row_inputs(const SweepRow& row, Phase phase,
                                    const std::string& borrowed_share_table) {
  const bool mismatch = std::any_of(row.warnings.begin(), row.warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::share_model_mismatch;
  });
  const auto borrowed = [mismatch](Provenance p) {
    return mismatch && p != Provenance::given && p != Provenance::modelled;
  };
  std::vector<AnswerInput> inputs = {{"prompt", row.prompt_tokens.provenance},
                                     {"response", row.response_tokens.provenance}};
  if (phase != Phase::decode || row.ttft_ms.value > 0) {
    inputs.push_back({"TTFT", row.ttft_ms.provenance, mismatch && row.ttft_from_workload});
  }
  if (row.response_tokens.value > 1) {
    inputs.push_back({"TPOT", row.tpot_ms.provenance, mismatch && row.tpot_from_workload});
  }
  if (row.kernel_speedup) inputs.push_back({"kernel speedup", row.kernel_speedup->provenance});
  if (phase != Phase::decode) {
    inputs.push_back({"prefill attention share", row.prefill_share.provenance,
                      borrowed(row.prefill_share.provenance)});
    // --share-model calibrated on a table that is not the user's (Workload::borrowed_share_table)
    if (!borrowed_share_table.empty() && row.prefill_share.provenance == Provenance::modelled) {
      inputs.back().borrowed = true;
      inputs.back().borrowed_from = borrowed_table(borrowed_share_table);
    }
  }
  if (phase != Phase::prefill && row.decode_share) {
    inputs.push_back({"decode attention share", row.decode_share->provenance,
                      borrowed(row.decode_share->provenance)});
  }
  return inputs;
}

bool refuses(const InputFilter& filter, const AnswerInput& input) {
  const bool listed = std::find(filter.provenances.begin(), filter.provenances.end(),
                                input.provenance) != filter.provenances.end();
  return listed || (filter.borrowed && input.borrowed);
}

// `remedy`: what the command takes to replace the refused inputs.
void throw_refused(const std::vector<AnswerInput>& refused, std::string_view flag,
                   const std::string& remedy) {
  if (refused.empty()) return;
  std::string list;
  for (const AnswerInput& input : refused) {
    list += (list.empty() ? "" : ", ") + input.name + " (" +
            (input.borrowed ? borrowed_phrase(input) + ", " : std::string()) +
            std::string(to_string(input.provenance)) + ")";
  }
  throw InputError(std::string(flag) + ": the answer stands on " +
                   count_mark(static_cast<long long>(refused.size())) +
                   (refused.size() == 1 ? " input" : " inputs") + " it refuses: " + list + ": " +
                   remedy);
}

// What replaces the refused inputs, fitted to them and to what was given: the flag of each
// refused input, and for the latencies and shares a deployment supplies, naming one (when none
// is named) or calibrating it (when one is).
std::string estimate_remedy(const std::vector<AnswerInput>& refused, bool deployment_named) {
  static const std::array<std::pair<std::string_view, std::string_view>, 7> kFlags = {
      {{"prompt", "ctx"},
       {"response", "response-tokens"},
       {"TTFT", "ttft"},
       {"TPOT", "tpot"},
       {"prefill attention share", "share"},
       {"decode attention share", "decode-share"},
       {"kernel speedup", "kernel-speedup"}}};
  std::string flags;
  bool deployment_input = false;
  for (const AnswerInput& input : refused) {
    for (const auto& [name, flag] : kFlags) {
      if (input.name != name) continue;
      flags += (flags.empty() ? "" : ", ") + flag_mark(flag);
      deployment_input =
          deployment_input || (name != "prompt" && name != "response" && name != "kernel speedup");
    }
  }
  std::string remedy;
  if (deployment_input) {
    remedy = deployment_named ? "calibrate the deployment with measured latencies (" +
                                    flag_mark("calibrate") + " FILE) or points, or "
                              : "name the deployment (" + flag_mark("model") + " and " +
                                    flag_mark("gpu") + ") and calibrate it, or ";
  }
  if (flags.empty()) return remedy + "give the inputs measured";
  return remedy + "give " + (refused.size() == 1 ? "the input (" : "the inputs (") + flags + ")";
}

}  // namespace

// --strict: an attention time measured or modelled longer than the latency given for its phase
// (attention_exceeds_latency): the latency cannot be this deployment's, and the answer capped it.
// Every such phase in one message, each time to 0.1 ms.
void refuse_attention_beyond_latency(const std::vector<Warning>& warnings, std::string_view flag) {
  const auto tenth = [](double ms) { return number_mark(std::round(ms * 10) / 10); };
  std::string list;
  std::string flags;
  for (const Warning& w : warnings) {
    if (w.code != WarningCode::attention_exceeds_latency) continue;
    const bool prefill = w.phase == Phase::prefill;
    list += (list.empty() ? "" : "; ") + std::string(prefill ? "prefill" : "decode") +
            " attention, " + w.text("provenance") + " at " + tenth(w.number("attention_ms")) +
            " ms a step, is longer than the " + (prefill ? "TTFT " : "TPOT ") +
            tenth(w.number("latency_ms")) + " ms given (" + flag_mark(prefill ? "ttft" : "tpot") +
            ")";
    flags += (flags.empty() ? "" : " and ") + flag_mark(prefill ? "ttft" : "tpot");
  }
  if (list.empty()) return;
  throw InputError(std::string(flag) + ": " + list +
                   ": give the latency measured on this deployment, or leave out " + flags +
                   " to use the deployment's own");
}

void refuse_inputs(const std::vector<AnswerInput>& inputs, const InputFilter& filter,
                   std::string_view flag, const std::string& remedy) {
  std::vector<AnswerInput> refused;
  for (const AnswerInput& input : inputs) {
    if (refuses(filter, input)) refused.push_back(input);
  }
  throw_refused(refused, flag, remedy);
}

void refuse_beyond_context(const std::vector<Warning>& warnings, std::string_view flag) {
  const auto tokens = [](double n) { return count_mark(std::llround(n)) + " tokens"; };
  for (const Warning& w : warnings) {
    if (w.code == WarningCode::context_beyond_model) {
      throw InputError(std::string(flag) + ": a prompt of " + tokens(w.number("prompt_tokens")) +
                       " and a response of " + tokens(w.number("response_tokens")) +
                       " are longer than " + w.text("model") + "'s context of " +
                       tokens(w.number("context_tokens")) +
                       ", so no server of it runs this request: keep " + flag_mark("ctx") +
                       " and " + flag_mark("response-tokens") + " within the context");
    }
    if (w.code == WarningCode::requests_beyond_context) {
      const double requests = w.number("requests");
      throw InputError(
          std::string(flag) + ": " + count_mark(std::llround(requests)) +
          (requests == 1 ? " request has" : " requests have") +
          " a prompt and response longer than " + w.text("model") + "'s context of " +
          tokens(w.number("context_tokens")) + (requests == 1 ? " (" : " (the longest ") +
          tokens(w.number("longest_tokens")) + "), which no server of it runs: drop " +
          (requests == 1 ? "it" : "them") +
          " from the log, or name the model the log was served with (" + flag_mark("model") + ")");
    }
  }
}

void refuse_inputs(const Scenario& scenario, const InputFilter& filter, std::string_view flag) {
  const std::vector<AnswerInput> refused = refused_inputs(scenario, filter);
  throw_refused(refused, flag, estimate_remedy(refused, scenario.platform.has_value()));
  if (filter.conservation) refuse_attention_beyond_latency(scenario.warnings, flag);
  if (filter.within_context) refuse_beyond_context(scenario.warnings, flag);
}

std::vector<AnswerInput> answer_inputs(const Sweep& sweep) {
  std::vector<AnswerInput> inputs;
  for (const SweepRow& row : sweep.rows) {
    for (const AnswerInput& input :
         row_inputs(row, sweep.phase, sweep.workload.borrowed_share_table)) {
      const auto seen = std::find_if(inputs.begin(), inputs.end(),
                                     [&](const AnswerInput& r) { return r.name == input.name; });
      if (seen == inputs.end()) {
        inputs.push_back(input);
      } else {
        seen->provenance = weakest(seen->provenance, input.provenance);
        seen->borrowed = seen->borrowed || input.borrowed;
      }
    }
  }
  return inputs;
}

void refuse_inputs(const Sweep& sweep, const InputFilter& filter, std::string_view flag) {
  std::vector<AnswerInput> refused;
  for (const SweepRow& row : sweep.rows) {
    for (const AnswerInput& input :
         row_inputs(row, sweep.phase, sweep.workload.borrowed_share_table)) {
      const bool named = std::any_of(refused.begin(), refused.end(),
                                     [&](const AnswerInput& r) { return r.name == input.name; });
      if (!named && refuses(filter, input)) refused.push_back(input);
    }
  }
  throw_refused(refused, flag, estimate_remedy(refused, sweep.platform.has_value()));
  if (filter.within_context) {
    for (const SweepRow& row : sweep.rows) refuse_beyond_context(row.warnings, flag);
  }
  if (!filter.conservation) return;
  for (const SweepRow& row : sweep.rows) refuse_attention_beyond_latency(row.warnings, flag);
}

void refuse_inputs(const RooflineResult& result, const InputFilter& filter, std::string_view flag) {
  std::vector<AnswerInput> refused;
  for (const AnswerInput& input : answer_inputs(result)) {
    if (refuses(filter, input)) refused.push_back(input);
  }
  throw_refused(refused, flag,
                "give the levers the change makes (" + flag_mark("compute-speedup") + ", " +
                    flag_mark("bytes-reduction") + ", " + flag_mark("bandwidth-efficiency") +
                    ") and the kernel's deployment (" + flag_mark("model") + ", " +
                    flag_mark("gpu") + ", " + flag_mark("ctx") + ", " + flag_mark("batch") + ", " +
                    flag_mark("tp") + ", " + flag_mark("kv-dtype") + ")");
}

}  // namespace kspeed::engine
