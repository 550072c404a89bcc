#pragma once
// Prefix-aware routing (issue 26): a request goes where its prompt's KV is already cached, as
// llm-d's prefix-cache scorer (https://llm-d.ai/docs/guides/optimized-baseline) and SGLang's
// cache-aware router (https://github.com/sgl-project/sglang, sgl-router) do. Both weigh the cache
// against load: by the longest prefix alone, every request of a log whose prompts share a first
// block (a system prompt) would go to the one replica that saw it first. This one follows
// SGLang's rule with the defaults its gateway documents (cache threshold 0.3, balance thresholds
// 64 and 1.5: https://github.com/lightseekorg/smg, docs/getting-started/load-balancing.md), with
// kspeed's outstanding requests as the load and cached blocks ÷ the request's blocks as the match.

#include <cstdint>
#include <vector>

#include "kspeed/engine/serving/router.hpp"

namespace kspeed::engine {

class ReplicaPrefixCaches;
class RequestBlockIds;

/// When the loads are imbalanced (the most outstanding requests exceed the fewest by more than
/// kBalanceAbs and are more than kBalanceRel times them): to the least outstanding replica.
/// Otherwise to the replica whose cache holds the most of the request's blocks from the first,
/// if that is at least kCacheThreshold of its blocks (ties: the fewest outstanding, then the
/// lowest index); else, and for a request without block ids, to the least outstanding replica
/// (lowest index on ties). Without caches: least outstanding. O(replicas × blocks cached).
class PrefixAwareRouter final : public Router {
 public:
  static constexpr double kCacheThreshold = 0.3;
  static constexpr std::int64_t kBalanceAbs = 64;
  static constexpr double kBalanceRel = 1.5;

  /// `caches` and `block_ids` (the requests', whose counts the match divides by) together, or
  /// both null.
  PrefixAwareRouter(std::size_t replicas, const ReplicaPrefixCaches* caches,
                    const RequestBlockIds* block_ids);
  std::size_t route(std::size_t request) override;
  void outstanding_changed(std::size_t replica, std::int64_t outstanding) override;

 private:
  std::size_t least_outstanding() const;
  bool imbalanced() const;

  std::vector<std::int64_t> outstanding_;
  const ReplicaPrefixCaches* caches_;
  const RequestBlockIds* block_ids_;
};

}  // namespace kspeed::engine
