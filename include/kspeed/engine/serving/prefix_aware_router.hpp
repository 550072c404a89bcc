#pragma once
// Prefix-aware routing (issue 26): a request goes where its prompt's KV is already cached, as
// llm-d's prefix-cache scorer (https://llm-d.ai/docs/guides/optimized-baseline) and SGLang's
// cache-aware router (https://github.com/sgl-project/sglang, sgl-router) do. Both weigh the cache
// against load (llm-d sums weighted scorer values; SGLang falls back to the shortest queue past
// an imbalance threshold); this one keeps one simple rule with no tuned constant: the longest
// cached prefix wins, and load decides only between equal prefixes.

#include <cstdint>
#include <vector>

#include "kspeed/engine/serving/router.hpp"

namespace kspeed::engine {

class ReplicaPrefixCaches;

/// To the replica whose cache holds the most of the request's blocks from the first; ties (and a
/// request no cache holds any of, or without block ids) to the replica with the fewest
/// outstanding requests, then the lowest index. Without caches: least outstanding. O(replicas ×
/// blocks cached) a request.
class PrefixAwareRouter final : public Router {
 public:
  PrefixAwareRouter(std::size_t replicas, const ReplicaPrefixCaches* caches);
  std::size_t route(std::size_t request) override;
  void outstanding_changed(std::size_t replica, std::int64_t outstanding) override;

 private:
  std::vector<std::int64_t> outstanding_;
  const ReplicaPrefixCaches* caches_;
};

}  // namespace kspeed::engine
