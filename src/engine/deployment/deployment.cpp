#include "kspeed/engine/deployment/deployment.hpp"

#include <string>

#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// The step model: stated, else the platform's roofline refined by the most trusted
// measurement there is (a calibration run, else profiled steps). nullopt without either.
std::optional<CalibratedStepModel> choose_step_model(const DeploymentRequest& request) {
  if (request.step_model) {
    if (request.calibration) {
      throw InputError(flag_mark("step-model") + " and " + flag_mark("calibrate") + " " +
                       request.calibration->source + " both set the replay's step model (" +
                       flag_mark("step-model") + " states it, " + flag_mark("calibrate") +
                       " fits it to measured latencies): pass one");
    }
    // The platform's q and τ still divide its decode step; the coefficients are the stated ones.
    CalibratedStepModel stated = request.platform
                                     ? modelled_step_model_with_tp_comm(*request.platform)
                                     : CalibratedStepModel{};
    stated.model = request.step_model->model;
    stated.calibration = Provenance::given;
    stated.calibration_source = request.step_model->source;
    return stated;
  }
  if (!request.platform) return std::nullopt;
  const Platform& platform = *request.platform;
  const bool profiled = !request.profiled_steps.empty();
  // A profiler trace's steps already hold the all-reduce kernels: no modelled term on top.
  CalibratedStepModel step = !profiled || request.calibration
                                 ? modelled_step_model_with_tp_comm(platform)
                                 : modelled_step_model(platform);
  if (request.calibration && request.calibration->fitted) {
    step = *request.calibration->fitted;  // --deployment: fitted by kspeed calibrate
  } else if (request.calibration) {
    step = calibrate_to_run(step, request.calibration->points, request.calibration->cached_tokens,
                            request.calibration->decode_points, request.calibration->source);
  } else if (profiled) {
    step =
        calibrate_to_steps(step, step_observations(request.profiled_steps), request.profiled_from);
  }
  return step;
}

// KV blocks per replica: as stated, else what the platform's GPU memory holds beside its
// weights, the profile run's activation peak at the scheduler's token budget and the memory
// outside PyTorch (kv_capacity.hpp), else unlimited.
KvCapacityChoice choose_kv_capacity(const DeploymentRequest& request, SchedulerOptions& scheduler) {
  KvCapacityChoice kv;
  const bool utilization_given = request.gpu_memory_utilization.has_value();
  if (request.scheduler.kv_blocks) {
    if (utilization_given) {
      throw InputError(flag_mark("gpu-memory-utilization") +
                       " sizes the KV cache from the GPU's memory and " + flag_mark("kv-blocks") +
                       " states it: pass one");
    }
    if (request.vllm_version) {
      throw InputError(flag_mark("vllm-version") + " picks how kspeed sizes the KV cache and " +
                       flag_mark("kv-blocks") + " states it: pass one");
    }
    kv.provenance = Provenance::given;
    return kv;
  }
  if (!request.platform) {
    if (request.vllm_version) {
      throw InputError(flag_mark("vllm-version") +
                       " sizes the KV cache from the deployment's GPU memory: name it with " +
                       flag_mark("model") + " NAME " + flag_mark("gpu") + " NAME");
    }
    if (utilization_given) {
      throw InputError(flag_mark("gpu-memory-utilization") +
                       " sizes the KV cache from the deployment's GPU memory: name it with " +
                       flag_mark("model") + " NAME " + flag_mark("gpu") +
                       " NAME, or state the cache with " + flag_mark("kv-blocks") + " N");
    }
    kv.provenance = Provenance::default_value;  // unlimited
    return kv;
  }
  if (utilization_given)
    kv.memory_utilization = {*request.gpu_memory_utilization, Provenance::given};
  if (request.vllm_version) {
    kv.rule = {vllm_memory_rule_of(*request.vllm_version, flag_mark("vllm-version")),
               Provenance::given};
  }
  if (kv.rule.value == VllmMemoryRule::with_cuda_graph_estimate) {
    throw InputError(flag_mark("vllm-version") + " " + *request.vllm_version +
                     ": vLLM 0.21 and later subtract their own CUDA graph estimate from the KV "
                     "cache (vllm-project/vllm pull request 30515), which kspeed does not model: "
                     "state the cache that version logged with " +
                     flag_mark("kv-blocks") + " N (\"GPU KV cache size: T tokens\" / 16)");
  }
  KvSizing sizing = kv_sizing_of(scheduler, kv.memory_utilization.value);
  sizing.rule = kv.rule.value;
  kv.modelled = kv_cache_capacity(*request.platform, sizing);
  kv.provenance = Provenance::modelled;
  scheduler.kv_blocks = kv.modelled->blocks;
  return kv;
}

}  // namespace

Deployment resolve_deployment(const DeploymentRequest& request) {
  Deployment deployment;
  deployment.platform = request.platform;
  deployment.serves = request.serves;
  deployment.scheduler = request.scheduler;
  if (request.serves && !request.step_model && !request.platform) {
    throw InputError(
        flag_mark("replay") + " needs the deployment's step time: name the deployment with " +
        flag_mark("model") + " NAME " + flag_mark("gpu") +
        " NAME (modelled from its roofline; kspeed models, kspeed gpus list them), add " +
        flag_mark("calibrate") + " FILE to fit it to latencies measured on it, or state it with " +
        flag_mark("step-model") +
        " fixed_ms=..,weights_ms=..,ms_per_token=..,ms_per_prefill_pair=..,ms_per_kv_token=.. "
        "(docs/mix.md)");
  }
  deployment.step = choose_step_model(request);
  // The run's note names what its reader left out of the fit: only a model fitted to it has one.
  if (request.calibration && deployment.step &&
      deployment.step->calibration == Provenance::fitted) {
    deployment.step->calibration_note = request.calibration->note;
  }
  if (!request.serves) return deployment;
  // Time outside the engine joins TTFT and E2E, never the queue: as given, else the step
  // model's (a calibration's request overhead; none for stated coefficients).
  if (request.request_overhead_ms) {
    deployment.scheduler.request_overhead_ms = *request.request_overhead_ms;
  } else if (!request.step_model) {
    deployment.scheduler.request_overhead_ms = deployment.step->request_overhead_ms;
  }
  deployment.step->request_overhead_ms = deployment.scheduler.request_overhead_ms;
  deployment.kv = choose_kv_capacity(request, deployment.scheduler);
  return deployment;
}

}  // namespace kspeed::engine
