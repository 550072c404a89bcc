// The deployment in words: where its step model and its KV capacity came from, each led by its
// provenance ("fitted: llama-3.1-8b on h100-sxm to result.json").
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/wording.hpp"

#include <cmath>

namespace kspeed::report {

std::string deployment_name(const engine::Platform& platform) {
  std::string name = platform.model.value.name + " on " + platform.gpu.value.name;
  if (platform.tensor_parallel.value > 1) {
    name += " tp " + std::to_string(platform.tensor_parallel.value);
  }
  if (platform.expert_parallel.value > 1) {
    name += " ep " + std::to_string(platform.expert_parallel.value);
  }
  return name;
}

std::string step_model_source(const engine::Deployment& deployment) {
  const engine::CalibratedStepModel& step = *deployment.step;
  if (step.calibration == engine::Provenance::given) return "given: " + step.calibration_source;
  const std::string name = deployment_name(*deployment.platform);
  if (step.calibration == engine::Provenance::fitted) {
    return "fitted: " + name + " to " + step.calibration_source +
           (step.calibration_note.empty() ? std::string() : " (" + step.calibration_note + ")");
  }
  if (step.calibration == engine::Provenance::measured) {
    return "measured: " + name + " calibrated on the steps of " + step.calibration_source;
  }
  return "modelled: " + name + " roofline at the cited default efficiencies";
}

namespace {

// "79.22 GiB visible × 0.9 (vLLM's default)": the memory the engine takes.
std::string kv_budget(const engine::Deployment& deployment) {
  const engine::WithProvenance<double>& utilization = deployment.kv.memory_utilization;
  const engine::Gpu& gpu = deployment.platform->gpu.value;
  const std::string total = gpu.memory_visible_gib
                                ? human_fixed(*gpu.memory_visible_gib, 2) + " GiB visible"
                                : human_plain(gpu.memory_gb) + " GB";
  return total + " × " + human_plain(utilization.value) +
         (utilization.provenance == engine::Provenance::given ? " (given)" : " (vLLM's default)");
}

std::string gib_text(double bytes) {
  return human_fixed(bytes / engine::kBytesPerGib, 2) + " GiB";
}

std::string weights_gb(const engine::KvCapacity& kv) {
  return gib_text(kv.weight_bytes);
}

}  // namespace

std::string kv_capacity_source(const engine::Deployment& deployment) {
  const engine::KvCapacityChoice& kv = deployment.kv;
  if (kv.provenance == engine::Provenance::given) return "given: --kv-blocks";
  if (!kv.modelled) return "default: unlimited";
  const engine::KvCapacity& c = *kv.modelled;
  const std::string rule =
      std::string(engine::describe_vllm_rule(kv.rule.value)) +
      (kv.rule.provenance == engine::Provenance::given ? ", given" : ", default");
  return "modelled like vLLM's profile run (" + rule + "): (" + kv_budget(deployment) + " − " +
         weights_gb(c) + " weights − " + gib_text(c.rope_cache_bytes) + " rotary cache − " +
         gib_text(c.activation_bytes) + " activation peak at " +
         human_count(deployment.scheduler.max_batched_tokens) + " tokens − " +
         gib_text(c.cuda_graph_bytes) + " CUDA graphs − " + gib_text(c.non_torch_bytes) +
         " non-torch) / " + human_count(std::llround(c.kv_bytes_per_token)) +
         " bytes per token / " + std::to_string(c.block_tokens) + " tokens";
}

std::string no_kv_room_error(const engine::Deployment& deployment) {
  return "--replay: " + deployment.platform->model.value.name + "'s weights take " +
         weights_gb(*deployment.kv.modelled) + " per GPU, leaving no KV cache in " +
         kv_budget(deployment) +
         ": split them with --tp N, raise --gpu-memory-utilization, or state the cache with "
         "--kv-blocks N";
}

}  // namespace kspeed::report
