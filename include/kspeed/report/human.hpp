#pragma once
// The one number formatter for people: "1.74×", "45.0 ms", "6.85 s", "0.66%", "1,024",
// "2.68 GFLOP". Every text and Markdown cell and every warning sentence goes through it, so a
// number prints the same way everywhere. Machine formats (JSON, CSV, JSONL) print plain numbers
// at full precision instead.

#include <cstdint>
#include <optional>
#include <string>

namespace kspeed::report {

/// "1.74×"; four decimals within 5% of 1 so small gains stay visible ("1.0066×"), exactly 1
/// included ("1.0000×": the same precision as the ratios it sits beside).
std::string human_speedup(double speedup);

/// A ceiling: human_speedup, or "∞" when unbounded.
std::string human_ceiling(const std::optional<double>& ceiling);

/// A duration given in milliseconds, three significant digits: "45.0 ms", "500 ms"; seconds
/// from 1,000 ms on: "6.85 s"; microseconds below 1 ms: "250 µs". The one duration format of
/// tables and sentences alike.
std::string human_ms(double milliseconds);

/// A kernel's time: microseconds below a millisecond ("29.6 µs"), else human_ms.
std::string human_kernel_ms(double milliseconds);

/// Nanoseconds as "400 ns", "30.0 µs", then human_ms ("10.9 ms").
std::string human_ns(std::int64_t nanoseconds);

/// A fraction as a percentage: "18.0%", "7.30%", "0.66%" (two decimals below 10%).
std::string human_percent(double fraction);

/// A count with thousands separators: "131,072".
std::string human_count(std::int64_t count);

/// Three significant digits, no unit, never an exponent: "295", "29.6", "8.00".
std::string human_figure(double value);

/// Three significant digits with an SI prefix: "2.68 GFLOP", "671 MB".
std::string human_si(double value, const char* unit);

/// Fixed decimals: human_fixed(295.25, 1) == "295.2".
std::string human_fixed(double value, int decimals);

/// The shortest text that reads back as the value: "0.5", "1307.4", "4096".
std::string human_plain(double value);

/// What a table cell shows for a figure that does not exist (no data, or not applicable).
inline constexpr const char* kMissing = "—";

}  // namespace kspeed::report
