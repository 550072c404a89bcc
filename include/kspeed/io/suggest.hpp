#pragma once
// "did you mean ...?" for unknown names: flags, commands, built-ins, JSON keys.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

/// Edit distance between two strings (insertions, deletions, substitutions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Words longer than this get no suggestion (edit distance costs length x length).
inline constexpr std::size_t kMaxSuggestedWord = 64;

/// The closest candidate when it is close enough to be a likely typo; nothing for a word longer
/// than kMaxSuggestedWord.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

/// ", did you mean 'x'?" or, with no close match, "; expected one of: a, b, c".
std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kspeed::io
