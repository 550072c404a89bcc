// kspeed sweep: the axis parser, the engine's loop, the document's fixed columns and the chart.
#include <catch2/catch.hpp>

#include <cmath>

#include "chart_xml.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/kernel_speedup_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/sweep_values.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"

namespace unit_sweep {

using namespace kspeed;

namespace {

double tokens(std::string_view text, std::string_view what) {
  return static_cast<double>(io::parse_token_count(text, what));
}

const io::SweepAxisKind kTokens{tokens, io::SweepSpacing::log, true};
const io::SweepAxisKind kRatio{io::parse_positive_number, io::SweepSpacing::log, false};
const io::SweepAxisKind kShare{io::parse_share, io::SweepSpacing::linear, false};

std::vector<double> values(std::string_view text, std::int64_t points,
                           const io::SweepAxisKind& kind) {
  return io::parse_sweep_values(text, "--ctx", points, kind);
}

engine::Sweep seed_sweep() {
  engine::EstimateOptions options;
  options.kernel_speedup = 2;
  engine::SweepAxes axes;
  for (double value : values("4k..128k", 6, kTokens)) {
    axes.prompt_tokens.push_back(static_cast<std::int64_t>(value));
  }
  return engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes);
}

}  // namespace

TEST_CASE("a log range's inner values are the round numbers a person means (issue 20)", "[sweep]") {
  // 0.5 · 8^(2/3) is 1.9999999999999998 in binary; the sweep prints and computes 2
  CHECK(values("0.5..4", 4, kRatio) == std::vector<double>{0.5, 1, 2, 4});
  CHECK(values("1..1000", 4, kRatio) == std::vector<double>{1, 10, 100, 1000});
}

TEST_CASE("sweep values: a list keeps its order, a range is log-spaced between its ends") {
  CHECK(values("1.25,1.5,2,4", 8, kRatio) == std::vector<double>{1.25, 1.5, 2, 4});
  CHECK(values("4k", 8, kTokens) == std::vector<double>{4096});
  // 4K..128K over 6 points: ratio (131072/4096)^(1/5) = 2 exactly.
  CHECK(values("4k..128k", 6, kTokens) ==
        std::vector<double>{4096, 8192, 16384, 32768, 65536, 131072});
  const std::vector<double> log = values("1..100", 3, kRatio);
  REQUIRE(log.size() == 3);
  CHECK(log[1] == Approx(10));
  const std::vector<double> linear = values("10%..90%", 5, kShare);
  const std::vector<double> expected = {0.1, 0.3, 0.5, 0.7, 0.9};
  REQUIRE(linear.size() == expected.size());
  for (std::size_t i = 0; i < linear.size(); ++i) {
    CHECK(linear[i] == Approx(expected[i]));
  }
}

