#include "kspeed/engine/serving/batch_replay.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <utility>

#include "kspeed/engine/serving/event_queue.hpp"
#include "kspeed/engine/serving/kv_blocks.hpp"
#include "kspeed/engine/serving/replica_caches.hpp"
#include "kspeed/engine/serving/router.hpp"
#include "kspeed/engine/serving/step_policy.hpp"
#include "kspeed/engine/serving/step_timer.hpp"

namespace kspeed::engine {

namespace {

// ITL histogram bins: log-spaced, ratio 1.005, from 1 us up.
constexpr double kItlLowestMs = 1e-3;
constexpr double kItlRatio = 1.005;
const double kItlLogRatio = std::log(kItlRatio);
constexpr std::size_t kItlBins = 4200;  // 1e-3 · 1.005^4200 ≈ 1.3e6 ms

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// With finite KV the decoding pool keeps a counter per token of a block (DecodingPool): beyond
// this block size the sequences are visited one by one instead.
constexpr std::int64_t kMostPooledBlockTokens = 1 << 16;

// A request inside one replica (running or waiting).
struct Sequence {
  double arrival_s = 0;
  double last_token_s = 0;
  std::int32_t index = 0;
  std::int32_t prompt = 0;
  std::int32_t response = 1;  // tokens to produce, >= 1 (a prefill-only request produces its first)
  std::int32_t cached = 0;    // prefix found in the cache at arrival
  std::int32_t computed = 0;  // tokens whose KV is in the cache
  std::int32_t generated = 0;
  std::int32_t blocks = 0;
  std::int32_t chunk = 0;  // tokens scheduled in the current step
  float queue_ms = 0;      // arrival to first scheduled
  float ttft_ms = 0;       // arrival to first token (engine time)
  std::uint16_t replica = 0;
  std::uint16_t preemptions = 0;
  bool scheduled_once = false;
  float kernel_speedup = 1;   // its own (ReplayRequest's), read with a per-request speedup
  std::int64_t admitted = 0;  // when admitted to run, counted per replica: `running`'s order

  // Tokens that must be in the KV cache before the next token is sampled: the prompt and every
  // token produced so far (after a preemption all of them are recomputed).
  std::int32_t target() const { return prompt + generated; }
  bool decoding() const { return generated >= 1 && target() - computed == 1; }
};

// A replica's decoding sequences kept implicit (issue 29): a step gives every one of them one
// token, so none is visited per step. A round is a step that carried them all; a member that
// joined at round r0 with c0 tokens computed has c0 + (R - r0) computed (and as many more
// generated) when round R is formed, so the batch's decode sequences and KV sum are running
// totals (whole numbers: the same double in any order), its first-needed KV blocks a count per
// residue of c0 - r0 modulo the block size, and the next to finish the top of a heap by last
// round. Members are the oldest of the replica's running requests (admitted before every
// request in `running`), which is what makes the O(1) step exact: the policy visits running
// requests in admission order, so the members come first, each takes one token, and the
// requests after them see the same budget and free blocks as if each member had been visited.
struct DecodingMember {
  Sequence sequence;  // as it joined (its computed, generated and last token then)
  std::int64_t joined_round = 0;
};

struct DecodingFinish {
  std::int64_t round = 0;     // the round whose end gives its last token
  std::int64_t admitted = 0;  // ties: admission order (the order the explicit loop finishes them)
  std::uint32_t slot = 0;
  bool operator>(const DecodingFinish& other) const {
    return round != other.round ? round > other.round : admitted > other.admitted;
  }
};

struct DecodingPool {
  std::vector<DecodingMember> members;  // slots; a finished member's slot is reused
  std::vector<std::uint32_t> free_slots;
  std::vector<DecodingFinish> finishes;  // min-heap (std::greater): the next to finish on top
  std::vector<std::uint32_t> fresh;      // joined since the last round, in admission order
  /// Finite KV only: members by (c0 - r0) mod block_tokens; those with -R's residue need a new
  /// block in round R (their computed tokens fill their last block exactly).
  std::vector<std::int64_t> by_residue;
  std::int64_t round = 0;    // rounds run: the next (or running) round's index
  std::int64_t size = 0;     // members
  std::int64_t kv_base = 0;  // Σ (c0 - r0 + 1): round R's decodes read kv_base + size·R tokens
  double last_round_end_s = 0;
  bool scheduled = false;  // the step being formed or run carries every member
};

struct Replica {
  std::vector<Sequence> running;  // admission order; with a pool, only requests after its members
  DecodingPool pool;              // decoding sequences kept implicit (when the replay may)
  std::int64_t admissions = 0;    // requests admitted so far (Sequence::admitted)
  std::deque<Sequence> waiting;   // preempted at the front, then arrival order
  double free_blocks = kUnlimited;
  double clock_s = 0;    // in a step: when it ends; else when the next step can start
  bool in_step = false;  // a step is running (its batch formed, its tokens not yet out)
  std::int64_t outstanding = 0;
  bool queued = false;  // its next event (a step's end or start) is in the event queue

