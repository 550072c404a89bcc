// The flags of `kspeed mix` (mix_flags.hpp): registration and parsing.
#include "mix_flags.hpp"

#include <algorithm>
#include <cmath>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/length_file.hpp"
#include "kspeed/io/ranges.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::cli {

// "50,90,99,99.9": points in [0, 100], at least one.
std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> points;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const double point = io::parse_number(item, "--percentiles", "a percentile from 0 to 100");
    if (point < 0 || point > 100) {
      throw InputError("--percentiles: '" + item +
                       "' is not a percentile from 0 to 100 (e.g. --percentiles 50,90,99,99.9)");
    }
    points.push_back(point);
    start = end + 1;
  }
  // In rising order, each once: "1,25,5" reads p1, p5, p25 in every output
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

engine::PrefixCacheOptions parse_prefix_cache(const MixFlags& flags) {
  engine::PrefixCacheOptions cache;
  const bool lru = flags.prefix_cache != "off";
  if (lru && !flags.prefix_cache_hit.empty()) {
    throw InputError(
        "--prefix-cache and --prefix-cache-hit both describe the cache: --prefix-cache SIZE "
        "simulates an LRU over the log's block ids (Mooncake hash_ids), --prefix-cache-hit R "
        "states a hit fraction for logs without them; pass one");
  }
  if (lru) {
    cache.mode = engine::PrefixCacheOptions::Mode::lru;
    cache.capacity_tokens = io::parse_token_count(flags.prefix_cache, "--prefix-cache");
    if (cache.capacity_tokens < cache.block_tokens) {
      throw InputError("--prefix-cache: " + flags.prefix_cache +
                       " tokens hold no 512-token block; pass at least 512 (e.g. 1m), or off");
    }
    // The replay's replicas each keep their own cache over the requests' ids.
    cache.keep_block_ids = flags.replay;
  } else if (!flags.prefix_cache_hit.empty()) {
    cache.mode = engine::PrefixCacheOptions::Mode::hit_fraction;
    cache.hit_fraction = io::parse_share(flags.prefix_cache_hit, "--prefix-cache-hit");
    if (cache.hit_fraction >= 1) {
      throw InputError("--prefix-cache-hit: '" + flags.prefix_cache_hit +
                       "' is not a fraction from 0 to below 1 (the last prompt token is always "
                       "computed); e.g. 0.3 or 30%");
    }
  }
  if (flags.routing == "prefix-aware" && !lru) {
    throw InputError(
        "--routing prefix-aware sends each request to the replica whose prefix cache holds the "
        "longest prefix of its blocks, and there are no such caches: add --prefix-cache SIZE "
        "(an LRU per replica over the log's block ids, Mooncake hash_ids), or pick another "
        "--routing");
  }
  return cache;
}

namespace {

// A whole number from 1 to `max` for `flag`, described as `what`.
std::int64_t parse_whole(const std::string& text, const char* flag, const char* what, double max) {
  const double value = io::parse_number(text, flag, what);
  if (!(value >= 1 && value <= max) || value != std::floor(value)) {
    throw InputError(std::string(flag) + ": '" + text + "' is not " + what +
                     " (a whole number from 1 to " +
                     report::human_count(static_cast<std::int64_t>(max)) + ")");
  }
  return static_cast<std::int64_t>(value);
}

// "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5":
// the step model's coefficients (step_model.hpp), each >= 0, all five named; ms_per_sequence
// (the per-running-sequence cost) may follow, 0 when absent.
engine::StepModel parse_step_model(const std::string& text) {
  engine::StepModel model;
  const std::pair<const char*, double*> keys[] = {
      {"fixed_ms", &model.fixed_ms},
      {"weights_ms", &model.weights_ms},
      {"ms_per_token", &model.ms_per_token},
      {"ms_per_prefill_pair", &model.ms_per_prefill_pair},
      {"ms_per_kv_token", &model.ms_per_kv_token},
      {"ms_per_sequence", &model.ms_per_sequence}};
  const std::string example =
      " (e.g. --step-model fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,"
      "ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5)";
  int seen = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const std::size_t equals = item.find('=');
    const std::string key = item.substr(0, equals);
    double* target = nullptr;
    for (const auto& [name, field] : keys) {
      if (key == name) target = field;
    }
    if (equals == std::string::npos || target == nullptr) {
      throw InputError("--step-model: '" + item + "' is not KEY=MS with KEY one of fixed_ms, " +
                       "weights_ms, ms_per_token, ms_per_prefill_pair, ms_per_kv_token, " +
                       "ms_per_sequence" + example);
    }
    *target = io::parse_number(item.substr(equals + 1), "--step-model", "milliseconds >= 0");
    if (!(*target >= 0) || std::isinf(*target)) {
      throw InputError("--step-model: " + key + " must be a finite number of ms >= 0" + example);
    }
    io::check_range("--step-model KEY", *target, item);
    if (key != "ms_per_sequence") ++seen;
    start = end + 1;
  }
  if (seen != 5) {
    throw InputError("--step-model: name all five coefficients once each" + example);
  }
  return model;
}

