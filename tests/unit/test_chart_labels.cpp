// Every chart kspeed draws, read as a person reads it: no two text labels overprint, a label
// drawn in the plot area stays inside it (issue 20), and no label in the plot is written over a
// line drawn there — a series, the ceiling, the roof, the ridge, an arrow, the 1.0× line
// (issue 30). A label's box is estimated as the layout
// does (svg.hpp's text_width: 0.6 em per code point; ascent 0.8 em, descent 0.25 em).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "chart_xml.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/engine/verify/measured_analysis.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/profile/classify.hpp"
#include "kspeed/report/chart/cdf_chart.hpp"
#include "kspeed/report/chart/svg.hpp"
#include "kspeed/report/reports.hpp"

namespace unit_chart_labels {

using namespace kspeed;

namespace {

struct Box {
  std::string text;
  double left = 0, right = 0, top = 0, bottom = 0;
  bool in_plot = false;
  bool rotated = false;  ///< written along a line (the roofline's memory slope), on purpose
};

double font_size(const chart_test::Element& text) {
  const std::string css = text.has("class") ? text.at("class") : "";
  if (css.find("subtitle") != std::string::npos) return report::chart::kSubtitleSize;
  if (css.find("title") != std::string::npos && css.find("axis-title") == std::string::npos)
    return report::chart::kTitleSize;
  if (css.find("tick") != std::string::npos) return report::chart::kTickSize;
  return report::chart::kLabelSize;
}

// "rotate(A CX CY)": the box's corners turned A degrees about (CX, CY), then the box around
// them (a rotated axis title, a label along the roofline's memory slope).
void rotate(const std::string& transform, Box& box) {
  double angle = 0, cx = 0, cy = 0;
  if (std::sscanf(transform.c_str(), "rotate(%lf %lf %lf)", &angle, &cx, &cy) != 3) return;
  const double r = angle * 3.14159265358979 / 180;
  const double xs[] = {box.left, box.right, box.right, box.left};
  const double ys[] = {box.top, box.top, box.bottom, box.bottom};
  box.left = box.top = 1e9;
  box.right = box.bottom = -1e9;
  for (int i = 0; i < 4; ++i) {
    const double x = cx + (xs[i] - cx) * std::cos(r) - (ys[i] - cy) * std::sin(r);
    const double y = cy + (xs[i] - cx) * std::sin(r) + (ys[i] - cy) * std::cos(r);
    box.left = std::min(box.left, x);
    box.right = std::max(box.right, x);
    box.top = std::min(box.top, y);
    box.bottom = std::max(box.bottom, y);
  }
}

void collect(const chart_test::Element& element, bool in_plot, std::vector<Box>& out) {
  const bool plot = in_plot || (element.name == "g" && element.has_class("plot"));
  if (element.name == "text" && element.has("x") && element.has("y") && !element.text.empty()) {
    const double size = font_size(element);
    const double width = report::chart::text_width(element.text, size);
    const double x = element.number("x");
    const double y = element.number("y");
    const std::string anchor = element.has("text-anchor") ? element.at("text-anchor") : "start";
    Box box;
    box.text = element.text;
    box.left = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x;
    box.right = box.left + width;
    box.top = y - 0.8 * size;
    box.bottom = y + 0.25 * size;
    box.in_plot = plot;
    box.rotated = element.has("transform");
    if (element.has("transform")) rotate(element.at("transform"), box);
    out.push_back(box);
  }
  for (const auto& child : element.children) collect(child, plot, out);
}

// The lines drawn in the plot, in pixels: each <path class="… series …"> ("M x y L x y …", an M
// starts a new run) and each <line> of the roof, ridge, arrows and the 1.0× line.
using Polyline = std::vector<std::pair<double, double>>;

void collect_lines(const chart_test::Element& element, std::vector<Polyline>& out) {
  if (element.name == "path" && element.has_class("series") && element.has("d")) {
    const std::string d = element.at("d");
    std::size_t at = 0;
    while (at < d.size()) {
      const char command = d[at];
      if (command != 'M' && command != 'L') {
        ++at;
        continue;
      }
      char* end = nullptr;
      const double x = std::strtod(d.c_str() + at + 1, &end);
      const double y = std::strtod(end, &end);
      if (command == 'M') out.emplace_back();
      out.back().emplace_back(x, y);
      at = static_cast<std::size_t>(end - d.c_str());
    }
  }
  if (element.name == "line" && (element.has_class("no-change") || element.has_class("ridge") ||
                                 element.has_class("raised-roof") || element.has_class("arrow"))) {
    out.push_back({{element.number("x1"), element.number("y1")},
                   {element.number("x2"), element.number("y2")}});
  }
  for (const auto& child : element.children) collect_lines(child, out);
}

// Whether the line passes through the box (shrunk by half a pixel): points every half pixel
// along each segment, tested for being inside.
bool line_through(const Polyline& line, const Box& box) {
  for (std::size_t i = 1; i < line.size(); ++i) {
    const auto [x0, y0] = line[i - 1];
    const auto [x1, y1] = line[i];
    const int steps = 1 + static_cast<int>(2 * std::hypot(x1 - x0, y1 - y0));
    for (int k = 0; k <= steps; ++k) {
      const double x = x0 + (x1 - x0) * k / steps;
      const double y = y0 + (y1 - y0) * k / steps;
      if (x > box.left + 0.5 && x < box.right - 0.5 && y > box.top + 0.5 && y < box.bottom - 0.5)
        return true;
    }
  }
  return false;
}

// The overlaps (pairs of label texts) and the labels that leave the page or the plot area.
std::vector<std::string> label_problems(const std::string& svg) {
  const auto root = chart_test::parse_xml(svg);
  std::vector<Box> boxes;
  collect(root, false, boxes);
  std::vector<std::string> problems;
  constexpr double kSlack = 0.5;  // a half-pixel touch is not an overlap
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box& a = boxes[i];
      const Box& b = boxes[j];
      if (a.left < b.right - kSlack && b.left < a.right - kSlack && a.top < b.bottom - kSlack &&
          b.top < a.bottom - kSlack) {
        problems.push_back("'" + a.text + "' overlaps '" + b.text + "'");
      }
    }
  }
  const double width = root.number("width");
  const double height = root.number("height");
  const auto& plot = chart_test::plot_group(root);
  // The plot area, where the plot group states its scales (the waterfall's bars state none)
  const bool scaled = plot.has("data-x-range") && plot.has("data-y-range");
  double plot_left = 0, plot_right = width, plot_top = 0, plot_bottom = height;
  if (scaled) {
    const chart_test::AxisMap x = chart_test::AxisMap::read(plot, 'x');
    const chart_test::AxisMap y = chart_test::AxisMap::read(plot, 'y');
    constexpr double kPadding = 10;  // the charts' inner padding around the scales' ranges
    plot_left = std::min(x.r0, x.r1) - kPadding;
    plot_right = std::max(x.r0, x.r1) + kPadding;
    plot_top = std::min(y.r0, y.r1) - kPadding;
    plot_bottom = std::max(y.r0, y.r1) + kPadding;
  }
  std::vector<Polyline> lines;
  collect_lines(root, lines);
  for (const Box& box : boxes) {
    if (!box.in_plot || box.rotated) continue;
    for (const Polyline& line : lines) {
      if (line_through(line, box)) {
        problems.push_back("'" + box.text + "' is written over a line");
        break;
      }
    }
  }
  for (const Box& box : boxes) {
    if (box.left < 0 || box.right > width || box.top < 0 || box.bottom > height) {
      problems.push_back("'" + box.text + "' leaves the page");
    } else if (box.in_plot && (box.left < plot_left || box.right > plot_right ||
                               box.top < plot_top || box.bottom > plot_bottom)) {
      problems.push_back("'" + box.text + "' leaves the plot area");
    }
  }
  return problems;
}