TEST_CASE("sweep values: whole-number axes drop the repeats rounding makes") {
  CHECK(values("1..4", 8, {tokens, io::SweepSpacing::log, true}) ==
        std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("sweep values: bad lists and ranges name the flag and say why") {
  CHECK_THROWS_WITH(values("128k..4k", 6, kTokens),
                    Catch::Contains("--ctx") && Catch::Contains("not an increasing range"));
  CHECK_THROWS_WITH(values("1,,2", 6, kRatio), Catch::Contains("has an empty value"));
  CHECK_THROWS_WITH(values("1,2..4", 6, kRatio), Catch::Contains("mixes a list and a range"));
  CHECK_THROWS_WITH(values("1..2..4", 6, kRatio), Catch::Contains("more than one '..'"));
  CHECK_THROWS_WITH(values("1..4", 1, kRatio), Catch::Contains("--points"));
  CHECK_THROWS_WITH(values("4k..12q", 6, kTokens), Catch::Contains("'12q' is not valid"));
  CHECK_THROWS_AS(values("", 6, kRatio), InputError);
  CHECK_THROWS_AS(values(",", 6, kRatio), InputError);
}

TEST_CASE("sweep: the seed's 1.10x at 4K and 1.74x at 128K, monotone between") {
  const engine::Sweep sweep = seed_sweep();
  REQUIRE(sweep.rows.size() == 6);
  // Amdahl with the table's measured shares: 1/(0.82 + 0.09) and 1/(0.15 + 0.425).
  CHECK(sweep.rows.front().result.prefill.phase.speedup == Approx(1 / (0.82 + 0.18 / 2)));
  CHECK(sweep.rows.back().result.prefill.phase.speedup == Approx(1 / (0.15 + 0.85 / 2)));
  CHECK(sweep.rows.front().result.prefill.phase.speedup == Approx(1.0989).epsilon(1e-4));
  CHECK(sweep.rows.back().result.prefill.phase.speedup == Approx(1.7391).epsilon(1e-4));
  for (std::size_t i = 1; i < sweep.rows.size(); ++i) {
    CHECK(sweep.rows[i].result.prefill.phase.speedup >
          sweep.rows[i - 1].result.prefill.phase.speedup);
  }
  CHECK(sweep.swept == std::vector<std::string>{"prompt_tokens"});
}

TEST_CASE("sweep: each point equals kspeed estimate with the same inputs") {
  engine::EstimateOptions options;
  engine::SweepAxes axes;
  axes.kernel_speedup = {1.5, 4};
  axes.prompt_tokens = {8192, 65536};
  const engine::Workload workload = io::load_workload("deepseek-r1-fp8");
  const engine::Sweep sweep = engine::run_sweep(workload, options, axes);
  REQUIRE(sweep.rows.size() == 4);
  // The context varies fastest: (1.5, 8K), (1.5, 64K), (4, 8K), (4, 64K).
  options.kernel_speedup = 4;
  options.prompt_tokens = 8192;
  const engine::Estimate single = engine::run_estimate(workload, options);
  CHECK(sweep.rows[2].result.request.speedup == single.result.request.speedup);
  CHECK(sweep.rows[2].result.prefill.phase.speedup == single.result.prefill.phase.speedup);
  CHECK(engine::sweep_size(axes) == 4);
}

TEST_CASE("sweep: a batch axis without a model and GPU is an error, not a no-op") {
  engine::SweepAxes axes;
  axes.batch = {1, 8};
  CHECK_THROWS_WITH(
      engine::run_sweep(io::load_workload("deepseek-r1-fp8"), engine::EstimateOptions{}, axes),
      Catch::Contains("{flag:batch}"));
}

TEST_CASE("sweep document: the same columns for every row; after fields and less time") {
  const report::Document document = report::sweep_document(seed_sweep());
  REQUIRE(document.records.size() == 6);
  std::vector<std::string> first_keys;
  for (const auto& [key, value] : document.records.front().items()) first_keys.push_back(key);
  for (const auto& record : document.records) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : record.items()) keys.push_back(key);
    CHECK(keys == first_keys);
  }
  const auto& last = document.records.back();
  CHECK(last["schema_version"] == report::kSchemaVersion);
  const double speedup = last["request_speedup"].get<double>();
  CHECK(last["request_latency_reduction_pct"].get<double>() == Approx((1 - 1 / speedup) * 100));
  CHECK(last["request_e2e_after_ms"].get<double>() ==
        Approx(last["request_e2e_before_ms"].get<double>() / speedup));
  // TTFT = prefill GPU time + T0 (fitted): TTFT' = T0 + (TTFT - T0) / prefill speedup
  const double fixed = last["ttft_fixed_ms"].is_null() ? 0.0 : last["ttft_fixed_ms"].get<double>();
  CHECK(fixed > 0);
  CHECK(last["request_ttft_after_ms"].get<double>() ==
        Approx(fixed +
               (last["ttft_ms"].get<double>() - fixed) / last["prefill_speedup"].get<double>()));
  CHECK(last["request_ttft_after_ms"].get<double>() ==
        Approx(last["ttft_ms"].get<double>() / last["ttft_speedup"].get<double>()));
  CHECK(last["request_tpot_after_ms"].get<double>() ==
        last["tpot_ms"].get<double>());  // prefill only
}

