// The waterfall (the estimate's dilution chain): bars map back to the times they show.
#include <catch2/catch.hpp>

#include "chart_xml.hpp"
#include "kspeed/report/chart/waterfall_chart.hpp"

namespace unit_chart_waterfall {

using namespace kspeed::report::chart;
using chart_test::AxisMap;

namespace {

// docs/model.md: TTFT 500 ms, prefill share 18%, a 2× kernel saves 45 ms; 127 decode steps of
// 50 ms; the request goes from 6,850 to 6,805 ms.
WaterfallChart model_chain() {
  WaterfallChart chart;
  chart.title = "chain";
  chart.levels = {{"attention kernels", "in prefill", 90, 45},
                  {"prefill (TTFT)", "", 500, 455},
                  {"decode", "", 6350, 6350},
                  {"request", "", 6850, 6805}};
  return chart;
}

}  // namespace

TEST_CASE("waterfall SVG: one bar per level, after/before within a pixel", "[chart]") {
  const WaterfallChart chart = model_chain();
  const auto root = chart_test::parse_xml(render_waterfall_svg(chart));
  CHECK(root.name == "svg");
  const double height = root.number("height");
  CHECK(root.at("viewBox") == "0 0 800 " + root.at("height"));
  CHECK(height > 4 * 50);
  const AxisMap x = AxisMap::read(chart_test::plot_group(root), 'x');
  const auto levels = root.find_all("g", "level");
  REQUIRE(levels.size() == 4);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const auto& level = chart.levels[i];
    CHECK(levels[i]->at("data-level") == level.name);
    CHECK(levels[i]->number("data-before-ms") == level.before_ms);
    CHECK(levels[i]->number("data-after-ms") == level.after_ms);
    CHECK(levels[i]->number("data-saved-ms") == level.before_ms - level.after_ms);
    const auto after = levels[i]->find_all("rect", "after");
    REQUIRE(after.size() == 1);
    CHECK(x.within_a_pixel(after[0]->number("x"), 0));
    CHECK(x.within_a_pixel(after[0]->number("x") + after[0]->number("width"),
                           level.after_ms / level.before_ms));
    // A saved part only where time was saved.
    CHECK(levels[i]->find_all("rect", "saved").size() ==
          (level.after_ms < level.before_ms ? 1 : 0));
  }
}

TEST_CASE("waterfall SVG: each level says its speedup, time saved and times", "[chart]") {
  const auto root = chart_test::parse_xml(render_waterfall_svg(model_chain()));
  std::vector<std::string> texts;
  for (const auto* text : root.find_all("text")) texts.push_back(text->all_text);
  const auto has = [&](const std::string& s) {
    return std::find(texts.begin(), texts.end(), s) != texts.end();
  };
  CHECK(has("2.00× · saved 45.0 ms (50.0%)"));
  CHECK(has("1.10× · saved 45.0 ms (9.00%)"));
  CHECK(has("1.0000× · unchanged"));
  CHECK(has("1.0066× · saved 45.0 ms (0.66%)"));
  CHECK(has("6.85 s → 6.80 s"));
  CHECK(has("500 ms → 455 ms"));
  CHECK(has("100%"));
}

TEST_CASE("waterfall SVG: a slowdown runs past 100% and says time was added", "[chart]") {
  WaterfallChart chart;
  chart.levels = {{"decode", "", 100, 125}, {"empty", "", 0, 0}};
  const auto root = chart_test::parse_xml(render_waterfall_svg(chart));
  const AxisMap x = AxisMap::read(chart_test::plot_group(root), 'x');
  CHECK(x.d1 >= 1.25);
  const auto after = root.find_all("rect", "after");
  CHECK(x.within_a_pixel(after[0]->number("x") + after[0]->number("width"), 1.25));
  CHECK(root.find_all("rect", "saved").empty());
}

TEST_CASE("waterfall SVG: hostile names and non-finite times stay well-formed", "[chart]") {
  WaterfallChart chart;
  chart.title = "a < b & \"c\"";
  chart.levels = {{"<level>&'", "\xff", std::nan(""), 1}};
  const std::string svg = render_waterfall_svg(chart);
  const auto root = chart_test::parse_xml(svg);
  CHECK(root.find_all("g", "level")[0]->at("data-level") == "<level>&'");
  const auto after = root.find_all("rect", "after");
  CHECK(after[0]->at("width").find("nan") == std::string::npos);
}

}  // namespace unit_chart_waterfall
