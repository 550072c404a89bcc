#pragma once
// The flags of `kspeed mix`: registered once, parsed by kspeed's own parsers (every error names
// its flag) into the engine's values: the request for the replay's deployment
// (engine::DeploymentRequest), the scheduler, the arrivals, the SLOs, the cache.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "estimate_flags.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/mix_disagg.hpp"
#include "kspeed/engine/deployment/deployment.hpp"
#include "kspeed/engine/serving/load_generator.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

// Flag values exactly as typed; parsed by kspeed's own parsers so every error names its flag.
struct MixFlags {
  std::string log;
  std::string run;  ///< --run N: the Nth line of a log whose every line is a run (SGLang)
  std::string columns;
  bool strict = false;
  std::string prefix_cache = "off";
  std::string prefix_cache_hit;
  bool replay = false;
  std::string replicas, rate_scale, slo_ttft, slo_tpot, attainment;
  std::string concurrency, routing = "round-robin", scheduler, max_batched_tokens, max_seqs,
                           chunked_prefill, kv_blocks, block_size, request_overhead, step_model;
  std::string speedup_table_path;  ///< --kernel-speedup-table FILE
  std::string percentiles = "50,90,99";
  std::string by = "bucket";
  std::string per_request;
  std::string plot_path;
  std::string plot_title;
  std::string workload = kDefaultWorkload;
  /// Parsed by estimate's code (to_options, resolve_platform): the change flags
  /// (--kernel-speedup, --phase, --share, --decode-share, --extrapolate), --ttft, --ctx, --tpot,
  /// the deployment (--model, --gpu, --tp, --kv-dtype, ...), --calibrate and --fail-on.
  EstimateFlags deployment;
  /// --workload's option, set by add_mix_flags: tells a given workload from the default.
  CLI::Option* workload_option = nullptr;
  std::string gpu_memory_utilization;
  std::string vllm_version;  ///< --vllm-version: whose memory accounting sizes the KV cache
  /// --disagg xPyD, --kv-link, and each pool's GPU and tensor parallelism when not --gpu/--tp.
  std::string disagg, kv_link, prefill_gpu, prefill_tp, decode_gpu, decode_tp;
  /// The load model (load_generator.hpp): generated requests without a log, or generated
  /// arrivals for the log's requests; the client's limits.
  std::string arrivals, rate, prompt_tokens, output_tokens, requests, duration, seed, max_inflight,
      think_time, session_turns;
  OutputOptions output;
};

/// Registers every flag of mix on `app`, with its footer.
void add_mix_flags(CLI::App& app, MixFlags& flags);
/// mix --help's examples and exit codes.
std::string mix_footer();

/// "50,90,99,99.9": points in [0, 100], at least one, in rising order, each once.
std::vector<double> parse_percentiles(const std::string& text);
engine::PrefixCacheOptions parse_prefix_cache(const MixFlags& flags);
engine::Slo parse_slo(const MixFlags& flags);
/// Flags that only the replay reads, given without --replay: InputError.
void reject_replay_flags_without_replay(const MixFlags& flags);
/// The replay's part of the deployment request: it serves, with the scheduler's settings, the
/// stated step model (--step-model), --request-overhead and --gpu-memory-utilization.
void add_replay_request(const MixFlags& flags, engine::DeploymentRequest& request);
/// --replicas, --rate-scale, --concurrency, --routing.
engine::ArrivalOptions parse_arrivals(const MixFlags& flags);
/// --disagg xPyD: (x, y), each at least 1.
std::pair<std::int64_t, std::int64_t> parse_disagg_shape(const std::string& text);
/// --kv-link nvlink|ib-ndr|roce-mooncake|ALPHA_US:GBPS.
engine::KvLinkChoice parse_kv_link(const std::string& text);
/// --disagg's pools (nullopt without --disagg): each the replay's deployment request
/// (`colocated`, completed by add_replay_request) with the pool's --prefill-gpu/--prefill-tp or
/// --decode-gpu/--decode-tp in place of --gpu/--tp, resolved by resolve_deployment. `defaults`:
/// the workload's platform, as for the colocated deployment.
std::optional<engine::DisaggRequest> parse_disagg(const MixFlags& flags,
                                                  const engine::DeploymentRequest& colocated,
                                                  const PlatformDefaults& defaults);
/// --arrivals, --rate, --prompt-tokens, --output-tokens, --requests, --duration, --seed:
/// nullopt when the log's own arrivals (or none) are replayed. Without a log the lengths and a
/// count or duration are required; with one, only the arrival process may be given (the log's
/// lengths are measured). `has_log`: a log was named.
std::optional<engine::LoadSpec> parse_load(const MixFlags& flags, bool has_log);
/// "1,000 requests generated: poisson at 4 req/s, prompts uniform 100..2000, outputs 200,
/// seed 0", or "arrivals generated: ..." for a log's requests.
std::string describe_load(const engine::LoadSpec& load, std::int64_t requests, bool has_log);

/// --share-model analytic|calibrated: each request's prefill share from the model's
/// architecture (estimate's, at each request's own prompt); table: none.
std::optional<engine::ModelledPrefillShare> modelled_share(
    engine::ShareModel mode, const std::optional<engine::Platform>& platform,
    const engine::Workload& workload, bool workload_given);

}  // namespace kspeed::cli
