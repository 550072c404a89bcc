// kspeed validate's replay set-up (validate_replay_setup.hpp): the KV cache and the client's
// in-flight cap, each from a flag, else the run's files, else a default, and each worded with
// where it came from.
#include "validate_replay_setup.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/provenance.hpp"
#include "kspeed/engine/serving/kv_blocks.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/serving/client_limits.hpp"
#include "kspeed/io/serving/engine_arguments.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::cli {

namespace {

// A whole number from 1 to `max` for `flag`, described as `what`.
std::int64_t validate_whole_count(const std::string& text, const char* flag, const char* what,
                                  double max) {
  const double value = io::parse_number(text, flag, what);
  if (!(value >= 1 && value <= max) || value != std::floor(value)) {
    throw InputError(std::string(flag) + ": '" + text + "' is not " + what +
                     " (a whole number from 1 to " +
                     report::human_count(static_cast<std::int64_t>(max)) + ")");
  }
  return static_cast<std::int64_t>(value);
}

// A setting the run's files state twice with different values cannot size the cache unless a
// flag gives it: the run does not say which value served.
void refuse_stated_conflict(const io::StatedEngineArguments& stated, const char* vllm_flag,
                            const char* flag) {
  if (const io::StatedConflict* conflict = stated.conflict_on(vllm_flag)) {
    throw InputError(std::string("the run's deployment files state ") + vllm_flag +
                     " twice with different values (" + conflict->detail + "): pass " + flag +
                     " with the value the measured server ran");
  }
}

// Tokens per KV block: the flag, else the files' --block-size, else vLLM's 16. Returns the origin.
std::string choose_block_tokens(const ValidateReplayFlags& flags,
                                const io::StatedEngineArguments& stated,
                                engine::SchedulerOptions& scheduler) {
  if (!flags.block_size.empty()) {
    scheduler.block_tokens =
        validate_whole_count(flags.block_size, "--block-size", "tokens per KV block", 1e6);
    return "given: --block-size";
  }
  refuse_stated_conflict(stated, "--block-size", "--block-size");
  if (stated.block_size) {
    scheduler.block_tokens = stated.block_size->value;
    return "stated in " + stated.block_size->where;
  }
  scheduler.block_tokens = engine::kVllmBlockTokens;
  return "default (vLLM's)";
}

// The fraction of GPU memory the engine takes: the flag, else the files', else none (vLLM's 0.9,
// which resolve_deployment applies). Returns the origin.
std::string choose_memory_utilization(const ValidateReplayFlags& flags,
                                      const io::StatedEngineArguments& stated,
                                      std::optional<double>& utilization) {
  if (!flags.gpu_memory_utilization.empty()) {
    utilization = io::parse_share(flags.gpu_memory_utilization, "--gpu-memory-utilization");
    if (*utilization <= 0) {
      throw InputError("--gpu-memory-utilization: '" + flags.gpu_memory_utilization +
                       "' leaves the engine no memory: pass a fraction above 0 and at most 1, "
                       "e.g. 0.9 or 90%");
    }
    return "given: --gpu-memory-utilization";
  }
  refuse_stated_conflict(stated, "--gpu-memory-utilization", "--gpu-memory-utilization");
  if (stated.gpu_memory_utilization) {
    utilization = stated.gpu_memory_utilization->value;
    return "stated in " + stated.gpu_memory_utilization->where;
  }
  return "default (vLLM's)";
}

bool is_open_loop(const io::MeasuredLoad& load) {
  return load.arrivals != io::ArrivalPattern::one_at_a_time;
}

}  // namespace

