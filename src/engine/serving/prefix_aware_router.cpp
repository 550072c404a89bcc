#include "kspeed/engine/serving/prefix_aware_router.hpp"

#include <algorithm>

#include "kspeed/engine/serving/replica_caches.hpp"

namespace kspeed::engine {

PrefixAwareRouter::PrefixAwareRouter(std::size_t replicas, const ReplicaPrefixCaches* caches,
                                     const RequestBlockIds* block_ids)
    : outstanding_(replicas, 0), caches_(caches), block_ids_(block_ids) {}

std::size_t PrefixAwareRouter::least_outstanding() const {
  // The first of the smallest: the lowest index on ties.
  return static_cast<std::size_t>(std::min_element(outstanding_.begin(), outstanding_.end()) -
                                  outstanding_.begin());
}

bool PrefixAwareRouter::imbalanced() const {
  const auto [low, high] = std::minmax_element(outstanding_.begin(), outstanding_.end());
  return *high - *low > kBalanceAbs &&
         static_cast<double>(*high) > kBalanceRel * static_cast<double>(*low);
}

std::size_t PrefixAwareRouter::route(std::size_t request) {
  if (caches_ == nullptr || block_ids_ == nullptr || !caches_->has_blocks(request) ||
      imbalanced()) {
    return least_outstanding();
  }
  std::size_t best = 0;
  std::int64_t best_blocks = -1;
  for (std::size_t r = 0; r < outstanding_.size(); ++r) {
    const std::int64_t blocks = caches_->cached_blocks(r, request);
    // Strictly better only: an equal replica further on loses to the lower index.
    if (blocks > best_blocks || (blocks == best_blocks && outstanding_[r] < outstanding_[best])) {
      best = r;
      best_blocks = blocks;
    }
  }
  const double match =
      static_cast<double>(best_blocks) / static_cast<double>(block_ids_->of(request).size());
  return match >= kCacheThreshold ? best : least_outstanding();
}

void PrefixAwareRouter::outstanding_changed(std::size_t replica, std::int64_t outstanding) {
  outstanding_[replica] = outstanding;
}

}  // namespace kspeed::engine
