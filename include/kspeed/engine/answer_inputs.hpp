#pragma once
// What an answer stands on, for CI: every input that reached the estimate with its provenance,
// and which of them a run refuses (--strict: illustrative, clamped, extrapolated, or borrowed
// from another model; --fail-on for a chosen set).

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/scenario.hpp"

namespace kspeed::engine {

/// One input that reached the answer.
struct AnswerInput {
  std::string name;  ///< as the inputs table names it: "TTFT", "prefill attention share"
  Provenance provenance = Provenance::given;
  /// Taken from a workload measured on another model than the one estimated (the
  /// share_model_mismatch warning): it describes somebody else's deployment.
  bool borrowed = false;
};

/// The inputs of the scenario that move the answer: the request's lengths and latencies, the
/// fixed term, the kernel speedup, and the attention share of each phase the change targets.
std::vector<AnswerInput> answer_inputs(const Scenario& scenario);

/// The kinds of input a run refuses.
struct InputFilter {
  std::vector<Provenance> provenances;
  bool borrowed = false;
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

}  // namespace kspeed::engine