  bool has_work() const { return !running.empty() || pool.size > 0 || !waiting.empty(); }
  std::int64_t running_count() const {
    return static_cast<std::int64_t>(running.size()) + pool.size;
  }
};

// Each replica's own prefix cache, when the replay has block ids and 2+ replicas (else null: the
// requests' own cached_tokens stand).
std::unique_ptr<ReplicaPrefixCaches> replica_caches_for(const ArrivalOptions& arrivals,
                                                        std::size_t replicas) {
  if (!arrivals.prefix_caching || replicas < 2) return nullptr;
  return std::make_unique<ReplicaPrefixCaches>(*arrivals.prefix_caching, replicas);
}

float to_float_ms(double seconds) {
  return static_cast<float>(seconds * 1000.0);
}

// Event ranks at equal times: a step's end first (it frees room), then arrivals, then step
// starts (so a request arriving at a step's start is in that step). Replicas' events at equal
// time and rank go by replica index (their event's id).
constexpr std::uint32_t kStepEnd = 0;
constexpr std::uint32_t kArrival = 2;
constexpr std::uint32_t kStepStart = 3;

// The replay: the event core (EventQueue) drives the replicas; a StepPolicy forms each step
// through this class's StepForming primitives; a Router places arrivals; a StepTimer times
// steps. The simulator keeps the state they share: the sequences, the KV blocks, the metrics.
class Simulator final : private StepForming {
 public:
  Simulator(const std::vector<ReplayRequest>& requests, StepTimer& timer,
            const SchedulerOptions& scheduler, const ArrivalOptions& arrivals,
            const CompletionCallback& on_complete, bool keep_timing, bool keep_sent_times,
            const CompletionVerdict* keep_going = nullptr)
      : requests_(requests),
        keep_timing_(keep_timing),
        keep_sent_times_(keep_sent_times),
        keep_itl_(keep_going == nullptr),
        keep_going_(keep_going),
        timer_(timer),
        timer_wants_requests_(timer.wants_requests()),
        policy_(step_policy_for(scheduler)),
        decode_steps_repeat_(policy_.repeats_decode_steps() && !timer_wants_requests_),
        pool_enabled_(decode_steps_repeat_ &&
                      (!scheduler.kv_blocks || scheduler.block_tokens <= kMostPooledBlockTokens)),
        scheduler_(scheduler),
        arrivals_(arrivals),
        on_complete_(on_complete),
        replicas_(static_cast<std::size_t>(std::max<std::int64_t>(1, arrivals.replicas))),
        caches_(replica_caches_for(arrivals, replicas_.size())),
        router_(make_router(arrivals.routing, replicas_.size(), scheduler.max_seqs, caches_.get(),
                            caches_ ? &arrivals.prefix_caching->blocks : nullptr)) {
    out_.totals.per_replica_caches = caches_ != nullptr;
    for (Replica& replica : replicas_) {
      if (scheduler_.kv_blocks) replica.free_blocks = static_cast<double>(*scheduler_.kv_blocks);
      if (pool_enabled_ && scheduler_.kv_blocks) {
        replica.pool.by_residue.assign(static_cast<std::size_t>(scheduler_.block_tokens), 0);
      }
    }
    if (keep_timing_) out_.timing.resize(requests.size());
    if (keep_sent_times_) {
      out_.sent_s.assign(requests.size(), std::numeric_limits<double>::quiet_NaN());
    }
    out_.totals.requests = static_cast<std::int64_t>(requests.size());
    if (keep_itl_) out_.totals.itl.counts.assign(kItlBins, 0);
    // A closed loop's clients, or an open loop's in-flight slots: each is ready at 0.
    const std::int64_t slots = slot_count();
    if (sessions()) {
      // Client c starts session c; the next session not yet started is the clients' count.
      const std::size_t turns = session_turns();
      for (std::size_t c = 0; c < static_cast<std::size_t>(slots); ++c) {
        if (c * turns >= requests.size()) break;
        ready_turns_.push({0.0, c * turns});
        next_session_ = c + 1;
      }
    } else if (slots > 0) {
      const auto clients = std::min<std::size_t>(static_cast<std::size_t>(slots), requests.size());
      for (std::size_t c = 0; c < clients; ++c) ready_clients_.push(0.0);
    }
  }

  BatchReplay run() {
    schedule_arrival();
    while (!events_.empty() && !stopped_) {
      const Event event = events_.pop();
      if (event.rank == kArrival) {
        if (event.id != arrival_generation_) continue;  // superseded
        arrival_pending_ = false;
        const std::size_t r = dispatch(event.time_s);
        if (r < replicas_.size()) schedule_replica(r);
      } else {
        Replica& replica = replicas_[event.id];
        replica.queued = false;
        if (event.rank == kStepEnd) {
          scheduled_sum_ += end_step(replica);
        } else {
          start_step(replica);
        }
        schedule_replica(event.id);
      }
      schedule_arrival();
    }
    ReplayTotals& totals = out_.totals;
    totals.mean_running =
        totals.steps > 0 ? static_cast<double>(scheduled_sum_) / static_cast<double>(totals.steps)
                         : 0.0;
    return std::move(out_);
  }

 private:
  // Clients of a closed loop, else in-flight slots of a capped open loop, else 0 (no slots).
  std::int64_t slot_count() const {
    return arrivals_.concurrency > 0 ? arrivals_.concurrency : arrivals_.max_inflight;
  }

  // A closed loop of sessions (ArrivalOptions::session_turns > 1).
  bool sessions() const { return arrivals_.concurrency > 0 && arrivals_.session_turns > 1; }
  std::size_t session_turns() const { return static_cast<std::size_t>(arrivals_.session_turns); }

