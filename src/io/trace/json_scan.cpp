#include "json_scan.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kspeed::io::trace::json_scan {

namespace {

[[noreturn]] void fail(const char* where, std::string expected) {
  throw JsonSyntaxError{where, std::move(expected)};
}

// The next '"' or '\\' at or after p; end when none. 16 or 64 bytes per step with SSE2.
const char* find_quote_or_backslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const auto hits = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    return _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
  };
  // Keys and short values end in their first 16 bytes; long strings (kernel names are 100-300
  // bytes) then go 64 bytes per test, and the 16-byte loop finds the byte in the block that
  // has one.
  if (end - p >= 16) {
    const int mask = _mm_movemask_epi8(hits(p));
    if (mask != 0) return p + std::countr_zero(static_cast<unsigned>(mask));
    p += 16;
  }
  while (end - p >= 64) {
    const __m128i any =
        _mm_or_si128(_mm_or_si128(hits(p), hits(p + 16)), _mm_or_si128(hits(p + 32), hits(p + 48)));
    if (_mm_movemask_epi8(any) != 0) break;
    p += 64;
  }
  while (end - p >= 16) {
    const int mask = _mm_movemask_epi8(hits(p));
    if (mask != 0) return p + std::countr_zero(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// After the opening quote: the position after the closing quote, or nullptr.
const char* skip_string_body(const char* p, const char* end) {
  for (;;) {
    p = find_quote_or_backslash(p, end);
    if (p >= end) return nullptr;
    if (*p == '"') return p + 1;
    p += 2;  // a backslash escapes the next byte (\uXXXX's hex digits need no care here)
    if (p > end) return nullptr;
  }
}

// One step of the bracket check: `c` opens or closes a level. Returns true when the level
// that was open at depth 1 closes (the skipped container ends).
inline bool enter_or_leave(const char* at, std::uint64_t& object_bits, int& depth) {
  constexpr int kMaxDepth = 64;
  const char c = *at;
  if (c == '{' || c == '[') {
    if (depth == kMaxDepth) fail(at, "nesting of at most 64 levels");
    object_bits = (object_bits << 1) | (c == '{' ? 1U : 0U);
    ++depth;
    return false;
  }
  const bool closes_object = (object_bits & 1U) != 0;
  if ((c == '}') != closes_object) fail(at, closes_object ? "'}'" : "']'");
  object_bits >>= 1;
  return --depth == 0;
}

#if defined(__SSE2__)
// Bit i set where byte p[i] of a 64-byte block is '"', '\\', or a bracket ('{' '}' '[' ']';
// c | 0x20 folds '[' and ']' onto '{' and '}', so two compares find all four).
struct BlockMasks {
  std::uint64_t quote = 0, backslash = 0, bracket = 0;
};

BlockMasks classify_block(const char* p) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i lower = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  BlockMasks masks;
  for (int lane = 0; lane < 64; lane += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + lane));
    const __m128i folded = _mm_or_si128(v, lower);
    const auto bits = [lane](__m128i hits) {
      return std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(hits))} << lane;
    };
    masks.quote |= bits(_mm_cmpeq_epi8(v, quote));
    masks.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
    masks.bracket |=
        bits(_mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
  }
  return masks;
}

// Bit i set when an odd number of bits 0..i are set: over the quote bits of a block, the bytes
// from an opening quote up to (not including) its closing quote. Six shifts, no multiply.
std::uint64_t prefix_xor(std::uint64_t bits) {
  for (int shift = 1; shift < 64; shift *= 2) bits ^= bits << shift;
  return bits;
}
#endif