void add_log_flags(CLI::App& app, MixFlags& flags) {
  app.add_option("log", flags.log,
                 "A request log; the format is detected by content (gzip too): Azure LLM "
                 "inference trace CSV, BurstGPT CSV, Mooncake JSONL, vllm bench serve "
                 "--save-detailed JSON, AIPerf profile_export.jsonl, GuideLLM benchmarks.json "
                 "(one benchmark with its requests), InferenceX trace-replay CSV, "
                 "LLMServingSim's vLLM requests.jsonl, or any CSV with --columns")
      ->type_name("FILE");
  app.add_option("--run", flags.run,
                 "Of a log whose every line is one run (SGLang bench_serving --output-details "
                 "JSONL), read the Nth run's requests (from 1)")
      ->type_name("N");
  app.add_option("--columns", flags.columns,
                 "Which CSV column holds each field: prompt=COL,response=COL[,arrival=COL:s|"
                 "ms|us|ns|datetime][,cached=COL[:BLOCK]][,ttft=COL:s|ms][,tpot=..][,itl=..]"
                 "[,e2e=..][,model=COL][,success=COL]")
      ->type_name("MAP");
  app.add_flag("--strict", flags.strict,
               "Stop at the first bad row (exit 2, file:line) instead of skipping and "
               "counting it; and exit 2, writing nothing, when an input that reaches the "
               "answer is illustrative, clamped, extrapolated or borrowed (stderr names them)");
}

void add_cache_flags(CLI::App& app, MixFlags& flags) {
  app.add_option("--prefix-cache", flags.prefix_cache,
                 "Simulate an LRU prefix cache of SIZE tokens over the log's block ids "
                 "(Mooncake hash_ids, 512-token blocks): 1m, 8m; or off")
      ->type_name("SIZE|off")
      ->capture_default_str();
  app.add_option("--prefix-cache-hit", flags.prefix_cache_hit,
                 "For logs without block ids: this fraction of every prompt is cached "
                 "(0.3 or 30%; labelled given)")
      ->type_name("R");
}

void add_replay_flags(CLI::App& app, MixFlags& flags) {
  app.add_flag("--replay", flags.replay,
               "Replay the log through a continuous-batching engine, step by step, before and "
               "after: queues, batches, TTFT/TPOT/ITL/E2E under load, SLO attainment, "
               "capacity (docs/mix.md)");
  app.add_option("--step-model", flags.step_model,
                 "The deployment's step time (ms): fixed_ms=..,weights_ms=..,ms_per_token=..,"
                 "ms_per_prefill_pair=..,ms_per_kv_token=..[,ms_per_sequence=..] (with --replay; "
                 "instead of the one --model and --gpu model or --calibrate fits)")
      ->type_name("COEFFS");
  app.add_option("--replicas", flags.replicas, "Engine replicas (with --replay). Default: 1")
      ->type_name("N");
  app.add_option(
         "--routing", flags.routing,
         "How requests reach replicas: round-robin, least-outstanding, "
         "shared-queue (wait at the router for a free sequence slot), or prefix-aware "
         "(the replica whose --prefix-cache holds most of the prompt, unless under 30% or the "
         "loads are imbalanced: SGLang's cache-aware rule)")
      ->type_name("POLICY")
      ->capture_default_str();
  app.add_option("--rate-scale", flags.rate_scale,
                 "Arrivals at X times the log's rate (with --replay; 2 = twice as fast). "
                 "Default: 1")
      ->type_name("X");
  app.add_option("--concurrency", flags.concurrency,
                 "A closed loop of N clients instead of the log's arrival times, each sending "
                 "the next request when its last returns (vllm bench serve --max-concurrency)")
      ->type_name("N");
  app.add_option("--scheduler", flags.scheduler,
                 "mixed: vLLM V1 (decodes and prefill chunks share each step); prefill-first: "
                 "SGLang's default and vLLM V0 (prefill steps stall decodes)")
      ->type_name("POLICY")
      ->default_str("mixed");  // empty until given: --deployment may supply it
  app.add_option("--max-batched-tokens", flags.max_batched_tokens,
                 "Tokens per step (vLLM --max-num-batched-tokens). Default: 8192, vLLM's for "
                 "vllm serve on GPUs of 70 GiB or more (2048 below)")
      ->type_name("TOKENS");
  app.add_option("--max-seqs", flags.max_seqs,
                 "Sequences per step (vLLM --max-num-seqs). Default: 1024 (vLLM's on GPUs of "
                 "70 GiB or more; 256 below)")
      ->type_name("N");
  app.add_option("--chunked-prefill", flags.chunked_prefill,
                 "on: a long prompt spans steps (vLLM V1 default); off: it waits to fit whole")
      ->type_name("on|off")
      ->default_str("on");  // empty until given: --deployment may supply it
  app.add_option("--kv-blocks", flags.kv_blocks,
                 "KV cache per replica in blocks (vLLM logs 'GPU KV cache size'); full: the "
                 "latest request is preempted and recomputed. Default: what --model on --gpu "
                 "leaves beside the weights and vLLM's profile-run reserves, else unlimited")
      ->type_name("N");
  app.add_option("--block-size", flags.block_size,
                 "Tokens per KV block (vLLM --block-size). Default: 16")
      ->type_name("TOKENS");
  app.add_option("--request-overhead", flags.request_overhead,
                 "Time per request outside the engine (HTTP, tokenization), added to TTFT and "
                 "E2E, never queued. Default: 0")
      ->type_name("DURATION");
  app.add_option("--slo-ttft", flags.slo_ttft,
                 "TTFT objective (with --replay): SLO attainment and capacity before and "
                 "after: 2s, 2500ms")
      ->type_name("DURATION");
  app.add_option("--slo-tpot", flags.slo_tpot, "TPOT objective (with --replay): 60ms")
      ->type_name("DURATION");
  app.add_option("--attainment", flags.attainment,
                 "Capacity's target: the fraction of requests that must meet both SLOs "
                 "(0.9 or 90%). Default: 90%")
      ->type_name("P");
  app.add_option("--disagg", flags.disagg,
                 "Also replay prefill/decode disaggregated (with --replay): x prefill and y "
                 "decode replicas joined by --kv-link, e.g. 1P1D, 2P1D (docs/mix.md)")
      ->type_name("xPyD");
  app.add_option("--kv-link", flags.kv_link,
                 "The KV link of --disagg: nvlink, ib-ndr, roce-mooncake (cited), or "
                 "ALPHA_US:GBPS (given), e.g. 10:25")
      ->type_name("LINK");
  app.add_option("--prefill-gpu", flags.prefill_gpu,
                 "The prefill pool's GPU (with --disagg). Default: --gpu")
      ->type_name("GPU");
  app.add_option("--prefill-tp", flags.prefill_tp,
                 "The prefill pool's tensor parallelism (with --disagg). Default: --tp")
      ->type_name("N");
  app.add_option("--decode-gpu", flags.decode_gpu,
                 "The decode pool's GPU (with --disagg). Default: --gpu")
      ->type_name("GPU");
  app.add_option("--decode-tp", flags.decode_tp,
                 "The decode pool's tensor parallelism (with --disagg). Default: --tp")
      ->type_name("N");
}

