#include "kspeed/profile/regex.hpp"

#include <regex.h>

#include "kspeed/error.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace kspeed::profile {

namespace {

// Longest pattern and largest product of {m,n} bounds accepted: glibc compiles a bound by
// copying its operand, so `(a{1000}){1000}` is a million states; no kernel rule needs more.
constexpr std::size_t kMaxPatternBytes = 1000;
constexpr long kMaxRepetition = 1000;

// Just past the bracket expression opening at pattern[open] ('['), or npos when unclosed.
std::size_t bracket_end(const std::string& pattern, std::size_t open) {
  std::size_t i = open + 1;
  if (i < pattern.size() && pattern[i] == '^') ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;  // a leading ']' is a member
  for (; i < pattern.size(); ++i) {
    if (pattern[i] == '[' && i + 1 < pattern.size() &&
        (pattern[i + 1] == ':' || pattern[i + 1] == '.' || pattern[i + 1] == '=')) {
      const std::size_t close = pattern.find(std::string{pattern[i + 1], ']'}, i + 2);
      if (close == std::string::npos) return std::string::npos;
      i = close + 1;
    } else if (pattern[i] == ']') {
      return i + 1;
    }
  }
  return std::string::npos;
}

[[noreturn]] void refuse(const std::string& why) {
  throw std::invalid_argument(why);
}

// What POSIX ERE lacks, or what makes matching slow, said before regcomp gives a vaguer message
// or accepts it: back-references (which glibc matches in exponential time, and ERE does not
// define), Perl classes (\d, \w, \s) and (?...) groups, and huge repetition counts.
void check_supported(const std::string& pattern) {
  if (pattern.size() > kMaxPatternBytes) {
    refuse("the pattern is " + count_mark(static_cast<long long>(pattern.size())) +
           " bytes long: expected at most " + count_mark(static_cast<long long>(kMaxPatternBytes)));
  }
  long repetition = 1;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '[') {
      const std::size_t end = bracket_end(pattern, i);
      if (end == std::string::npos) return;  // regcomp reports the unclosed bracket
      i = end - 1;
    } else if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[++i];
      if (next >= '1' && next <= '9') {
        refuse(std::string("back-references (\\") + next +
               ") are not supported: they make matching exponential in the name's length; "
               "match the text itself");
      }
      if (std::string_view("dDwWsSbB").find(next) != std::string_view::npos) {
        refuse(std::string("\\") + next +
               " is Perl syntax, not POSIX extended: write [0-9] for \\d, [[:alnum:]_] for "
               "\\w, [[:space:]] for \\s");
      }
    } else if (c == '(' && i + 1 < pattern.size() && pattern[i + 1] == '?') {
      refuse(
          "(?...) groups (lookahead (?=, (?!, lookbehind (?<, non-capturing (?:) are Perl "
          "syntax, not POSIX extended: use a plain group (...) or match the text itself");
    } else if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) return;
      // {m}, {m,} and {m,n}: the largest count given bounds the copies regcomp makes.
      long largest = 0;
      long current = 0;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (pattern[k] >= '0' && pattern[k] <= '9') {
          current = std::min<long>(current * 10 + (pattern[k] - '0'), kMaxRepetition + 1);
        } else {
          current = 0;
        }
        largest = std::max(largest, current);
      }
      repetition = std::min<long>(repetition * std::max<long>(largest, 1), kMaxRepetition + 1);
      if (repetition > kMaxRepetition) {
        refuse("repetition counts multiply to more than " +
               count_mark(static_cast<long long>(kMaxRepetition)) +
               " copies: use + or * instead of large {m,n} bounds");
      }
      i = close;
    }
  }
}

}  // namespace

struct Regex::Compiled {
  regex_t regex{};
  std::size_t groups = 0;
  bool compiled = false;  // regcomp leaves nothing to free when it fails
  ~Compiled() {
    if (compiled) regfree(&regex);
  }
};

Regex::Regex(const std::string& pattern) {
  check_supported(pattern);
  auto compiled = std::make_unique<Compiled>();
  const int status = regcomp(&compiled->regex, pattern.c_str(), REG_EXTENDED);
  if (status != 0) {
    char message[256];
    regerror(status, &compiled->regex, message, sizeof message);
    throw std::invalid_argument(message);
  }
  compiled->compiled = true;
  compiled->groups = compiled->regex.re_nsub;
  compiled_ = std::move(compiled);
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

bool Regex::search(const std::string& text) const {
  return regexec(&compiled_->regex, text.c_str(), 0, nullptr, 0) == 0;
}

std::optional<std::vector<std::string>> Regex::captures(const std::string& text) const {
  std::vector<regmatch_t> matches(compiled_->groups + 1);
  if (regexec(&compiled_->regex, text.c_str(), matches.size(), matches.data(), 0) != 0) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  out.reserve(matches.size());
  for (const regmatch_t& match : matches) {
    out.push_back(match.rm_so < 0
                      ? std::string()
                      : text.substr(static_cast<std::size_t>(match.rm_so),
                                    static_cast<std::size_t>(match.rm_eo - match.rm_so)));
  }
  return out;
}

}  // namespace kspeed::profile
