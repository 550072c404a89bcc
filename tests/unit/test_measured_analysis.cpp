// kspeed roofline --ncu's analysis: which launches are selected, which one is priced, the lever
// rows and the speedup estimate takes from it. Numbers from
// tests/fixtures/ncu/details-flash-fwd.csv (launch 0: 0.25 ms, 48,000,000 DRAM bytes, 3,500,000
// SASS FLOPs; launch 1: no bytes).
#include <catch2/catch.hpp>
#include <string>

#include "kspeed/engine/verify/measured_analysis.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/profile/classify.hpp"

namespace unit_measured_analysis {

using namespace kspeed::engine;

namespace {

MeasuredRooflineQuery fixture_query() {
  const kspeed::io::NcuReport report = kspeed::io::load_ncu_csv(
      std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/ncu/details-flash-fwd.csv");
  static const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  MeasuredRooflineQuery query;
  query.file = "details-flash-fwd.csv";
  query.page = "details";
  for (const auto& kernel : report.kernels)
    query.kernels.push_back(measure_kernel(kernel, classifier.classify(kernel.name)));
  query.gpu_name = "h100-sxm";
  query.precision = "bf16";
  query.peak_tflops = {989.4, Provenance::preset};
  query.bandwidth_tbs = {3.35, Provenance::preset};
  return query;
}

}  // namespace

TEST_CASE("measured analysis: attention launches by default, levers priced from the measurement",
          "[ncu][measured]") {
  MeasuredRooflineQuery query = fixture_query();
  query.levers = {1, 2, std::nullopt};
  query.levers_given = true;
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  CHECK(result.selection == KernelSelection::attention);
  CHECK(result.selected == std::vector<bool>{true, false});
  REQUIRE(result.priced == 0u);
  // t_m = 48e6 / 3.35e12 = 14.328 us, exposed 250 - 14.328 (t_c is 3.5 ns); halving the bytes:
  // 250 / (7.164 + 235.672) = 1.02950×.
  REQUIRE(result.levers.size() == 1);
  CHECK(result.levers[0].kind == LeverKind::bytes);
  CHECK(result.levers[0].outcome.speedup == Approx(1.029502).epsilon(1e-6));
  const WithProvenance<double> speedup = measured_kernel_speedup(result);
  CHECK(speedup.value == Approx(1.029502).epsilon(1e-6));
  CHECK(speedup.provenance == Provenance::measured);
  // The tensor-pipe count (65,536) is not FLOPs: a warning, not a guess.
  REQUIRE(result.warnings.size() == 1);
  CHECK(result.warnings[0].code == WarningCode::tensor_work_uncounted);
  CHECK(result.warnings[0].number("tensor_warp_instructions") == 65'536);
}

TEST_CASE("measured analysis: a launch without bytes is listed, not priced; bad picks are errors",
          "[ncu][measured]") {
  MeasuredRooflineQuery query = fixture_query();
  query.launch = "1";
  query.pattern = "reshape|flash";
  query.pattern_matches = {true, true};
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  CHECK(result.selection == KernelSelection::pattern);
  REQUIRE(result.priced == 1u);
  CHECK(result.levers.empty());
  CHECK(result.missing_metrics.front() == "dram__bytes_read.sum");
  CHECK_THROWS_AS(measured_kernel_speedup(result), kspeed::InputError);

  query.launch = "9";
  CHECK_THROWS_WITH(analyse_measured_roofline(query),
                    Catch::Contains("{flag:launch} 9: no selected launch"));
  query.launch.reset();
  query.pattern_matches = {false, false};
  CHECK_THROWS_WITH(analyse_measured_roofline(query), Catch::Contains("matches none of the"));
}

TEST_CASE("measured analysis: a roof below the measurement prices nothing", "[ncu][measured]") {
  MeasuredRooflineQuery query = fixture_query();
  query.bandwidth_tbs = {0.1, Provenance::given};  // 192 GB/s measured: above a 100 GB/s roof
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  CHECK(result.positions[0].above_roof);
  CHECK(result.levers.empty());
  CHECK(result.warnings.back().code == WarningCode::measured_above_roof);
}

namespace {

// tests/fixtures/ncu/raw-b200-flashinfer.csv (its header states the answers) on b200's roof.
MeasuredRooflineQuery flashinfer_query(const MeasureOptions& options = {}) {
  const kspeed::io::NcuReport report = kspeed::io::load_ncu_csv(
      std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/ncu/raw-b200-flashinfer.csv");
  static const kspeed::profile::KernelClassifier classifier(kspeed::profile::builtin_patterns());
  MeasuredRooflineQuery query;
  query.file = "raw-b200-flashinfer.csv";
  query.page = "raw";
  for (const auto& kernel : report.kernels)
    query.kernels.push_back(measure_kernel(kernel, classifier.classify(kernel.name), options));
  query.gpu_name = "b200";
  query.gpu_compute_capability = "10.0";
  query.export_preset = "b200";
  query.precision = "bf16";
  query.peak_tflops = {2250, Provenance::preset};
  query.bandwidth_tbs = {8.0, Provenance::preset};
  return query;
}

}  // namespace

TEST_CASE("measured analysis: without --launch the longest attention launch is priced (issue 20)",
          "[ncu][measured]") {
  const MeasuredRooflineQuery query = flashinfer_query();
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  // Both are attention_core (MergeStatesKernel merges attention's partial states), launched in
  // that order; the 250 us prefill kernel is the one a user profiled, not the 4 us merge.
  CHECK(result.selected == std::vector<bool>{true, true});
  CHECK(result.priced == 1u);
  MeasuredRooflineQuery first = query;
  first.launch = "0";
  CHECK(analyse_measured_roofline(first).priced == 0u);
}

TEST_CASE(
    "measured analysis: FLOPs missing tensor work do not make a launch memory-bound; "
    "--mma-shape converts them (issue 20)",
    "[ncu][measured]") {
  const MeasuredRooflineResult lower = analyse_measured_roofline(flashinfer_query());
  const MeasuredKernel& k = lower.query.kernels[1];
  CHECK(k.flops_miss_tensor_work);
  CHECK(*k.intensity_flop_per_byte == Approx(0.328125));  // a lower bound, below the ridge
  CHECK_FALSE(lower.positions[1].bound.has_value());      // so the bound is not known
  MeasureOptions options;
  options.mma_shape = MmaShape{16, 8, 16};
  const MeasuredRooflineResult converted = analyse_measured_roofline(flashinfer_query(options));
  const MeasuredKernel& c = converted.query.kernels[1];
  CHECK_FALSE(c.flops_miss_tensor_work);
  CHECK(*c.flops.value == Approx(8'297'000'000.0));
  CHECK(*c.intensity_flop_per_byte == Approx(25.928125));
  REQUIRE(converted.positions[1].bound.has_value());
  CHECK(*converted.positions[1].bound == Bound::memory);
  CHECK(*converted.positions[1].compute_fraction == Approx(0.0147502222));
  // An attention launch whose export holds no tensor-pipe count at all: also a lower bound.
  const MeasuredRooflineQuery details = fixture_query();
  CHECK(details.kernels[0].flops_miss_tensor_work);
}

TEST_CASE(
    "measured analysis: --bandwidth-efficiency BEFORE:AFTER scales the measured "
    "bandwidth fraction (issue 20)",
    "[ncu][measured]") {
  MeasuredRooflineQuery query = flashinfer_query();
  query.bandwidth_efficiency_gain = 0.55 / 0.5;
  query.levers_given = true;
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  REQUIRE(result.levers.size() == 1);
  CHECK(result.levers[0].kind == LeverKind::bandwidth);
  // measured η = 40 us / 250 us = 16%; after: 17.6%, so t' = 40 / 0.176 = 227.27 us: 1.10×, not
  // the 250 / 72.7 = 3.44× an absolute 0.55 would give
  CHECK(*result.levers[0].levers.bandwidth_efficiency_after == Approx(0.176));
  CHECK(result.levers[0].outcome.speedup == Approx(1.1));
  CHECK(measured_kernel_speedup(result).value == Approx(1.1));
}

TEST_CASE("measured analysis: an export of another GPU than the roof's is a warning (issue 20)",
          "[ncu][measured]") {
  MeasuredRooflineQuery query = flashinfer_query();
  CHECK(analyse_measured_roofline(query).warnings.front().code != WarningCode::ncu_gpu_mismatch);
  query.gpu_name = "h100-sxm";
  query.gpu_compute_capability = "9.0";
  query.peak_tflops = {989.4, Provenance::preset};
  query.bandwidth_tbs = {3.35, Provenance::preset};
  const MeasuredRooflineResult result = analyse_measured_roofline(query);
  REQUIRE_FALSE(result.warnings.empty());
  const Warning& w = result.warnings.front();
  CHECK(w.code == WarningCode::ncu_gpu_mismatch);
  CHECK(w.text("export_device") == "NVIDIA B200");
  CHECK(w.text("export_cc") == "10.0");
  CHECK(w.text("export_preset") == "b200");
  CHECK(w.text("gpu_cc") == "9.0");
}

}  // namespace unit_measured_analysis
