#include "kspeed/profile/regex.hpp"

#include <regex.h>

#include <stdexcept>

namespace kspeed::profile {

struct Regex::Compiled {
  regex_t regex{};
  std::size_t groups = 0;
  bool compiled = false;  // regcomp leaves nothing to free when it fails
  ~Compiled() {
    if (compiled) regfree(&regex);
  }
};

Regex::Regex(const std::string& pattern) {
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
