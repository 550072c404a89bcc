#pragma once
// POSIX extended regular expressions (regcomp/regexec) behind a small RAII type. kspeed uses
// them instead of std::regex: GCC 12's std::regex trips -Wmaybe-uninitialized under the
// sanitizer build (a false positive, but CI builds with -Werror), and glibc's matcher is as fast.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::profile {

class Regex {
 public:
  /// Compiles `pattern` (POSIX ERE). Throws std::invalid_argument with regerror's message, or
  /// saying what is not supported: back-references (exponential matching), Perl syntax (\d,
  /// \w, \s, lookarounds), patterns over 1000 bytes or repetition bounds multiplying past 1000.
  explicit Regex(const std::string& pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// Whether the pattern matches anywhere in `text`.
  bool search(const std::string& text) const;
  /// The whole match and each group (empty for a group that did not take part), or nullopt.
  std::optional<std::vector<std::string>> captures(const std::string& text) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace kspeed::profile
