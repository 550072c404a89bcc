#include "kspeed/engine/chain/latency_order.hpp"

namespace kspeed::engine {

// Best first: measured, given, the workload's own request, fitted, the user's value carried,
// modelled, the workload's value carried, missing.
LatencySource latency_source(const LatencyCandidates& c) {
  // A step model of the user's deployment replaces an example's latency at every length: the
  // illustrative request (the source analysis's 500 ms, 50 ms) is nobody's measurement, and the
  // step model is at least this deployment's physics. The one place this rule lives.
  const bool reference = c.reference && !(c.reference_illustrative && c.step_model);
  // 1. This request on this deployment, as the log measured it: nothing models it better.
  if (c.measured) return LatencySource::measured;
  // 2. The user's measurement on their deployment at this length: a measurement beats a model.
  if (c.given_here) return LatencySource::given;
  // 3. The workload's own request, when this request is it: the value was stated for exactly it.
  if (reference && c.reference_here) return LatencySource::reference;
  // 4. Measured points at several lengths: a fit of measurements carries to any length, and
  //    beats one value carried by a share or a model (and the illustrative reference: its own
  //    length is in rung 3 only when no points are there to disagree with it).
  if (c.points) return LatencySource::fitted;
  // 5. The user's one value at another length, carried here: still a measurement of this
  //    deployment, which the step model only approximates.
  if (c.given_elsewhere) return LatencySource::scaled;
  // 6. The deployment's step model at this request's lengths.
  if (c.step_model) return LatencySource::modelled;
  // 7. The workload's request carried here: a latency of the workload's deployment, perhaps
  //    not this one, so any step model of this deployment ranks above it.
  if (reference) return LatencySource::scaled;
  return LatencySource::missing;
}

bool is_reference_request(bool same_length, bool nothing_cached, bool length_asked,
                          bool user_points, bool workload_points) {
  return same_length && nothing_cached && !user_points && !(length_asked && workload_points);
}

}  // namespace kspeed::engine
