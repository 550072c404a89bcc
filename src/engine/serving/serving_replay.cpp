#include "kspeed/engine/serving/serving_replay.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include "kspeed/engine/denominator.hpp"
#include "kspeed/engine/serving/alone_replay.hpp"
#include "kspeed/engine/serving/capacity_search.hpp"

namespace kspeed::engine {

namespace {

// Capacity search: relative width of the final bracket, how far above and below the saturation
// rate the bracket may reach.
constexpr double kCapacityTolerance = 1e-3;
constexpr double kCapacityCeiling = 4.0;
constexpr double kCapacityFloor = 1e-3;

template <class Member>
Distribution timing_distribution(const std::vector<RequestTiming>& timing, Member member,
                                 const std::vector<double>& points) {
  std::vector<double> values;
  values.reserve(timing.size());
  for (const RequestTiming& t : timing) {
    const double value = static_cast<double>(t.*member);
    if (!std::isnan(value)) values.push_back(value);
  }
  return distribution_of(values, points);
}

Distribution itl_distribution(const ItlHistogram& itl, const std::vector<double>& points) {
  Distribution out;
  out.count = itl.total;
  if (itl.total == 0) return out;
  out.mean = itl.mean();
  out.min = itl.percentile(0);
  out.max = itl.percentile(100);
  for (const double point : points) out.percentiles.push_back(itl.percentile(point));
  return out;
}

double span_rate(std::int64_t count, double span_s) {
  return span_s > 0 ? static_cast<double>(count) / span_s : 0.0;
}

ServingSetup with_arrivals(const ServingSetup& setup, double rate_scale, std::int64_t concurrency) {
  ServingSetup out = setup;
  out.arrivals.rate_scale = rate_scale;
  out.arrivals.concurrency = concurrency;
  // A closed loop of the replay's own (each request alone, every batch full) has no think time
  // and no cap: only the setup's own arrivals keep the client model the user gave.
  if (concurrency > 0) {
    out.arrivals.think_time_s = 0;
    out.arrivals.max_inflight = 0;
    out.arrivals.session_turns = 0;
  }
  return out;
}

// slo_attainment of one replay, counted as requests finish: no per-request values are kept.
// With `stop_when_failed` the replay ends as soon as the target can no longer be reached (even
// if every request still to finish met the SLOs, fewer than the target would): the value
// returned is then a lower bound below the target, enough for a search that asks only whether
// the target is met. A replay that meets the target always runs to the end, so its attainment
// is exact.
std::optional<double> attainment_of_replay(const std::vector<ReplayRequest>& requests,
                                           const StepModel& step, const AttentionSpeedup& speedup,
                                           const SchedulerOptions& scheduler,
                                           const ArrivalOptions& arrivals, const Slo& slo,
                                           bool stop_when_failed) {
  if (!slo.any()) return std::nullopt;
  if (requests.empty()) return 0.0;
  const auto n = static_cast<std::int64_t>(requests.size());
  std::int64_t met = 0;
  std::int64_t missed = 0;
  // The same comparison as the search's (met / n >= target) on the most that can still be met.
  const auto failed = [n, &slo](std::int64_t can_still_meet) {
    return static_cast<double>(can_still_meet) / static_cast<double>(n) < slo.attainment_target;
  };
  const CompletionVerdict count = [&](std::size_t, const RequestTiming& timing) {
    if (meets_slo(timing, slo)) {
      ++met;
    } else {
      ++missed;
    }
    return !(stop_when_failed && failed(n - missed));
  };
  (void)replay_until(requests, step, speedup, scheduler, arrivals, count);
  // A dropped request never finishes, so it is counted as not meeting them, as slo_attainment
  // counts its NaN latencies.
  return static_cast<double>(met) / static_cast<double>(n);
}

std::optional<double> attainment_at(const std::vector<ReplayRequest>& requests,
                                    const StepModel& step, const AttentionSpeedup& speedup,
                                    const ServingSetup& setup, double rate_scale) {
  const ServingSetup scaled = with_arrivals(setup, rate_scale, 0);
  // Capacity reports only the attainment of a rate that met the target: a failing replay may stop
  // once it has failed.
  return attainment_of_replay(requests, step, speedup, scaled.scheduler, scaled.arrivals, setup.slo,
                              true);
}

}  // namespace

bool meets_slo(const RequestTiming& t, const Slo& slo) {
  // NaN compares false: a request that never produced a token meets no TTFT objective.
  const bool ttft_ok = !slo.ttft_ms || static_cast<double>(t.ttft_ms) <= *slo.ttft_ms;
  const bool tpot_ok =
      !slo.tpot_ms || std::isnan(t.tpot_ms) || static_cast<double>(t.tpot_ms) <= *slo.tpot_ms;
  return ttft_ok && tpot_ok && !std::isnan(t.e2e_ms);
}

std::optional<double> slo_attainment(const std::vector<RequestTiming>& timing, const Slo& slo) {
  if (!slo.any()) return std::nullopt;
  if (timing.empty()) return 0.0;
  std::int64_t met = 0;
  for (const RequestTiming& t : timing) met += meets_slo(t, slo) ? 1 : 0;
  return static_cast<double>(met) / static_cast<double>(timing.size());
}

ReplaySide summarise_replay(const std::vector<ReplayRequest>& requests, const BatchReplay& replay,
                            const ServingSetup& setup) {
  (void)requests;
  ReplaySide side;
  const std::vector<double>& points = setup.percentiles;
  side.ttft_ms = timing_distribution(replay.timing, &RequestTiming::ttft_ms, points);
  side.tpot_ms = timing_distribution(replay.timing, &RequestTiming::tpot_ms, points);
  side.e2e_ms = timing_distribution(replay.timing, &RequestTiming::e2e_ms, points);
  side.queue_ms = timing_distribution(replay.timing, &RequestTiming::queue_ms, points);
  side.itl_ms = itl_distribution(replay.totals.itl, points);
  for (const RequestTiming& t : replay.timing) {
    side.requests_preempted += t.preemptions > 0 ? 1 : 0;
  }
  const ReplayTotals& totals = replay.totals;
  side.preemptions = totals.preemptions;
  side.attainment = slo_attainment(replay.timing, setup.slo);
  const auto count = static_cast<std::int64_t>(replay.timing.size());
  const double arrival_span_s = totals.last_arrival_s - totals.first_arrival_s;
  const double busy_span_s = totals.last_completion_s - totals.first_arrival_s;
  side.achieved_rate_per_s = span_rate(count, busy_span_s);
  side.offered_rate_per_s =
      setup.arrivals.concurrency > 0 ? side.achieved_rate_per_s : span_rate(count, arrival_span_s);
  side.output_tokens_per_s = span_rate(totals.output_tokens, busy_span_s);
  side.output_tokens_per_s_per_replica =
      side.output_tokens_per_s /
      static_cast<double>(std::max<std::int64_t>(1, setup.arrivals.replicas));
  side.mean_batch_sequences = totals.mean_running;
  side.max_batch_sequences = totals.max_running;
  // The replay's steps run back to back on its clock: their summed times are wall time.
  side.attention_fraction =
      share_of(Time<TimeBase::wall>{totals.attention_ms}, Time<TimeBase::wall>{totals.busy_ms})
          .fraction;
  side.totals = totals;
  side.totals.itl = {};  // its bins are summarised in itl_ms
  return side;
}

double saturation_rate(const std::vector<ReplayRequest>& requests, const StepModel& step,
                       const AttentionSpeedup& speedup, const ServingSetup& setup) {
  if (requests.empty()) return 0.0;
  // Every replica's batch full: as many clients as the replicas can run at once.
  const std::int64_t clients =
      setup.scheduler.max_seqs * std::max<std::int64_t>(1, setup.arrivals.replicas);
  const ServingSetup full = with_arrivals(setup, 1.0, clients);
  // Only the totals' times are read: no per-request values or ITLs kept.
  const CompletionVerdict to_the_end = [](std::size_t, const RequestTiming&) { return true; };
  const ReplayTotals totals =
      replay_until(requests, step, speedup, full.scheduler, full.arrivals, to_the_end);
  // While every client is busy, each completion sends the next request: by the last send,
  // n - clients requests have completed. That steady window excludes the drain at the end, where
  // the batch empties; a log of fewer than two batches has no such window and is timed whole.
  const auto n = static_cast<std::int64_t>(requests.size());
  if (n > 2 * clients && totals.last_arrival_s > 0) {
    return span_rate(n - clients, totals.last_arrival_s);
  }
  return span_rate(n, totals.last_completion_s);
}

Capacity find_capacity(const std::vector<ReplayRequest>& requests, const StepModel& step,
                       const AttentionSpeedup& speedup, const ServingSetup& setup,
                       double saturation_rate_per_s) {
  Capacity out;
  const double span_s =
      requests.size() > 1 ? requests.back().arrival_s - requests.front().arrival_s : 0.0;
  const double log_rate = span_rate(static_cast<std::int64_t>(requests.size()), span_s);
  if (!(log_rate > 0) || !(saturation_rate_per_s > 0)) return out;
  const double target = setup.slo.attainment_target;
  auto meets = [&](double x, double& attained) {
    ++out.replays;
    attained = attainment_at(requests, step, speedup, setup, x).value_or(0.0);
    return attained >= target;
  };
  // Bracket [low, high): low meets, high does not, starting at the saturation rate.
  const double x_saturation = saturation_rate_per_s / log_rate;
  double attained = 0;
  double low = 0;
  double low_attained = 0;
  double high = x_saturation;
  if (meets(high, attained)) {
    low = high;
    low_attained = attained;
    high = low * 2;
    while (meets(high, attained)) {
      low = high;
      low_attained = attained;
      if (low >= kCapacityCeiling * x_saturation) {
        out.status = CapacityStatus::above_range;
        out.rate_scale = low;
        out.requests_per_s = low * log_rate;
        out.attainment = low_attained;
        return out;
      }
      high = low * 2;
    }
  } else {
    low = high / 2;
    while (!meets(low, attained)) {
      if (low <= kCapacityFloor * x_saturation) return out;  // unreachable
      high = low;
      low /= 2;
    }
    low_attained = attained;
  }
  const RateBracket found = bisect_capacity(meets, {low, high, low_attained}, kCapacityTolerance);
  out.status = CapacityStatus::found;
  out.rate_scale = found.low;
  out.requests_per_s = found.low * log_rate;
  out.attainment = found.low_attained;
  return out;
}

ReplicaCapacity find_fewest_replicas(const std::vector<ReplayRequest>& requests,
                                     const StepModel& step, const AttentionSpeedup& speedup,
                                     const ServingSetup& setup, double alone_attainment) {
  ReplicaCapacity out;
  const double target = setup.slo.attainment_target;
  if (alone_attainment < target) {
    out.attainment = alone_attainment;
    return out;
  }
  auto meets = [&](std::int64_t replicas, double& attained) {
    ++out.replays;
    ServingSetup with = setup;
    with.arrivals.replicas = replicas;
    // The most replicas tried reports its attainment even when it fails: that replay runs whole.
    attained = attainment_of_replay(requests, step, speedup, with.scheduler, with.arrivals,
                                    setup.slo, replicas < kMaxReplicasSearched)
                   .value_or(0.0);
    return attained >= target;
  };
  // Bracket (low, high]: low fails (0: none tried), high meets.
  double attained = 0;
  std::int64_t low = 0;
  std::int64_t high = 1;
  while (!meets(high, attained)) {
    if (high >= kMaxReplicasSearched) {
      out.attainment = attained;
      return out;
    }
    low = high;
    high = std::min(high * 2, kMaxReplicasSearched);
  }
  double high_attained = attained;
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    if (meets(mid, attained)) {
      high = mid;
      high_attained = attained;
    } else {
      low = mid;
    }
  }
  out.status = ReplicaStatus::found;
  out.replicas = high;
  out.attainment = high_attained;
  return out;
}

