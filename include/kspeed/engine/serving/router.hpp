#pragma once
// How the replay's requests reach its replicas: a router sees each arrival and the replicas'
// outstanding (unfinished) request counts, which the simulator reports as they change, and
// names a replica or keeps the request at the router (a shared queue). It never sees the
// scheduler or the step model. A new router is a Router subclass and one case in make_router.

#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"

namespace kspeed::engine {

class Router {
 public:
  virtual ~Router() = default;
  /// The replica for the `request`-th arrival (0-based), or `replicas` (one past the last) to
  /// keep it at the router until a replica finishes a request.
  virtual std::size_t route(std::size_t request) = 0;
  /// Replica `replica` now has `outstanding` unfinished requests.
  virtual void outstanding_changed(std::size_t replica, std::int64_t outstanding) = 0;
};

/// Request i to replica i mod N.
class RoundRobinRouter final : public Router {
 public:
  explicit RoundRobinRouter(std::size_t replicas) : replicas_(replicas) {}
  std::size_t route(std::size_t request) override { return request % replicas_; }
  void outstanding_changed(std::size_t, std::int64_t) override {}

 private:
  std::size_t replicas_;
};

/// To the replica with the fewest outstanding requests, the lowest index on ties; with
/// `max_outstanding`, a request no replica has room for waits at the router (one shared queue:
/// with max_seqs 1 and N replicas, the M/M/c queue). O(log N) a change, not a scan of replicas.
class LeastOutstandingRouter final : public Router {
 public:
  LeastOutstandingRouter(std::size_t replicas, std::int64_t max_outstanding);
  std::size_t route(std::size_t request) override;
  void outstanding_changed(std::size_t replica, std::int64_t outstanding) override;

 private:
  std::vector<std::int64_t> outstanding_;
  std::set<std::pair<std::int64_t, std::size_t>> by_load_;  // (outstanding, replica)
  std::int64_t max_outstanding_;
};

class ReplicaPrefixCaches;
class RequestBlockIds;

/// The router `routing` names over `replicas` replicas; `max_seqs` bounds a shared queue's
/// replicas; `caches` and the requests' `block_ids` (null without per-replica caches) are what a
/// prefix-aware router reads.
std::unique_ptr<Router> make_router(Routing routing, std::size_t replicas, std::int64_t max_seqs,
                                    const ReplicaPrefixCaches* caches = nullptr,
                                    const RequestBlockIds* block_ids = nullptr);

}  // namespace kspeed::engine
