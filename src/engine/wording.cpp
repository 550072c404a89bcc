#include "kspeed/engine/wording.hpp"

#include <array>
#include <charconv>
#include <cstddef>

namespace kspeed::engine {

std::string plain_number(double value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

std::string percent_text(double share) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), share * 100.0,
                                       std::chars_format::fixed, 1);
  return ec == std::errc{} ? std::string(buffer.data(), end) + "%" : std::string("?");
}

std::string count_text(double tokens) {
  std::string digits = std::to_string(static_cast<long long>(tokens));
  const std::size_t first_digit = digits.front() == '-' ? 1 : 0;
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3;
       i > static_cast<std::ptrdiff_t>(first_digit); i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

}  // namespace kspeed::engine