  double next_arrival_s() const {
    if (next_request_ >= requests_.size()) return kUnlimited;
    if (sessions()) return ready_turns_.empty() ? kUnlimited : ready_turns_.top().first;
    const double scheduled_s = requests_[next_request_].arrival_s / arrivals_.rate_scale;
    if (slot_count() > 0) {
      if (ready_clients_.empty()) return kUnlimited;
      // A closed loop sends when a client is ready; a capped open loop when the request is due
      // and a slot is free.
      return arrivals_.concurrency > 0 ? ready_clients_.top()
                                       : std::max(ready_clients_.top(), scheduled_s);
    }
    return scheduled_s;
  }

  // Keeps one arrival event in the queue, at the next arrival's time: a closed loop's next
  // arrival moves when a client becomes ready, and the superseded event is skipped when popped.
  void schedule_arrival() {
    const double time_s = next_arrival_s();
    if (arrival_pending_ && arrival_time_s_ == time_s) return;
    ++arrival_generation_;
    arrival_pending_ = !std::isinf(time_s);
    arrival_time_s_ = time_s;
    if (arrival_pending_) events_.schedule({time_s, kArrival, arrival_generation_});
  }

  // A replica has one event in the queue while it has one: its step's end, or the start of its
  // next step when it has work. Its key does not change while queued (assign moves the clock of
  // an idle replica only).
  void schedule_replica(std::size_t r) {
    Replica& replica = replicas_[r];
    if (replica.queued || (!replica.in_step && !replica.has_work())) return;
    replica.queued = true;
    events_.schedule(
        {replica.clock_s, replica.in_step ? kStepEnd : kStepStart, static_cast<std::uint32_t>(r)});
  }

  void set_outstanding(std::size_t r, std::int64_t outstanding) {
    replicas_[r].outstanding = outstanding;
    router_->outstanding_changed(r, outstanding);
  }

  void assign(Sequence sequence, std::size_t r, double now_s) {
    sequence.replica = static_cast<std::uint16_t>(std::min<std::size_t>(r, 0xFFFF));
    Replica& replica = replicas_[r];
    if (!replica.in_step && !replica.has_work()) replica.clock_s = std::max(replica.clock_s, now_s);
    if (caches_) take_cached_prefix(sequence, r);
    replica.waiting.push_back(sequence);
    set_outstanding(r, replica.outstanding + 1);
  }

  // Per-replica caches: a request with block ids finds its cached prefix in the cache of the
  // replica it is placed on, which then holds its blocks.
  void take_cached_prefix(Sequence& sequence, std::size_t r) {
    const auto index = static_cast<std::size_t>(sequence.index);
    if (caches_->has_blocks(index)) {
      const std::int64_t cached = caches_->admit(r, index, sequence.prompt).cached_tokens;
      sequence.cached =
          static_cast<std::int32_t>(std::min<std::int64_t>(cached, sequence.prompt - 1));
      sequence.computed = sequence.cached;
    }
    out_.totals.placed_prompt_tokens += sequence.prompt;
    out_.totals.placed_cached_tokens += sequence.cached;
  }

  // The next request arrives: to the replica the router names (returned), or to the router's
  // queue (replicas_.size()).
  std::size_t dispatch(double arrival_s) {
    // The request sent: a session's next turn, else the log's next request.
    std::size_t index = next_request_;
    if (sessions()) {
      index = ready_turns_.top().second;
      ready_turns_.pop();
    } else if (slot_count() > 0) {
      ready_clients_.pop();
    }
    const ReplayRequest& request = requests_[index];
    Sequence sequence;
    sequence.arrival_s = arrival_s;
    sequence.index = static_cast<std::int32_t>(index);
    // Lengths held below 2^28 so that prompt + response stays far from int32's limit.
    sequence.prompt = std::clamp<std::int32_t>(request.prompt_tokens, 1, kMaxReplayTokens);
    sequence.response = std::clamp<std::int32_t>(request.response_tokens, 1, kMaxReplayTokens);
    sequence.cached = std::clamp<std::int32_t>(request.cached_tokens, 0, sequence.prompt - 1);
    sequence.computed = sequence.cached;
    sequence.kernel_speedup = request.kernel_speedup;
    if (keep_sent_times_) out_.sent_s[index] = arrival_s;
    const std::size_t r = router_->route(index);
    if (r < replicas_.size()) {
      assign(sequence, r, arrival_s);
    } else {
      at_router_.push_back(sequence);
    }
    ReplayTotals& totals = out_.totals;
    if (next_request_ == 0) totals.first_arrival_s = arrival_s;
    totals.last_arrival_s = arrival_s;
    ++next_request_;
    return r;
  }

  // Adds `tokens` of `sequence` to the batch: a decode token or a prefill chunk.
  static void add_to_batch(const Sequence& sequence, std::int32_t tokens, BatchComposition& batch) {
    if (sequence.decoding()) {
      ++batch.decode_sequences;
      batch.decode_kv_tokens += static_cast<double>(sequence.computed) + 1;  // itself included
    } else {
      batch.prefill_tokens += tokens;
      batch.prefill_pairs += causal_pairs(tokens, sequence.computed);
    }
  }

