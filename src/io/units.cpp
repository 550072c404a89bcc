#include "kspeed/io/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "kspeed/error.hpp"

namespace kspeed::io {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view expected) {
  throw InputError(std::string(what) + ": '" + excerpt(text) + "' is not valid: expected " +
                   std::string(expected));
}

bool ends_with_ci(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    const auto a = std::tolower(static_cast<unsigned char>(text[text.size() - suffix.size() + i]));
    if (a != suffix[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

double parse_number(std::string_view text, std::string_view what, std::string_view expected) {
  const std::string_view trimmed = trim(text);
  double value = 0;
  const char* first = trimmed.data();
  const char* last = trimmed.data() + trimmed.size();
  if (!trimmed.empty() && *first == '+') {
    ++first;  // from_chars rejects a leading '+', people write it
  }
  const auto [end, ec] = std::from_chars(first, last, value);
  if (trimmed.empty() || ec == std::errc::invalid_argument || end != last) {
    fail(what, text, expected);
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
    throw InputError(std::string(what) + ": '" + excerpt(text) +
                     "' is not a finite number: expected " + std::string(expected));
  }
  return value;
}

double parse_positive_number(std::string_view text, std::string_view what) {
  constexpr std::string_view expected = "a number from 1e-6 to 1e9 (for example 2 or 1.5)";
  const double value = parse_number(text, what, expected);
  if (value < kMinPositiveNumber || value > kMaxPositiveNumber) {
    fail(what, text, expected);
  }
  return value;
}

std::int64_t parse_token_count(std::string_view text, std::string_view what) {
  constexpr std::string_view expected =
      "a whole number of tokens >= 1, optionally with a k or m suffix (4096, 4k, 128k, 1m; "
      "k = 1024)";
  std::string_view digits = trim(text);
  std::int64_t multiplier = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) {
    multiplier = 1024;
    digits.remove_suffix(1);
  } else if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) {
    multiplier = std::int64_t{1024} * 1024;
    digits.remove_suffix(1);
  }
  std::int64_t count = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    fail(what, text, expected);
  }
  if (ec == std::errc::result_out_of_range || count > kMaxTokens / multiplier) {
    throw InputError(std::string(what) + ": '" + excerpt(text) +
                     "' is too large: expected at most 134,217,728 tokens (128m)");
  }
  if (count < 1) {
    fail(what, text, expected);
  }
  return count * multiplier;
}

double parse_duration_ms(std::string_view text, std::string_view what) {
  constexpr std::string_view expected =
      "a duration greater than 0: plain numbers are milliseconds, or add us, ms or s "
      "(500, 500ms, 0.5s, 250us)";
  const std::string_view trimmed = trim(text);
  std::string_view number = trimmed;
  double scale = 1.0;
  if (ends_with_ci(trimmed, "us")) {
    number.remove_suffix(2);
    scale = 1e-3;
  } else if (ends_with_ci(trimmed, "ms")) {
    number.remove_suffix(2);
  } else if (ends_with_ci(trimmed, "s")) {
    number.remove_suffix(1);
    scale = 1e3;
  }
  const double value = parse_number(number, what, expected) * scale;
  if (!(value > 0)) {
    fail(what, text, expected);
  }
  if (value < kMinDurationMs) {
    throw InputError(std::string(what) + ": '" + excerpt(text) +
                     "' is too short: expected at least 1 ns (1e-6 ms)");
  }
  if (value > kMaxDurationMs) {
    throw InputError(std::string(what) + ": '" + excerpt(text) +
                     "' is too long: expected at most 1e9 ms (about 11.6 days)");
  }
  return value;
}

double parse_share(std::string_view text, std::string_view what) {
  constexpr std::string_view expected = "a share from 0 to 1 (0.85) or a percentage (85%)";
  std::string_view number = trim(text);
  double scale = 1.0;
  if (!number.empty() && number.back() == '%') {
    number.remove_suffix(1);
    scale = 0.01;
  }
  const double share = parse_number(number, what, expected) * scale;
  if (share < 0 || share > 1) {
    throw InputError(std::string(what) + ": '" + excerpt(text) +
                     "' is outside the valid range: expected " + std::string(expected));
  }
  return share;
}

}  // namespace kspeed::io
