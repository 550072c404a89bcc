#include "kspeed/engine/chain/mix_inputs.hpp"

#include <cmath>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// Each term of vLLM's cache sizing (kv_capacity.hpp), as the replay's capacity line words it:
// the GPU file's memory, the utilization, the modelled weights and profile-run peak, and the
// cited CUDA-graph and non-torch defaults.
void add_kv_sizing_inputs(const Deployment& deployment, std::vector<AnswerInput>& inputs) {
  const bool visible = deployment.kv.modelled->total_is_visible;
  inputs.push_back(
      {visible ? "KV sizing: visible GPU memory" : "KV sizing: GPU memory_gb", Provenance::preset});
  inputs.push_back({"KV sizing: memory utilization", deployment.kv.memory_utilization.provenance});
  inputs.push_back({"KV sizing: weights", Provenance::modelled});
  inputs.push_back({"KV sizing: activation peak", Provenance::modelled});
  inputs.push_back({"KV sizing: CUDA graph pool", Provenance::default_value});
  inputs.push_back({"KV sizing: non-torch reserve", Provenance::default_value});
}

}  // namespace

std::vector<AnswerInput> mix_answer_inputs(const Scenario& scenario, const MixSummary& summary,
                                           const std::optional<Deployment>& deployment,
                                           const MixRun& run) {
  const MixModel& model = run.model();
  std::vector<AnswerInput> inputs;
  for (const AnswerInput& input : answer_inputs(scenario)) {
    const bool from_log = input.name == "prompt" || input.name == "response" ||
                          (input.name == "TTFT" && summary.ttft_modelled == 0) ||
                          (input.name == "TTFT fixed term" &&
                           (summary.ttft_modelled == 0 || model.ttft_overhead_ms)) ||
                          (input.name == "TPOT" && summary.tpot_from_workload == 0);
    if (!from_log) inputs.push_back(input);
  }
  if (model.ttft_overhead_ms && *model.ttft_overhead_ms > 0 && summary.ttft_modelled > 0) {
    inputs.push_back({"TTFT fixed term", Provenance::given});
  }
  for (AnswerInput& input : inputs) {
    if (input.name == "prefill attention share" && model.share_model && !model.prefill_share) {
      input = {input.name, Provenance::modelled};  // --share-model's, not the table's
      if (!model.share_model->borrowed_table.empty()) {
        input.borrowed = true;
        input.borrowed_from = borrowed_table(model.share_model->borrowed_table);
      }
    }
    if (input.name == "kernel speedup" && model.kernel_speedup_table) {
      // The table's, at each prompt: clamped when some request lies outside its rows.
      input = {input.name, run.speedups_clamped() > 0        ? Provenance::clamped
                           : run.speedups_interpolated() > 0 ? Provenance::interpolated
                                                             : Provenance::given};
    }
  }
  if (deployment) {
    inputs.push_back({"replay step model", deployment->step->calibration});
    inputs.push_back({"replay KV capacity", deployment->kv.provenance});
    if (deployment->kv.modelled) add_kv_sizing_inputs(*deployment, inputs);
  }
  return inputs;
}

void refuse_missing_phase(const MixSummary& summary) {
  for (const Warning& warning : summary.warnings) {
    const bool ttft = warning.code == WarningCode::requests_ttft_missing;
    if (!ttft && warning.code != WarningCode::requests_tpot_missing) continue;
    throw InputError(flag_mark("strict") + ": " +
                     count_mark(std::llround(warning.number("requests"))) + " requests have no " +
                     (ttft ? "TTFT" : "TPOT") + ": neither the log nor the workload measured " +
                     (ttft ? "prefill" : "decode") +
                     ", so the answer would leave that phase out; pass " +
                     (ttft ? flag_mark("ttft") + " D and " + flag_mark("ctx") + " N"
                           : flag_mark("tpot") + " D") +
                     " (measured on this deployment), or " + flag_mark("model") + " and " +
                     flag_mark("gpu") + " to model it");
  }
}

}  // namespace kspeed::engine
