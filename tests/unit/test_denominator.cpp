// One denominator, enforced by types: a share applies only to a time of its own kind, and
// changes kind only through the times that relate the kinds.
#include <catch2/catch.hpp>

#include "kspeed/engine/denominator.hpp"

namespace unit_denominator {

using namespace kspeed::engine;

using KernelShare = Share<TimeBase::kernel>;
using BusyShare = Share<TimeBase::busy>;
using WallShare = Share<TimeBase::wall>;
using KernelTime = Time<TimeBase::kernel>;
using WallTime = Time<TimeBase::wall>;

// The combinations that compile, and the old mismatched ones that no longer do: a kernel-time
// share on a wall latency (--ttft, --ttft-point, mix --workload), a busy-time share on one.
static_assert(AppliesTo<WallShare, WallTime>);
static_assert(AppliesTo<KernelShare, KernelTime>);
static_assert(!AppliesTo<KernelShare, WallTime>);
static_assert(!AppliesTo<BusyShare, WallTime>);
static_assert(!AppliesTo<WallShare, KernelTime>);
static_assert(!AppliesTo<double, WallTime>);  // a bare number is no share
// Amdahl moves a time only with a share of the same kind (mix's TTFT, TPOT and E2E go through
// it): a kernel-time table share on a log's measured wall latency no longer compiles.
static_assert(AmdahlAppliesTo<WallShare, WallTime>);
static_assert(AmdahlAppliesTo<KernelShare, KernelTime>);
static_assert(!AmdahlAppliesTo<KernelShare, WallTime>);
static_assert(!AmdahlAppliesTo<BusyShare, WallTime>);
static_assert(!AmdahlAppliesTo<double, WallTime>);
static_assert(amdahl_on(WallTime{100}, WallShare{0.5}, 2.0).ms == 75);
// A kind read from a file reaches typed code as a compile-time constant.
static_assert(with_time_base(TimeBase::busy,
                             [](auto kind) { return decltype(kind)::value == TimeBase::busy; }));

TEST_CASE("a share of one kind of time, applied to that time", "[denominator]") {
  CHECK((WallShare{0.25} * WallTime{400}).ms == 100);
  CHECK((KernelTime{80} * KernelShare{0.5}).ms == 40);
  CHECK(share_of(WallTime{30}, WallTime{120}).fraction == 0.25);
  CHECK(share_of(WallTime{30}, WallTime{0}).fraction == 0);
}

TEST_CASE("converting a kernel-time share to wall time uses the step's two times",
          "[denominator]") {
  // SGLang decode sample shape: attention 40% of 10 ms of kernels in a 50 ms step (a gap the
  // profiler left): 4 ms of attention is 8% of the wall time, not 40%.
  const WallShare wall = convert_share(KernelShare{0.4}, KernelTime{10}, WallTime{50});
  CHECK(wall.fraction == Approx(0.08));
  CHECK((wall * WallTime{50}).ms == Approx(4));
  // Overlapping kernels can sum past the wall time; a share of wall time stops at 1.
  CHECK(convert_share(KernelShare{0.9}, KernelTime{30}, WallTime{20}).fraction == 1);
  CHECK(to_string(TimeBase::busy) == "busy-time");
}

}  // namespace unit_denominator
