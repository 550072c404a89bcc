#pragma once
// How far an answer may rest on a value, and the one rule for a value derived from others: it is
// no stronger than the weakest of them (issue 27: provenance cannot launder). An illustrative
// value scaled stays illustrative; a fit whose coefficient stayed modelled is modelled.

#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {

/// Weakest first: an example's value, a default, a share read beyond its table (extrapolated,
/// then clamped), a roofline model; then derived values (scaled from one point, converted,
/// interpolated, fitted), a preset's, a workload's cited or measured value, and the user's.
constexpr int strength(Provenance provenance) {
  switch (provenance) {
    case Provenance::illustrative:
      return 0;
    case Provenance::default_value:
      return 1;
    case Provenance::extrapolated:
      return 2;
    case Provenance::clamped:
      return 3;
    case Provenance::modelled:
      return 4;
    case Provenance::scaled:
      return 5;
    case Provenance::converted:
      return 6;
    case Provenance::interpolated:
      return 7;
    case Provenance::fitted:
      return 8;
    case Provenance::preset:
      return 9;
    case Provenance::workload:
      return 10;
    case Provenance::measured:
      return 11;
    case Provenance::given:
      return 12;
  }
  return 0;
}

/// The provenance of a value derived by `operation` (scaled, fitted, converted...) from an input
/// of provenance `input`: the weaker of the two.
constexpr Provenance weakest(Provenance operation, Provenance input) {
  return strength(input) < strength(operation) ? input : operation;
}

}  // namespace kspeed::engine