engine::Platform platform_for(const std::string& model, const std::string& gpu,
                              std::int64_t batch) {
  engine::PlatformChoice choice;
  choice.model = {io::load_model(model), engine::Provenance::given};
  choice.gpu = {io::load_gpu(gpu), engine::Provenance::given};
  choice.batch = {batch, engine::Provenance::given};
  return engine::make_platform(choice);
}

std::string roofline_svg_for(const std::string& model, const std::string& gpu,
                             const engine::Levers& levers, std::int64_t batch = 1,
                             std::int64_t context = 4096) {
  engine::RooflineQuery query;
  const engine::Gpu g = io::load_gpu(gpu);
  query.gpu_name = g.name;
  query.precision = "bf16";
  query.peak_tflops = {*engine::peak_tflops(g, "bf16"), engine::Provenance::preset};
  query.bandwidth_tbs = {g.hbm_bandwidth_tbs, engine::Provenance::preset};
  query.platform = platform_for(model, gpu, batch);
  query.context_tokens = {context, engine::Provenance::given};
  query.levers = levers;
  query.levers_given = levers.changes_anything();
  return report::roofline_svg(engine::analyse_roofline(query));
}

// kspeed roofline --ncu FIXTURE --gpu GPU --plot: the priced launch of an ncu export on the roof
// (as roofline_command.cpp builds the query), with `levers` (none given: the illustrative 2x
// compute and 2x fewer bytes) and, when `modelled`, the model's kernel beside it (--model).
std::string ncu_roofline_svg_for(const std::string& fixture, const std::string& gpu,
                                 const engine::MeasuredLevers& levers, bool modelled) {
  const io::NcuReport report =
      io::load_ncu_csv(std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/ncu/" + fixture);
  static const profile::KernelClassifier classifier(profile::builtin_patterns());
  engine::MeasuredRooflineQuery query;
  query.file = fixture;
  query.page = fixture.rfind("raw", 0) == 0 ? "raw" : "details";
  for (const auto& kernel : report.kernels) {
    query.kernels.push_back(engine::measure_kernel(kernel, classifier.classify(kernel.name)));
  }
  const engine::Gpu g = io::load_gpu(gpu);
  query.gpu_name = g.name;
  query.precision = "bf16";
  query.peak_tflops = {*engine::peak_tflops(g, "bf16"), engine::Provenance::preset};
  query.bandwidth_tbs = {g.hbm_bandwidth_tbs, engine::Provenance::preset};
  query.levers = levers;
  query.levers_given = levers.compute_speedup != 1 || levers.bytes_reduction != 1;
  if (modelled) {
    engine::RooflineQuery roof;
    roof.gpu_name = g.name;
    roof.precision = "bf16";
    roof.peak_tflops = query.peak_tflops;
    roof.bandwidth_tbs = query.bandwidth_tbs;
    roof.platform = platform_for("llama-3.1-70b", gpu, 1);
    roof.context_tokens = {4096, engine::Provenance::given};
    query.modelled = engine::analyse_roofline(roof).step_cost;
    query.model_name = "llama-3.1-70b";
  }
  return report::measured_roofline_svg(engine::analyse_measured_roofline(query), "");
}

}  // namespace