TEST_CASE("sweep chart: prefill and request series over the context, ceiling, measured points") {
  const std::optional<report::chart::SweepChart> chart = report::sweep_chart(seed_sweep());
  REQUIRE(chart);
  REQUIRE(chart->series.size() == 2);
  CHECK(chart->series[0].points.size() == 6);
  // The first line is TTFT's: the fitted fixed term (T0 = 242 ms) dilutes prefill's 1.739×
  // at 128K to 1.722×, and the ceiling to 1/(1 − p_eff) = 6.19×, p_eff = 0.85 · 17.41 / 17.65.
  const engine::Sweep sweep = seed_sweep();  // kept alive: `last` refers into it
  const engine::SweepRow& last = sweep.rows.back();
  REQUIRE(last.result.ttft.has_value());
  CHECK(chart->series[0].name == "TTFT");
  CHECK(chart->series[0].points.back().y == Approx(last.result.ttft->speedup));
  CHECK(last.result.prefill.phase.speedup == Approx(1 / (0.15 + 0.85 / 2)));
  CHECK(chart->ceiling.back().y == Approx(*last.result.ttft->ceiling));
  CHECK(chart->ceiling.back().y == Approx(6.1859).epsilon(1e-4));
  // The workload's measured contexts between 4K and 128K, on the TTFT line.
  REQUIRE(!chart->measured.empty());
  CHECK(chart->measured.front().context_tokens == 4096);
  CHECK(chart->measured.front().speedup == Approx(sweep.rows.front().result.ttft->speedup));
}

TEST_CASE("kernel speedup table: log-log between rows, held outside, given at a row") {
  const engine::KernelSpeedupTable table = io::read_kernel_speedup_table(
      "\xEF\xBB\xBF"
      "context,speedup\r\n4k,1.5\r\n\"32k\",2.0\r\n\r\n128k,2.4\r\n",
      "t.csv");
  REQUIRE(table.points.size() == 3);
  CHECK(table.key == engine::SpeedupKey::context);
  // 8K is a third of the way from 4K to 32K in ln(context): 1.5 · (2/1.5)^(1/3).
  const auto at_8k = engine::speedup_at(table, 8192);
  CHECK(at_8k.value == Approx(1.5 * std::cbrt(2.0 / 1.5)));
  CHECK(at_8k.provenance == engine::Provenance::interpolated);
  CHECK(engine::speedup_at(table, 32768).provenance == engine::Provenance::given);
  CHECK(engine::speedup_at(table, 1024).value == 1.5);
  CHECK(engine::speedup_at(table, 1024).provenance == engine::Provenance::clamped);
  CHECK(engine::speedup_at(table, 1 << 20).value == 2.4);
}

TEST_CASE("kernel speedup table: JSON by batch, and bad tables say where") {
  const engine::KernelSpeedupTable json = io::read_kernel_speedup_table(
      R"({"key": "batch", "points": [{"at": 1, "speedup": 1.16}, {"at": "64", "speedup": 1.42}]})",
      "t.json");
  CHECK(json.key == engine::SpeedupKey::batch);
  CHECK(engine::speedup_at(json, 8).value == Approx(std::sqrt(1.16 * 1.42)));
  CHECK_THROWS_WITH(io::read_kernel_speedup_table("context,speedup\n32k,2\n4k,1.5\n", "t.csv"),
                    Catch::Contains("t.csv:3") && Catch::Contains("strictly increasing"));
  CHECK_THROWS_WITH(io::read_kernel_speedup_table("tokens,speedup\n4k,2\n", "t.csv"),
                    Catch::Contains("t.csv:1") && Catch::Contains("not a key"));
  CHECK_THROWS_WITH(io::read_kernel_speedup_table("context,speedup\n4k,-2\n", "t.csv"),
                    Catch::Contains("t.csv:2: speedup"));
  CHECK_THROWS_WITH(io::read_kernel_speedup_table("context,speedup\n", "t.csv"),
                    Catch::Contains("no points"));
  CHECK_THROWS_AS(io::read_kernel_speedup_table(R"({"points": [{"at": 0.5, "speedup": 2}]})", "t"),
                  InputError);
}

