// The terminal sweep chart, against exact strings.
#include <catch2/catch.hpp>

#include "kspeed/report/chart/sweep_chart.hpp"

namespace unit_chart_terminal {

using namespace kspeed::report::chart;

TEST_CASE("terminal chart: braille lines, y labels, token axis, names at the ends", "[chart]") {
  SweepChart chart;
  chart.series = {{"prefill", {{4096, 1.0989}, {16384, 1.2874}, {131072, 1.7391}}},
                  {"request", {{4096, 1.0}, {16384, 1.05}, {131072, 1.45}}}};
  chart.ceiling = {{4096, 1.22}};  // not drawn in the terminal
  TerminalChartOptions options;
  options.rows = 4;
  options.columns = 24;
  // 16 dot rows over 1.0×-2.0× (ticks every 0.5×), 48 dot columns over 4K-128K (log).
  const std::string expected =
      " 2.0× ┤\n"
      " 1.5× ┤                ⢀⣀⡠⠤⠔⠒⠊⠉ prefill 1.74×\n"
      "      │        ⣀⣀⡠⠤⠔⠒⠊⢉⣁⣀⠤⠤⠒⠒⠊⠉ request 1.45×\n"
      " 1.0× ┤⣤⣤⣒⣒⣒⠭⠭⠭⠤⠤⠤⠒⠒⠉⠉⠁\n"
      "      └────┬─────────┬────────┬\n"
      "          8K        32K     128K\n";
  CHECK(render_terminal_chart(chart, options) == expected);
}

TEST_CASE("terminal chart: nothing to draw draws nothing", "[chart]") {
  CHECK(render_terminal_chart(SweepChart{}).empty());
  SweepChart flat;
  flat.series = {{"flat", {{4096, 1.0}}}};
  CHECK_FALSE(render_terminal_chart(flat).empty());
}

}  // namespace unit_chart_terminal
