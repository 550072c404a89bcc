// The latency CDF: each sample's point inverts to its latency and its rank / n.
#include <catch2/catch.hpp>

#include "chart_xml.hpp"
#include "kspeed/report/chart/cdf_chart.hpp"

namespace unit_chart_cdf {

using namespace kspeed::report::chart;
using chart_test::AxisMap;

TEST_CASE("CDF SVG: every sample is a point at (latency, rank / n)", "[chart]") {
  CdfChart chart;
  chart.series = {{"TTFT", CdfWhen::before, {500, 120, 2400, 800, 300}},
                  {"TTFT", CdfWhen::after, {455, 110, 1500, 700, 280}}};
  const auto root = chart_test::parse_xml(render_cdf_svg(chart));
  CHECK(root.at("viewBox") == "0 0 800 480");
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  CHECK(x.log);
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 10);
  const std::vector<double> sorted_before = {120, 300, 500, 800, 2400};
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(points[i]->at("data-series") == "TTFT before");
    CHECK(points[i]->number("data-x") == sorted_before[i]);
    CHECK(points[i]->number("data-y") == Approx(static_cast<double>(i + 1) / 5.0));
    CHECK(x.within_a_pixel(points[i]->number("cx"), sorted_before[i]));
    CHECK(y.within_a_pixel(points[i]->number("cy"), static_cast<double>(i + 1) / 5.0));
  }
  CHECK(points[9]->at("data-series") == "TTFT after");
  CHECK(points[9]->number("data-x") == 1500);
  // Before dashed, after solid, one colour for the metric.
  const auto paths = root.find_all("path", "series");
  REQUIRE(paths.size() == 2);
  CHECK(paths[0]->at("stroke-dasharray") == "6 4");
  CHECK(paths[1]->at("stroke-dasharray") == "none");
  CHECK(paths[0]->at("stroke") == paths[1]->at("stroke"));
}

TEST_CASE("CDF SVG: past 100 samples, points at the percentile ranks", "[chart]") {
  CdfChart chart;
  chart.log_x = false;
  CdfSeries e2e{"E2E", CdfWhen::after, {}};
  for (int i = 1000; i >= 1; --i) e2e.samples_ms.push_back(i);
  e2e.samples_ms.push_back(-1);            // kept on a linear axis
  e2e.samples_ms.push_back(std::nan(""));  // never plotted
  chart.series = {e2e};
  const auto root = chart_test::parse_xml(render_cdf_svg(chart));
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  CHECK_FALSE(x.log);
  CHECK(x.d0 <= -1);
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 100);
  // 1,001 samples: the median rank is ceil(50% · 1001) = 501, the sample 500 ms.
  CHECK(points[49]->number("data-x") == 500);
  CHECK(points[49]->number("data-y") == Approx(501 / 1001.0));
  CHECK(points[99]->number("data-x") == 1000);
  CHECK(points[99]->number("data-y") == 1);
  for (const auto* point : points) {
    CHECK(x.within_a_pixel(point->number("cx"), point->number("data-x")));
    CHECK(y.within_a_pixel(point->number("cy"), point->number("data-y")));
  }
}

TEST_CASE("CDF SVG: hostile metric names stay text; empty series draw nothing", "[chart]") {
  CdfChart chart;
  chart.series = {{"<TTFT & \"x\">", CdfWhen::before, {1, 2}}, {"empty", CdfWhen::after, {}}};
  const auto root = chart_test::parse_xml(render_cdf_svg(chart));
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 2);
  CHECK(points[0]->at("data-series") == "<TTFT & \"x\"> before");
}

}  // namespace unit_chart_cdf
