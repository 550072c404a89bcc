// `kspeed mix --plot`: the CDF of each request's TTFT and E2E, before and after; every plotted
// point maps back to a request's number.
#include <catch2/catch.hpp>

#include <cmath>

#include "chart_xml.hpp"
#include "kspeed/report/mix_plot.hpp"

namespace unit_mix_plot {

using namespace kspeed;
using chart_test::AxisMap;

namespace {

engine::RequestOutcome request(double ttft_before, double ttft_after, double e2e_before,
                               double e2e_after) {
  engine::RequestOutcome outcome;
  outcome.ttft_before_ms = ttft_before;
  outcome.ttft_after_ms = ttft_after;
  outcome.e2e_before_ms = e2e_before;
  outcome.e2e_after_ms = e2e_after;
  return outcome;
}

}  // namespace

TEST_CASE("mix plot: TTFT and E2E before and after, each point at (latency, rank / n)", "[chart]") {
  engine::MixResult result;
  result.log.source = "azure.csv";
  result.workload_name = "deepseek-r1-fp8";
  result.model.kernel_speedup = {2, engine::Provenance::given};
  // The third request has no TPOT: no E2E, so the E2E curves have two samples.
  const engine::RequestOutcomes outcomes = {request(800, 500, 6000, 5700),
                                            request(200, 180, 2200, 2180),
                                            request(3000, 1700, std::nan(""), std::nan(""))};
  const std::string svg = report::mix_svg(result, outcomes);
  const auto root = chart_test::parse_xml(svg);
  CHECK(svg.find("What a 2.00× attention kernel is worth over 3 requests") != std::string::npos);
  CHECK(svg.find("log azure.csv · workload deepseek-r1-fp8 · phase prefill") != std::string::npos);
  const auto& plot = chart_test::plot_group(root);
  const AxisMap x = AxisMap::read(plot, 'x');
  const AxisMap y = AxisMap::read(plot, 'y');
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 3 + 3 + 2 + 2);
  // TTFT after, sorted: 180, 500, 1700 ms at 1/3, 2/3, 1.
  const std::vector<double> ttft_after = {180, 500, 1700};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& point = *points[3 + i];
    CHECK(point.at("data-series") == "TTFT after");
    CHECK(point.number("data-x") == ttft_after[i]);
    CHECK(x.within_a_pixel(point.number("cx"), ttft_after[i]));
    CHECK(y.within_a_pixel(point.number("cy"), static_cast<double>(i + 1) / 3));
  }
  // The slowest E2E before (6 s) is the top of its curve.
  CHECK(points[7]->at("data-series") == "E2E before");
  CHECK(x.within_a_pixel(points[7]->number("cx"), 6000));
  CHECK(y.within_a_pixel(points[7]->number("cy"), 1.0));
}

TEST_CASE("mix plot with --replay: the replayed distributions the headline quotes (issue 30)",
          "[chart]") {
  engine::MixResult result;
  result.log.source = "azure.csv";
  result.workload_name = "deepseek-r1-fp8";
  result.model.kernel_speedup = {2, engine::Provenance::given};
  result.replay.emplace();
  const engine::RequestOutcomes outcomes = {request(800, 500, 6000, 5700),
                                            request(200, 180, 2200, 2180)};
  engine::PerRequestReplay replayed;
  engine::RequestTiming before;
  engine::RequestTiming after;
  before.ttft_ms = 9000;  // queued behind the other request: far above its no-queue 800 ms
  before.e2e_ms = 15000;
  after.ttft_ms = 4000;
  after.e2e_ms = 9000;
  replayed.before = {before, before};
  replayed.after = {after, after};
  const auto root = chart_test::parse_xml(report::mix_svg(result, outcomes, {}, &replayed));
  std::vector<double> ttft_before;
  std::vector<double> ttft_after;
  for (const auto* point : root.find_all("circle", "point")) {
    if (point->at("data-series") == "TTFT before") ttft_before.push_back(point->number("data-x"));
    if (point->at("data-series") == "TTFT after") ttft_after.push_back(point->number("data-x"));
  }
  CHECK(ttft_before == std::vector<double>{9000, 9000});  // the replay's, as the headline
  CHECK(ttft_after == std::vector<double>{4000, 4000});
  const report::chart::CdfChart chart = report::mix_chart(result, outcomes, &replayed);
  CHECK(chart.subtitle.rfind("replayed with queueing and batching", 0) == 0);
  CHECK(chart.title == "What a 2.00× attention kernel is worth over 2 requests, replayed");
  // Without the replay: each request through the chain, said so
  CHECK(report::mix_chart(result, outcomes).subtitle.rfind("no queue · ", 0) == 0);
}

}  // namespace unit_mix_plot
