#pragma once
// Where a number came from. Every figure kspeed prints carries one, so a reader can tell a
// measurement from an interpolation or a default.

#include <string_view>

namespace kspeed::engine {

enum class Source {
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
};

/// The lower-case name used in every output format ("default" for default_value).
constexpr std::string_view to_string(Source source) {
  switch (source) {
    case Source::given:
      return "given";
    case Source::workload:
      return "workload";
    case Source::interpolated:
      return "interpolated";
    case Source::clamped:
      return "clamped";
    case Source::extrapolated:
      return "extrapolated";
    case Source::scaled:
      return "scaled";
    case Source::default_value:
      return "default";
    case Source::modelled:
      return "modelled";
    case Source::measured:
      return "measured";
    case Source::preset:
      return "preset";
  }
  return "unknown";
}

/// A value and where it came from.
template <class T>
struct Sourced {
  T value{};
  Source source = Source::default_value;
};

}  // namespace kspeed::engine
