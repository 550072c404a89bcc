#include "kspeed/engine/serving/mix_cache.hpp"

#include <algorithm>
#include <cmath>

namespace kspeed::engine {

CacheSplit split_prompt(std::int64_t prompt_tokens, std::int64_t hit_blocks,
                        std::int64_t block_tokens) {
  // c = min(hit_blocks * block, prompt - 1): the last prompt token is always computed.
  const std::int64_t cached = std::clamp<std::int64_t>(
      hit_blocks * block_tokens, 0, std::max<std::int64_t>(0, prompt_tokens - 1));
  return {cached, prompt_tokens - cached};
}

CacheSplit split_prompt_by_fraction(std::int64_t prompt_tokens, double hit_fraction) {
  // c = round(R * prompt), capped at prompt - 1
  const auto cached = static_cast<std::int64_t>(
      std::llround(std::clamp(hit_fraction, 0.0, 1.0) * static_cast<double>(prompt_tokens)));
  return split_prompt(prompt_tokens, cached, 1);
}

PrefixCache::PrefixCache(std::int64_t capacity_tokens, std::int64_t block_tokens)
    : capacity_blocks_(capacity_tokens <= 0
                           ? 0
                           : std::max<std::int64_t>(
                                 1, capacity_tokens / std::max<std::int64_t>(1, block_tokens))),
      block_tokens_(std::max<std::int64_t>(1, block_tokens)) {}

void PrefixCache::touch(std::uint64_t block) {
  const auto found = where_.find(block);
  if (found != where_.end()) {
    recency_.splice(recency_.begin(), recency_, found->second);
    return;
  }
  recency_.push_front(block);
  where_.emplace(block, recency_.begin());
  if (static_cast<std::int64_t>(where_.size()) > capacity_blocks_) {
    where_.erase(recency_.back());
    recency_.pop_back();
  }
}

std::int64_t PrefixCache::cached_blocks(std::span<const std::uint64_t> block_hashes) const {
  std::int64_t hits = 0;
  while (hits < static_cast<std::int64_t>(block_hashes.size()) &&
         where_.count(block_hashes[static_cast<std::size_t>(hits)]) != 0) {
    ++hits;
  }
  return hits;
}

CacheSplit PrefixCache::admit(std::span<const std::uint64_t> block_hashes,
                              std::int64_t prompt_tokens) {
  const std::int64_t hits = cached_blocks(block_hashes);
  if (capacity_blocks_ > 0) {
    for (std::uint64_t block : block_hashes) {
      touch(block);
    }
  }
  return split_prompt(prompt_tokens, hits, block_tokens_);
}

}  // namespace kspeed::engine