  // add_to_batch, and this request's own part for a step timer that prices requests apart.
  void add_request(const Sequence& sequence, std::int32_t tokens) {
    add_to_batch(sequence, tokens, batch_);
    if (timer_wants_requests_) {
      BatchComposition own;  // this request's part of the step alone
      add_to_batch(sequence, tokens, own);
      timer_.add_request(own, sequence.kernel_speedup);
    }
  }

  void preempt(Replica& replica) {
    Sequence victim = replica.running.back();
    replica.running.pop_back();
    replica.free_blocks += victim.blocks;
    victim.blocks = 0;
    victim.chunk = 0;
    victim.computed = victim.cached;  // recompute: the prefix cache may still hold the prefix
    if (victim.preemptions < 0xFFFF) ++victim.preemptions;
    ++out_.totals.preemptions;
    replica.waiting.push_front(victim);
  }

  // Blocks to add so that `sequence` holds `tokens`.
  std::int32_t extra_blocks(const Sequence& sequence, std::int64_t tokens) const {
    // Most steps a sequence's blocks already hold its next token (a decode needs a block once
    // every block_tokens tokens): no division then, the same 0.
    if (tokens <= static_cast<std::int64_t>(sequence.blocks) * scheduler_.block_tokens) return 0;
    return std::max<std::int32_t>(
        0,
        static_cast<std::int32_t>(blocks_for(tokens, scheduler_.block_tokens)) - sequence.blocks);
  }

  // StepForming, over the replica whose step is being formed (current_).
  bool schedule_running(Part part) override {
    Replica& replica = *current_;
    if (part != Part::prefills && replica.pool.size > 0) schedule_pool(replica);
    bool preempted = false;
    for (std::size_t i = 0; i < replica.running.size() && budget_ > 0; ++i) {
      const Sequence& probe = replica.running[i];
      if ((part == Part::prefills && probe.decoding()) ||
          (part == Part::decodes && !probe.decoding())) {
        continue;
      }
      const auto want = static_cast<std::int32_t>(
          std::min<std::int64_t>(probe.target() - probe.computed, budget_));
      const std::int32_t need = extra_blocks(probe, probe.computed + want);
      bool self_preempted = false;
      while (need > replica.free_blocks) {
        self_preempted = replica.running.size() == i + 1;
        preempt(replica);
        preempted = true;
        if (self_preempted) break;
      }
      if (self_preempted) break;
      Sequence& sequence = replica.running[i];
      sequence.blocks += need;
      replica.free_blocks -= need;
      sequence.chunk = want;
      budget_ -= want;
      add_request(sequence, want);
    }
    return preempted;
  }

  void schedule_waiting(std::int64_t admit_at_most) override {
    Replica& replica = *current_;
    const double now_s = replica.clock_s;
    for (std::int64_t admitted = 0; admitted < admit_at_most && !replica.waiting.empty() &&
                                    budget_ > 0 && replica.running_count() < scheduler_.max_seqs;
         ++admitted) {
      Sequence& sequence = replica.waiting.front();
      const std::int64_t remaining = sequence.target() - sequence.computed;
      const auto want = static_cast<std::int32_t>(std::min(remaining, budget_));
      if (!scheduler_.chunked_prefill && want < remaining) break;
      const std::int32_t need = extra_blocks(sequence, sequence.computed + want);
      if (need > replica.free_blocks) break;
      sequence.blocks += need;
      replica.free_blocks -= need;
      sequence.chunk = want;
      budget_ -= want;
      add_request(sequence, want);
      if (!sequence.scheduled_once) {
        sequence.scheduled_once = true;
        sequence.queue_ms = to_float_ms(now_s - sequence.arrival_s);
      }
      sequence.admitted = replica.admissions++;
      replica.running.push_back(sequence);
      replica.waiting.pop_front();
    }
  }

  double step_tokens() const override { return batch_.tokens(); }
  std::size_t running_requests() const override {
    return static_cast<std::size_t>(current_->running_count());
  }

  // The decoding pool (DecodingPool). Its members, one decode token each, ahead of the running
  // requests (they are older): in O(1) when all of them fit the step's budget and the blocks
  // they need are free, so that visiting them one by one would neither stop at the budget nor
  // preempt. Otherwise (and for a second visit in one step) they are made explicit again and
  // the loop visits each.
  void schedule_pool(Replica& replica) {
    DecodingPool& pool = replica.pool;
    const std::int64_t blocks = pool_new_blocks(pool, pool.round);
    if (pool.scheduled || pool.size > budget_ ||
        static_cast<double>(blocks) > replica.free_blocks) {
      materialize_pool(replica);
      return;
    }
    take_pool_round(replica, blocks);
  }

  // The pool's round `pool.round` joins the forming step: every member's token, the `blocks`
  // that round needs.
  void take_pool_round(Replica& replica, std::int64_t blocks) {
    DecodingPool& pool = replica.pool;
    pool.scheduled = true;
    budget_ -= pool.size;
    replica.free_blocks -= static_cast<double>(blocks);
    batch_.decode_sequences += pool.size;
    // Each member reads its computed tokens and itself: Σ (c0 + R - r0 + 1).
    batch_.decode_kv_tokens += static_cast<double>(pool.kv_base + pool.size * pool.round);
  }

  // New KV blocks round `round` takes: members whose computed tokens then fill their last block.
  std::int64_t pool_new_blocks(const DecodingPool& pool, std::int64_t round) const {
    if (pool.by_residue.empty()) return 0;  // unlimited KV: not counted
    const std::int64_t block = scheduler_.block_tokens;
    return pool.by_residue[static_cast<std::size_t>((block - round % block) % block)];
  }