// Scans to the end of the container at `depth` (levels described by `object_bits`, bit 0 the
// innermost: 1 = object): brackets must balance and match. 64 bytes at a time: the bytes that
// matter are found with SIMD compares, then visited in order from the bit masks, so a string
// or a run of plain bytes costs no per-byte work. Inside a string only '"' and '\\' matter
// (a backslash hides the next byte); outside, '"' and the brackets. A block without a
// backslash (nearly all) needs no visit to its quotes at all (see prefix_xor).
const char* skip_nested(const char* p, const char* end, std::uint64_t object_bits, int depth) {
  bool in_string = false;
  int skip = 0;  // bytes at the start of the block already consumed (an escaped byte)
#if defined(__SSE2__)
  while (end - p >= 64) {
    const BlockMasks masks = classify_block(p);
    if (masks.backslash == 0 && skip == 0) {
      // No escape in the block: the bytes inside strings are the prefix XOR of the quote bits
      // (set from an opening quote up to its closing one), inverted when a string is open at
      // the block's start, so only the brackets outside strings need a visit.
      const std::uint64_t strings = prefix_xor(masks.quote) ^ (in_string ? ~std::uint64_t{0} : 0);
      for (std::uint64_t brackets = masks.bracket & ~strings; brackets != 0;
           brackets &= brackets - 1) {
        const int i = std::countr_zero(brackets);
        if (enter_or_leave(p + i, object_bits, depth)) return p + i + 1;
      }
      in_string = (strings >> 63) != 0;
      p += 64;
      continue;
    }
    const std::uint64_t inside = masks.quote | masks.backslash;
    const std::uint64_t outside = masks.quote | masks.bracket;
    std::uint64_t pending = (in_string ? inside : outside) & (~std::uint64_t{0} << skip);
    skip = 0;
    while (pending != 0) {
      const int i = std::countr_zero(pending);
      int next = i + 1;
      if (in_string) {
        if (p[i] == '\\') {
          next = i + 2;
        } else {
          in_string = false;
        }
      } else if (p[i] == '"') {
        in_string = true;
      } else if (enter_or_leave(p + i, object_bits, depth)) {
        return p + i + 1;
      }
      if (next >= 64) {
        skip = next - 64;
        break;
      }
      pending = (in_string ? inside : outside) & (~std::uint64_t{0} << next);
    }
    p += 64;
  }
#endif
  // The tail (and every byte without SSE2), one byte at a time with the same rules.
  if (skip > end - p) return nullptr;
  for (p += skip; p < end; ++p) {
    const char c = *p;
    if (in_string) {
      if (c == '\\') {
        if (end - p < 2) return nullptr;
        ++p;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[' || c == '}' || c == ']') {
      if (enter_or_leave(p, object_bits, depth)) return p + 1;
    }
  }
  return nullptr;
}

const char* skip_container(const char* p, const char* end) {
  return skip_nested(p, end, 0, 0);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A double as int64, saturated: absurd values in a trace must not be undefined behaviour.
std::int64_t clamped_ns(double value) {
  constexpr double kLimit = 1e18;  // 31 years in ns: sums of a few still fit in int64
  if (value != value) return 0;    // NaN
  if (value <= -kLimit) return -static_cast<std::int64_t>(kLimit);
  if (value >= kLimit) return static_cast<std::int64_t>(kLimit);
  return std::llround(value);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

std::uint32_t read_hex4(std::string_view raw, std::size_t at, const char* where) {
  if (at + 4 > raw.size()) fail(where, "four hex digits after \\u");
  std::uint32_t code = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const int digit = hex_value(raw[i]);
    if (digit < 0) fail(where, "four hex digits after \\u");
    code = code * 16 + static_cast<std::uint32_t>(digit);
  }
  return code;
}

}  // namespace

const char* skip_rest_of_object(const char* p, const char* end) {
  return skip_nested(p, end, 1, 1);
}

const char* scan_string(const char* p, const char* end, std::string_view& out, bool& escaped) {
  const char* body = p + 1;
  const char* q = find_quote_or_backslash(body, end);
  escaped = false;
  while (q < end && *q == '\\') {
    escaped = true;
    q = find_quote_or_backslash(q + 2 > end ? end : q + 2, end);
  }
  if (q >= end) return nullptr;
  out = std::string_view(body, static_cast<std::size_t>(q - body));
  return q + 1;
}

std::string unescape(std::string_view raw, const char* where) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    if (++i >= raw.size()) fail(where, "an escape after '\\'");
    switch (raw[i]) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::uint32_t code = read_hex4(raw, i + 1, where);
        i += 4;
        // A high surrogate pairs with the \uDC00-\uDFFF that follows it.
        if (code >= 0xD800 && code < 0xDC00 && i + 6 < raw.size() &&
            raw.substr(i + 1, 2) == "\\u") {
          const std::uint32_t low = read_hex4(raw, i + 3, where);
          if (low >= 0xDC00 && low < 0xE000) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, code);
        break;
      }
      default:
        fail(where, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
  }
  return out;
}

