#pragma once
// Where a request's TTFT or TPOT comes from: one order for every command (issue 26). estimate and
// sweep (resolve_scenario, one request) and mix (MixRun::add, each request of a log) say what is
// available for the request, ask latency_source, and then only compute the value of the source it
// names. No other code ranks the sources. The order and why each rung ranks where it does:
// latency_order.cpp, and docs/model.md, "Where a request's TTFT and TPOT come from".

#include "kspeed/engine/chain/request_outcomes.hpp"

namespace kspeed::engine {

/// What one request's TTFT (or TPOT) could be taken from. Each flag is true only when that
/// source can price this request (a fit or a scaling needs a share below 1, for example).
struct LatencyCandidates {
  bool measured = false;         ///< the log's own measurement of this request
  bool given_here = false;       ///< the user's latency stated for this request's length
  bool given_elsewhere = false;  ///< the user's latency stated at another length
  bool points = false;           ///< measured points to fit (the user's or the workload's)
  bool reference = false;        ///< the workload's own request has this latency
  bool reference_here = false;   ///< this request is the workload's own (is_reference_request)
  bool reference_illustrative = false;  ///< the workload's request is an example's
  bool step_model = false;              ///< the deployment's step model can price the request
};

/// The source to take the latency from: measured, given, reference, fitted, scaled (from the
/// user's value when given_elsewhere, else from the reference), modelled, or missing.
LatencySource latency_source(const LatencyCandidates& candidates);

/// Whether a request is the workload's reference request itself, whose latency is the reference's
/// own: the same length with nothing cached, and neither the user's measured points (they are
/// this deployment's, and beat the workload's one request) nor, for a length the user asked for,
/// the workload's points (a length asked for takes the fit, so the answer has no step where the
/// reference and the fit disagree: 1,023 / 1,024 / 1,025 tokens). A log's requests are lengths
/// asked for.
bool is_reference_request(bool same_length, bool nothing_cached, bool length_asked,
                          bool user_points, bool workload_points);

}  // namespace kspeed::engine
