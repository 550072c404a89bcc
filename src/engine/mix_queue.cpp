#include "kspeed/engine/mix_queue.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>

namespace kspeed::engine {

namespace {

constexpr double kMsPerS = 1000.0;
constexpr int kMaxBisections = 64;
constexpr double kLowestRateFraction = 1e-6;

std::vector<std::size_t> arrival_order(const std::vector<QueuedRequest>& requests) {
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return requests[a].arrival_s < requests[b].arrival_s;
  });
  return order;
}

// The FCFS replay proper, over requests already in arrival order.
void replay_in_order(const std::vector<QueuedRequest>& requests,
                     const std::vector<std::size_t>& order, const ReplayOptions& options,
                     std::vector<double>& wait_ms) {
  wait_ms.assign(requests.size(), 0.0F);
  const double inverse_scale = 1.0 / options.rate_scale;
  if (options.replicas <= 1) {
    double free_at_ms = -std::numeric_limits<double>::infinity();
    for (std::size_t index : order) {
      // start = max(arrival / X, free);  wait = start - arrival / X;  free = start + S
      const double arrival_ms = requests[index].arrival_s * inverse_scale * kMsPerS;
      const double start_ms = std::max(arrival_ms, free_at_ms);
      wait_ms[index] = static_cast<double>(start_ms - arrival_ms);
      free_at_ms = start_ms + static_cast<double>(requests[index].service_ms);
    }
    return;
  }
  // N replicas: the next request in line goes to the replica that frees first.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at_ms;
  for (int replica = 0; replica < options.replicas; ++replica) {
    free_at_ms.push(-std::numeric_limits<double>::infinity());
  }
  for (std::size_t index : order) {
    const double arrival_ms = requests[index].arrival_s * inverse_scale * kMsPerS;
    const double start_ms = std::max(arrival_ms, free_at_ms.top());
    free_at_ms.pop();
    wait_ms[index] = static_cast<double>(start_ms - arrival_ms);
    free_at_ms.push(start_ms + static_cast<double>(requests[index].service_ms));
  }
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += static_cast<double>(value);
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

bool meets_tpot(const Slo& slo, double tpot_ms) {
  return !slo.tpot_ms || std::isnan(tpot_ms) || static_cast<double>(tpot_ms) <= *slo.tpot_ms;
}

double attainment_of(const std::vector<QueuedRequest>& requests, const std::vector<double>& wait_ms,
                     const std::vector<double>& tpot_ms, const Slo& slo) {
  std::int64_t met = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const double ttft =
        static_cast<double>(wait_ms[i]) + static_cast<double>(requests[i].service_ms);
    if ((!slo.ttft_ms || ttft <= *slo.ttft_ms) && meets_tpot(slo, tpot_ms[i])) {
      ++met;
    }
  }
  return requests.empty() ? 0.0 : static_cast<double>(met) / static_cast<double>(requests.size());
}

}  // namespace

double queue_utilisation(const std::vector<QueuedRequest>& requests, const ReplayOptions& options) {
  if (requests.empty()) {
    return 0;
  }
  const auto [first, last] = std::minmax_element(
      requests.begin(), requests.end(),
      [](const QueuedRequest& a, const QueuedRequest& b) { return a.arrival_s < b.arrival_s; });
  double service_ms = 0;
  for (const QueuedRequest& request : requests)
    service_ms += static_cast<double>(request.service_ms);
  const double span_s = (last->arrival_s - first->arrival_s) / options.rate_scale;
  if (service_ms <= 0) {
    return 0;
  }
  if (span_s <= 0) {
    return std::numeric_limits<double>::infinity();  // everything arrives at once
  }
  // rho = lambda * E[S] / N = (count / span) * (sum S / count) / N = sum S / (span * N)
  return service_ms / kMsPerS / (span_s * options.replicas);
}