// The load model: generated requests (no log) or generated arrivals (a log's requests), and the
// client's limits (load_generator.hpp, ArrivalOptions).
void add_load_flags(CLI::App& app, MixFlags& flags) {
  app.add_option("--arrivals", flags.arrivals,
                 "Arrival process at --rate: poisson, gamma:CV (gaps with that coefficient of "
                 "variation; 1 is poisson), constant, or trace (the log's timestamps, the "
                 "default with a log)")
      ->type_name("PROCESS");
  app.add_option("--rate", flags.rate, "Mean arrival rate of --arrivals, requests/s: 4, 0.5")
      ->type_name("R");
  app.add_option("--prompt-tokens", flags.prompt_tokens,
                 "Without a log: each request's prompt: a count (1000, 4k), uniform:A:B, "
                 "lognormal:MEAN:SD, or file:PATH (lengths drawn from the file's)")
      ->type_name("DIST");
  app.add_option("--output-tokens", flags.output_tokens,
                 "Without a log: each request's output tokens, as --prompt-tokens")
      ->type_name("DIST");
  app.add_option("--requests", flags.requests, "Without a log: how many requests to generate")
      ->type_name("N");
  app.add_option("--duration", flags.duration,
                 "Without a log, instead of --requests: every request --arrivals sends in this "
                 "time (60s, 10min)")
      ->type_name("DURATION");
  app.add_option("--seed", flags.seed,
                 "Seed of the generated arrivals and lengths (same seed, same requests). "
                 "Default: 0")
      ->type_name("N");
  app.add_option("--max-inflight", flags.max_inflight,
                 "Open loop with at most N requests in flight: one due while N are out is sent "
                 "when one returns (inference-perf, vllm bench serve --max-concurrency with a "
                 "rate)")
      ->type_name("N");
  app.add_option("--think-time", flags.think_time,
                 "With --concurrency: each client waits this long after a response before its "
                 "next request (2s)")
      ->type_name("DURATION");
  app.add_option("--session-turns", flags.session_turns,
                 "With --concurrency: the requests are sessions of T consecutive turns; a client "
                 "sends its session's turns in order, then starts the next session")
      ->type_name("T");
}