  std::size_t pool_residue(std::int64_t computed_minus_round) const {
    const std::int64_t block = scheduler_.block_tokens;
    return static_cast<std::size_t>(((computed_minus_round % block) + block) % block);
  }

  // A member as the pool's rounds so far left it (a decode's blocks hold exactly its tokens).
  Sequence pool_member_now(const DecodingPool& pool, std::uint32_t slot) const {
    const DecodingMember& member = pool.members[slot];
    Sequence sequence = member.sequence;
    const auto rounds = static_cast<std::int32_t>(pool.round - member.joined_round);
    sequence.computed += rounds;
    sequence.generated += rounds;
    if (rounds > 0) sequence.last_token_s = pool.last_round_end_s;
    sequence.blocks =
        static_cast<std::int32_t>(blocks_for(sequence.computed, scheduler_.block_tokens));
    return sequence;
  }

  // The leading decoding sequences of `running` (older than the rest) join the pool, each as it
  // stands after a step's end: no token scheduled, its blocks exactly its tokens'.
  void join_pool(Replica& replica) {
    std::size_t joining = 0;
    for (; joining < replica.running.size(); ++joining) {
      const Sequence& sequence = replica.running[joining];
      if (!sequence.decoding() || sequence.chunk != 0 ||
          sequence.blocks != blocks_for(sequence.computed, scheduler_.block_tokens)) {
        break;
      }
    }
    if (joining == 0) return;
    DecodingPool& pool = replica.pool;
    for (std::size_t i = 0; i < joining; ++i) {
      const Sequence& sequence = replica.running[i];
      std::uint32_t slot = 0;
      if (pool.free_slots.empty()) {
        slot = static_cast<std::uint32_t>(pool.members.size());
        pool.members.emplace_back();
      } else {
        slot = pool.free_slots.back();
        pool.free_slots.pop_back();
      }
      pool.members[slot] = {sequence, pool.round};
      const std::int64_t base = sequence.computed - pool.round;
      pool.kv_base += base + 1;
      if (!pool.by_residue.empty()) ++pool.by_residue[pool_residue(base)];
      // Its last token comes at the end of round r0 + (response - generated - 1).
      pool.finishes.push_back(
          {pool.round + sequence.response - sequence.generated - 1, sequence.admitted, slot});
      std::push_heap(pool.finishes.begin(), pool.finishes.end(), std::greater<>{});
      pool.fresh.push_back(slot);
      ++pool.size;
    }
    replica.running.erase(replica.running.begin(),
                          replica.running.begin() + static_cast<std::ptrdiff_t>(joining));
  }

  void leave_pool(DecodingPool& pool, std::uint32_t slot) {
    const DecodingMember& member = pool.members[slot];
    const std::int64_t base = member.sequence.computed - member.joined_round;
    pool.kv_base -= base + 1;
    if (!pool.by_residue.empty()) --pool.by_residue[pool_residue(base)];
    pool.free_slots.push_back(slot);
    --pool.size;
  }

  // The members back in `running`, in admission order ahead of the rest, each as the pool's
  // rounds left it; when the forming step already carries them, with that token scheduled.
  void materialize_pool(Replica& replica) {
    DecodingPool& pool = replica.pool;
    std::vector<Sequence> members;
    members.reserve(static_cast<std::size_t>(pool.size));
    for (const DecodingFinish& finish : pool.finishes) {
      Sequence sequence = pool_member_now(pool, finish.slot);
      if (pool.scheduled) {
        sequence.chunk = 1;
        sequence.blocks =
            static_cast<std::int32_t>(blocks_for(sequence.computed + 1, scheduler_.block_tokens));
      }
      members.push_back(sequence);
    }
    std::sort(members.begin(), members.end(),
              [](const Sequence& a, const Sequence& b) { return a.admitted < b.admitted; });
    replica.running.insert(replica.running.begin(), members.begin(), members.end());
    pool.members.clear();
    pool.free_slots.clear();
    pool.finishes.clear();
    pool.fresh.clear();
    std::fill(pool.by_residue.begin(), pool.by_residue.end(), 0);
    pool.size = 0;
    pool.kv_base = 0;
    pool.scheduled = false;
  }

  // The end of the pool's round in the step ending at `end_s`, as emit_tokens would run it for
  // each member in admission order: the older members' inter-token latencies (one value: they
  // all had a token at the previous round's end), then the newly joined ones' from their own
  // last token; then the members whose last token this was finish, in admission order. Returns
  // the members the round carried.
  std::int64_t end_pool_round(Replica& replica, double end_s) {
    DecodingPool& pool = replica.pool;
    const std::int64_t carried = pool.size;
    if (keep_itl_) {
      const std::int64_t older = carried - static_cast<std::int64_t>(pool.fresh.size());
      if (older > 0) add_equal_itls((end_s - pool.last_round_end_s) * 1000.0, older);
      for (const std::uint32_t slot : pool.fresh) {
        add_itl((end_s - pool.members[slot].sequence.last_token_s) * 1000.0);
      }
    }
    pool.fresh.clear();
    out_.totals.output_tokens += carried;
    const std::int64_t ended = pool.round++;
    pool.last_round_end_s = end_s;
    pool.scheduled = false;
    while (!pool.finishes.empty() && pool.finishes.front().round == ended) {
      std::pop_heap(pool.finishes.begin(), pool.finishes.end(), std::greater<>{});
      const std::uint32_t slot = pool.finishes.back().slot;
      pool.finishes.pop_back();
      Sequence sequence = pool_member_now(pool, slot);
      finish(replica, sequence, end_s);
      leave_pool(pool, slot);
    }
    return carried;
  }

