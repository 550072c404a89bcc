#pragma once
// One denominator, enforced by types. A share is a fraction *of* something — the kernels' summed
// time, the GPU's busy time (the union of kernel intervals) or the wall time of a step or a
// request — and a latency is one kind of time. Attention time is share × time only when both
// are of the same kind; a kernel-time share reaching a wall-time latency (the overstatement the
// SGLang decode sample shows: 49×) does not compile. A share changes kind only through
// convert_share, with the two times that relate the kinds.

#include <concepts>
#include <string_view>
#include <type_traits>

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

/// Amdahl on a time with a share of the same kind: T' = T · ((1 - p) + p / s). The time is the
/// part of a latency the share is a fraction of (a fixed term no kernel touches stays outside).
template <TimeBase Base>
constexpr Time<Base> amdahl_on(Time<Base> time, Share<Base> share, double speedup) {
  return {time.ms * ((1.0 - share.fraction) + share.fraction / speedup)};
}

/// A kind known only at run time (a workload's share_denominator, read from its file) reaches
/// typed code through this: f is called with the kind as a compile-time constant,
/// std::integral_constant<TimeBase, Base>.
template <class F>
constexpr decltype(auto) with_time_base(TimeBase base, F&& f) {
  switch (base) {
    case TimeBase::kernel:
      return f(std::integral_constant<TimeBase, TimeBase::kernel>{});
    case TimeBase::busy:
      return f(std::integral_constant<TimeBase, TimeBase::busy>{});
    case TimeBase::wall:
      break;
  }
  return f(std::integral_constant<TimeBase, TimeBase::wall>{});
}

/// True when a share of kind S may be applied to a time of kind T (for the compile-time tests).
template <class S, class T>
concept AppliesTo = requires(S share, T time) {
  {share * time};
};

/// True when Amdahl may move a time of kind T with a share of kind S (for the compile-time tests).
template <class S, class T>
concept AmdahlAppliesTo = requires(S share, T time) {
  {amdahl_on(time, share, 2.0)};
};

}  // namespace kspeed::engine