// The deployment the replay runs on, registered by the code estimate and sweep use.
void add_deployment_flags(CLI::App& app, MixFlags& flags) {
  add_platform_flags(app, flags.deployment.platform);
  add_calibration_flags(app, flags.deployment);
  app.add_option("--gpu-memory-utilization", flags.gpu_memory_utilization,
                 "With --replay on --model/--gpu and no --kv-blocks: the fraction of each "
                 "GPU's memory the engine takes; the KV cache is what the weights leave of it "
                 "(vLLM --gpu-memory-utilization). Default: 0.9, vLLM's")
      ->type_name("F");
  app.add_option("--vllm-version", flags.vllm_version,
                 "With --replay on --model/--gpu and no --kv-blocks: size the KV cache by this "
                 "vLLM version's memory accounting (docs/validation.md section 6). Default: "
                 "0.6.5-0.20's")
      ->type_name("X.Y.Z");
  add_fail_on_flag(app, flags.deployment);
}

void add_mix_change_flags(CLI::App& app, MixFlags& flags) {
  flags.workload_option =
      app.add_option("--workload,-w", flags.workload,
                     "Share tables and reference latencies: a workload JSON file or a built-in "
                     "name (kspeed workloads lists them). With --model and --gpu and no "
                     "--workload, the deployment's step model prices every request instead")
          ->type_name("FILE|NAME")
          ->capture_default_str();
  // The change flags estimate and sweep take, registered and parsed by their code.
  add_change_flags(app, flags.deployment);
  app.add_option("--kernel-speedup-table", flags.speedup_table_path,
                 "The kernel speedup measured at several contexts (CSV 'context,speedup', or "
                 "JSON), read at each request's prompt: interpolated in log-log between "
                 "rows, held at the nearest row outside; with --replay, on that request's "
                 "attention in every step it shares")
      ->type_name("FILE");
  app.add_option("--ttft", flags.deployment.ttft,
                 "A measured TTFT at --ctx tokens, to which requests without a measured TTFT "
                 "are scaled. Default: the workload's")
      ->type_name("DURATION");
  app.add_option("--ttft-point", flags.deployment.ttft_points,
                 "A measured TTFT at a prompt length, PROMPT=TTFT (repeatable): 8k=474ms. "
                 "Two or more fit TTFT = T0 + a·n·(1 + odds(2c + n)) for every request "
                 "without a measured TTFT. Default: the workload's points")
      ->type_name("L=D");
  app.add_option("--ttft-overhead", flags.deployment.ttft_overhead,
                 "Time in TTFT no attention kernel touches (scheduling, KV transfer, "
                 "chunking gaps), for every request without a measured TTFT: TTFT's fixed "
                 "term, which dilutes the prefill speedup (a TTFT below it is all fixed "
                 "term); 0 for none. Default: the fitted T0, or the step model's overhead "
                 "and fixed step cost")
      ->type_name("DURATION");
  app.add_option("--tpot-point", flags.deployment.tpot_points,
                 "A measured TPOT at a context length, CONTEXT=TPOT (repeatable): "
                 "--tpot-point 1k=50ms --tpot-point 128k=95ms. Two or more fit TPOT = c + b·L, "
                 "taken at each request's prompt L; one is held like --tpot. --tpot wins")
      ->type_name("L=D");
  app.add_option("--ctx", flags.deployment.ctx,
                 "The prompt length --ttft was measured at: 1k, 4096")
      ->type_name("TOKENS");
  app.add_option("--tpot", flags.deployment.tpot,
                 "TPOT for requests without a measured one: 50ms. Default: the workload's")
      ->type_name("DURATION");
}

void add_report_flags(CLI::App& app, MixFlags& flags) {
  app.add_option("--percentiles", flags.percentiles, "Which percentiles to report")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--by", flags.by,
                 "Group the table by prompt-length bucket or by model (logs that name "
                 "models)")
      ->type_name("bucket|model")
      ->capture_default_str();
  app.add_option("--per-request", flags.per_request,
                 "Also write one JSON object per request (NDJSON) to FILE, atomically")
      ->type_name("FILE");
  add_plot_option(app, flags.plot_path,
                  "Also draw the CDF of TTFT and E2E over the requests, before and after, "
                  "into FILE");
  add_title_option(app, flags.plot_title);
}

}  // namespace

void add_mix_flags(CLI::App& app, MixFlags& flags) {
  add_log_flags(app, flags);
  add_cache_flags(app, flags);
  add_replay_flags(app, flags);
  add_load_flags(app, flags);
  add_deployment_flags(app, flags);
  add_mix_change_flags(app, flags);
  add_report_flags(app, flags);
  add_output_options(app, flags.output);
  app.footer(mix_footer());
}

engine::Slo parse_slo(const MixFlags& flags) {
  engine::Slo slo;
  slo.ttft_ms = optional_value<double>(flags.slo_ttft, "--slo-ttft", io::parse_duration_ms);
  slo.tpot_ms = optional_value<double>(flags.slo_tpot, "--slo-tpot", io::parse_duration_ms);
  if (!flags.attainment.empty()) {
    slo.attainment_target = io::parse_share(flags.attainment, "--attainment");
    if (slo.attainment_target <= 0) {
      throw InputError("--attainment: '" + flags.attainment +
                       "' is no target: pass the fraction of requests that must meet the SLOs, "
                       "e.g. 90% or 0.99");
    }
  }
  return slo;
}

