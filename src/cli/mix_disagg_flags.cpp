// `kspeed mix --disagg xPyD` (mix_flags.hpp): the pools' shape, the KV link, and each pool's
// deployment request. The engine resolves the deployments (resolve_deployment) and sizes the
// transfer (disagg_setup); nothing here decides them.
#include <cctype>
#include <tuple>

#include "kspeed/error.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/wording.hpp"
#include "mix_flags.hpp"

namespace kspeed::cli {

namespace {

constexpr const char* kDisaggShapeHelp =
    "expected xPyD: x prefill and y decode replicas, each at least 1 (e.g. --disagg 1P1D, "
    "2P1D, 1P2D)";

// The whole number before `text[at]`'s letter; -1 when there is none.
std::int64_t disagg_count(const std::string& text, std::size_t& at) {
  const std::size_t start = at;
  std::int64_t value = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) {
    if (at - start >= 6) return -1;
    value = value * 10 + (text[at] - '0');
    ++at;
  }
  return at == start ? -1 : value;
}

// One pool's deployment: the colocated request with the pool's GPU and tensor parallelism.
engine::Deployment disagg_pool(const MixFlags& flags, const engine::DeploymentRequest& colocated,
                               const PlatformDefaults& defaults, const std::string& gpu,
                               const std::string& tp, const char* pool) {
  engine::DeploymentRequest request = colocated;
  if (!gpu.empty() || !tp.empty()) {
    const std::string flag = std::string("--") + pool + (gpu.empty() ? "-tp" : "-gpu");
    if (request.step_model) {
      throw InputError(flag + " sets the " + pool +
                       " pool's platform, and --step-model states one step time for both "
                       "pools: drop --step-model (each pool's step model is then modelled on "
                       "its own GPU) or drop " +
                       flag);
    }
    if (request.calibration) {
      throw InputError(flag + ": --calibrate's run measured --gpu's deployment, not the " + pool +
                       " pool's: drop --calibrate or drop " + flag);
    }
    PlatformFlags platform = flags.deployment.platform;
    if (!gpu.empty()) platform.gpu = gpu;
    if (!tp.empty()) platform.tp = tp;
    request.platform = resolve_platform(platform, defaults);
    if (!request.platform) {
      throw InputError(flag + " needs the model the pool serves: add --model");
    }
  }
  engine::Deployment deployment = engine::resolve_deployment(request);
  if (deployment.kv.modelled && deployment.kv.modelled->blocks < 1) {
    throw InputError(std::string("--disagg, the ") + pool +
                     " pool: " + report::no_kv_room_error(deployment));
  }
  return deployment;
}

}  // namespace

std::pair<std::int64_t, std::int64_t> parse_disagg_shape(const std::string& text) {
  std::size_t at = 0;
  const std::int64_t prefill = disagg_count(text, at);
  const bool p = at < text.size() && (text[at] == 'P' || text[at] == 'p');
  if (p) ++at;
  const std::int64_t decode = p ? disagg_count(text, at) : -1;
  const bool d = at < text.size() && (text[at] == 'D' || text[at] == 'd');
  if (prefill < 0 || decode < 0 || !d || at + 1 != text.size()) {
    throw InputError("--disagg: '" + text + "' is not a pool shape: " + kDisaggShapeHelp);
  }
  if (prefill == 0 || decode == 0) {
    throw InputError("--disagg: '" + text +
                     "' has a pool of 0 replicas, which serves nothing: " + kDisaggShapeHelp);
  }
  return {prefill, decode};
}

engine::KvLinkChoice parse_kv_link(const std::string& text) {
  if (std::optional<engine::KvLinkChoice> preset = engine::kv_link_preset(text)) return *preset;
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw InputError("--kv-link: '" + text +
                     "' is neither a preset nor ALPHA_US:GBPS: pass nvlink, ib-ndr, "
                     "roce-mooncake, or the link's latency in microseconds and bandwidth in "
                     "GB/s, e.g. --kv-link 10:25");
  }
  engine::KvLinkChoice choice;
  choice.name = text;
  const double alpha_us = io::parse_number(text.substr(0, colon), "--kv-link",
                                           "a latency in microseconds (ALPHA_US:GBPS)");
  const double gbps = io::parse_positive_number(text.substr(colon + 1), "--kv-link");
  if (alpha_us < 0) {
    throw InputError("--kv-link: '" + text +
                     "' has a negative latency: ALPHA_US is at least 0, e.g. --kv-link 10:25");
  }
  choice.link = {alpha_us * 1e-6, gbps * 1e9};
  choice.source = "--kv-link " + text;
  return choice;
}

std::optional<engine::DisaggRequest> parse_disagg(const MixFlags& flags,
                                                  const engine::DeploymentRequest& colocated,
                                                  const PlatformDefaults& defaults) {
  for (const auto& [flag, value] : {std::pair{"--kv-link", &flags.kv_link},
                                    {"--prefill-gpu", &flags.prefill_gpu},
                                    {"--prefill-tp", &flags.prefill_tp},
                                    {"--decode-gpu", &flags.decode_gpu},
                                    {"--decode-tp", &flags.decode_tp}}) {
    if (flags.disagg.empty() && !value->empty()) {
      throw InputError(std::string(flag) +
                       " describes a disaggregated deployment: add --disagg xPyD (e.g. 1P1D)");
    }
  }
  if (flags.disagg.empty()) return std::nullopt;
  engine::DisaggRequest request;
  std::tie(request.prefill_replicas, request.decode_replicas) = parse_disagg_shape(flags.disagg);
  request.shape = std::to_string(request.prefill_replicas) + "P" +
                  std::to_string(request.decode_replicas) + "D";
  if (flags.kv_link.empty()) {
    throw InputError("--disagg " + flags.disagg +
                     " needs the KV link between the pools: --kv-link nvlink, ib-ndr, "
                     "roce-mooncake, or ALPHA_US:GBPS");
  }
  request.link = parse_kv_link(flags.kv_link);
  const engine::ArrivalOptions arrivals = parse_arrivals(flags);
  if (arrivals.session_turns > 1 || arrivals.max_inflight > 0) {
    throw InputError(std::string("--disagg replays open-loop arrivals or a closed loop of ") +
                     "--concurrency N clients, one request each: drop " +
                     (arrivals.session_turns > 1 ? "--session-turns" : "--max-inflight"));
  }
  if (arrivals.routing == engine::Routing::prefix_aware) {
    // The pools' replays keep no prefix caches of their own (replica_caches.hpp is colocated).
    throw InputError(
        "--routing prefix-aware with --disagg: the disaggregated pools are replayed without "
        "per-replica prefix caches, so it would route by load alone; pick round-robin, "
        "least-outstanding or shared-queue for the pools");
  }
  request.routing = arrivals.routing;
  request.rate_scale = arrivals.rate_scale;
  request.concurrency = arrivals.concurrency;
  request.think_time_s = arrivals.think_time_s;
  request.prefill =
      disagg_pool(flags, colocated, defaults, flags.prefill_gpu, flags.prefill_tp, "prefill");
  request.decode =
      disagg_pool(flags, colocated, defaults, flags.decode_gpu, flags.decode_tp, "decode");
  return request;
}

}  // namespace kspeed::cli
