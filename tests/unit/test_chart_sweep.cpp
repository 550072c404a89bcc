// The sweep chart: a well-formed SVG whose points map back to the speedups they plot.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

#include "chart_xml.hpp"
#include "kspeed/report/chart/sweep_chart.hpp"

namespace unit_chart_sweep {

using namespace kspeed::report::chart;
using chart_test::AxisMap;

namespace {

// Amdahl: S = 1 / ((1 - p) + p / s).
double amdahl(double share, double kernel) {
  return 1 / ((1 - share) + share / kernel);
}

// docs/model.md's interpolated shares of the NVIDIA table: 18% at 4K ... 85% at 128K.
const std::vector<std::pair<double, double>> kShares = {
    {4096, 0.18}, {8192, 0.296}, {16384, 0.446}, {32768, 0.607}, {65536, 0.747}, {131072, 0.85}};

SweepChart seed_chart() {
  SweepChart chart;
  chart.title = "What a 2× kernel is worth";
  chart.subtitle = "shares: NVIDIA";
  SweepSeries prefill{"prefill", {}};
  SweepSeries request{"request", {}};
  for (const auto& [tokens, share] : kShares) {
    prefill.points.push_back({tokens, amdahl(share, 2)});
    request.points.push_back({tokens, 1 + (amdahl(share, 2) - 1) / 3});
    chart.ceiling.push_back({tokens, 1 / (1 - share)});
  }
  chart.series = {prefill, request};
  chart.measured = {{4096, amdahl(0.18, 2), "18% measured"},
                    {131072, amdahl(0.85, 2), "85% measured"}};
  return chart;
}

}  // namespace

TEST_CASE("sweep SVG: root, viewBox, self-contained", "[chart]") {
  const std::string svg = render_sweep_svg(seed_chart());
  const auto root = chart_test::parse_xml(svg);
  CHECK(root.name == "svg");
  CHECK(root.at("xmlns") == "http://www.w3.org/2000/svg");
  CHECK(root.at("version") == "1.1");
  CHECK(root.at("viewBox") == "0 0 800 480");
  CHECK(root.at("width") == "800");
  CHECK(root.find_all("style").size() == 1);
  CHECK(root.find_all("title").front()->text == "What a 2× kernel is worth");
  // No external references: no links, imports or fetched fonts.
  CHECK(svg.find("href") == std::string::npos);
  CHECK(svg.find("@import") == std::string::npos);
  CHECK(svg.find("url(http") == std::string::npos);
  // An opaque white background first, so the chart reads on a dark page.
  CHECK(root.find_all("rect").size() >= 1);
  const auto* background = root.find_all([](const chart_test::Element& e) {
                                 return e.name == "rect" && e.has("fill") &&
                                        e.at("fill") == "#ffffff" && e.has("width") &&
                                        e.at("width") == "800";
                               })
                               .front();
  CHECK(background->at("height") == "480");
}

TEST_CASE("sweep SVG: every point inverts to its context and speedup within a pixel", "[chart]") {
  const SweepChart chart = seed_chart();
  const auto root = chart_test::parse_xml(render_sweep_svg(chart));
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  CHECK(x.log);
  CHECK_FALSE(y.log);
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 12);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& series = chart.series[i / 6];
    const Point& input = series.points[i % 6];
    const auto& circle = *points[i];
    CHECK(circle.at("data-series") == series.name);
    CHECK(circle.number("data-x") == input.x);
    CHECK(circle.number("data-y") == input.y);
    CHECK(x.within_a_pixel(circle.number("cx"), input.x));
    CHECK(y.within_a_pixel(circle.number("cy"), input.y));
  }
  // The seed's numbers at the ends: 1.10× at 4K and 1.74× at 128K.
  CHECK(y.value(points[0]->number("cy")) == Approx(1.0989).epsilon(0.005));
  CHECK(y.value(points[5]->number("cy")) == Approx(1.7391).epsilon(0.005));
  // A point that is off by two pixels is caught.
  CHECK_FALSE(y.within_a_pixel(points[5]->number("cy") + 2, chart.series[0].points[5].y));
}