static engine::SchedulerOptions parse_scheduler(const MixFlags& flags) {
  engine::SchedulerOptions scheduler;
  if (!flags.scheduler.empty()) {
    scheduler.policy = parse_choice<engine::SchedulerPolicy>(
        flags.scheduler, "--scheduler", "policy",
        {{"mixed", engine::SchedulerPolicy::mixed},
         {"prefill-first", engine::SchedulerPolicy::prefill_first}});
  }
  if (!flags.chunked_prefill.empty()) {
    scheduler.chunked_prefill = parse_choice<bool>(flags.chunked_prefill, "--chunked-prefill",
                                                   "setting", {{"on", true}, {"off", false}});
  }
  if (!flags.max_batched_tokens.empty()) {
    scheduler.max_batched_tokens = parse_whole(flags.max_batched_tokens, "--max-batched-tokens",
                                               "a token budget per step", 1e9);
  }
  if (!flags.max_seqs.empty()) {
    scheduler.max_seqs =
        parse_whole(flags.max_seqs, "--max-seqs", "a number of sequences per step", 1e7);
  }
  if (!flags.block_size.empty()) {
    scheduler.block_tokens =
        parse_whole(flags.block_size, "--block-size", "tokens per KV block", 1e6);
  }
  if (!flags.kv_blocks.empty()) {
    scheduler.kv_blocks =
        parse_whole(flags.kv_blocks, "--kv-blocks", "a number of KV blocks", 1e12);
  }
  return scheduler;
}

// Flags that only the replay reads, given without --replay.
void reject_replay_flags_without_replay(const MixFlags& flags) {
  if (flags.replay) return;
  if (!flags.disagg.empty()) {
    throw InputError("--disagg " + flags.disagg +
                     " replays the log through a prefill and a decode pool: add --replay "
                     "(kspeed mix LOG --replay --disagg " +
                     flags.disagg + " --kv-link nvlink)");
  }
  const PlatformFlags& platform = flags.deployment.platform;
  for (const auto& [flag, value] : {std::pair{"--replicas", &flags.replicas},
                                    {"--rate-scale", &flags.rate_scale},
                                    {"--concurrency", &flags.concurrency},
                                    {"--step-model", &flags.step_model},
                                    {"--max-batched-tokens", &flags.max_batched_tokens},
                                    {"--max-seqs", &flags.max_seqs},
                                    {"--scheduler", &flags.scheduler},
                                    {"--chunked-prefill", &flags.chunked_prefill},
                                    {"--kv-blocks", &flags.kv_blocks},
                                    {"--block-size", &flags.block_size},
                                    {"--request-overhead", &flags.request_overhead},
                                    {"--slo-ttft", &flags.slo_ttft},
                                    {"--slo-tpot", &flags.slo_tpot},
                                    {"--attainment", &flags.attainment},
                                    {"--batch", &platform.batch},
                                    {"--gpu-memory-utilization", &flags.gpu_memory_utilization},
                                    {"--vllm-version", &flags.vllm_version},
                                    {"--arrivals", &flags.arrivals},
                                    {"--rate", &flags.rate},
                                    {"--duration", &flags.duration},
                                    {"--max-inflight", &flags.max_inflight},
                                    {"--think-time", &flags.think_time},
                                    {"--session-turns", &flags.session_turns}}) {
    if (!value->empty()) {
      throw InputError(std::string(flag) +
                       " describes the batching replay: add --replay (SLO attainment and "
                       "capacity come from replaying the log's requests)");
    }
  }
}
void add_replay_request(const MixFlags& flags, engine::DeploymentRequest& request) {
  request.serves = true;
  if (!flags.vllm_version.empty()) request.vllm_version = flags.vllm_version;
  request.scheduler = parse_scheduler(flags);
  if (!flags.step_model.empty()) {
    request.step_model =
        engine::StatedStepModel{parse_step_model(flags.step_model), "--step-model"};
  }
  if (!flags.request_overhead.empty()) {
    request.request_overhead_ms =
        io::parse_duration_ms(flags.request_overhead, "--request-overhead");
  }
  if (!flags.gpu_memory_utilization.empty()) {
    request.gpu_memory_utilization =
        io::parse_share(flags.gpu_memory_utilization, "--gpu-memory-utilization");
    if (*request.gpu_memory_utilization <= 0) {
      throw InputError("--gpu-memory-utilization: '" + flags.gpu_memory_utilization +
                       "' leaves the engine no memory: pass a fraction above 0 and at most 1, "
                       "e.g. 0.9 or 90%");
    }
  }
}

