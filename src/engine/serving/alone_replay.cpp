#include "kspeed/engine/serving/alone_replay.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kspeed/engine/serving/kv_blocks.hpp"

namespace kspeed::engine {

namespace {

// The step-by-step replay's bound on a request's lengths (batch_replay.cpp).

// A request's lengths as the replay clamps them.
struct AloneLengths {
  std::int64_t prompt = 1;
  std::int64_t response = 1;
  std::int64_t cached = 0;
};

AloneLengths lengths_of(const ReplayRequest& request) {
  AloneLengths out;
  out.prompt = std::clamp<std::int32_t>(request.prompt_tokens, 1, kMaxReplayTokens);
  out.response = std::clamp<std::int32_t>(request.response_tokens, 1, kMaxReplayTokens);
  out.cached = std::clamp<std::int64_t>(request.cached_tokens, 0, out.prompt - 1);
  return out;
}

// Whether the step-by-step replay runs `request` alone without dropping or preempting it: its
// prompt fits the budget (or is chunked), and its KV at its longest (the prompt and every output
// token but the last, which is sampled and never cached) fits the capacity.
bool runs_alone_plainly(const AloneLengths& request, const SchedulerOptions& scheduler) {
  if (!scheduler.chunked_prefill &&
      request.prompt - request.cached > scheduler.max_batched_tokens) {
    return false;
  }
  if (!scheduler.kv_blocks) return true;
  const std::int64_t longest = request.prompt + request.response - 1;
  return blocks_for(longest, scheduler.block_tokens) <= *scheduler.kv_blocks;
}

bool covered(const std::vector<ReplayRequest>& requests, const StepModel& model,
             const SchedulerOptions& scheduler) {
  if (scheduler.max_batched_tokens < 1 || scheduler.max_seqs < 1 || scheduler.block_tokens < 1) {
    return false;
  }
  // Negative terms could make the decode steps' times fall with the KV length (the ITL bins are
  // filled assuming they do not) or a client's next request arrive before its replica is free.
  if (!(model.ms_per_kv_token >= 0) || !(scheduler.request_overhead_ms >= 0)) return false;
  // Chunked local layers' decode keys fall back to one at each chunk boundary: the steps are no
  // arithmetic series (DecodeSeries), so the step-by-step replay times them.
  if (model.attention_chunk_tokens > 0) return false;
  return std::all_of(requests.begin(), requests.end(), [&](const ReplayRequest& request) {
    return runs_alone_plainly(lengths_of(request), scheduler);
  });
}

std::uint16_t replica_of(std::size_t index, const ArrivalOptions& arrivals) {
  // With one request in flight every replica is idle: least-outstanding and shared-queue routing
  // both pick the lowest index.
  const auto replicas = static_cast<std::size_t>(std::max<std::int64_t>(1, arrivals.replicas));
  const std::size_t r = arrivals.routing == Routing::round_robin ? index % replicas : 0;
  return static_cast<std::uint16_t>(std::min<std::size_t>(r, 0xFFFF));
}

// The decode steps of one request: step k (1..n) reads `prompt + k` KV tokens and takes
// base_ms + kv_ms · (prompt + k).
struct DecodeSeries {
  double base_ms = 0;  // every part of a one-sequence decode step but the KV read
  double base_attention_ms = 0;
  double kv_ms = 0;  // per KV token read
  double prompt = 0;
  std::int64_t steps = 0;

