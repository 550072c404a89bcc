#pragma once
// The one parser for flags that take a word from a fixed list (--phase, --extrapolate,
// --denominator, --emit-share, --format, --color): an exact match, or an error that names the
// flag, the word, what was expected and the closest choice.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::cli {

template <class Value>
using Choices = std::vector<std::pair<std::string, Value>>;

/// The value named `text`; InputError "--flag: unknown <what> 'text' (did you mean ...?)<hint>".
template <class Value>
Value parse_choice(const std::string& text, const std::string& flag, const std::string& what,
                   const Choices<Value>& choices, const std::string& hint = "") {
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) {
    if (text == name) return value;
    names.push_back(name);
  }
  throw InputError(flag + ": unknown " + what + " '" + text + "'" +
                   io::suggestion_suffix(text, names) + hint);
}

/// An optional flag's value: nothing when the flag was not given (its text is empty), else
/// `parse(text, flag)`, whose errors name the flag.
template <class T, class Parse>
std::optional<T> optional_value(const std::string& text, const char* flag, Parse parse) {
  if (text.empty()) return std::nullopt;
  return parse(text, flag);
}

}  // namespace kspeed::cli
