#pragma once
// How a number was obtained (its provenance). Every figure kspeed prints carries one, so a reader
// can tell a measurement from an interpolation or a default. Where a built-in figure comes from
// is its citation (Workload::source, a paper or a blog); a file is a path.

#include <optional>
#include <string_view>

namespace kspeed::engine {

enum class Provenance {
  given,          ///< typed by the user on the command line
  workload,       ///< read from the workload (file or built-in), as measured by its source
  interpolated,   ///< between two measured table points (logit vs log-context)
  clamped,        ///< outside the table, held at the nearest measured point
  extrapolated,   ///< outside the table, edge segment continued (--extrapolate model)
  scaled,         ///< derived from the workload's reference shape with the cost model
  default_value,  ///< kspeed's documented default
  modelled,       ///< computed from a hardware/model roofline model
  measured,       ///< measured from a profiler trace
  preset,         ///< read from a GPU or model file (a built-in preset or the user's own)
  converted,      ///< a measured share turned into a share of wall time (share x busy fraction)
  fitted,         ///< from TTFT = T0 + a·L·(1 + odds(L)) fitted to measured points
  illustrative,   ///< an example's value (the source analysis's request), not a measurement
};

/// The lower-case name used in every output format ("default" for default_value).
constexpr std::string_view to_string(Provenance provenance) {
  switch (provenance) {
    case Provenance::given:
      return "given";
    case Provenance::workload:
      return "workload";
    case Provenance::interpolated:
      return "interpolated";
    case Provenance::clamped:
      return "clamped";
    case Provenance::extrapolated:
      return "extrapolated";
    case Provenance::scaled:
      return "scaled";
    case Provenance::default_value:
      return "default";
    case Provenance::modelled:
      return "modelled";
    case Provenance::measured:
      return "measured";
    case Provenance::preset:
      return "preset";
    case Provenance::converted:
      return "converted";
    case Provenance::fitted:
      return "fitted";
    case Provenance::illustrative:
      return "illustrative";
  }
  return "unknown";
}

/// A value and how it was obtained.
template <class T>
struct WithProvenance {
  T value{};
  Provenance provenance = Provenance::default_value;  ///< how `value` was obtained
};

/// The one rule for an input's value and provenance: what the user gave, else the workload's,
/// else `fallback` (kspeed's default); nullopt when there is neither and no default.
template <class T>
std::optional<WithProvenance<T>> resolve_input(const std::optional<T>& given,
                                               const std::optional<T>& from_workload,
                                               const std::optional<T>& fallback = std::nullopt) {
  if (given) return WithProvenance<T>{*given, Provenance::given};
  if (from_workload) return WithProvenance<T>{*from_workload, Provenance::workload};
  if (fallback) return WithProvenance<T>{*fallback, Provenance::default_value};
  return std::nullopt;
}

/// What the user gave, else kspeed's default: resolve_input for an input no workload states.
template <class T>
WithProvenance<T> given_or_default(const std::optional<T>& given, const T& fallback) {
  if (given) return WithProvenance<T>{*given, Provenance::given};
  return WithProvenance<T>{fallback, Provenance::default_value};
}

/// The names before the rename, for code outside the engine that has not moved yet (src/io).
using Source = Provenance;
template <class T>
using Sourced = WithProvenance<T>;

}  // namespace kspeed::engine
