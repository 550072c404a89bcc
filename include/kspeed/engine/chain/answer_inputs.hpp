#pragma once
// What an answer stands on, for CI: every input that reached the estimate with its provenance,
// and which of them a run refuses (--strict: illustrative, clamped, extrapolated, or borrowed
// from another model; --fail-on for a chosen set).

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

struct RooflineResult;

/// One input that reached the answer.
struct AnswerInput {
  std::string name;  ///< as the inputs table names it: "TTFT", "prefill attention share"
  Provenance provenance = Provenance::given;
  /// Taken from a workload measured on another model than the one estimated (the
  /// share_model_mismatch warning): it describes somebody else's deployment.
  bool borrowed = false;
  /// Whose numbers a borrowed input is, when not a mismatched workload's model (a calibrated
  /// share's table: "the built-in example deepseek-r1-fp8"); empty: "another model".
  std::string borrowed_from = {};
};

/// "the built-in example NAME's share table": a calibrated share's borrowed table, named.
std::string borrowed_table(const std::string& workload_name);
/// How a refusal names a borrowed input: "borrowed from another model", or from whom.
std::string borrowed_phrase(const AnswerInput& input);

/// The inputs of the scenario that move the answer: the request's lengths and latencies, the
/// fixed term, the kernel speedup, and the attention share of each phase the change targets.
std::vector<AnswerInput> answer_inputs(const Scenario& scenario);

/// The inputs of every point of a sweep, each named once with the weakest provenance any point
/// gave it (provenance_order.hpp): what a chart of the whole sweep stands on.
std::vector<AnswerInput> answer_inputs(const Sweep& sweep);

/// The inputs kspeed roofline's answer stands on: the roof (peak and bandwidth), the kernel
/// (the model's deployment and context, or the given intensity) and the levers (illustrative
/// when none is given).
std::vector<AnswerInput> answer_inputs(const RooflineResult& result);

/// The kinds of input a run refuses.
struct InputFilter {
  std::vector<Provenance> provenances;
  bool borrowed = false;
  /// --strict: also refuse an attention time longer than its phase's given latency
  /// (attention_exceeds_latency), which the answer could only cap.
  bool conservation = false;
  /// --strict: also refuse a request longer than the model's context (context_beyond_model,
  /// requests_beyond_context): no server of that model runs it, so no answer can stand for it.
  bool within_context = false;
};

/// --strict: illustrative, clamped, extrapolated and borrowed inputs.
InputFilter strict_filter();

/// Parses --fail-on's comma-separated list: provenance names (docs/json-format.md) and
/// "borrowed". Throws InputError naming the unknown word and the known ones.
InputFilter parse_input_filter(std::string_view list, std::string_view flag);

/// The answer's inputs the filter refuses, in answer_inputs order.
std::vector<AnswerInput> refused_inputs(const Scenario& scenario, const InputFilter& filter);

/// Throws InputError (exit 2) naming every refused input and its provenance, with the fix, when
/// there is one; `flag` is the option that asked ("--strict" or "--fail-on").
void refuse_inputs(const Scenario& scenario, const InputFilter& filter, std::string_view flag);

/// The same over a list of inputs another command gathered (mix's), ending with `remedy`: what
/// that command takes to replace them.
void refuse_inputs(const std::vector<AnswerInput>& inputs, const InputFilter& filter,
                   std::string_view flag, const std::string& remedy);

/// The same over every point of a sweep: an input is refused when any point refuses it (named
/// once, with the first point's provenance).
void refuse_inputs(const Sweep& sweep, const InputFilter& filter, std::string_view flag);

/// Throws InputError (exit 2) when `warnings` hold a request beyond the model's context
/// (context_beyond_model, requests_beyond_context): what it is, the limit and the fix.
void refuse_beyond_context(const std::vector<Warning>& warnings, std::string_view flag);

/// The same over the inputs of a roofline (answer_inputs above).
void refuse_inputs(const RooflineResult& result, const InputFilter& filter, std::string_view flag);

}  // namespace kspeed::engine
