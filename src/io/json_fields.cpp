#include "kspeed/io/json_fields.hpp"

namespace kspeed::io {

std::int64_t positive_count(const JsonReader& reader, const nlohmann::json& value,
                            const std::string& path) {
  constexpr std::uint64_t kLargest = 1'000'000'000;  // no model or deployment is near this
  if (!value.is_number_integer() && !value.is_number_unsigned()) {
    reader.fail(path, "expected a whole number >= 1, found " +
                          (value.is_number() ? value.dump() : describe_json_type(value)));
  }
  if (value.is_number_integer() && value.get<std::int64_t>() < 1) {
    reader.fail(path, "expected a whole number >= 1, found " + value.dump());
  }
  if (value.get<std::uint64_t>() > kLargest) {
    reader.fail(path, "expected a plausible count (at most 10^9), found " + value.dump());
  }
  return value.get<std::int64_t>();
}

}  // namespace kspeed::io