QueueReplay replay_prefill_queue(const std::vector<QueuedRequest>& requests,
                                 const ReplayOptions& options) {
  QueueReplay out;
  out.utilisation = queue_utilisation(requests, options);
  out.stability = out.utilisation < 1.0 ? QueueStability::stable : QueueStability::unstable;
  if (requests.size() > 1) {
    const auto [first, last] = std::minmax_element(
        requests.begin(), requests.end(),
        [](const QueuedRequest& a, const QueuedRequest& b) { return a.arrival_s < b.arrival_s; });
    const double span_s = (last->arrival_s - first->arrival_s) / options.rate_scale;
    out.arrival_rate_per_s = span_s > 0 ? static_cast<double>(requests.size()) / span_s
                                        : std::numeric_limits<double>::infinity();
  }
  replay_in_order(requests, arrival_order(requests), options, out.wait_ms);
  out.mean_wait_ms = mean_of(out.wait_ms);
  return out;
}

std::optional<double> slo_attainment(const std::vector<QueuedRequest>& requests,
                                     const std::vector<double>& tpot_ms, const Slo& slo,
                                     const ReplayOptions& options) {
  if (queue_utilisation(requests, options) >= 1.0) {
    return std::nullopt;
  }
  std::vector<double> wait_ms;
  replay_in_order(requests, arrival_order(requests), options, wait_ms);
  return attainment_of(requests, wait_ms, tpot_ms, slo);
}

Goodput find_goodput(const std::vector<QueuedRequest>& requests, const std::vector<double>& tpot_ms,
                     const Slo& slo, int replicas) {
  Goodput out;
  if (requests.size() < 2) {
    return out;
  }
  const std::vector<std::size_t> order = arrival_order(requests);
  std::vector<double> wait_ms;
  const auto attainment_at = [&](double scale) {
    ++out.replays;
    replay_in_order(requests, order, {replicas, scale}, wait_ms);
    return attainment_of(requests, wait_ms, tpot_ms, slo);
  };
  const double rho_at_one = queue_utilisation(requests, {replicas, 1.0});
  const double base_rate = static_cast<double>(requests.size()) /
                           (requests[order.back()].arrival_s - requests[order.front()].arrival_s);
  if (!std::isfinite(rho_at_one) || !std::isfinite(base_rate) || rho_at_one <= 0) {
    return out;  // no arrival span, or no work: no rate to speak of
  }
  // rho grows linearly with X: rho(X) = X * rho(1), so the stable range is X < 1 / rho(1).
  const double stable_edge = 1.0 / rho_at_one;
  // The lowest rate searched, a million times below the edge of stability: there the log's
  // requests almost never overlap, except those that arrive at the same instant (logs stamped
  // to the millisecond have such bursts, and they queue at any rate). If the target is missed
  // even there, no rate meets it.
  const double lowest = stable_edge * kLowestRateFraction;
  const double at_lowest = attainment_at(lowest);
  if (at_lowest < slo.attainment_target) {
    out.status = GoodputStatus::unreachable;
    out.attainment = at_lowest;
    return out;
  }
  double high = stable_edge * (1.0 - 1e-6);
  const double at_edge = attainment_at(high);
  if (at_edge >= slo.attainment_target) {
    out.status = GoodputStatus::limited_by_queue;
    out.rate_scale = high;
    out.attainment = at_edge;
    out.requests_per_s = base_rate * high;
    return out;
  }
  // Invariant: attainment(low) >= target > attainment(high). From a million-fold bracket to a
  // relative width of 1e-4 takes at most about 34 halvings; kMaxBisections is a backstop.
  double low = lowest;
  double low_attainment = at_lowest;
  for (int step = 0; step < kMaxBisections && high - low > 1e-4 * high; ++step) {
    const double middle = 0.5 * (low + high);
    const double attainment = attainment_at(middle);
    if (attainment >= slo.attainment_target) {
      low = middle;
      low_attainment = attainment;
    } else {
      high = middle;
    }
  }
  out.status = GoodputStatus::found;
  out.rate_scale = low;
  out.attainment = low_attainment;
  out.requests_per_s = base_rate * low;
  return out;
}

}  // namespace kspeed::engine