engine::ArrivalOptions parse_arrivals(const MixFlags& flags) {
  engine::ArrivalOptions arrivals;
  if (!flags.replicas.empty()) {
    arrivals.replicas = parse_whole(flags.replicas, "--replicas", "a number of engine replicas",
                                    io::flag_range("--replicas").max);
  }
  if (!flags.rate_scale.empty()) {
    arrivals.rate_scale = io::parse_positive_number(flags.rate_scale, "--rate-scale");
  }
  if (!flags.concurrency.empty()) {
    if (!flags.rate_scale.empty()) {
      throw InputError(
          "--concurrency and --rate-scale both set the arrivals: a closed loop of N clients "
          "ignores the log's times; pass one");
    }
    arrivals.concurrency =
        parse_whole(flags.concurrency, "--concurrency", "a number of clients", 1e7);
  }
  if (!flags.max_inflight.empty()) {
    if (arrivals.concurrency > 0) {
      throw InputError(
          "--max-inflight caps an open loop, and --concurrency runs a closed loop (its N "
          "clients are the cap): pass one");
    }
    arrivals.max_inflight =
        parse_whole(flags.max_inflight, "--max-inflight", "a number of requests in flight", 1e7);
  }
  if (!flags.think_time.empty()) {
    if (arrivals.concurrency == 0) {
      throw InputError(
          "--think-time is a closed loop's client waiting between a response and its next "
          "request: add --concurrency N (an open loop's arrivals come from the log or --arrivals)");
    }
    arrivals.think_time_s = io::parse_duration_ms(flags.think_time, "--think-time") / 1000.0;
  }
  if (!flags.session_turns.empty()) {
    if (arrivals.concurrency == 0) {
      throw InputError(
          "--session-turns groups a closed loop's requests into sessions its clients send turn "
          "by turn: add --concurrency N");
    }
    arrivals.session_turns =
        parse_whole(flags.session_turns, "--session-turns", "a number of turns a session", 1e7);
  }
  arrivals.routing =
      parse_choice<engine::Routing>(flags.routing, "--routing", "routing",
                                    {{"round-robin", engine::Routing::round_robin},
                                     {"least-outstanding", engine::Routing::least_outstanding},
                                     {"shared-queue", engine::Routing::shared_queue},
                                     {"prefix-aware", engine::Routing::prefix_aware}});
  return arrivals;
}

namespace {

// "poisson", "gamma:2", "constant", "trace".
engine::ArrivalSpec parse_arrival_process(const std::string& text) {
  engine::ArrivalSpec spec;
  const std::string fix =
      " (poisson, gamma:CV with CV > 0 e.g. gamma:2, constant, or trace: the log's timestamps)";
  if (text == "poisson") {
    spec.process = engine::ArrivalProcess::poisson;
  } else if (text == "constant") {
    spec.process = engine::ArrivalProcess::constant;
  } else if (text == "trace") {
    spec.process = engine::ArrivalProcess::trace;
  } else if (text.rfind("gamma:", 0) == 0) {
    spec.process = engine::ArrivalProcess::gamma;
    const std::string cv = text.substr(6);
    spec.cv = io::parse_number(cv, "--arrivals gamma:CV", "a coefficient of variation > 0");
    if (!(spec.cv > 0) || spec.cv > 100) {
      throw InputError("--arrivals: '" + text +
                       "': the gaps' coefficient of variation must be above 0 and at most 100 "
                       "(1 is poisson, 0.5 smoother, 2 burstier); e.g. --arrivals gamma:2");
    }
  } else {
    throw InputError("--arrivals: '" + text + "' is not an arrival process" + fix);
  }
  return spec;
}

// A whole count of tokens from a distribution's parameter.
double length_parameter(const std::string& text, const char* flag, const std::string& spec) {
  const double value = io::parse_number(text, flag, "a number of tokens");
  if (!(value >= 1 && value <= (1 << 28))) {
    throw InputError(std::string(flag) + ": '" + spec + "': '" + text +
                     "' is not a number of tokens from 1 to 268435456");
  }
  return value;
}

// "1000", "4k", "uniform:A:B", "lognormal:MEAN:SD", "file:PATH".
engine::LengthSpec parse_length_spec(const std::string& text, const char* flag) {
  engine::LengthSpec spec;
  const std::string fix = std::string(" (e.g. ") + flag + " 1000, " + flag + " uniform:100:2000, " +
                          flag + " lognormal:800:400, " + flag + " file:lengths.txt)";
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    spec.first = static_cast<double>(io::parse_token_count(text, flag));
    return spec;
  }
  const std::string kind = text.substr(0, colon);
  const std::string rest = text.substr(colon + 1);
  if (kind == "file") {
    spec.kind = engine::LengthSpec::Kind::list;
    spec.values = io::read_length_file(rest, flag);
    return spec;
  }
  const std::size_t second = rest.find(':');
  if ((kind != "uniform" && kind != "lognormal") || second == std::string::npos) {
    throw InputError(std::string(flag) + ": '" + text +
                     "' is not a length distribution: a count, uniform:A:B, lognormal:MEAN:SD or "
                     "file:PATH" +
                     fix);
  }
  spec.first = length_parameter(rest.substr(0, second), flag, text);
  spec.second = kind == "uniform"
                    ? length_parameter(rest.substr(second + 1), flag, text)
                    : io::parse_number(rest.substr(second + 1), flag, "a standard deviation");
  if (kind == "uniform") {
    spec.kind = engine::LengthSpec::Kind::uniform;
    if (spec.second < spec.first) {
      throw InputError(std::string(flag) + ": '" + text + "': uniform:A:B needs A <= B" + fix);
    }
  } else {
    spec.kind = engine::LengthSpec::Kind::lognormal;
    if (!(spec.second > 0) || spec.second > 1e9) {
      throw InputError(std::string(flag) + ": '" + text +
                       "': lognormal:MEAN:SD needs a standard deviation above 0 (a fixed length "
                       "is a count)" +
                       fix);
    }
  }
  return spec;
}

