#include "kspeed/engine/serving/replica_caches.hpp"

namespace kspeed::engine {

void RequestBlockIds::add(std::span<const std::uint64_t> ids) {
  if (starts_.empty()) {
    if (ids.empty()) {
      ++leading_empty_;
      return;
    }
    // The first request with ids: the ones before it start (and end) at 0.
    starts_.assign(leading_empty_ + 1, 0);
  }
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  starts_.push_back(ids_.size());
}

std::span<const std::uint64_t> RequestBlockIds::of(std::size_t request) const {
  if (request + 1 >= starts_.size()) return {};
  const auto first = static_cast<std::ptrdiff_t>(starts_[request]);
  const auto last = static_cast<std::ptrdiff_t>(starts_[request + 1]);
  return {ids_.begin() + first, ids_.begin() + last};
}

ReplicaPrefixCaches::ReplicaPrefixCaches(const ReplayPrefixCaching& caching, std::size_t replicas)
    : caching_(caching) {
  // Built in place: a PrefixCache's index points into its own list.
  caches_.reserve(replicas);
  for (std::size_t r = 0; r < replicas; ++r) {
    caches_.emplace_back(caching.capacity_tokens, caching.block_tokens);
  }
}

std::int64_t ReplicaPrefixCaches::cached_blocks(std::size_t replica, std::size_t request) const {
  return caches_[replica].cached_blocks(caching_.blocks.of(request));
}

CacheSplit ReplicaPrefixCaches::admit(std::size_t replica, std::size_t request,
                                      std::int64_t prompt_tokens) {
  return caches_[replica].admit(caching_.blocks.of(request), prompt_tokens);
}

}  // namespace kspeed::engine
