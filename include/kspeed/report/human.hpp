#pragma once
// Numbers for people: "1.74×", "45.0 ms", "6.85 s", "0.66%", "1,024". Machine formats (JSON, CSV)
// print plain numbers at full precision instead.

#include <cstdint>
#include <optional>
#include <string>

namespace kspeed::report {

/// "1.74×"; four decimals close to 1 so small gains stay visible ("1.0066×").
std::string human_speedup(double speedup);

/// A ceiling: human_speedup, or "∞" when unbounded.
std::string human_ceiling(const std::optional<double>& ceiling);

/// Milliseconds with three significant digits: "45.0 ms", "500 ms", "0.250 ms"; seconds from
/// 1,000 ms on: "6.85 s".
std::string human_ms(double milliseconds);

/// A fraction as a percentage: "18.0%", "7.30%", "0.66%" (two decimals below 10%).
std::string human_percent(double fraction);

/// A token count with thousands separators: "131,072".
std::string human_count(std::int64_t count);

}  // namespace kspeed::report