  double step_ms(std::int64_t k) const {
    return base_ms + kv_ms * (prompt + static_cast<double>(k));
  }
  // Σ over steps first..last of the KV tokens read.
  double kv_tokens(std::int64_t first, std::int64_t last) const {
    const auto count = static_cast<double>(last - first + 1);
    return count * (prompt + static_cast<double>(first + last) / 2);
  }
  double sum_ms(std::int64_t first, std::int64_t last) const {
    return static_cast<double>(last - first + 1) * base_ms + kv_ms * kv_tokens(first, last);
  }
};

DecodeSeries decode_series(const StepModel& model, const AloneLengths& request) {
  BatchComposition batch;
  batch.decode_sequences = 1;
  const StepTime base = step_time(model, batch);
  DecodeSeries out;
  out.base_ms = base.total_ms();
  out.base_attention_ms = base.attention_ms();
  out.kv_ms = model.ms_per_kv_token;
  out.prompt = static_cast<double>(request.prompt);
  out.steps = request.response - 1;
  return out;
}

// The last step from `first` whose ITL falls in `bin`: the steps' times never fall (kv_ms >= 0),
// so neither do their bins; galloping then bisection, O(log steps) a bin.
std::int64_t last_in_bin(const DecodeSeries& series, std::int64_t first, std::size_t bin) {
  auto in_bin = [&](std::int64_t k) { return ItlHistogram::bin_of(series.step_ms(k)) == bin; };
  const std::int64_t n = series.steps;
  if (series.kv_ms == 0 || in_bin(n)) return n;
  std::int64_t low = first;  // in the bin
  std::int64_t high = n;     // past it
  std::int64_t stride = 1;
  while (low + stride < high && in_bin(low + stride)) {
    low += stride;
    stride *= 2;
  }
  high = std::min(high, low + stride);
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    (in_bin(mid) ? low : high) = mid;
  }
  return low;
}

void add_itls(const DecodeSeries& series, ItlHistogram& itl) {
  for (std::int64_t first = 1; first <= series.steps;) {
    const std::size_t bin = ItlHistogram::bin_of(series.step_ms(first));
    const std::int64_t last = last_in_bin(series, first, bin);
    itl.add_to_bin(bin, last - first + 1, series.sum_ms(first, last));
    first = last + 1;
  }
}

AloneTimes time_alone(const AloneLengths& request, const DecodeSeries& series,
                      const StepModel& model, std::int64_t max_batched_tokens) {
  AloneTimes out;
  // Prefill: chunks of at most the token budget, each one step.
  for (std::int64_t computed = request.cached; computed < request.prompt;) {
    const std::int64_t chunk = std::min(request.prompt - computed, max_batched_tokens);
    BatchComposition batch;
    batch.prefill_tokens = static_cast<double>(chunk);
    batch.prefill_pairs = causal_pairs(static_cast<double>(chunk), static_cast<double>(computed));
    batch.chunked_prefill_pairs =
        chunked_causal_pairs(static_cast<double>(chunk), static_cast<double>(computed),
                             static_cast<double>(model.attention_chunk_tokens));
    const StepTime step = step_time(model, batch);
    out.ttft_ms += step.total_ms();
    out.attention_ms += step.attention_ms();
    ++out.steps;
    computed += chunk;
  }
  // Decode: the arithmetic series.
  out.e2e_ms = out.ttft_ms;
  if (series.steps > 0) {
    out.e2e_ms += series.sum_ms(1, series.steps);
    out.attention_ms += static_cast<double>(series.steps) * series.base_attention_ms +
                        series.kv_ms * series.kv_tokens(1, series.steps);
    out.steps += series.steps;
  }
  return out;
}

// Replays one request alone from `arrival_s`; returns when its last token is out (s).
double replay_one(const AloneLengths& request, double arrival_s, const StepModel& model,
                  const SchedulerOptions& scheduler, RequestTiming& timing, ReplayTotals& totals) {
  const DecodeSeries series = decode_series(model, request);
  const AloneTimes times = time_alone(request, series, model, scheduler.max_batched_tokens);
  add_itls(series, totals.itl);
  totals.steps += times.steps;
  totals.busy_ms += times.e2e_ms;
  totals.attention_ms += times.attention_ms;
  totals.prompt_tokens_computed += request.prompt - request.cached;
  totals.output_tokens += request.response;
  // The latencies as the step-by-step replay rounds them (its TPOT uses the float TTFT).
  const double overhead_ms = scheduler.request_overhead_ms;
  const auto ttft_float = static_cast<float>(times.ttft_ms);
  timing.queue_ms = 0;
  timing.tpot_ms = request.response >= 2
                       ? static_cast<float>((times.e2e_ms - static_cast<double>(ttft_float)) /
                                            static_cast<double>(request.response - 1))
                       : std::numeric_limits<float>::quiet_NaN();
  timing.ttft_ms = static_cast<float>(static_cast<double>(ttft_float) + overhead_ms);
  timing.e2e_ms = static_cast<float>(times.e2e_ms + overhead_ms);
  timing.preemptions = 0;
  return arrival_s + times.e2e_ms / 1000.0;
}

}  // namespace

AloneTimes time_alone(const ReplayRequest& request, const StepModel& model,
                      std::int64_t max_batched_tokens) {
  const AloneLengths lengths = lengths_of(request);
  return time_alone(lengths, decode_series(model, lengths), model,
                    std::max<std::int64_t>(1, max_batched_tokens));
}

std::optional<BatchReplay> replay_alone_closed_form(const std::vector<ReplayRequest>& requests,
                                                    const StepModel& model,
                                                    const AttentionSpeedup& speedup,
                                                    const SchedulerOptions& scheduler,
                                                    const ArrivalOptions& arrivals) {
  // The kernel change folded into the coefficients, as the step-by-step replay does.
  const StepModel scaled = with_attention_speedup(model, speedup);
  if (!covered(requests, scaled, scheduler)) return std::nullopt;
  BatchReplay out;
  out.timing.resize(requests.size());
  ReplayTotals& totals = out.totals;
  totals.requests = static_cast<std::int64_t>(requests.size());
  totals.itl.add_to_bin(0, 0, 0.0);  // the bins exist even when no token is timed
  // A closed loop of one client: each request arrives when the previous one's last token is
  // out, plus the previous request's time outside the engine.
  double arrival_s = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    RequestTiming& timing = out.timing[i];
    timing.replica = replica_of(i, arrivals);
    const StepModel own = speedup.per_request()
                              ? with_attention_speedup(model, speedup_for(speedup, requests[i]))
                              : scaled;
    const double end_s =
        replay_one(lengths_of(requests[i]), arrival_s, own, scheduler, timing, totals);
    totals.last_arrival_s = arrival_s;
    totals.last_completion_s = std::max(totals.last_completion_s, end_s);
    arrival_s = end_s + scheduler.request_overhead_ms / 1000.0;
  }
  // Every step carries the one request.
  totals.max_running = totals.steps > 0 ? 1 : 0;
  totals.mean_running = totals.steps > 0 ? 1.0 : 0.0;
  return out;
}

BatchReplay replay_alone(const std::vector<ReplayRequest>& requests, const StepModel& model,
                         const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                         const ArrivalOptions& arrivals) {
  if (std::optional<BatchReplay> closed =
          replay_alone_closed_form(requests, model, speedup, scheduler, arrivals)) {
    return std::move(*closed);
  }
  ArrivalOptions one_client = arrivals;
  one_client.rate_scale = 1;
  one_client.concurrency = 1;
  one_client.think_time_s = 0;  // alone: each request as soon as the last is out
  one_client.max_inflight = 0;
  return replay_batches(requests, model, speedup, scheduler, one_client);
}

}  // namespace kspeed::engine