// Flags that describe generated requests, given with a log.
void reject_generator_flags_with_log(const MixFlags& flags) {
  for (const auto& [flag, value] : {std::pair{"--prompt-tokens", &flags.prompt_tokens},
                                    {"--output-tokens", &flags.output_tokens},
                                    {"--requests", &flags.requests},
                                    {"--duration", &flags.duration}}) {
    if (!value->empty()) {
      throw InputError(std::string(flag) +
                       " describes generated requests, and the log's requests are the "
                       "workload (their lengths measured): drop " +
                       flag + ", or drop the log to generate requests");
    }
  }
}

}  // namespace

std::optional<engine::LoadSpec> parse_load(const MixFlags& flags, bool has_log) {
  engine::LoadSpec load;
  if (!flags.arrivals.empty()) load.arrivals = parse_arrival_process(flags.arrivals);
  const bool generated_arrivals = load.arrivals.process != engine::ArrivalProcess::trace;
  if (!flags.rate.empty()) {
    const double rate = io::parse_number(flags.rate, "--rate", "requests per second");
    if (!(rate > 0) || rate > 1e7) {
      throw InputError("--rate: '" + flags.rate +
                       "' is not an arrival rate: pass requests per second above 0 (at most "
                       "1e7), e.g. --rate 4");
    }
    if (!generated_arrivals) {
      throw InputError(
          "--rate is the rate of generated arrivals: add --arrivals poisson, gamma:CV or "
          "constant (the log's own timestamps are scaled by --rate-scale)");
    }
    load.arrivals.rate_per_s = rate;
  } else if (generated_arrivals) {
    throw InputError("--arrivals " + flags.arrivals +
                     " needs its mean rate: add --rate R (requests per second), e.g. --rate 4");
  }
  if (generated_arrivals && !flags.rate_scale.empty()) {
    throw InputError(
        "--rate and --rate-scale both set the arrival rate of generated arrivals: pass --rate");
  }
  if (generated_arrivals && !flags.concurrency.empty()) {
    throw InputError(
        "--arrivals " + flags.arrivals +
        " sends requests at times of its own, and --concurrency N sends each when a client's "
        "last returns: pass one (--max-inflight N caps an open loop)");
  }
  if (!flags.seed.empty()) {
    const double seed = io::parse_number(flags.seed, "--seed", "a whole number from 0");
    if (!(seed >= 0 && seed <= 1e15) || seed != std::floor(seed)) {
      throw InputError("--seed: '" + flags.seed +
                       "' is not a seed (a whole number from 0 to 1e15), e.g. --seed 7");
    }
    load.seed = static_cast<std::uint64_t>(seed);
  }
  if (has_log) {
    reject_generator_flags_with_log(flags);
    if (!generated_arrivals) {
      if (!flags.seed.empty()) {
        throw InputError(
            "--seed draws generated arrivals, and the log's timestamps are replayed: add "
            "--arrivals poisson|gamma:CV|constant with --rate, or drop --seed");
      }
      return std::nullopt;
    }
    return load;
  }
  if (flags.prompt_tokens.empty() || flags.output_tokens.empty()) {
    throw InputError(
        "kspeed mix without a log generates its requests: give both --prompt-tokens and "
        "--output-tokens (a count, uniform:A:B, lognormal:MEAN:SD or file:PATH), e.g. "
        "--prompt-tokens 1000 --output-tokens 200");
  }
  load.prompt = parse_length_spec(flags.prompt_tokens, "--prompt-tokens");
  load.output = parse_length_spec(flags.output_tokens, "--output-tokens");
  if (flags.requests.empty() == flags.duration.empty()) {
    throw InputError(
        "kspeed mix without a log generates its requests: give how many, --requests N, or "
        "for how long arrivals come, --duration 60s (one of the two)");
  }
  if (!flags.requests.empty()) {
    load.requests = parse_whole(flags.requests, "--requests", "a number of requests", 1e8);
  } else {
    if (!generated_arrivals) {
      throw InputError(
          "--duration counts the requests --arrivals sends in that time: add --arrivals "
          "poisson|gamma:CV|constant with --rate, or give --requests N");
    }
    load.duration_s = io::parse_duration_ms(flags.duration, "--duration") / 1000.0;
    if (*load.duration_s * load.arrivals.rate_per_s > 1e8) {
      throw InputError("--duration " + flags.duration + " at --rate " + flags.rate +
                       " is more than 100,000,000 requests: shorten --duration or lower --rate");
    }
  }
  return load;
}

