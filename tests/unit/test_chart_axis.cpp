// Scales, ticks and tick labels of the chart library.
#include <catch2/catch.hpp>

#include "kspeed/report/chart/axis.hpp"

namespace unit_chart_axis {

using namespace kspeed::report::chart;

namespace {

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> out;
  for (const auto& tick : ticks) out.push_back(tick.label);
  return out;
}

std::vector<double> values(const std::vector<Tick>& ticks) {
  std::vector<double> out;
  for (const auto& tick : ticks) out.push_back(tick.value);
  return out;
}

}  // namespace

TEST_CASE("a linear scale maps values to pixels and back, also running backwards", "[chart]") {
  const Scale y{ScaleKind::linear, 1.0, 2.0, 400, 100};  // SVG y grows downwards
  CHECK(y.to_pixel(1.0) == 400);
  CHECK(y.to_pixel(2.0) == 100);
  CHECK(y.to_pixel(1.5) == 250);
  CHECK(y.to_pixel(1.74) == Approx(178));
  CHECK(y.to_value(178) == Approx(1.74));
  CHECK(y.to_pixel(2.5) == Approx(-50));  // outside the domain: not clamped
}

TEST_CASE("a log scale gives equal pixels to equal ratios", "[chart]") {
  const Scale x{ScaleKind::log10, 4096, 131072, 0, 500};
  CHECK(x.to_pixel(4096) == Approx(0));
  CHECK(x.to_pixel(131072) == Approx(500));
  // 4K → 128K is five doublings: each takes 100 px.
  CHECK(x.to_pixel(8192) == Approx(100));
  CHECK(x.to_pixel(65536) == Approx(400));
  CHECK(x.to_value(200) == Approx(16384));
}

TEST_CASE("nice steps are 1, 2 or 5 times a power of ten", "[chart]") {
  CHECK(nice_step(0, 1, 5) == Approx(0.2));
  CHECK(nice_step(1.0, 1.74, 6) == Approx(0.2));
  CHECK(nice_step(1.0, 1.2, 6) == Approx(0.05));
  CHECK(nice_step(0, 7000, 6) == Approx(2000));
  CHECK(nice_step(0, 100, 10) == Approx(10));
  double lo = 1.0;
  double hi = 1.81;
  widen_to_nice(lo, hi, 6);
  CHECK(lo == Approx(1.0));
  CHECK(hi == Approx(2.0));
}

TEST_CASE("linear ticks land on whole steps with the decimals the step needs", "[chart]") {
  CHECK(labels(linear_ticks(1.0, 1.8, TickFormat::speedup, 4)) ==
        std::vector<std::string>{"1.0×", "1.2×", "1.4×", "1.6×", "1.8×"});
  CHECK(labels(linear_ticks(1.0, 1.2, TickFormat::speedup, 4)) ==
        std::vector<std::string>{"1.00×", "1.05×", "1.10×", "1.15×", "1.20×"});
  CHECK(labels(linear_ticks(0, 1, TickFormat::percent, 5)) ==
        std::vector<std::string>{"0%", "20%", "40%", "60%", "80%", "100%"});
  CHECK(labels(linear_ticks(0, 8000, TickFormat::milliseconds, 4)) ==
        std::vector<std::string>{"0 ms", "2 s", "4 s", "6 s", "8 s"});
  CHECK(labels(linear_ticks(0, 3000, TickFormat::plain, 3)) ==
        std::vector<std::string>{"0", "1,000", "2,000", "3,000"});
  // 0.1 + 0.2 is not 0.3 in floating point; the tick at 0.3 is still there, once.
  CHECK(values(linear_ticks(0.1, 0.3, TickFormat::plain, 2)).size() == 3);
}

TEST_CASE("log ticks: decades, with 2 and 5 labelled over three decades or less", "[chart]") {
  const auto ms = log10_ticks(230, 11000, TickFormat::milliseconds);
  CHECK(labels(ms) == std::vector<std::string>{"", "", "500 ms", "", "", "", "", "1 s", "2 s", "",
                                               "", "5 s", "", "", "", "", "10 s"});
  CHECK(ms.front().value == Approx(300));
  // Up to three decades (issue 20: a mix CDF from 0.15 s to 90 s had only 1 s and 10 s labels)
  const auto cdf = log10_ticks(150, 90000, TickFormat::milliseconds);
  CHECK(labels(cdf) ==
        std::vector<std::string>{"200 ms", "500 ms", "1 s", "2 s", "5 s", "10 s", "20 s", "50 s"});
  const auto wide = log10_ticks(1, 10000, TickFormat::plain);
  CHECK(labels(wide) == std::vector<std::string>{"1", "", "", "10", "", "", "100", "", "", "1,000",
                                                 "", "", "10,000"});
  CHECK(wide[1].value == 2);
  CHECK_FALSE(wide[1].major);
  CHECK(labels(log10_ticks(1e12, 2.5e15, TickFormat::tera)) ==
        std::vector<std::string>{"1", "", "", "10", "", "", "100", "", "", "1,000", ""});
  CHECK(log10_ticks(0, 10, TickFormat::plain).empty());  // no log of zero
}

TEST_CASE("token ticks are powers of two in binary k, thinned to fit", "[chart]") {
  CHECK(labels(token_ticks(4096, 131072)) ==
        std::vector<std::string>{"4K", "8K", "16K", "32K", "64K", "128K"});
  CHECK(labels(token_ticks(1024, 1048576)) ==
        std::vector<std::string>{"1K", "4K", "16K", "64K", "256K", "1M"});
  CHECK(labels(token_ticks(1000, 200000, 4)) ==
        std::vector<std::string>{"2K", "8K", "32K", "128K"});
  CHECK(token_ticks(4096, 131072)[0].value == 4096);
}

TEST_CASE("token counts use binary suffixes only when exact", "[chart]") {
  CHECK(format_tokens(4096) == "4K");
  CHECK(format_tokens(131072) == "128K");
  CHECK(format_tokens(1048576) == "1M");
  CHECK(format_tokens(6144) == "6K");
  CHECK(format_tokens(1000) == "1,000");
  CHECK(format_tokens(512) == "512");
  CHECK(format_tokens(3145728) == "3M");
}

TEST_CASE("tick labels for each unit", "[chart]") {
  CHECK(format_tick(1.1, TickFormat::speedup, 0.05) == "1.10×");
  CHECK(format_tick(2, TickFormat::speedup, 1) == "2.0×");
  CHECK(format_tick(0.5, TickFormat::percent, 0.1) == "50%");
  CHECK(format_tick(0.055, TickFormat::percent, 0.005) == "5.5%");
  CHECK(format_tick(500, TickFormat::milliseconds) == "500 ms");
  CHECK(format_tick(1500, TickFormat::milliseconds) == "1.5 s");
  CHECK(format_tick(0.25, TickFormat::milliseconds) == "0.25 ms");
  CHECK(format_tick(989.4e12, TickFormat::tera, 100e12) == "989");
  CHECK(format_tick(-0.0001, TickFormat::plain, 0.1) == "0.0");
  CHECK(format_tick(-1, TickFormat::plain, 0.5) == "-1.0");
}

}  // namespace unit_chart_axis
