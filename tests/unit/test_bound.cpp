// One bound definition with the efficiencies in it, and "near the ridge".
#include <catch2/catch.hpp>

#include "kspeed/engine/roofline/bound.hpp"

namespace unit_bound {

using namespace kspeed::engine;

TEST_CASE("bound: the efficiency-adjusted ridge decides (the issue's A100 case)", "[bound]") {
  // A100 SXM 80GB, BF16: 312 TFLOP/s / 2.039 TB/s = 153.0 FLOP/byte.
  const double ridge = 312.0 / 2.039;
  CHECK(ridge == Approx(153.016));
  // η_compute 0.7: effective ridge 153.0 · 0.7 = 107.1, so intensity 121 is compute-bound ...
  CHECK(effective_ridge(ridge, 0.7, 1.0) == Approx(107.111));
  CHECK(bound_of(121.0, ridge, 0.7, 1.0) == Bound::compute);
  // ... though it sits below the datasheet ridge, where full efficiency says memory-bound.
  CHECK(bound_of(121.0, ridge, 1.0, 1.0) == Bound::memory);
  CHECK(near_ridge(121.0, ridge, 0.7, 1.0));  // 121 / 107.1 = 1.13, within 1.5×
  // The same classification as the roofline time's two terms.
  const Roof a100{312.0, 2.039};
  CHECK(bound_of(KernelCost{121.0, 1.0}, a100, Efficiency{0.7, 1.0}) == Bound::compute);
  CHECK(bound_of(KernelCost{121.0, 1.0}, a100, Efficiency{1.0, 1.0}) == Bound::memory);
}

TEST_CASE("bound: bandwidth efficiency raises the ridge; near means within 1.5x", "[bound]") {
  CHECK(effective_ridge(295.3, 1.0, 0.5) == Approx(590.6));
  CHECK(bound_of(400.0, 295.3, 1.0, 0.5) == Bound::memory);
  CHECK(near_ridge(100.0, 150.0, 1.0, 1.0));  // 150 / 1.5 = 100: on the edge
  CHECK_FALSE(near_ridge(99.0, 150.0, 1.0, 1.0));
  CHECK(near_ridge(225.0, 150.0, 1.0, 1.0));  // 150 · 1.5
  CHECK_FALSE(near_ridge(226.0, 150.0, 1.0, 1.0));
  CHECK_FALSE(near_ridge(8.0, 295.3, 1.0, 1.0));  // GQA BF16 decode: far below
}

}  // namespace unit_bound