TEST_CASE("sweep with a speedup table: each point's kernel speedup is the table's") {
  engine::SweepAxes axes;
  axes.prompt_tokens = {4096, 8192, 131072};
  engine::KernelSpeedupTable table;
  table.points = {{4096, 1.5}, {32768, 2.0}, {131072, 2.4}};
  const engine::Sweep sweep = engine::run_sweep(io::load_workload("deepseek-r1-fp8"),
                                                engine::EstimateOptions{}, axes, table);
  REQUIRE(sweep.rows.size() == 3);
  CHECK(sweep.rows[1].kernel_speedup->provenance == engine::Provenance::interpolated);
  // At 128K the share is 85% (measured) and the kernel 2.4×: 1 / (0.15 + 0.85 / 2.4).
  CHECK(sweep.rows[2].result.prefill.phase.speedup == Approx(1 / (0.15 + 0.85 / 2.4)));
  engine::EstimateOptions given;
  given.kernel_speedup = 2;
  CHECK_THROWS_WITH(engine::run_sweep(io::load_workload("deepseek-r1-fp8"), given, axes, table),
                    Catch::Contains("{flag:kernel-speedup-table}"));
}

TEST_CASE("sweep --plot: the SVG's points invert to the engine's speedups within a pixel") {
  const engine::Sweep sweep = seed_sweep();
  const auto root = chart_test::parse_xml(report::sweep_svg(sweep));
  const auto& plot = chart_test::plot_group(root);
  const chart_test::AxisMap x = chart_test::AxisMap::read(plot, 'x');
  const chart_test::AxisMap y = chart_test::AxisMap::read(plot, 'y');
  const auto points = root.find_all("circle", "point");
  REQUIRE(points.size() == 12);  // TTFT and request, 6 contexts each
  for (std::size_t i = 0; i < 6; ++i) {
    const engine::SweepRow& row = sweep.rows[i];
    const auto& ttft = *points[i];
    const auto& request = *points[6 + i];
    CHECK(x.within_a_pixel(ttft.number("cx"), static_cast<double>(row.prompt_tokens.value)));
    // The built-in workload's TTFT has a fitted fixed term: the line is TTFT's speedup, below
    // prefill's GPU-time speedup (issue 20: it plotted prefill's under TTFT's name)
    REQUIRE(row.result.ttft.has_value());
    CHECK(y.within_a_pixel(ttft.number("cy"), row.result.ttft->speedup));
    CHECK(row.result.ttft->speedup < row.result.prefill.phase.speedup);
    CHECK(y.within_a_pixel(request.number("cy"), row.result.request.speedup));
  }
  CHECK(root.find_all("g", "series").front()->at("data-series") == "TTFT");
  CHECK(y.value(points[0]->number("cy")) ==
        Approx(sweep.rows[0].result.ttft->speedup).epsilon(0.005));
}

