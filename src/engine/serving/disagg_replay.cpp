#include "kspeed/engine/serving/disagg_replay.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <string>

#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

PoolReplay pool_of(const BatchReplay& replay, std::int64_t replicas) {
  PoolReplay out;
  out.totals = replay.totals;
  out.totals.itl = {};
  out.span_s = replay.totals.last_completion_s - replay.totals.first_arrival_s;
  const double capacity_ms =
      static_cast<double>(std::max<std::int64_t>(1, replicas)) * out.span_s * 1000.0;
  out.utilisation = capacity_ms > 0 ? replay.totals.busy_ms / capacity_ms : 0.0;
  return out;
}

ArrivalOptions arrivals_of(const ServingPool& pool, double rate_scale) {
  ArrivalOptions arrivals;
  arrivals.rate_scale = rate_scale;
  arrivals.replicas = pool.replicas;
  arrivals.routing = pool.routing;
  return arrivals;
}

// The closed loop's sends given what has been replayed: clients take the log's requests in
// order, each the moment it is free (vllm bench serve's semaphore). A client whose request has
// not been replayed yet is free at an unknown time (infinity), and every later send waits
// behind the earliest client; a request the pools dropped (NaN E2E) frees its client at once.
std::vector<double> disagg_closed_loop_sends(const std::vector<float>& e2e_ms,
                                             const std::vector<char>& replayed,
                                             std::int64_t clients, double think_time_s) {
  const double unknown = std::numeric_limits<double>::infinity();
  std::vector<double> sends(e2e_ms.size(), unknown);
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (std::int64_t c = 0; c < clients; ++c) free_at.push(0.0);
  for (std::size_t i = 0; i < e2e_ms.size(); ++i) {
    const double send = free_at.top();
    if (std::isinf(send)) break;
    free_at.pop();
    sends[i] = send;
    if (!replayed[i]) {
      free_at.push(unknown);
    } else if (std::isnan(e2e_ms[i])) {
      free_at.push(send);
    } else {
      free_at.push(send + static_cast<double>(e2e_ms[i]) / 1000.0 + think_time_s);
    }
  }
  return sends;
}

DisaggReplay replay_disaggregated_open(const std::vector<ReplayRequest>& requests,
                                       const DisaggSetup& setup, const AttentionSpeedup& speedup);

// The closed loop as a fixed point (disagg_replay.hpp): replay the requests whose sends are
// known, at those sends, until a round's sends reproduce the ones it replayed.
DisaggReplay replay_disaggregated_closed(const std::vector<ReplayRequest>& requests,
                                         const DisaggSetup& setup,
                                         const AttentionSpeedup& speedup) {
  const std::size_t n = requests.size();
  const std::int64_t cap =
      disagg_closed_loop_round_cap(static_cast<std::int64_t>(n), setup.concurrency);
  DisaggSetup open = setup;
  open.concurrency = 0;
  open.rate_scale = 1;
  std::vector<float> e2e_ms(n, std::numeric_limits<float>::quiet_NaN());
  std::vector<char> replayed(n, 0);
  std::vector<double> sends =
      disagg_closed_loop_sends(e2e_ms, replayed, setup.concurrency, setup.think_time_s);
  for (std::int64_t round = 1; round <= cap; ++round) {
    std::vector<std::size_t> order;
    order.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isinf(sends[i])) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return sends[a] < sends[b]; });
    std::vector<ReplayRequest> sent;
    sent.reserve(order.size());
    for (const std::size_t i : order) {
      sent.push_back(requests[i]);
      sent.back().arrival_s = sends[i];
    }
    DisaggReplay replay = replay_disaggregated_open(sent, open, speedup);
    std::fill(replayed.begin(), replayed.end(), 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
      replayed[order[k]] = 1;
      e2e_ms[order[k]] = replay.timing[k].e2e_ms;
    }
    std::vector<double> next =
        disagg_closed_loop_sends(e2e_ms, replayed, setup.concurrency, setup.think_time_s);
    if (next == sends) {
      // Settled: every request was sent (a fixed point leaves no client waiting on an
      // unreplayed request), so `order` covers the log; back to the log's order.
      DisaggReplay out;
      out.prefill = replay.prefill;
      out.decode = replay.decode;
      out.timing.resize(n);
      out.prefill_ms.resize(n);
      out.transfer_ms.resize(n);
      out.decode_queue_ms.resize(n);
      for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        out.timing[i] = replay.timing[k];
        out.prefill_ms[i] = replay.prefill_ms[k];
        out.transfer_ms[i] = replay.transfer_ms[k];
        out.decode_queue_ms[i] = replay.decode_queue_ms[k];
      }
      out.send_s = std::move(sends);
      out.closed_loop_rounds = round;
      return out;
    }
    sends = std::move(next);
  }
  throw InputError(flag_mark("disagg") + " with " + flag_mark("concurrency") + " " +
                   count_mark(setup.concurrency) + ": the " +
                   count_mark(static_cast<long long>(n)) + " requests' sends did not settle in " +
                   count_mark(static_cast<long long>(cap)) +
                   " replays of the closed loop (latencies too unlike for the fixed point to "
                   "converge): replay fewer requests, or open loop without " +
                   flag_mark("concurrency"));
}

}  // namespace

