#pragma once
// Scanning primitives for the streaming Chrome-trace reader. Each works on a contiguous window
// [p, end) and returns the position after what it scanned, or nullptr when the window ends
// first (the caller reads more and scans the unit again). Malformed JSON throws JsonSyntaxError
// with the position of the problem. Skipped containers are checked for balanced brackets and
// strings; the fields kspeed reads are checked in full.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kspeed::io::trace::json_scan {

struct JsonSyntaxError {
  const char* where;     ///< the offending byte
  std::string expected;  ///< what should have been there, e.g. "',' or '}'"
};

inline bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Skips whitespace; returns `end` when the window holds only whitespace. Inline: it runs
/// between every two tokens, mostly over no byte or one space.
inline const char* skip_space(const char* p, const char* end) {
  while (p < end && is_space(*p)) ++p;
  return p;
}

/// `p` at the opening quote. On success `out` views the raw (still escaped) contents and
/// `escaped` says whether they hold backslashes.
const char* scan_string(const char* p, const char* end, std::string_view& out, bool& escaped);

/// Decodes JSON escapes (\n, \", \uXXXX with surrogate pairs) in a string's raw contents.
/// `where` locates errors.
std::string unescape(std::string_view raw, const char* where);

/// Skips any value: string, number, literal, object or array.
const char* skip_value(const char* p, const char* end);

/// From just after a member of an object (at depth 1) to just after the object's closing brace.
const char* skip_rest_of_object(const char* p, const char* end);

/// The number at `p` as its text (validated). Numbers touching `end` are incomplete.
const char* scan_number(const char* p, const char* end, std::string_view& text);

/// A Chrome-trace time exactly as written: `whole_us` microseconds plus `fraction_ns`
/// nanoseconds (0 to 999, so -1.5 us is -2 us + 500 ns). Exact for any time a capture writes:
/// a Unix-epoch timestamp (1.7e15 us with three fractional digits) is 1.7e18 ns, beyond a
/// double's exact range, so no floating point is involved.
struct ExactMicroseconds {
  std::int64_t whole_us = 0;
  std::int32_t fraction_ns = 0;
};

/// The time `text` states in microseconds ("1733011200123456.789", "12", "1.5e3"), rounded to
/// the nearest nanosecond; nullopt when its whole microseconds do not fit in 64 bits.
std::optional<ExactMicroseconds> exact_microseconds(std::string_view text);

/// `time - origin` in nanoseconds; nullopt when the difference does not fit in 64 bits.
std::optional<std::int64_t> ns_since(const ExactMicroseconds& time,
                                     const ExactMicroseconds& origin);

/// A Chrome-trace time in microseconds as nanoseconds since 0; nullopt beyond 64-bit ns
/// (about 9.2e15 us: a time in nanoseconds written where microseconds belong).
std::optional<std::int64_t> microseconds_text_to_ns(std::string_view text);

/// An integer number's text as int64 (fractions truncated, exponents evaluated).
std::int64_t integer_text_value(std::string_view text);

}  // namespace kspeed::io::trace::json_scan
