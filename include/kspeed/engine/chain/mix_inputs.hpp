#pragma once
// What kspeed mix's answer stands on, for --strict and --fail-on: the chain's inputs the log did
// not measure, with the replay's deployment when there is one (answer_inputs.hpp for estimate's).

#include <optional>
#include <vector>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/deployment.hpp"

namespace kspeed::engine {

/// The inputs that reach mix's answer, named as the output names them: the kernel speedup and
/// the shares of the targeted phases; the workload's TTFT and TPOT when some request lacks a
/// measured one; with a replay, its step model and each term of its KV capacity. The log's
/// lengths are measured and are not listed.
std::vector<AnswerInput> mix_answer_inputs(const Scenario& scenario, const MixSummary& summary,
                                           const std::optional<Deployment>& deployment,
                                           const MixRun& run);

/// --strict: an answer missing a phase's latency for some requests (a workload that measured
/// only prefill or only decode, a log without it) is not the whole request (issue 27). Throws
/// InputError naming the phase, the count and what to pass.
void refuse_missing_phase(const MixSummary& summary);

}  // namespace kspeed::engine
