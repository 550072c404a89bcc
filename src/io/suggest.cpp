#include "kspeed/io/suggest.hpp"

#include <algorithm>

namespace kspeed::io {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: Levenshtein plus adjacent transpositions ("nmae" is one
  // edit from "name"), the commonest typo.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  // No key or name kspeed knows is near this long: the quadratic distance is not worth it.
  if (word.size() > kMaxSuggestedWord) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  // A likely typo: at most a third of the word changed (and at least one edit allowed).
  const std::size_t limit = std::max<std::size_t>(1, std::max(word.size(), std::size_t{3}) / 3);
  if (best && best_distance <= limit) {
    return best;
  }
  // Or a name cut short: "ttft" for "ttft_ms".
  for (const std::string& candidate : candidates) {
    if (word.size() >= 3 && candidate.starts_with(word)) {
      return candidate;
    }
  }
  return std::nullopt;
}

std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto match = closest_match(word, candidates)) {
    return ", did you mean '" + *match + "'?";
  }
  std::string list;
  for (const std::string& candidate : candidates) {
    list += (list.empty() ? "" : ", ") + candidate;
  }
  return "; expected one of: " + list;
}

}  // namespace kspeed::io
