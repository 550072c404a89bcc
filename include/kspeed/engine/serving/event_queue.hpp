#pragma once
// The discrete-event core of the serving replay: a clock and a heap of events, as SimPy's
// Environment is (simpy/core.py: an event heap keyed by time, priority and an insertion id).
// It knows nothing of LLMs: an event is a time, a rank that orders events at equal times, and
// an id its owner reads (a replica's index, a request's, a generation). Whoever pops an event
// decides what it means; a stale event (its owner moved on) is popped and ignored by its owner.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace kspeed::engine {

struct Event {
  double time_s = 0;       ///< when it happens
  std::uint32_t rank = 0;  ///< at equal times the lower rank first
  std::uint32_t id = 0;    ///< the owner's: at equal time and rank the lower id first
};

/// Events in (time, rank, id) order. Equal keys are popped in no defined order; owners give
/// events that may tie distinct ids.
class EventQueue {
 public:
  void schedule(const Event& event) {
    heap_.push_back(event);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The next event (the queue is not empty).
  const Event& next() const { return heap_.front(); }
  /// Removes and returns the next event; the clock moves to its time.
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Event event = heap_.back();
    heap_.pop_back();
    now_s_ = event.time_s;
    return event;
  }
  /// The time of the last event popped (0 before the first).
  double now_s() const { return now_s_; }

 private:
  // std::*_heap keep the largest first: "later" puts the earliest key on top.
  static bool later(const Event& a, const Event& b) {
    if (a.time_s != b.time_s) return a.time_s > b.time_s;
    if (a.rank != b.rank) return a.rank > b.rank;
    return a.id > b.id;
  }

  std::vector<Event> heap_;
  double now_s_ = 0;
};

}  // namespace kspeed::engine
