#include "kspeed/io/suggest.hpp"

#include <algorithm>
#include <numeric>

namespace kspeed::io {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Levenshtein distance, one row at a time.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  // A likely typo: at most a third of the longer word changed (and at least one edit allowed).
  const std::size_t limit = std::max<std::size_t>(1, std::max(word.size(), std::size_t{3}) / 3);
  if (best && best_distance <= limit) {
    return best;
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
