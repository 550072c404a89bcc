#include "kspeed/engine/chain/mix_disagg.hpp"

#include <cmath>
#include <limits>

#include "kspeed/engine/deployment/kv_capacity.hpp"
#include "kspeed/engine/serving/capacity_search.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// The capacity search's bracket: rate scales from 1/1000 to 1024 of the log's, to 0.1%.
constexpr double kDisaggCapacityTolerance = 1e-3;
constexpr double kDisaggCapacityCeiling = 1024.0;
constexpr double kDisaggCapacityFloor = 1e-3;

Distribution disagg_distribution(const std::vector<float>& values,
                                 const std::vector<double>& points) {
  std::vector<double> kept;
  kept.reserve(values.size());
  for (const float value : values) {
    if (!std::isnan(value)) kept.push_back(static_cast<double>(value));
  }
  return distribution_of(kept, points);
}

template <class Member>
Distribution disagg_timing_distribution(const std::vector<RequestTiming>& timing, Member member,
                                        const std::vector<double>& points) {
  std::vector<double> kept;
  kept.reserve(timing.size());
  for (const RequestTiming& t : timing) {
    if (!std::isnan(t.*member)) kept.push_back(static_cast<double>(t.*member));
  }
  return distribution_of(kept, points);
}

DisaggSide summarise_disagg(const DisaggReplay& replay, const Slo& slo,
                            const std::vector<double>& points) {
  DisaggSide side;
  side.ttft_ms = disagg_timing_distribution(replay.timing, &RequestTiming::ttft_ms, points);
  side.tpot_ms = disagg_timing_distribution(replay.timing, &RequestTiming::tpot_ms, points);
  side.e2e_ms = disagg_timing_distribution(replay.timing, &RequestTiming::e2e_ms, points);
  side.prefill_queue_ms =
      disagg_timing_distribution(replay.timing, &RequestTiming::queue_ms, points);
  side.decode_wait_ms = disagg_distribution(replay.decode_queue_ms, points);
  side.prefill = replay.prefill;
  side.decode = replay.decode;
  side.attainment = slo_attainment(replay.timing, slo);
  side.unschedulable = replay.prefill.totals.unschedulable + replay.decode.totals.unschedulable;
  return side;
}

double disagg_attainment(const std::vector<ReplayRequest>& requests, DisaggSetup setup,
                         const AttentionSpeedup& speedup, const Slo& slo, double rate_scale) {
  setup.rate_scale = rate_scale;
  return slo_attainment(replay_disaggregated(requests, setup, speedup).timing, slo).value_or(0.0);
}

// DistServe's goodput as capacity (find_capacity's, for the two pools): the highest rate scale
// X at which at least the target fraction of requests meet both SLOs, bracketed by doubling or
// halving from the setup's own scale, then bisected in log X.
Capacity disagg_capacity(const std::vector<ReplayRequest>& requests, const DisaggSetup& setup,
                         const AttentionSpeedup& speedup, const Slo& slo) {
  Capacity out;
  const double span_s =
      requests.size() > 1 ? requests.back().arrival_s - requests.front().arrival_s : 0.0;
  if (!(span_s > 0)) return out;
  const double log_rate = static_cast<double>(requests.size()) / span_s;
  const double target = slo.attainment_target;
  double attained = 0;
  const auto meets = [&](double x, double& at_x) {
    ++out.replays;
    at_x = disagg_attainment(requests, setup, speedup, slo, x);
    return at_x >= target;
  };
  double low = setup.rate_scale;
  double high = low;
  double low_attained = 0;
  if (meets(low, attained)) {
    low_attained = attained;
    high = low * 2;
    while (meets(high, attained)) {
      low = high;
      low_attained = attained;
      if (low >= kDisaggCapacityCeiling) {
        out.status = CapacityStatus::above_range;
        out.rate_scale = low;
        out.requests_per_s = low * log_rate;
        out.attainment = low_attained;
        return out;
      }
      high = low * 2;
    }
  } else {
    do {
      high = low;
      low /= 2;
      if (low < kDisaggCapacityFloor) return out;  // unreachable
    } while (!meets(low, attained));
    low_attained = attained;
  }
  const RateBracket found =
      bisect_capacity(meets, {low, high, low_attained}, kDisaggCapacityTolerance);
  out.status = CapacityStatus::found;
  out.rate_scale = found.low;
  out.requests_per_s = found.low * log_rate;
  out.attainment = found.low_attained;
  return out;
}

}  // namespace