report::ValidateContext::KvCache choose_validate_kv(const engine::Platform& platform,
                                                    const ValidateReplayFlags& flags,
                                                    const std::string& run,
                                                    engine::SchedulerOptions& scheduler,
                                                    std::vector<std::string>& settings) {
  const io::StatedEngineArguments stated = io::read_engine_arguments(run);
  const std::string block_origin = choose_block_tokens(flags, stated, scheduler);
  // The deployment `mix --replay --model --gpu` would resolve with these settings: the one
  // place that sizes a KV cache (engine::resolve_deployment).
  engine::DeploymentRequest request;
  request.platform = platform;
  request.serves = true;
  request.scheduler = scheduler;
  std::string utilization_origin;
  if (!flags.kv_blocks.empty()) {
    if (!flags.gpu_memory_utilization.empty()) {
      throw InputError(
          "--gpu-memory-utilization sizes the KV cache from the GPU's memory and --kv-blocks "
          "states it: pass one");
    }
    request.scheduler.kv_blocks =
        validate_whole_count(flags.kv_blocks, "--kv-blocks", "a number of KV blocks", 1e12);
  } else {
    utilization_origin = choose_memory_utilization(flags, stated, request.gpu_memory_utilization);
  }
  const engine::Deployment deployment = engine::resolve_deployment(request);
  if (deployment.kv.modelled && deployment.kv.modelled->blocks < 1) {
    throw InputError(
        run + ": " +
        report::no_kv_room_error(deployment).substr(std::string_view("--replay: ").size()));
  }
  scheduler.kv_blocks = deployment.scheduler.kv_blocks;
  settings.push_back("KV block " + std::to_string(scheduler.block_tokens) + " tokens (" +
                     block_origin + ")");
  if (!utilization_origin.empty()) {
    settings.push_back("GPU memory utilization " +
                       report::human_plain(deployment.kv.memory_utilization.value) + " (" +
                       utilization_origin + ")");
  }
  if (stated.max_model_len && !stated.conflict_on("--max-model-len")) {
    settings.push_back("max model length " + std::to_string(stated.max_model_len->value) +
                       " (stated in " + stated.max_model_len->where +
                       "): it bounds a request, not the cache, which vLLM sizes from memory");
  }
  report::ValidateContext::KvCache kv;
  kv.blocks = scheduler.kv_blocks;
  kv.block_tokens = scheduler.block_tokens;
  kv.provenance = std::string(engine::to_string(deployment.kv.provenance));
  kv.source = report::kv_capacity_source(deployment);
  return kv;
}

void check_levels_fit_kv(const std::vector<engine::ReplayLevel>& levels,
                         const engine::SchedulerOptions& scheduler, const std::string& run) {
  if (!scheduler.kv_blocks) return;
  for (const engine::ReplayLevel& level : levels) {
    for (const engine::ReplayRequest& r : level.requests) {
      // Its KV at its longest: the prompt and every output token but the last.
      const std::int64_t longest =
          static_cast<std::int64_t>(r.prompt_tokens) + std::max(r.response_tokens, 1) - 1;
      if (engine::blocks_for(longest, scheduler.block_tokens) > *scheduler.kv_blocks) {
        throw InputError(run + ": " + level.label + " has a request of " +
                         report::human_count(longest) + " tokens, more than the KV cache's " +
                         report::human_count(*scheduler.kv_blocks * scheduler.block_tokens) +
                         ": the engine could not have served it; check --model, --gpu and the "
                         "cache (--gpu-memory-utilization, --kv-blocks)");
      }
    }
  }
}

void apply_client_cap(const std::string& run, const ValidateReplayFlags& flags,
                      std::vector<io::MeasuredLoad>& loads, std::vector<std::string>& notes) {
  if (!flags.max_inflight.empty()) {
    const std::int64_t cap = validate_whole_count(flags.max_inflight, "--max-inflight",
                                                  "a number of requests in flight", 1e7);
    for (io::MeasuredLoad& load : loads) {
      if (is_open_loop(load)) load.max_inflight = cap;
    }
    notes.push_back(run + ": at most " + report::human_count(cap) +
                    " requests in flight at every open-loop level (given: --max-inflight), each "
                    "timed from its send");
    return;
  }
  // inference-perf's stages are the constant-rate levels read from a folder.
  std::error_code error;
  const bool inference_perf =
      std::filesystem::is_directory(run, error) &&
      std::any_of(loads.begin(), loads.end(), [](const io::MeasuredLoad& load) {
        return load.arrivals == io::ArrivalPattern::constant_rate;
      });
  if (!inference_perf) return;
  const io::StatedClientCap cap = io::read_inference_perf_client_cap(run);
  if (!cap.max_inflight) {
    notes.push_back(run +
                    ": the client's cap on requests in flight is not replayed: " + cap.why_not +
                    "; saturated levels' latencies stay out of the summary (--max-inflight N "
                    "states the cap)");
    return;
  }
  for (io::MeasuredLoad& load : loads) {
    if (is_open_loop(load) && !load.max_inflight) load.max_inflight = *cap.max_inflight;
  }
  notes.push_back(
      run + ": inference-perf's client has at most " + report::human_count(*cap.max_inflight) +
      " requests in flight (" + cap.where +
      "; the bound for rate-based loads, inference-perf docs/loadgen.md): the replay holds the "
      "same cap and times each request from its send, as inference-perf does (a request's wait "
      "for a free slot is its schedule_delay, not its TTFT)");
}

}  // namespace kspeed::cli