TEST_CASE("charts: no label overprints another or leaves its area", "[chart][labels]") {
  SECTION("the estimate's waterfall (README)") {
    engine::EstimateOptions options;
    options.prompt_tokens = 131072;
    options.kernel_speedup = 2;
    const auto estimate = engine::run_estimate(io::load_workload("deepseek-r1-fp8"), options);
    CHECK(label_problems(report::estimate_svg(estimate)) == std::vector<std::string>{});
  }
  SECTION("the sweep (README), one kernel and four") {
    engine::SweepAxes axes;  // --ctx 1k..1m --points 24, as scripts/render-plots.sh
    for (int i = 0; i < 24; ++i) {
      axes.prompt_tokens.push_back(
          static_cast<std::int64_t>(std::round(1024 * std::pow(1024.0, i / 23.0))));
    }
    engine::EstimateOptions options;
    options.kernel_speedup = 2;
    const auto workload = io::load_workload("deepseek-r1-fp8");
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, axes))) ==
          std::vector<std::string>{});
    axes.kernel_speedup = {1.25, 1.5, 2, 4};
    options.kernel_speedup.reset();
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, axes))) ==
          std::vector<std::string>{});
  }
  SECTION("sweeps over batch, batch x context and kernels x batch (issue 30)") {
    engine::EstimateOptions options;
    options.kernel_speedup = 2;
    options.platform = platform_for("llama-3.1-70b", "h100-sxm", 1);
    const auto workload = io::load_workload("deepseek-r1-fp8");
    engine::SweepAxes batch_only;  // --batch 1,2,...,256 --ctx 32k: x = batch
    batch_only.batch = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    batch_only.prompt_tokens = {32768};
    const std::string by_batch =
        report::sweep_svg(engine::run_sweep(workload, options, batch_only));
    CHECK(label_problems(by_batch) == std::vector<std::string>{});
    const auto root = chart_test::parse_xml(by_batch);
    CHECK(chart_test::plot_group(root).at("data-x-domain").find("256") != std::string::npos);
    engine::SweepAxes grid = batch_only;  // --batch 1,8,64 --ctx 1k..1m: x = context, one per batch
    grid.batch = {1, 8, 64};
    grid.prompt_tokens.clear();
    for (int i = 0; i < 12; ++i) {
      grid.prompt_tokens.push_back(
          static_cast<std::int64_t>(std::round(1024 * std::pow(1024.0, i / 11.0))));
    }
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, grid))) ==
          std::vector<std::string>{});
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, grid), {},
                                           "batch")) == std::vector<std::string>{});
    engine::SweepAxes kernels = batch_only;  // kernels x batch: x = batch, one colour per kernel
    kernels.kernel_speedup = {1.5, 2, 4};
    options.kernel_speedup.reset();
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, kernels))) ==
          std::vector<std::string>{});
    CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, kernels), {},
                                           "kernel_speedup")) == std::vector<std::string>{});
  }
  SECTION("sweeps over kernels in each phase") {
    engine::SweepAxes axes;
    for (int i = 0; i < 24; ++i) {
      axes.prompt_tokens.push_back(
          static_cast<std::int64_t>(std::round(1024 * std::pow(1024.0, i / 23.0))));
    }
    axes.kernel_speedup = {1.25, 1.5, 2, 4};
    const auto workload = io::load_workload("deepseek-r1-fp8");
    for (const engine::Phase phase : {engine::Phase::decode, engine::Phase::both}) {
      engine::EstimateOptions options;
      options.phase = phase;
      options.decode_share = 0.55;  // the built-in workload states no decode share
      CHECK(label_problems(report::sweep_svg(engine::run_sweep(workload, options, axes))) ==
            std::vector<std::string>{});
    }
  }
  SECTION("the roofline with every lever and their combination (README, docs/plots.md)") {
    engine::Levers bytes;
    bytes.bytes_reduction = 2;
    CHECK(label_problems(roofline_svg_for("llama-3.1-70b", "h100-sxm", bytes, 32, 8192)) ==
          std::vector<std::string>{});
    engine::Levers levers;
    levers.compute_speedup = 2;
    levers.bytes_reduction = 2;
    CHECK(label_problems(roofline_svg_for("llama-3.1-70b", "h100-sxm", levers)) ==
          std::vector<std::string>{});
    CHECK(label_problems(roofline_svg_for("deepseek-r1", "h200-sxm", levers)) ==
          std::vector<std::string>{});
    // The MLA case of issue 30: the levers' labels near the peak's, at batch 64 and 256
    for (const std::int64_t batch : {64, 256}) {
      CHECK(label_problems(roofline_svg_for("deepseek-r1", "h200-sxm", levers, batch, 32768)) ==
            std::vector<std::string>{});
      CHECK(label_problems(roofline_svg_for("deepseek-r1", "h200-sxm", engine::Levers{}, batch,
                                            32768)) == std::vector<std::string>{});
    }
    // DeepSeek-R1's MLA decode: a 2× compute lever puts its point above the old peak, so it
    // must sit under the raised roof drawn for it (issue 20)
    const auto root = chart_test::parse_xml(roofline_svg_for("deepseek-r1", "h200-sxm", levers));
    const auto raised = root.find_all("line", "raised-roof");
    REQUIRE(raised.size() == 1);
    for (const auto* point : root.find_all("circle", "point")) {
      CHECK(point->number("data-y") <= raised[0]->number("data-y") * (1 + 1e-9));
    }
  }
  SECTION("the measured roofline of an ncu export (kspeed roofline --ncu --plot)") {
    // Illustrative levers, each lever alone, and the model's kernel beside the measured one;
    // a details page on H100 and a raw page (FlashInfer, memory-bound) on B200.
    engine::MeasuredLevers compute;
    compute.compute_speedup = 2;
    engine::MeasuredLevers bytes;
    bytes.bytes_reduction = 2;
    for (const auto& [fixture, gpu] :
         {std::pair{"details-flash-fwd.csv", "h100-sxm"}, {"raw-b200-flashinfer.csv", "b200"}}) {
      INFO(fixture);
      for (const engine::MeasuredLevers& levers : {engine::MeasuredLevers{}, compute, bytes}) {
        for (const bool modelled : {false, true}) {
          INFO("compute ×" << levers.compute_speedup << ", bytes ÷" << levers.bytes_reduction
                           << (modelled ? ", with --model" : ""));
          const std::string svg = ncu_roofline_svg_for(fixture, gpu, levers, modelled);
          CHECK(svg.find("measured") != std::string::npos);
          CHECK(label_problems(svg) == std::vector<std::string>{});
        }
      }
    }
  }
  SECTION("the mix CDF, with a long subtitle") {
    report::chart::CdfChart chart;
    chart.title = "What a 2.00× attention kernel is worth over 8,819 requests";
    chart.subtitle =
        "log AzureLLMInferenceTrace_conv_1week.csv · workload deepseek-r1-fp8 · phase prefill · "
        "kspeed 0.1.0";
    report::chart::CdfSeries before{"TTFT", report::chart::CdfWhen::before, {}};
    report::chart::CdfSeries after{"TTFT", report::chart::CdfWhen::after, {}};
    report::chart::CdfSeries e2e_before{"E2E", report::chart::CdfWhen::before, {}};
    report::chart::CdfSeries e2e_after{"E2E", report::chart::CdfWhen::after, {}};
    for (int i = 1; i <= 200; ++i) {
      before.samples_ms.push_back(300.0 + 40.0 * i);
      after.samples_ms.push_back(280.0 + 35.0 * i);
      e2e_before.samples_ms.push_back(20000.0 + 300.0 * i);
      e2e_after.samples_ms.push_back(19800.0 + 290.0 * i);
    }
    chart.series = {before, after, e2e_before, e2e_after};
    CHECK(label_problems(report::chart::render_cdf_svg(chart)) == std::vector<std::string>{});
  }
}

}  // namespace unit_chart_labels
