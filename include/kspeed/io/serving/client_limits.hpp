#pragma once
// The benchmark client's own limits on a load level, as the run's files state them: what the
// replay needs to send the requests the way the client sent them (issue 29: "open loop with a
// cap on requests in flight").
//
// inference-perf (kubernetes-sigs/inference-perf, docs/loadgen.md, "Recommended Configuration"):
// for the rate-based load types (constant, poisson) "maximum concurrency you can reach is bounded
// by num_workers * worker_max_concurrency. You can only have as many in-flight requests." Each
// worker process holds a semaphore of worker_max_concurrency slots, takes a slot before it takes
// a request off the shared queue and frees it when the response ends
// (inference_perf/loadgen/load_generator.py, Worker.loop), and a request's latencies count from
// its send (client/modelserver/openai_client.py: start = time.perf_counter() in process_request),
// not from its scheduled time: a request due while every slot is busy waits in the client, and
// that wait is reported apart, as load_summary.schedule_delay.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kspeed::io {

/// A client's cap on requests in flight, or why the files state none.
struct StatedClientCap {
  std::optional<std::int64_t> max_inflight;
  std::string where;    ///< "config.yaml:20-21: 44 workers × 10": with a cap
  std::string why_not;  ///< without one: what the file lacks
};

/// inference-perf's config.yaml text (`file` names it): load.num_workers ×
/// load.worker_max_concurrency (inference-perf's default 100 when only num_workers is stated)
/// for the load types constant and poisson. No cap without num_workers (its default is the
/// client machine's CPU count, which the files do not state) and for the load type concurrent
/// (a closed loop, not an open loop under a cap). The file is read as indented `key: value`
/// lines, the subset of YAML inference-perf's configs use for these keys.
StatedClientCap scan_inference_perf_client_cap(std::string_view config_yaml,
                                               const std::string& file);

/// The same from `folder`/config.yaml; no such file: no cap, and why_not says so.
StatedClientCap read_inference_perf_client_cap(const std::string& folder);

}  // namespace kspeed::io
