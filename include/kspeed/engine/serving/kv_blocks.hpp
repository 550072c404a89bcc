#pragma once

#include <cstdint>

namespace kspeed::engine {

// The replay clamps a request's lengths to this many tokens: 2^28 (268 M) is far above any model's
// context, and it keeps every per-sequence token count inside an int32.
constexpr std::int32_t kMaxReplayTokens = 1 << 28;

// KV blocks of `block_tokens` tokens each that hold `tokens` tokens (the last one partly filled).
constexpr std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_tokens) {
  return (tokens + block_tokens - 1) / block_tokens;
}

}  // namespace kspeed::engine