namespace {

std::string describe_lengths(const engine::LengthSpec& spec) {
  switch (spec.kind) {
    case engine::LengthSpec::Kind::fixed:
      return report::human_count(static_cast<std::int64_t>(spec.first));
    case engine::LengthSpec::Kind::uniform:
      return "uniform " + report::human_count(static_cast<std::int64_t>(spec.first)) + ".." +
             report::human_count(static_cast<std::int64_t>(spec.second));
    case engine::LengthSpec::Kind::lognormal:
      return "lognormal mean " + report::human_plain(spec.first) + " sd " +
             report::human_plain(spec.second);
    case engine::LengthSpec::Kind::list:
      return "drawn from " + report::human_count(static_cast<std::int64_t>(spec.values.size())) +
             " lengths";
  }
  return {};
}

std::string describe_arrivals(const engine::ArrivalSpec& spec) {
  const std::string rate = " at " + report::human_plain(spec.rate_per_s) + " req/s";
  switch (spec.process) {
    case engine::ArrivalProcess::poisson:
      return "poisson" + rate;
    case engine::ArrivalProcess::gamma:
      return "gamma (CV " + report::human_plain(spec.cv) + ")" + rate;
    case engine::ArrivalProcess::constant:
      return "constant" + rate;
    case engine::ArrivalProcess::trace:
      return "no arrival times";
  }
  return {};
}

}  // namespace

std::string describe_load(const engine::LoadSpec& load, std::int64_t requests, bool has_log) {
  const std::string seed = ", seed " + std::to_string(load.seed) + " (given)";
  if (has_log) return "arrivals generated, " + describe_arrivals(load.arrivals) + seed;
  return report::human_count(requests) +
         " requests generated: " + describe_arrivals(load.arrivals) + ", prompts " +
         describe_lengths(load.prompt) + ", outputs " + describe_lengths(load.output) + seed;
}

// --share-model analytic|calibrated: each request's prefill share from the model's
// architecture (estimate's, at each request's own prompt); table: none.
std::optional<engine::ModelledPrefillShare> modelled_share(
    engine::ShareModel mode, const std::optional<engine::Platform>& platform,
    const engine::Workload& workload, bool workload_given) {
  if (mode == engine::ShareModel::table) return std::nullopt;
  if (!platform || !platform->model.value.shapes) {
    throw InputError(
        "--share-model computes each request's prefill share from the model's shapes: pass "
        "--model NAME (a built-in or a config.json) and --gpu NAME, or leave it at table");
  }
  engine::ModelledPrefillShare share{platform->model.value, std::nullopt};
  if (mode == engine::ShareModel::calibrated) {
    if (workload.prefill_shares.empty()) {
      throw InputError(
          "--share-model calibrated fits the analytic curve to the workload's prefill share "
          "table, and workload '" +
          workload.name + "' has none: use --share-model analytic");
    }
    share.calibration =
        engine::calibrate_share(share.model, *share.model.shapes, workload.prefill_shares);
    // Without --workload the table is the built-in example's: another deployment's.
    if (!workload_given) share.borrowed_table = workload.name;
  }
  return share;
}

std::string mix_footer() {
  return "\nExamples:\n"
         "  kspeed mix azure-2023-conv.csv                   percentiles, buckets, histogram\n"
         "  kspeed mix mooncake.jsonl --prefix-cache 8m      with an LRU prefix cache\n"
         "  kspeed mix azure.csv --replay --step-model "
         "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,"
         "ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5 --slo-ttft 2.5s --slo-tpot 60ms\n"
         "                                                   batching, SLO attainment, capacity\n"
         "  kspeed mix azure.csv --replay --model llama-3.1-8b --gpu h100-sxm --slo-ttft 2s\n"
         "                                                   the deployment's step model and KV\n"
         "  kspeed mix azure.csv --replay --model llama-3.1-8b --gpu h100-sxm --calibrate "
         "result.json\n"
         "                                                   ... fitted to latencies measured on "
         "it\n"
         "  kspeed mix profile_export.jsonl --format json    a log with measured latencies\n"
         "  kspeed mix results.csv --columns prompt=input_tokens,response=output_tokens_actual,"
         "ttft=ttft:s\n"
         "  kspeed mix burstgpt.csv --by model --per-request out.ndjson\n"
         "See docs/mix.md for the model (weighting, buckets, batching replay, capacity, prefix "
         "cache).\n" +
         exit_codes_help();
}

}  // namespace kspeed::cli
