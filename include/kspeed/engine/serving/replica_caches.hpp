#pragma once
// Each replica's own prefix cache in the replay (issue 26). A replica reuses only the KV its own
// GPUs computed: with N replicas a request's cached prefix is what the cache of the replica it
// runs on holds, so it depends on the router. Each replica keeps an LRU of the same capacity as
// the one cache of `--prefix-cache` (mix_cache.hpp), over the requests' block ids (Mooncake's
// hash_ids), and admits a request's blocks when the request is placed on it, as the one cache
// admits them in arrival order.
//
// The block ids are a side store beside the replay's 24-byte requests: one flat list and where
// each request's ids start, held only for a log that has them (a log without any holds nothing).

#include <cstdint>
#include <span>
#include <vector>

#include "kspeed/engine/serving/mix_cache.hpp"

namespace kspeed::engine {

/// Requests' block ids, request after request: request i's are of(i) (empty: it has none).
class RequestBlockIds {
 public:
  /// Appends the next request's ids (empty when it has none).
  void add(std::span<const std::uint64_t> ids);
  std::span<const std::uint64_t> of(std::size_t request) const;
  std::size_t requests() const { return starts_.empty() ? leading_empty_ : starts_.size() - 1; }
  /// Whether any request has ids.
  bool any() const { return !ids_.empty(); }
  /// Bytes held (the ids and where each request's start).
  std::size_t bytes() const {
    return ids_.capacity() * sizeof(std::uint64_t) + starts_.capacity() * sizeof(std::uint64_t);
  }

 private:
  std::vector<std::uint64_t> ids_;
  /// Request i's ids are ids_[starts_[i], starts_[i + 1]); empty until a request has ids.
  std::vector<std::uint64_t> starts_;
  std::size_t leading_empty_ = 0;  ///< requests added before the first with ids
};

/// What the replay needs for per-replica caches: each replica's capacity and the replayed
/// requests' block ids, in the replay's request order.
struct ReplayPrefixCaching {
  std::int64_t capacity_tokens = 0;  ///< each replica's
  std::int64_t block_tokens = kMooncakeBlockTokens;
  RequestBlockIds blocks;
};

/// The replicas' caches during one replay.
class ReplicaPrefixCaches {
 public:
  ReplicaPrefixCaches(const ReplayPrefixCaching& caching, std::size_t replicas);

  /// Whether request `request` has block ids (else its own cached_tokens stand).
  bool has_blocks(std::size_t request) const { return !caching_.blocks.of(request).empty(); }
  /// Blocks of `request`, from the first, that `replica`'s cache holds now (unchanged).
  std::int64_t cached_blocks(std::size_t replica, std::size_t request) const;
  /// Places `request` on `replica`: its cached prefix there, and its blocks now in that cache.
  CacheSplit admit(std::size_t replica, std::size_t request, std::int64_t prompt_tokens);

 private:
  const ReplayPrefixCaching& caching_;
  std::vector<PrefixCache> caches_;
};

}  // namespace kspeed::engine
