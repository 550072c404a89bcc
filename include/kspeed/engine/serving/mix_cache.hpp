#pragma once
// An LRU prefix cache over block hash ids, as Mooncake's traces describe prompts: one id per
// 512-token block, equal ids at the same position meaning a shared prefix (Qin et al.,
// "Mooncake: A KVCache-centric Disaggregated Architecture for LLM Serving", FAST 2025). It gives
// each request its cached prefix c and new tokens n, from which MODEL.md's L_eff = 2c + n follows.

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

namespace kspeed::engine {

/// Tokens per block in Mooncake's traces.
inline constexpr std::int64_t kMooncakeBlockTokens = 512;

/// A request's prompt split by the cache.
struct CacheSplit {
  std::int64_t cached_tokens = 0;  ///< c: prefix tokens found in the cache
  std::int64_t new_tokens = 0;     ///< n = prompt - c: tokens the prefill computes
};

/// Cached prefix of a prompt of `prompt_tokens` whose first `hit_blocks` blocks of
/// `block_tokens` are cached. At least one token is always computed (the last prompt token must
/// run through the model to produce the first output token), so c <= prompt - 1.
CacheSplit split_prompt(std::int64_t prompt_tokens, std::int64_t hit_blocks,
                        std::int64_t block_tokens);

/// A stated hit fraction R for logs without block ids: c = round(R * prompt), capped as above.
CacheSplit split_prompt_by_fraction(std::int64_t prompt_tokens, double hit_fraction);

/// Least-recently-used cache of blocks, with a capacity in tokens.
class PrefixCache {
 public:
  /// `capacity_tokens` / `block_tokens` blocks (at least one block when capacity > 0).
  PrefixCache(std::int64_t capacity_tokens, std::int64_t block_tokens = kMooncakeBlockTokens);

  /// Looks the request's blocks up in order and stops at the first miss (a prefix cache reuses
  /// only a leading run of blocks); then inserts or refreshes every block of the request, first
  /// to last, so the last block is the most recently used, and evicts the least recently used
  /// blocks beyond the capacity.
  CacheSplit admit(std::span<const std::uint64_t> block_hashes, std::int64_t prompt_tokens);
  CacheSplit admit(const std::vector<std::uint64_t>& block_hashes, std::int64_t prompt_tokens) {
    return admit(std::span<const std::uint64_t>(block_hashes), prompt_tokens);
  }

  /// How many of the request's blocks, from the first, the cache holds now (it is not changed:
  /// a router asks each replica's cache before it places the request).
  std::int64_t cached_blocks(std::span<const std::uint64_t> block_hashes) const;

  std::int64_t capacity_blocks() const { return capacity_blocks_; }
  std::int64_t block_tokens() const { return block_tokens_; }

 private:
  void touch(std::uint64_t block);

  std::int64_t capacity_blocks_;
  std::int64_t block_tokens_;
  std::list<std::uint64_t> recency_;  ///< front: most recently used
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
};

}  // namespace kspeed::engine