std::optional<KvLinkChoice> kv_link_preset(const std::string& name) {
  KvLinkChoice choice;
  choice.name = name;
  choice.cited = true;
  if (name == "nvlink") {
    choice.link = {2e-6, 450e9};
    choice.source =
        "NVLink 4, 450 GB/s a direction (NVIDIA H100 SXM datasheet); latency 2 us assumed";
  } else if (name == "ib-ndr") {
    choice.link = {5e-6, 50e9};
    choice.source =
        "InfiniBand NDR, 400 Gb/s = 50 GB/s a port (NVIDIA ConnectX-7); latency 5 us assumed";
  } else if (name == "roce-mooncake") {
    choice.link = {5e-6, 87e9};
    choice.source =
        "Mooncake transfer engine, 87 GB/s over 4×200 Gbps RoCE (kvcache-ai/Mooncake README); "
        "latency 5 us assumed";
  } else {
    return std::nullopt;
  }
  return choice;
}

double whole_kv_bytes_per_token(const Deployment& deployment, const char* pool) {
  if (!deployment.platform) {
    throw InputError(flag_mark("disagg") + ": the " + pool +
                     " pool's deployment names no model, so the KV bytes a token that cross the "
                     "link are unknown: add " +
                     flag_mark("model") + " and " + flag_mark("gpu") + " (a " +
                     flag_mark("step-model") + " alone states only step times)");
  }
  const Platform& platform = *deployment.platform;
  // Bytes a token's KV takes depend on the model alone, not on how the memory is sized.
  const KvCapacity per_gpu = kv_cache_capacity(platform, KvSizing{});
  return per_gpu.kv_bytes_per_token * static_cast<double>(platform.tensor_parallel.value);
}

DisaggSetup disagg_setup(const DisaggRequest& request) {
  DisaggSetup setup;
  setup.prefill.step = request.prefill.step->model;
  setup.prefill.scheduler = request.prefill.scheduler;
  setup.prefill.replicas = request.prefill_replicas;
  setup.prefill.routing = request.routing;
  setup.decode.step = request.decode.step->model;
  setup.decode.scheduler = request.decode.scheduler;
  setup.decode.replicas = request.decode_replicas;
  setup.decode.routing = request.routing;
  setup.link = request.link.link;
  setup.kv_bytes_per_token = whole_kv_bytes_per_token(request.prefill, "prefill");
  // Time outside the engines (tokenising, the HTTP round trip): once per request, the decode
  // deployment's (the client's stream comes from it).
  setup.request_overhead_ms = request.decode.scheduler.request_overhead_ms;
  setup.rate_scale = request.rate_scale;
  setup.concurrency = request.concurrency;
  setup.think_time_s = request.think_time_s;
  return setup;
}

MixDisagg replay_disaggregated_mix(const std::vector<ReplayRequest>& requests,
                                   const DisaggRequest& request, const AttentionSpeedup& speedup,
                                   const Slo& slo, const std::vector<double>& percentiles) {
  MixDisagg out;
  out.name = request.shape;
  out.request = request;
  out.speedup = speedup;
  out.requests = static_cast<std::int64_t>(requests.size());
  const DisaggSetup setup = disagg_setup(request);
  out.kv_bytes_per_token = setup.kv_bytes_per_token;
  if (requests.empty()) return out;
  {
    const DisaggReplay before = replay_disaggregated(requests, setup, AttentionSpeedup{});
    out.transfer_ms = disagg_distribution(before.transfer_ms, percentiles);
    out.before = summarise_disagg(before, slo, percentiles);
    out.closed_loop_rounds_before = before.closed_loop_rounds;
  }
  {
    const DisaggReplay after = replay_disaggregated(requests, setup, speedup);
    out.after = summarise_disagg(after, slo, percentiles);
    out.closed_loop_rounds_after = after.closed_loop_rounds;
  }
  // A closed loop sets its own rate: no rate scale to search over.
  if (slo.any() && setup.concurrency == 0) {
    out.capacity_before = disagg_capacity(requests, setup, AttentionSpeedup{}, slo);
    out.capacity_after = disagg_capacity(requests, setup, speedup, slo);
  }
  return out;
}

}  // namespace kspeed::engine