TEST_CASE("estimate --plot: one waterfall level per chain level, with its times") {
  engine::EstimateOptions options;
  options.prompt_tokens = 131072;
  options.kernel_speedup = 2;
  const engine::Estimate estimate =
      engine::run_estimate(io::load_workload("deepseek-r1-fp8"), options);
  const auto root = chart_test::parse_xml(report::estimate_svg(estimate));
  const auto levels = root.find_all("g", "level");
  // prefill attention, prefill's GPU time, TTFT (a fixed term is fitted), decode, request
  REQUIRE(levels.size() == 5);
  REQUIRE(estimate.result.ttft.has_value());
  CHECK(levels[4]->number("data-before-ms") == Approx(estimate.result.request.time_before_ms));
  CHECK(levels[4]->number("data-after-ms") == Approx(estimate.result.request.time_after_ms));
  CHECK(levels[1]->number("data-after-ms") == Approx(estimate.result.prefill.phase.time_after_ms));
  CHECK(levels[2]->number("data-after-ms") == Approx(estimate.result.ttft->time_after_ms));
  // Each label says what its share is of (issue 20: prefill's share of TTFT was called "of
  // request" under the name "prefill (TTFT)")
  const std::string svg = report::estimate_svg(estimate);
  CHECK(svg.find("prefill (TTFT)") == std::string::npos);
  CHECK(svg.find("prefill (GPU time)") != std::string::npos);
  CHECK(svg.find(report::human_percent(estimate.result.prefill.phase.share_of_parent) +
                 " of TTFT") != std::string::npos);
  CHECK(svg.find(report::human_percent(estimate.result.ttft->share_of_parent) + " of request") !=
        std::string::npos);
}

TEST_CASE("sweep --plot: measured diamonds sit on the TTFT line between swept contexts (issue 20)",
          "[sweep]") {
  // 1k..1m over 24 points hits neither 4K nor 128K: the diamonds come from the workload's fitted
  // TTFT there, which must equal what an estimate at exactly that context gives
  engine::SweepAxes axes;
  for (double value : values("1k..1m", 24, kTokens)) {
    axes.prompt_tokens.push_back(static_cast<std::int64_t>(value));
  }
  engine::EstimateOptions options;
  options.kernel_speedup = 2;
  const auto workload = io::load_workload("deepseek-r1-fp8");
  const engine::Sweep sweep = engine::run_sweep(workload, options, axes);
  const auto root = chart_test::parse_xml(report::sweep_svg(sweep));
  const auto diamonds = root.find_all("path", "measured");
  REQUIRE(diamonds.size() == 2);
  for (const auto* diamond : diamonds) {
    options.prompt_tokens = static_cast<std::int64_t>(diamond->number("data-x"));
    const engine::Estimate at = engine::run_estimate(workload, options);
    REQUIRE(at.result.ttft.has_value());
    CHECK(diamond->number("data-y") == Approx(at.result.ttft->speedup).epsilon(1e-9));
  }
  // Contexts outside the share table (below 4K, above 128K) are shaded
  CHECK(root.find_all("rect", "clamped").size() == 2);
}

TEST_CASE(
    "sweep --plot with --share-model analytic: its subtitle says so, no table diamonds "
    "(issue 20)",
    "[sweep]") {
  engine::PlatformChoice choice;
  choice.model = {io::load_model("deepseek-r1"), engine::Provenance::given};
  choice.gpu = {io::load_gpu("h200-sxm"), engine::Provenance::given};
  engine::EstimateOptions options;
  options.kernel_speedup = 2;
  options.platform = engine::make_platform(choice);
  options.share_model = engine::ShareModel::analytic;
  engine::SweepAxes axes;
  for (double value : values("4k..128k", 6, kTokens)) {
    axes.prompt_tokens.push_back(static_cast<std::int64_t>(value));
  }
  const auto chart =
      report::sweep_chart(engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes));
  REQUIRE(chart);
  CHECK(chart->subtitle.find("shares modelled (analytic)") != std::string::npos);
  CHECK(chart->measured.empty());  // the table's shares are not the ones plotted
}