std::int64_t disagg_closed_loop_round_cap(std::int64_t requests, std::int64_t clients) {
  const std::int64_t per_round = std::max<std::int64_t>(1, clients);
  return 4 * ((requests + per_round - 1) / per_round) + 16;
}

double kv_transfer_ms(const DisaggSetup& setup, std::int64_t prompt_tokens) {
  // Hockney: t = alpha + bytes / beta.
  const double bytes = setup.kv_bytes_per_token * static_cast<double>(prompt_tokens);
  return (setup.link.latency_s + bytes / setup.link.bytes_per_s) * 1000.0;
}

DisaggReplay replay_disaggregated(const std::vector<ReplayRequest>& requests,
                                  const DisaggSetup& setup, const AttentionSpeedup& speedup) {
  if (setup.concurrency > 0) return replay_disaggregated_closed(requests, setup, speedup);
  return replay_disaggregated_open(requests, setup, speedup);
}

namespace {

DisaggReplay replay_disaggregated_open(const std::vector<ReplayRequest>& requests,
                                       const DisaggSetup& setup, const AttentionSpeedup& speedup) {
  DisaggReplay out;
  const std::size_t n = requests.size();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 1. The prefill pool: each request's prompt and its first sampled token.
  std::vector<ReplayRequest> prompts = requests;
  for (ReplayRequest& request : prompts) request.response_tokens = 1;
  SchedulerOptions prefill_scheduler = setup.prefill.scheduler;
  prefill_scheduler.request_overhead_ms = 0;  // added once, at the end
  const BatchReplay prefill =
      replay_batches(prompts, setup.prefill.step, speedup, prefill_scheduler,
                     arrivals_of(setup.prefill, setup.rate_scale));
  prompts = {};
  out.prefill = pool_of(prefill, setup.prefill.replicas);
  // 2. The transfer, and the arrival at the decode pool.
  out.prefill_ms.resize(n);
  out.transfer_ms.resize(n);
  std::vector<double> decode_arrival_s(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.prefill_ms[i] = prefill.timing[i].e2e_ms;
    const double transfer_ms = kv_transfer_ms(setup, std::max(1, requests[i].prompt_tokens));
    out.transfer_ms[i] = static_cast<float>(transfer_ms);
    decode_arrival_s[i] = requests[i].arrival_s / setup.rate_scale +
                          (static_cast<double>(prefill.timing[i].e2e_ms) + transfer_ms) / 1000.0;
  }
  // 3. The decode pool, in order of arrival there (requests dropped by the prefill pool never
  //    arrive).
  std::vector<std::size_t> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(decode_arrival_s[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return decode_arrival_s[a] < decode_arrival_s[b];
  });
  std::vector<ReplayRequest> decodes;
  decodes.reserve(order.size());
  for (const std::size_t i : order) {
    ReplayRequest request = requests[i];
    request.arrival_s = decode_arrival_s[i];
    request.prompt_tokens = std::max(1, request.prompt_tokens);
    request.cached_tokens = request.prompt_tokens - 1;  // the transferred KV
    decodes.push_back(request);
  }
  SchedulerOptions decode_scheduler = setup.decode.scheduler;
  decode_scheduler.request_overhead_ms = 0;
  const BatchReplay decode = replay_batches(decodes, setup.decode.step, speedup, decode_scheduler,
                                            arrivals_of(setup.decode, 1.0));
  decodes = {};
  out.decode = pool_of(decode, setup.decode.replicas);
  // 4. The client's view.
  out.timing.assign(n, RequestTiming{nan, nan, nan, nan, 0, 0});
  out.decode_queue_ms.assign(n, nan);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const RequestTiming& p = prefill.timing[i];
    const RequestTiming& d = decode.timing[k];
    // t_p + t_x, in the same doubles that placed its arrival at the decode pool.
    const double before_decode_ms =
        (decode_arrival_s[i] - requests[i].arrival_s / setup.rate_scale) * 1000.0;
    out.decode_queue_ms[i] = d.queue_ms;
    RequestTiming& t = out.timing[i];
    t.queue_ms = p.queue_ms;
    t.ttft_ms = static_cast<float>(before_decode_ms + static_cast<double>(d.ttft_ms) +
                                   setup.request_overhead_ms);
    t.e2e_ms = static_cast<float>(before_decode_ms + static_cast<double>(d.e2e_ms) +
                                  setup.request_overhead_ms);
    t.tpot_ms = d.tpot_ms;
    t.preemptions = static_cast<std::uint16_t>(
        std::min<int>(0xFFFF, static_cast<int>(p.preemptions) + static_cast<int>(d.preemptions)));
    t.replica = d.replica;
  }
  return out;
}

}  // namespace

}  // namespace kspeed::engine