const char* scan_number(const char* p, const char* end, std::string_view& text) {
  const char* start = p;
  if (p < end && *p == '-') ++p;
  if (p >= end) return nullptr;
  if (!is_digit(*p)) fail(p, "a digit");
  while (p < end && is_digit(*p)) ++p;
  if (p < end && *p == '.') {
    ++p;
    if (p < end && !is_digit(*p)) fail(p, "a digit after '.'");
    while (p < end && is_digit(*p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (p < end && !is_digit(*p)) fail(p, "a digit in the exponent");
    while (p < end && is_digit(*p)) ++p;
  }
  if (p >= end) return nullptr;  // the number may go on in the next chunk
  text = std::string_view(start, static_cast<std::size_t>(p - start));
  return p;
}

const char* skip_value(const char* p, const char* end) {
  if (p >= end) return nullptr;
  switch (*p) {
    case '"':
      return skip_string_body(p + 1, end);
    case '{':
    case '[':
      return skip_container(p, end);
    case 't':
    case 'f':
    case 'n': {
      const std::string_view word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
      if (static_cast<std::size_t>(end - p) < word.size()) return nullptr;
      if (std::string_view(p, word.size()) != word) fail(p, "a JSON value");
      return p + word.size();
    }
    default: {
      std::string_view text;
      if (*p != '-' && !is_digit(*p)) fail(p, "a JSON value");
      return scan_number(p, end, text);
    }
  }
}

std::optional<ExactMicroseconds> exact_microseconds(std::string_view text) {
  // The digits as one decimal significand and the power of ten it is scaled by (in us):
  // "1.5e3" is 15 x 10^2, "1733011200123456.789" is 1733011200123456789 x 10^-3.
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  // Significant digits in a fixed buffer (no allocation: this runs for every event's ts and dur);
  // digits past it lie beyond the nanosecond's rounding digit whenever the time fits at all.
  std::array<char, 40> digit_buffer{};
  std::size_t count = 0;
  int scale = 0;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      if (count == 0 && c == '0') {
        if (fraction) --scale;  // a leading zero after the point still moves it
        continue;
      }
      if (count < digit_buffer.size()) {
        digit_buffer[count++] = c;
        if (fraction) --scale;
      } else if (!fraction) {
        ++scale;  // a dropped whole digit still moves the point
      }
    } else if (c == '.' && !fraction) {
      fraction = true;
    } else {
      break;
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    int exponent = 0;
    std::size_t from = i + 1;
    if (from < text.size() && text[from] == '+') ++from;
    const auto [ptr, ec] = std::from_chars(text.data() + from, text.data() + text.size(), exponent);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    if (count == 0 || exponent < -40) return ExactMicroseconds{};  // 0, or far below 1 ns
    if (exponent > 40) return std::nullopt;
    scale += exponent;
  } else if (i != text.size()) {
    return std::nullopt;
  }
  // Whole microseconds are the digits left of the point; three more give the nanoseconds and
  // the fourth rounds them (to nearest, ties away from zero).
  const int point = static_cast<int>(count) + scale;  // digits before the point
  auto digit_at = [&](int position) -> int {          // position 0 is the first digit
    return position >= 0 && position < static_cast<int>(count)
               ? digit_buffer[static_cast<std::size_t>(position)] - '0'
               : 0;
  };
  if (point > 19) return std::nullopt;
  std::uint64_t whole = 0;
  for (int k = 0; k < point; ++k) whole = whole * 10 + static_cast<std::uint64_t>(digit_at(k));
  std::uint64_t ns = 0;
  for (int k = point; k < point + 3; ++k) ns = ns * 10 + static_cast<std::uint64_t>(digit_at(k));
  if (digit_at(point + 3) >= 5) ++ns;
  if (ns == 1000) {
    ns = 0;
    ++whole;
  }
  constexpr auto kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (whole > kMax) return std::nullopt;
  auto signed_whole = static_cast<std::int64_t>(whole);
  auto fraction_ns = static_cast<std::int32_t>(ns);
  if (negative && (signed_whole != 0 || fraction_ns != 0)) {
    signed_whole = -signed_whole;
    if (fraction_ns != 0) {
      --signed_whole;  // -1.5 us = -2 us + 500 ns
      fraction_ns = 1000 - fraction_ns;
    }
  }
  return ExactMicroseconds{signed_whole, fraction_ns};
}

std::optional<std::int64_t> ns_since(const ExactMicroseconds& time,
                                     const ExactMicroseconds& origin) {
  std::int64_t whole = 0, ns = 0;
  if (__builtin_sub_overflow(time.whole_us, origin.whole_us, &whole) ||
      __builtin_mul_overflow(whole, std::int64_t{1000}, &ns) ||
      __builtin_add_overflow(ns, std::int64_t{time.fraction_ns - origin.fraction_ns}, &ns)) {
    return std::nullopt;
  }
  return ns;
}

std::optional<std::int64_t> microseconds_text_to_ns(std::string_view text) {
  const auto time = exact_microseconds(text);
  if (!time) return std::nullopt;
  return ns_since(*time, ExactMicroseconds{});
}

std::int64_t integer_text_value(std::string_view text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && ptr == text.data() + text.size()) return value;
  return clamped_ns(std::strtod(std::string(text).c_str(), nullptr));
}

}  // namespace kspeed::io::trace::json_scan