  // A request that can never be scheduled (a prompt over the budget without chunking, or over
  // the KV capacity): it leaves without a token rather than stalling the replica forever. The
  // caller validates against this; here it only keeps the replay finite.
  void drop_unschedulable(Replica& replica) {
    const Sequence sequence = replica.waiting.front();
    replica.waiting.pop_front();
    set_outstanding(index_of(replica), replica.outstanding - 1);
    replica_freed(replica, replica.clock_s);
    if (keep_timing_) {
      RequestTiming& timing = out_.timing[static_cast<std::size_t>(sequence.index)];
      const float nan = std::numeric_limits<float>::quiet_NaN();
      timing.ttft_ms = timing.tpot_ms = timing.e2e_ms = timing.queue_ms = nan;
      timing.replica = sequence.replica;
    }
    ++out_.totals.unschedulable;
    client_ready(sequence.arrival_s, static_cast<std::size_t>(sequence.index));
  }

  std::size_t index_of(const Replica& replica) const {
    return static_cast<std::size_t>(&replica - replicas_.data());
  }

  // A replica finished a request: with a shared queue, the router's first request takes its place.
  void replica_freed(Replica& replica, double now_s) {
    if (at_router_.empty()) return;
    assign(at_router_.front(), index_of(replica), now_s);
    at_router_.pop_front();
  }

  // Request `index` left the engine at `time_s`: its client (closed loop) may send again after
  // its think time (with sessions: its session's next turn, else the next session), or its
  // in-flight slot (capped open loop) is free.
  void client_ready(double time_s, std::size_t index) {
    if (sessions()) {
      const std::size_t turns = session_turns();
      std::size_t next = index + 1;
      if (next % turns == 0 || next >= requests_.size()) {  // its session is over
        next = next_session_ * turns;
        ++next_session_;
      }
      if (next < requests_.size()) ready_turns_.push({time_s + arrivals_.think_time_s, next});
    } else if (arrivals_.concurrency > 0) {
      ready_clients_.push(time_s + arrivals_.think_time_s);
    } else if (arrivals_.max_inflight > 0) {
      ready_clients_.push(time_s);
    }
  }

  // The start of one engine step of `replica`: the policy forms the batch, the timer times it.
  void start_step(Replica& replica) {
    current_ = &replica;
    budget_ = scheduler_.max_batched_tokens;
    batch_ = {};
    timer_.begin_step();
    const std::int64_t preemptions_before = out_.totals.preemptions;
    policy_.form_step(*this);
    if (batch_.tokens() <= 0) {
      drop_unschedulable(replica);
      return;
    }
    run_formed_step(replica);
    if (decode_steps_repeat_ && out_.totals.preemptions == preemptions_before) {
      advance_decode_steps(replica);
    }
  }

  // Times the formed step (batch_) and starts it: the replica is busy until its end.
  void run_formed_step(Replica& replica) {
    const StepTime time = timer_.time(batch_);
    ReplayTotals& totals = out_.totals;
    ++totals.steps;
    totals.busy_ms += time.total_ms();
    totals.attention_ms += time.attention_ms();
    totals.prompt_tokens_computed += static_cast<std::int64_t>(batch_.prefill_tokens);
    replica.clock_s += time.total_ms() / 1000.0;
    replica.in_step = true;
  }

  // Whether `replica`'s next step would start before every other event in the queue: its step's
  // end (rank kStepEnd) and the next step's start (kStepStart), both at its clock, are then the
  // next two events the loop would run, with nothing between them.
  bool next_step_starts_first(const Replica& replica) const {
    if (events_.empty()) return true;
    const Event& next = events_.next();
    const double at_s = replica.clock_s;
    if (at_s != next.time_s) return at_s < next.time_s;
    if (kStepStart != next.rank) return kStepStart < next.rank;
    return index_of(replica) < next.id;
  }

  // Steps of decodes only, advanced without forming each (the step just started is one).
  //
  // While every running request is a pool member carried by the step, nothing was admitted or
  // preempted, no other event comes first and no request finishes, the next step is the same
  // batch with every sequence's context one token longer: the policy forms it the same way (its
  // choices depend on the budget, max_seqs, the free blocks, which only fall, and which requests
  // decode; StepPolicy::repeats_decode_steps), so it is the pool's next round. This runs those
  // steps' ends and starts in the order the event loop would, with the same arithmetic (the same
  // StepTimer calls on the same compositions, the clock and totals summed step by step, each
  // inter-token latency added one by one): the replay's output is bit-identical to forming every
  // step. With finite KV it stops before a round whose new blocks are not all free (that step is
  // formed: it preempts).
  void advance_decode_steps(Replica& replica) {
    DecodingPool& pool = replica.pool;
    if (!pool.scheduled || !replica.running.empty() || batch_.prefill_tokens != 0 ||
        !next_step_starts_first(replica)) {
      return;
    }
    const std::int64_t carried = pool.size;
    // Round ends that finish no request: those before the first member's last round.
    const std::int64_t first_finish = pool.finishes.front().round;
    while (pool.round < first_finish && next_step_starts_first(replica)) {
      const std::int64_t blocks = pool_new_blocks(pool, pool.round + 1);
      if (static_cast<double>(blocks) > replica.free_blocks) break;
      // The end of this step (as end_step and emit_tokens would run it)...
      (void)end_pool_round(replica, replica.clock_s);
      out_.totals.max_running = std::max(out_.totals.max_running, carried);
      scheduled_sum_ += carried;
      // ...and the start of the next: every member one token longer.
      timer_.begin_step();
      batch_ = {};
      budget_ = scheduler_.max_batched_tokens;
      take_pool_round(replica, blocks);
      run_formed_step(replica);
    }
  }

