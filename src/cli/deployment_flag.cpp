// --deployment FILE on estimate, sweep, mix and roofline: the deployment kspeed calibrate wrote, as
// a calibration already fitted. The platform flags the user left out come from the file; one that
// names another deployment is refused (the fitted coefficients belong to the file's).
#include <cmath>
#include <string>

#include "estimate_flags.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/calibration_reader.hpp"
#include "kspeed/io/deployment_file.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::cli {

namespace {

void take_setting(std::string& flag, const char* name, const io::DeploymentFile& file,
                  const char* key) {
  const std::string value = file.setting(key);
  if (value.empty()) return;
  if (flag.empty()) {
    flag = value;
    return;
  }
  if (flag != value) {
    throw InputError(std::string(name) + " " + flag + ": --deployment " + file.source +
                     " was calibrated with " + name + " " + value +
                     ", and its fitted step model belongs to that deployment: leave " + name +
                     " out, or calibrate again with kspeed calibrate");
  }
}

}  // namespace

io::DeploymentFile take_deployment_platform(PlatformFlags& platform, const std::string& path) {
  io::DeploymentFile file = io::read_deployment_file(path);
  take_setting(platform.model, "--model", file, "model");
  take_setting(platform.gpu, "--gpu", file, "gpu");
  take_setting(platform.tp, "--tp", file, "tp");
  take_setting(platform.ep, "--ep", file, "ep");
  take_setting(platform.precision, "--precision", file, "precision");
  take_setting(platform.kv_dtype, "--kv-dtype", file, "kv_dtype");
  return file;
}

void take_deployment_scheduler(const std::string& path, ReplaySchedulerFlags flags) {
  if (path.empty()) return;
  const io::DeploymentFile file = io::read_deployment_file(path);
  for (const auto& [flag, key] : {std::pair{flags.max_seqs, "max_seqs"},
                                  {flags.max_batched_tokens, "max_batched_tokens"},
                                  {flags.chunked_prefill, "chunked_prefill"},
                                  {flags.scheduler, "scheduler"}}) {
    if (flag->empty()) *flag = file.setting(key);
  }
}

io::CalibrationFile read_deployment_flag(EstimateFlags& flags) {
  if (!flags.calibrate.empty()) {
    throw InputError("--calibrate " + flags.calibrate + " and --deployment " +
                     flags.deployment_file +
                     " both set the deployment's step model (--calibrate fits it now, "
                     "--deployment reads one kspeed calibrate fitted): pass one");
  }
  if (!flags.calibrate_concurrency.empty()) {
    throw InputError(
        "--calibrate-concurrency states the concurrency of --calibrate's file; "
        "--deployment " +
        flags.deployment_file + " already holds its runs' concurrency: leave it out");
  }
  if (!flags.calibrate_warmup.empty()) {
    throw InputError("--calibrate-warmup leaves requests out of --calibrate's fit; --deployment " +
                     flags.deployment_file +
                     " was fitted already (kspeed calibrate --calibrate-warmup N fits one "
                     "without them): leave it out");
  }
  const io::DeploymentFile file = take_deployment_platform(flags.platform, flags.deployment_file);
  std::int64_t tpot_points = 0;
  for (const io::CalibrationRun& run : file.runs) tpot_points += run.tpot_points;
  if (flags.strict && tpot_points == 0) {
    throw InputError("--strict: --deployment " + file.source +
                     " was fitted to no per-token (TPOT) point, so its decode side is modelled: "
                     "calibrate on a run with per-request TPOT, ITL, or E2E and TTFT, or leave "
                     "--strict out");
  }
  io::CalibrationFile out;
  out.source = file.source;
  out.format = "kspeed-deployment";
  out.concurrency = file.concurrency;
  out.tpot_points = tpot_points;
  out.typical_prompt_tokens = file.typical_prompt_tokens;
  out.typical_response_tokens = file.typical_response_tokens;
  out.fitted = file.step;
  for (const io::DeploymentSetting& setting : file.settings) {
    // A budget the calibration stated (a flag, the run's files); vLLM's default is kspeed's too.
    if (setting.key == "max_batched_tokens" && setting.source.rfind("default", 0) != 0) {
      out.step_token_budget = std::llround(io::parse_positive_number(
          setting.value, "--deployment " + file.source + ": deployment.max_batched_tokens"));
    }
  }
  return out;
}

}  // namespace kspeed::cli
