#include "kspeed/engine/serving/prefix_aware_router.hpp"

#include "kspeed/engine/serving/replica_caches.hpp"

namespace kspeed::engine {

PrefixAwareRouter::PrefixAwareRouter(std::size_t replicas, const ReplicaPrefixCaches* caches)
    : outstanding_(replicas, 0), caches_(caches) {}

std::size_t PrefixAwareRouter::route(std::size_t request) {
  const bool by_cache = caches_ != nullptr && caches_->has_blocks(request);
  std::size_t best = 0;
  std::int64_t best_blocks = -1;
  for (std::size_t r = 0; r < outstanding_.size(); ++r) {
    const std::int64_t blocks = by_cache ? caches_->cached_blocks(r, request) : 0;
    // Strictly better only: an equal replica further on loses to the lower index.
    if (blocks > best_blocks || (blocks == best_blocks && outstanding_[r] < outstanding_[best])) {
      best = r;
      best_blocks = blocks;
    }
  }
  return best;
}

void PrefixAwareRouter::outstanding_changed(std::size_t replica, std::int64_t outstanding) {
  outstanding_[replica] = outstanding;
}

}  // namespace kspeed::engine