  // Inter-token latencies of `count` sequences that had their last token at one time: one value.
  void add_equal_itls(double itl_ms, std::int64_t count) {
    if (itl_ms != last_itl_ms_) {
      last_itl_ms_ = itl_ms;
      last_itl_bin_ = ItlHistogram::bin_of(itl_ms);
    }
    ItlHistogram& itl = out_.totals.itl;
    itl.counts[last_itl_bin_] += count;
    itl.total += count;
    for (std::int64_t i = 0; i < count; ++i) itl.sum_ms += itl_ms;  // one by one, as emitted
  }

  // The end of the step: tokens out, finished requests leave. Returns the step's sequences.
  std::int64_t end_step(Replica& replica) {
    replica.in_step = false;
    const std::int64_t in_batch = emit_tokens(replica, replica.clock_s);
    out_.totals.max_running = std::max(out_.totals.max_running, in_batch);
    return in_batch;
  }

  // Applies the step that ends at `end_s`; returns how many sequences it carried.
  std::int64_t emit_tokens(Replica& replica, double end_s) {
    bool any_finished = false;
    // The pool's members first: they are the oldest.
    std::int64_t in_batch = replica.pool.scheduled ? end_pool_round(replica, end_s) : 0;
    for (Sequence& sequence : replica.running) {
      if (sequence.chunk == 0) continue;
      ++in_batch;
      sequence.computed += sequence.chunk;
      sequence.chunk = 0;
      if (sequence.computed < sequence.target()) continue;  // a prefill chunk, more to come
      if (sequence.generated == 0) {
        sequence.ttft_ms = to_float_ms(end_s - sequence.arrival_s);
      } else {
        if (keep_itl_) add_itl((end_s - sequence.last_token_s) * 1000.0);
      }
      ++sequence.generated;
      ++out_.totals.output_tokens;
      sequence.last_token_s = end_s;
      if (sequence.generated >= sequence.response) {
        finish(replica, sequence, end_s);
        any_finished = true;
      }
    }
    if (any_finished) {
      std::erase_if(replica.running, [](const Sequence& s) { return s.blocks < 0; });
    }
    if (pool_enabled_) join_pool(replica);
    return in_batch;
  }

  // ItlHistogram::add, with the last value's bin remembered: the decodes of one step that were
  // also in the step before share one inter-token latency (the step's time), so one logarithm a
  // step serves them all. Same bins, same sums in the same order.
  void add_itl(double itl_ms) {
    if (itl_ms != last_itl_ms_) {
      last_itl_ms_ = itl_ms;
      last_itl_bin_ = ItlHistogram::bin_of(itl_ms);
    }
    out_.totals.itl.add_to_bin(last_itl_bin_, 1, itl_ms);
  }

  void finish(Replica& replica, Sequence& sequence, double end_s) {
    const double overhead_ms = scheduler_.request_overhead_ms;
    const double e2e_ms = (end_s - sequence.arrival_s) * 1000.0;
    const double ttft_ms = static_cast<double>(sequence.ttft_ms);
    RequestTiming timing;
    timing.queue_ms = sequence.queue_ms;
    timing.replica = sequence.replica;
    // TPOT = (E2E - TTFT) / (tokens - 1): the engine's times, so the overhead cancels.
    timing.tpot_ms = sequence.response >= 2
                         ? static_cast<float>((e2e_ms - ttft_ms) / (sequence.response - 1))
                         : std::numeric_limits<float>::quiet_NaN();
    timing.ttft_ms = static_cast<float>(ttft_ms + overhead_ms);
    timing.e2e_ms = static_cast<float>(e2e_ms + overhead_ms);
    timing.preemptions = sequence.preemptions;
    replica.free_blocks += sequence.blocks;
    sequence.blocks = -1;  // marks it for removal
    set_outstanding(index_of(replica), replica.outstanding - 1);
    replica_freed(replica, end_s);
    out_.totals.last_completion_s = std::max(out_.totals.last_completion_s, end_s);
    client_ready(end_s + overhead_ms / 1000.0, static_cast<std::size_t>(sequence.index));
    if (keep_timing_) out_.timing[static_cast<std::size_t>(sequence.index)] = timing;
    if (on_complete_) on_complete_(static_cast<std::size_t>(sequence.index), timing);
    if (keep_going_ && !(*keep_going_)(static_cast<std::size_t>(sequence.index), timing)) {
      stopped_ = true;
    }
  }

