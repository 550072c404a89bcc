#pragma once
// One denominator, enforced by types. A share is a fraction *of* something — the kernels' summed
// time, the GPU's busy time (the union of kernel intervals) or the wall time of a step or a
// request — and a latency is one kind of time. Attention time is share × time only when both
// are of the same kind; a kernel-time share reaching a wall-time latency (the overstatement the
// SGLang decode sample shows: 49×) does not compile. A share changes kind only through
// convert_share, with the two times that relate the kinds.

#include <concepts>
#include <string_view>

namespace kspeed::engine {

/// What a time measures, and so what a share is a fraction of.
enum class TimeBase {
  kernel,  ///< the sum of kernel durations (overlapping kernels count twice)
  busy,    ///< GPU-busy time: the union of kernel intervals
  wall,    ///< wall-clock time (a step from first kernel start to last end, or a user's latency),
           ///< profiler idle gaps excluded unless asked for
};

constexpr std::string_view to_string(TimeBase base) {
  switch (base) {
    case TimeBase::kernel:
      return "kernel-time";
    case TimeBase::busy:
      return "busy-time";
    case TimeBase::wall:
      return "wall-time";
  }
  return "unknown";
}

/// A time of one kind, ms.
template <TimeBase Base>
struct Time {
  double ms = 0;
};

/// A fraction, in [0, 1], of a time of kind Base.
template <TimeBase Base>
struct Share {
  double fraction = 0;
};

/// The part of `whole` the share stands for: share × time, of the same kind only.
template <TimeBase Base>
constexpr Time<Base> operator*(Share<Base> share, Time<Base> whole) {
  return {share.fraction * whole.ms};
}
template <TimeBase Base>
constexpr Time<Base> operator*(Time<Base> whole, Share<Base> share) {
  return share * whole;
}
/// A share of one kind of time applied to another kind: refused at compile time.
template <TimeBase A, TimeBase B>
requires(A != B) void operator*(Share<A>, Time<B>) = delete;
template <TimeBase A, TimeBase B>
requires(A != B) void operator*(Time<B>, Share<A>) = delete;

/// The share `part` is of `whole`, both of one kind.
template <TimeBase Base>
constexpr Share<Base> share_of(Time<Base> part, Time<Base> whole) {
  return {whole.ms > 0 ? part.ms / whole.ms : 0.0};
}

/// A share of `From` time as a share of `To` time, through the two times of the same interval
/// under each kind: share_to = share_from × from / to (kernel-time × kernel_ms / wall_ms is the
/// busy fraction scaling of a profiled step). Capped at 1: overlapping kernels can sum past the
/// wall time, and a share of wall time cannot exceed it.
template <TimeBase From, TimeBase To>
constexpr Share<To> convert_share(Share<From> share, Time<From> from, Time<To> to) {
  const double scaled = to.ms > 0 ? share.fraction * from.ms / to.ms : 0.0;
  return {scaled < 1.0 ? scaled : 1.0};
}

/// True when a share of kind S may be applied to a time of kind T (for the compile-time tests).
template <class S, class T>
concept AppliesTo = requires(S share, T time) {
  {share * time};
};

}  // namespace kspeed::engine