TEST_CASE("sweep SVG: measured points, the 1.0× line, the clipped ceiling, legend", "[chart]") {
  const auto root = chart_test::parse_xml(render_sweep_svg(seed_chart()));
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  const auto measured = root.find_all("path", "measured");
  REQUIRE(measured.size() == 2);
  CHECK(measured[1]->number("data-x") == 131072);
  // The diamond's path starts at its top vertex, 7 px above the point.
  double cx = 0;
  double top = 0;
  REQUIRE(std::sscanf(measured[1]->at("d").c_str(), "M%lf %lf", &cx, &top) == 2);
  CHECK(x.within_a_pixel(cx, 131072));
  CHECK(y.within_a_pixel(top + 7, 1 / 0.575));
  const auto no_change = root.find_all("line", "no-change");
  REQUIRE(no_change.size() == 1);
  CHECK(y.within_a_pixel(no_change[0]->number("y1"), 1.0));
  // The ceiling reaches 6.67× at 128K, far above the series: it is clipped and says so.
  CHECK(root.find_all("path", "ceiling").size() == 1);
  CHECK(y.d1 < 2.5);
  std::vector<std::string> texts;
  for (const auto* text : root.find_all("text")) texts.push_back(text->text);
  const auto has = [&](const std::string& s) {
    return std::find(texts.begin(), texts.end(), s) != texts.end();
  };
  CHECK(has("ceiling rises to 6.67×"));
  CHECK(has("prefill"));
  CHECK(has("ceiling 1/(1−p)"));
  CHECK(has("measured share"));
  CHECK(has("18% measured"));
  CHECK(has("4K"));
  CHECK(has("128K"));
  CHECK(has("context length (tokens, log scale)"));
  CHECK(has("speedup (×)"));
  CHECK(has("1.74×"));  // the end label of the prefill line
}

TEST_CASE("sweep SVG: a ceiling close to the series joins the domain", "[chart]") {
  SweepChart chart;
  chart.series = {{"prefill", {{4096, 1.0989}, {8192, 1.17}}}};
  chart.ceiling = {{4096, 1 / 0.82}, {8192, 1 / 0.704}};
  const auto root = chart_test::parse_xml(render_sweep_svg(chart));
  const AxisMap y = AxisMap::read(chart_test::plot_group(root), 'y');
  CHECK(y.d1 >= 1 / 0.704);
}

TEST_CASE("sweep SVG: unplottable values are left out, not drawn wrong", "[chart]") {
  SweepChart chart;
  chart.series = {{"odd", {{4096, 1.1}, {0, 1.2}, {8192, std::nan("")}, {16384, 1.3}}}};
  chart.ceiling = {{4096, 1.2}, {8192, std::numeric_limits<double>::infinity()}};
  const auto root = chart_test::parse_xml(render_sweep_svg(chart));
  CHECK(root.find_all("circle", "point").size() == 2);
  SweepChart empty;
  CHECK(chart_test::parse_xml(render_sweep_svg(empty)).name == "svg");
}

TEST_CASE("sweep SVG: a long sweep marks every k-th point and says so", "[chart]") {
  SweepChart chart;
  SweepSeries series{"prefill", {}};
  for (int i = 0; i < 1200; ++i) {
    series.points.push_back({1024.0 + 100.0 * i, 1.0 + 0.0005 * i});
  }
  chart.series = {series};
  const auto root = chart_test::parse_xml(render_sweep_svg(chart));
  const auto groups = root.find_all("g", "series");
  REQUIRE(groups.size() == 1);
  CHECK(groups[0]->at("data-points") == "1200");
  // stride ceil(1200 / 500) = 3: points 0, 3, ..., 1197 and the last, 1199.
  CHECK(groups[0]->at("data-marked") == "401");
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 401);
  CHECK(points[1]->number("data-x") == 1024 + 300);
  CHECK(points.back()->number("data-x") == 1024 + 119900);
  CHECK(points.back()->at("r") == "0");
  const AxisMap y = AxisMap::read(chart_test::plot_group(root), 'y');
  CHECK(y.within_a_pixel(points.back()->number("cy"), 1.0 + 0.0005 * 1199));
}

TEST_CASE("sweep SVG: hostile series names stay text", "[chart]") {
  SweepChart chart;
  chart.title = "<script>alert(1)</script>";
  chart.series = {{"a&b \"q\" \xff", {{4096, 1.1}}}};
  const std::string svg = render_sweep_svg(chart);
  CHECK(svg.find("<script>") == std::string::npos);
  const auto root = chart_test::parse_xml(svg);
  CHECK(root.find_all("circle", "point")[0]->at("data-series") == "a&b \"q\" \xEF\xBF\xBD");
  CHECK(root.find_all("title")[0]->text == "<script>alert(1)</script>");
}

}  // namespace unit_chart_sweep