  const std::vector<ReplayRequest>& requests_;
  bool keep_timing_;      // out_.timing holds every request's values (else on_complete alone)
  bool keep_sent_times_;  // out_.sent_s holds every request's send time
  bool keep_itl_;         // out_.totals.itl counts every inter-token latency
  // replay_until's: asked at each completion whether the replay goes on.
  const CompletionVerdict* keep_going_;
  bool stopped_ = false;  // keep_going_ said no: no further event is run
  double last_itl_ms_ = std::numeric_limits<double>::quiet_NaN();  // add_itl's last value
  std::size_t last_itl_bin_ = 0;                                   // and its bin
  StepTimer& timer_;
  bool timer_wants_requests_;
  const StepPolicy& policy_;
  // Steps of decodes only may be advanced together (advance_decode_steps): the policy repeats
  // them and the timer prices the batch's sums, not each request.
  bool decode_steps_repeat_;
  // Decoding sequences are kept implicit (DecodingPool): the same condition, and with finite KV
  // a block size small enough for a counter per residue.
  bool pool_enabled_;
  std::int64_t scheduled_sum_ = 0;  // Σ over steps of the sequences each carried
  SchedulerOptions scheduler_;
  ArrivalOptions arrivals_;
  const CompletionCallback& on_complete_;
  std::vector<Replica> replicas_;
  std::unique_ptr<ReplicaPrefixCaches> caches_;  // null: the requests' own cached_tokens
  std::unique_ptr<Router> router_;
  EventQueue events_;
  std::uint32_t arrival_generation_ = 0;  // the id of the arrival event in the queue
  bool arrival_pending_ = false;
  double arrival_time_s_ = 0;
  // The step being formed.
  Replica* current_ = nullptr;
  std::int64_t budget_ = 0;
  BatchComposition batch_;
  std::deque<Sequence> at_router_;  // shared_queue routing: requests no replica has room for
  std::priority_queue<double, std::vector<double>, std::greater<>> ready_clients_;
  // Closed loop of sessions: when each client sends its next turn (request index); ties go by
  // index. The next session to start is session next_session_.
  std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>,
                      std::greater<>>
      ready_turns_;
  std::size_t next_session_ = 0;
  std::size_t next_request_ = 0;  // requests sent (without sessions: also the next one's index)
  BatchReplay out_;
};

}  // namespace

std::size_t ItlHistogram::bin_of(double itl_ms) {
  const double position =
      itl_ms > kItlLowestMs ? std::log(itl_ms / kItlLowestMs) / kItlLogRatio : 0.0;
  return std::min<std::size_t>(static_cast<std::size_t>(position), kItlBins - 1);
}

void ItlHistogram::add(double itl_ms) {
  add_to_bin(bin_of(itl_ms), 1, itl_ms);
}

void ItlHistogram::add_to_bin(std::size_t bin, std::int64_t count, double run_sum_ms) {
  if (counts.empty()) counts.assign(kItlBins, 0);
  counts[bin] += count;
  total += count;
  sum_ms += run_sum_ms;
}

double ItlHistogram::percentile(double point) const {
  if (total == 0) return 0.0;
  // The value of rank ceil(point/100 · total) (at least the first).
  const auto rank = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(point / 100.0 * static_cast<double>(total))));
  std::int64_t seen = 0;
  for (std::size_t bin = 0; bin < counts.size(); ++bin) {
    seen += counts[bin];
    if (seen >= rank) {
      // Geometric midpoint of [lowest · r^bin, lowest · r^(bin+1)).
      return kItlLowestMs * std::exp((static_cast<double>(bin) + 0.5) * kItlLogRatio);
    }
  }
  return kItlLowestMs * std::exp(static_cast<double>(kItlBins) * kItlLogRatio);
}

std::int64_t blocks_needed(const ReplayRequest& request, std::int64_t block_tokens) {
  const std::int64_t tokens = static_cast<std::int64_t>(std::max(1, request.prompt_tokens)) +
                              std::max(1, request.response_tokens);
  return (tokens + block_tokens - 1) / block_tokens;
}

BatchReplay replay_batches(const std::vector<ReplayRequest>& requests, const StepModel& model,
                           const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                           const ArrivalOptions& arrivals, const CompletionCallback& on_complete,
                           bool keep_timing, bool keep_sent_times) {
  ModelStepTimer timer(model, speedup);
  return replay_batches(requests, timer, scheduler, arrivals, on_complete, keep_timing,
                        keep_sent_times);
}

BatchReplay replay_batches(const std::vector<ReplayRequest>& requests, StepTimer& timer,
                           const SchedulerOptions& scheduler, const ArrivalOptions& arrivals,
                           const CompletionCallback& on_complete, bool keep_timing,
                           bool keep_sent_times) {
  Simulator simulator(requests, timer, scheduler, arrivals, on_complete, keep_timing,
                      keep_sent_times);
  return simulator.run();
}

ReplayTotals replay_until(const std::vector<ReplayRequest>& requests, const StepModel& model,
                          const AttentionSpeedup& speedup, const SchedulerOptions& scheduler,
                          const ArrivalOptions& arrivals, const CompletionVerdict& keep_going) {
  ModelStepTimer timer(model, speedup);
  const CompletionCallback none;  // the simulator holds it by reference: it outlives the run
  Simulator simulator(requests, timer, scheduler, arrivals, none, false, false, &keep_going);
  return simulator.run().totals;
}

}  // namespace kspeed::engine