ServingReplay replay_serving(const std::vector<ReplayRequest>& requests, const ServingSetup& setup,
                             PerRequestReplay& per_request) {
  return replay_serving(requests, setup, &per_request);
}

namespace {

// Where one side's (before or after) answers go.
struct ServingSide {
  const AttentionSpeedup* speedup;
  ReplaySide* summary;
  ReplaySide* alone;
  std::optional<Capacity>* capacity;
  std::optional<ReplicaCapacity>* replicas;
  std::vector<RequestTiming>* timing;  // per-request values, when asked for
};

// One side: its replay, each request alone, the saturation rate and, with an SLO, both searches.
// It reads only the requests and the setup and writes only its own answers.
void replay_serving_side(const std::vector<ReplayRequest>& requests, const ServingSetup& setup,
                         const ServingSide& side) {
  BatchReplay replay =
      replay_batches(requests, setup.step, *side.speedup, setup.scheduler, setup.arrivals);
  *side.summary = summarise_replay(requests, replay, setup);
  if (side.timing) *side.timing = std::move(replay.timing);
  replay = {};  // its per-request values are summarised: freed before the next replays
  {
    const ServingSetup alone = with_arrivals(setup, 1.0, 1);
    const BatchReplay alone_replay =
        replay_alone(requests, setup.step, *side.speedup, alone.scheduler, alone.arrivals);
    *side.alone = summarise_replay(requests, alone_replay, alone);
  }  // freed before the capacity searches
  const double saturation = saturation_rate(requests, setup.step, *side.speedup, setup);
  side.summary->saturation_rate_per_s = saturation;
  if (setup.arrivals.concurrency == 0 && saturation > 0) {
    side.summary->load = side.summary->offered_rate_per_s / saturation;
    if (setup.slo.any()) {
      *side.capacity = find_capacity(requests, setup.step, *side.speedup, setup, saturation);
      *side.replicas = find_fewest_replicas(requests, setup.step, *side.speedup, setup,
                                            side.alone->attainment.value_or(0.0));
    }
  }
}

}  // namespace

