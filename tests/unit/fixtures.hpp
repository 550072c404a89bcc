#pragma once
// Deployments for tests, built directly (no command line): a built-in model on a built-in GPU,
// resolved by engine::resolve_deployment exactly as the commands resolve theirs.

#include <cstdint>
#include <string>

#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"

namespace kspeed::test {

/// `model` on `gpu` (built-in presets or files), with `tp` GPUs per layer and `batch` sequences.
inline engine::Platform platform_for(const std::string& model, const std::string& gpu,
                                     std::int64_t tp = 1, std::int64_t batch = 1) {
  engine::PlatformChoice choice;
  choice.model = {io::load_model(model), engine::Provenance::given};
  choice.gpu = {io::load_gpu(gpu), engine::Provenance::given};
  choice.tensor_parallel = {tp, engine::Provenance::given};
  choice.batch = {batch, engine::Provenance::given};
  return engine::make_platform(choice);
}

/// The request for `platform`'s deployment; `serves`: it serves a replay (KV capacity, scheduler).
inline engine::DeploymentRequest request_for(const engine::Platform& platform,
                                             bool serves = false) {
  engine::DeploymentRequest request;
  request.platform = platform;
  request.serves = serves;
  return request;
}

/// `model` on `gpu`, resolved: its step model modelled from the roofline at the cited default
/// efficiencies; with `serves`, its KV capacity from the GPU's memory at vLLM's default 0.9.
inline engine::Deployment deployment_for(const std::string& model, const std::string& gpu,
                                         std::int64_t tp = 1, bool serves = false) {
  return engine::resolve_deployment(request_for(platform_for(model, gpu, tp), serves));
}

/// A served deployment of stated coefficients alone (no platform: unlimited KV).
inline engine::Deployment stated_deployment(const engine::StepModel& model) {
  engine::DeploymentRequest request;
  request.step_model = engine::StatedStepModel{model, "test"};
  request.serves = true;
  return engine::resolve_deployment(request);
}

/// Estimate options priced on `deployment` (its platform and step model), as estimate's and
/// sweep's command line sets them.
inline engine::EstimateOptions options_on(const engine::Deployment& deployment) {
  engine::EstimateOptions options;
  options.platform = deployment.platform;
  options.step_model = deployment.step;
  return options;
}

}  // namespace kspeed::test
