// The roofline chart: the roof, the ridge and the kernels' points on log-log axes.
#include <catch2/catch.hpp>

#include "chart_xml.hpp"
#include "kspeed/report/chart/roofline_chart.hpp"

namespace unit_chart_roofline {

using namespace kspeed::report::chart;
using chart_test::AxisMap;

namespace {

// H100 SXM, BF16 dense: 989.4 TFLOP/s, 3.35 TB/s, ridge 295.3 FLOP/byte (docs/model.md).
RooflineChart h100() {
  RooflineChart chart;
  chart.title = "roofline";
  chart.roof_name = "H100 SXM, BF16";
  chart.peak_flops_per_s = 989.4e12;
  chart.bandwidth_bytes_per_s = 3.35e12;
  RooflineKernel decode{"decode", 8, 8 * 3.35e12 * 0.7, {}};
  decode.levers = {{"FP8 KV", 16, 16 * 3.35e12 * 0.7}, {"faster math", 8, 8 * 3.35e12 * 0.7}};
  chart.kernels = {decode, {"prefill", 4096, 0.55 * 989.4e12, {}}};
  return chart;
}

}  // namespace

TEST_CASE("roofline SVG: points invert to intensity and FLOP/s on log axes", "[chart]") {
  const RooflineChart chart = h100();
  const auto root = chart_test::parse_xml(render_roofline_svg(chart));
  CHECK(root.at("viewBox") == "0 0 800 500");
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  CHECK(x.log);
  CHECK(y.log);
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 4);
  for (const auto* point : points) {
    CHECK(x.within_a_pixel(point->number("cx"), point->number("data-x")));
    CHECK(y.within_a_pixel(point->number("cy"), point->number("data-y")));
  }
  // Levers first, then the kernel as it is (drawn on top).
  CHECK(points[0]->at("data-lever") == "FP8 KV");
  CHECK(points[0]->number("data-x") == 16);
  CHECK(points[2]->at("data-lever").empty());
  CHECK(points[2]->number("data-y") == 8 * 3.35e12 * 0.7);
  CHECK(points[3]->at("data-kernel") == "prefill");
  // One arrow: the lever that moved; "faster math" stays put and says so.
  CHECK(root.find_all("line", "arrow").size() == 1);
  std::vector<std::string> texts;
  for (const auto* text : root.find_all("text")) texts.push_back(text->text);
  const auto has = [&](const std::string& s) {
    return std::find(texts.begin(), texts.end(), s) != texts.end();
  };
  CHECK(has("faster math: no gain"));
  CHECK(has("FP8 KV"));
  CHECK(has("peak 989 TFLOP/s"));
  CHECK(has("memory 3.35 TB/s"));
  CHECK(has("ridge 295 FLOP/B"));
}

TEST_CASE("roofline SVG: the ridge and the roof sit where the numbers say", "[chart]") {
  const auto root = chart_test::parse_xml(render_roofline_svg(h100()));
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  const auto ridge = root.find_all("line", "ridge");
  REQUIRE(ridge.size() == 1);
  CHECK(ridge[0]->number("data-x") == Approx(295.34).epsilon(1e-4));
  CHECK(x.within_a_pixel(ridge[0]->number("x1"), 989.4 / 3.35));
  CHECK(y.within_a_pixel(ridge[0]->number("y1"), 989.4e12));
  // Every decade of the domain is whole, and the slope starts inside it.
  CHECK(x.d0 == 1);
  CHECK(x.d1 == 10000);
  CHECK(y.d0 <= 3.35e12 * x.d0);
}

TEST_CASE("roofline SVG: unplottable kernels and a missing roof are left out", "[chart]") {
  RooflineChart chart;
  chart.kernels = {{"ok", 8, 2e13, {{"zero", 0, 1e13}, {"fine", 16, 4e13}}},
                   {"bad", -1, std::nan(""), {}}};
  const std::string svg = render_roofline_svg(chart);
  const auto root = chart_test::parse_xml(svg);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  CHECK(root.find_all("path", "roof").empty());
  CHECK(root.find_all("line", "ridge").empty());
  CHECK(root.find_all("circle", "point").size() == 2);
}

TEST_CASE("roofline SVG: hostile names stay text", "[chart]") {
  RooflineChart chart = h100();
  chart.kernels[0].name = "<script>x</script>&\"\xff";
  const auto root = chart_test::parse_xml(render_roofline_svg(chart));
  CHECK(root.find_all("circle", "point")[0]->at("data-kernel") ==
        "<script>x</script>&\"\xEF\xBF\xBD");
}

}  // namespace unit_chart_roofline
