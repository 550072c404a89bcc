#include "kspeed/engine/serving/router.hpp"

#include <limits>

#include "kspeed/engine/serving/prefix_aware_router.hpp"

namespace kspeed::engine {

LeastOutstandingRouter::LeastOutstandingRouter(std::size_t replicas, std::int64_t max_outstanding)
    : outstanding_(replicas, 0), max_outstanding_(max_outstanding) {
  for (std::size_t r = 0; r < replicas; ++r) by_load_.emplace(0, r);
}

std::size_t LeastOutstandingRouter::route(std::size_t) {
  const auto& [load, replica] = *by_load_.begin();
  return load < max_outstanding_ ? replica : outstanding_.size();
}

void LeastOutstandingRouter::outstanding_changed(std::size_t replica, std::int64_t outstanding) {
  by_load_.erase({outstanding_[replica], replica});
  by_load_.emplace(outstanding, replica);
  outstanding_[replica] = outstanding;
}

std::unique_ptr<Router> make_router(Routing routing, std::size_t replicas, std::int64_t max_seqs,
                                    const ReplicaPrefixCaches* caches,
                                    const RequestBlockIds* block_ids) {
  switch (routing) {
    case Routing::prefix_aware:
      return std::make_unique<PrefixAwareRouter>(replicas, caches, block_ids);
    case Routing::least_outstanding:
      return std::make_unique<LeastOutstandingRouter>(replicas,
                                                      std::numeric_limits<std::int64_t>::max());
    case Routing::shared_queue:
      return std::make_unique<LeastOutstandingRouter>(replicas, max_seqs);
    case Routing::round_robin:
      break;
  }
  return std::make_unique<RoundRobinRouter>(replicas);
}

}  // namespace kspeed::engine