ServingReplay replay_serving(const std::vector<ReplayRequest>& requests, const ServingSetup& setup,
                             PerRequestReplay* per_request) {
  ServingReplay out;
  out.requests = static_cast<std::int64_t>(requests.size());
  const AttentionSpeedup none;
  // Each side's per-request values are kept only when asked for (20 bytes a request a side).
  const ServingSide before{&none,
                           &out.before,
                           &out.alone_before,
                           &out.capacity_before,
                           &out.replicas_before,
                           per_request ? &per_request->before : nullptr};
  const ServingSide after{&setup.speedup,      &out.after,
                          &out.alone_after,    &out.capacity_after,
                          &out.replicas_after, per_request ? &per_request->after : nullptr};
  // The two sides share nothing they write: the after side runs on a second thread (both cores;
  // each side's replays are the same, in the same order, as on one thread, so the answer is
  // identical). An exception on it is rethrown here, after both have ended.
  std::exception_ptr after_failed;
  std::thread after_thread([&] {
    try {
      replay_serving_side(requests, setup, after);
    } catch (...) {
      after_failed = std::current_exception();
    }
  });
  std::exception_ptr before_failed;
  try {
    replay_serving_side(requests, setup, before);
  } catch (...) {
    before_failed = std::current_exception();
  }
  after_thread.join();
  if (before_failed) std::rethrow_exception(before_failed);
  if (after_failed) std::rethrow_exception(after_failed);
  return out;
}

ServingReplay replay_serving(const std::vector<ReplayRequest>& requests,
                             const ServingSetup& setup) {
  return replay_serving(requests, setup, nullptr);
}

}  // namespace kspeed::engine