TEST_CASE(
    "sweep chart (issue 30): the subtitle names the provenance, batch and phase; the ceiling "
    "bounds the line it is drawn for",
    "[sweep][chart]") {
  // The built-in workload's request is an example's: the chart says illustrative, first.
  const std::optional<report::chart::SweepChart> seed = report::sweep_chart(seed_sweep());
  REQUIRE(seed);
  CHECK(seed->subtitle.rfind("illustrative", 0) == 0);
  CHECK(seed->subtitle.find("batch not stated") != std::string::npos);
  CHECK(seed->subtitle.find("phase prefill") != std::string::npos);
  CHECK(seed->ceiling_name == "ceiling of TTFT 1/(1−p)");

  // Decode only: the TTFT line stays at 1.0× and the request line rises, so the ceiling drawn
  // is the request's (the prefill ceiling, 1/(1 − 0) = 1, would sit under the request line).
  engine::EstimateOptions options;
  options.kernel_speedup = 2;
  options.decode_share = 0.55;  // the built-in workload states no decode share
  engine::SweepAxes axes;
  for (double value : values("4k..128k", 6, kTokens)) {
    axes.prompt_tokens.push_back(static_cast<std::int64_t>(value));
  }
  for (const engine::Phase phase :
       {engine::Phase::prefill, engine::Phase::decode, engine::Phase::both}) {
    options.phase = phase;
    const auto chart =
        report::sweep_chart(engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes));
    REQUIRE(chart);
    CHECK(chart->subtitle.find(std::string("phase ") + std::string(engine::to_string(phase))) !=
          std::string::npos);
    // The line the ceiling is named for stays at or under it at every context.
    const bool request = chart->ceiling_name.find("request") != std::string::npos;
    const report::chart::SweepSeries& bounded = chart->series[request ? 1 : 0];
    REQUIRE(bounded.points.size() == chart->ceiling.size());
    for (std::size_t i = 0; i < bounded.points.size(); ++i) {
      CHECK(bounded.points[i].y <= chart->ceiling[i].y * (1 + 1e-12));
    }
    // and with one phase changed it is the top line: no line runs above the ceiling drawn
    if (phase == engine::Phase::both) continue;
    for (const auto& series : chart->series) {
      for (std::size_t i = 0; i < series.points.size(); ++i) {
        CHECK(series.points[i].y <= chart->ceiling[i].y * (1 + 1e-12));
      }
    }
    CHECK(request == (phase == engine::Phase::decode));
  }
}

TEST_CASE(
    "sweep chart (issue 30): a batch sweep plots against the batch, with the platform's "
    "batch in the subtitle otherwise",
    "[sweep][chart]") {
  engine::PlatformChoice choice;
  choice.model = {io::load_model("llama-3.1-70b"), engine::Provenance::given};
  choice.gpu = {io::load_gpu("h100-sxm"), engine::Provenance::given};
  choice.batch = {1, engine::Provenance::given};
  engine::EstimateOptions options;
  options.kernel_speedup = 2;
  options.platform = engine::make_platform(choice);
  engine::SweepAxes axes;
  axes.batch = {1, 8, 64};
  axes.prompt_tokens = {32768};
  const engine::Sweep sweep =
      engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes);
  const auto chart = report::sweep_chart(sweep);
  REQUIRE(chart);
  CHECK(chart->x_kind == report::chart::SweepX::count);
  REQUIRE(chart->series.size() == 2);  // TTFT and request, each over the three batches
  REQUIRE(chart->series[0].points.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(chart->series[0].points[i].x == static_cast<double>(axes.batch[i]));
    CHECK(chart->series[1].points[i].y == Approx(sweep.rows[i].result.request.speedup));
  }
  CHECK(chart->subtitle.find("batch swept") != std::string::npos);
  CHECK(chart->title == "What a 2.00× attention kernel is worth, by batch");
  // --plot-x names a swept input; anything else is refused with the swept ones listed
  CHECK_THROWS_WITH(report::sweep_svg(sweep, {}, "response_tokens"),
                    Catch::Contains("not swept") && Catch::Contains("batch"));
  // One context, one batch: the platform's batch is the subtitle's
  axes.batch.clear();
  axes.prompt_tokens = {4096, 32768};
  options.platform->batch = {16, engine::Provenance::given};
  const auto one_batch =
      report::sweep_chart(engine::run_sweep(io::load_workload("deepseek-r1-fp8"), options, axes));
  REQUIRE(one_batch);
  CHECK(one_batch->subtitle.find("batch 16") != std::string::npos);
}

}  // namespace unit_sweep
