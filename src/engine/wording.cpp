#include "kspeed/engine/wording.hpp"

#include <array>
#include <charconv>

namespace kspeed::engine {

std::string plain_number(double value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

std::string percent_text(double share) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                       share * 100.0, std::chars_format::fixed, 1);
  return ec == std::errc{} ? std::string(buffer.data(), end) + "%" : std::string("?");
}

}  // namespace kspeed::engine
