// kspeed roofline --ncu's analysis: which launches are selected, which one is priced, the lever
// rows and the speedup estimate takes from it. Numbers from
// tests/fixtures/ncu/details-flash-fwd.csv (launch 0: 0.25 ms, 48,000,000 DRAM bytes, 3,500,000
// SASS FLOPs; launch 1: no bytes).
#include <catch2/catch.hpp>
#include <string>

#include "kspeed/engine/measured_analysis.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/ncu_reader.hpp"

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
    query.kernels.push_back(measure_kernel(kernel, classifier));
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
