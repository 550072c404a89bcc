// roofline --strict and --fail-on: what the roofline's answer stands on, with estimate's meaning.
#include <catch2/catch.hpp>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/error.hpp"

namespace unit_roofline_inputs {

using namespace kspeed;
using namespace kspeed::engine;

namespace {

// --ai 8 on a given roof, with or without levers.
RooflineResult bare_intensity(bool levers_given) {
  RooflineQuery query;
  query.peak_tflops = {989.4, Provenance::given};
  query.bandwidth_tbs = {3.35, Provenance::given};
  query.given_intensity = 8;
  query.levers.bytes_reduction = levers_given ? 2 : 1;
  query.levers_given = levers_given;
  return analyse_roofline(query);
}

}  // namespace

TEST_CASE("roofline's inputs: the roof, the kernel and the levers", "[answer_inputs]") {
  const std::vector<AnswerInput> inputs = answer_inputs(bare_intensity(false));
  REQUIRE(inputs.size() == 4);
  CHECK(inputs[0].name == "peak TFLOP/s");
  CHECK(inputs[2].name == "arithmetic intensity");
  CHECK(inputs[2].provenance == Provenance::given);
  CHECK(inputs[3].name == "levers");
  CHECK(inputs[3].provenance == Provenance::illustrative);  // the 2x comparison levers
}

TEST_CASE("roofline --strict refuses illustrative levers only", "[answer_inputs]") {
  CHECK_THROWS_AS(refuse_inputs(bare_intensity(false), strict_filter(), "--strict"), InputError);
  CHECK_NOTHROW(refuse_inputs(bare_intensity(true), strict_filter(), "--strict"));
  CHECK_THROWS_WITH(
      refuse_inputs(bare_intensity(true), parse_input_filter("given", "--fail-on"), "--fail-on"),
      Catch::Contains("peak TFLOP/s (given), HBM bandwidth (given), arithmetic "
                      "intensity (given), levers (given)"));
}

}  // namespace unit_roofline_inputs
