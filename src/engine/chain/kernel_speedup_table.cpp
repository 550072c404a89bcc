#include "kspeed/engine/chain/kernel_speedup_table.hpp"

#include <cmath>

namespace kspeed::engine {

WithProvenance<double> speedup_at(const KernelSpeedupTable& table, double at) {
  const std::vector<SpeedupPoint>& p = table.points;
  if (at <= p.front().at) {
    return {p.front().speedup, at == p.front().at ? Provenance::given : Provenance::clamped};
  }
  if (at >= p.back().at) {
    return {p.back().speedup, at == p.back().at ? Provenance::given : Provenance::clamped};
  }
  std::size_t i = 1;
  while (p[i].at < at) {
    ++i;
  }
  if (p[i].at == at) {
    return {p[i].speedup, Provenance::given};
  }
  // ln s = ln s0 + t · (ln s1 − ln s0), t = (ln x − ln x0) / (ln x1 − ln x0).
  const SpeedupPoint& lo = p[i - 1];
  const SpeedupPoint& hi = p[i];
  const double t = (std::log(at) - std::log(lo.at)) / (std::log(hi.at) - std::log(lo.at));
  return {std::exp(std::log(lo.speedup) + t * (std::log(hi.speedup) - std::log(lo.speedup))),
          Provenance::interpolated};
}

}  // namespace kspeed::engine
