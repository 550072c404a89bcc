#pragma once
// What `kspeed mix` reports: what reading the log found, the model every request went through,
// the aggregates before and after and, with --replay, the queue and goodput. The command fills
// it (src/cli/mix_command.cpp); mix_view.cpp and mix_document.cpp present it.

#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/mix_disagg.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/serving/request_log_counts.hpp"

namespace kspeed::engine {

/// How requests are grouped in the per-group table.
enum class MixGrouping { bucket, model };

struct MixResult {
  RequestLogCounts log;    ///< records, requests, skipped rows by reason
  std::string log_format;  ///< the reader's name for the log's format, e.g. "azure-csv"
  /// The load model, when requests or arrivals were generated (--arrivals, --prompt-tokens):
  /// what made them, with its seed; empty when the log's requests and times are replayed.
  std::string generated_load;
  std::string workload_name;  ///< the workload the shares and reference latencies came from
  std::string workload_source;
  engine::MixModel model;  ///< speedup, phase, reference TTFT, TPOT, prefix cache
  engine::MixSummary summary;
  MixGrouping grouping = MixGrouping::bucket;
  std::optional<engine::MixReplay> replay;  ///< with --replay
  /// The deployment the replay ran on (with --replay): its step model and KV capacity, each
  /// with its provenance.
  std::optional<engine::Deployment> deployment;
  /// With --disagg: the same requests through a prefill and a decode pool.
  std::optional<engine::MixDisagg> disagg;
  engine::Slo slo;
};

}  // namespace kspeed::engine
