#include "estimate_flags.hpp"

#include <cmath>

#include "choice.hpp"
#include "command.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/deployment/tp_comm.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/lever_units.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::cli {

namespace {

engine::Phase parse_phase(const std::string& text) {
  return parse_choice<engine::Phase>(text, "--phase", "phase",
                                     {{"prefill", engine::Phase::prefill},
                                      {"decode", engine::Phase::decode},
                                      {"both", engine::Phase::both}});
}

engine::Extrapolation parse_extrapolation(const std::string& text) {
  return parse_choice<engine::Extrapolation>(
      text, "--extrapolate", "mode",
      {{"clamp", engine::Extrapolation::clamp}, {"model", engine::Extrapolation::model}});
}

engine::ShareModel parse_share_model(const std::string& text) {
  return parse_choice<engine::ShareModel>(text, "--share-model", "share model",
                                          {{"table", engine::ShareModel::table},
                                           {"analytic", engine::ShareModel::analytic},
                                           {"calibrated", engine::ShareModel::calibrated}});
}

// What a point flag measures, for its error: the flag, its shape and an example.
struct PointFlag {
  const char* flag;     // "--ttft-point"
  const char* shape;    // "PROMPT=TTFT, a prompt length and the TTFT measured at it"
  const char* example;  // "8k=474ms"
};

constexpr PointFlag kTtftPointFlag{
    "--ttft-point", "PROMPT=TTFT, a prompt length and the TTFT measured at it", "8k=474ms"};
constexpr PointFlag kTpotPointFlag{
    "--tpot-point", "CONTEXT=TPOT, a context length and the TPOT measured at it", "128k=95ms"};

// "8k=474ms" (or "8k:474ms") -> (8,192 tokens, 474 ms): one measured latency point.
engine::LatencyPoint parse_latency_point(const std::string& text, const PointFlag& kind) {
  const std::size_t sep = text.find_first_of("=:");
  if (sep == std::string::npos) {
    throw InputError(std::string(kind.flag) + ": '" + excerpt(text) + "' is not valid: expected " +
                     kind.shape + ", e.g. " + kind.flag + " " + kind.example);
  }
  engine::LatencyPoint point;
  point.context_tokens =
      static_cast<double>(io::parse_token_count(std::string_view(text).substr(0, sep), kind.flag));
  point.latency_ms = io::parse_duration_ms(std::string_view(text).substr(sep + 1), kind.flag);
  return point;
}

void add_workload_flags(CLI::App& app, EstimateFlags& flags) {
  flags.workload_option =
      app.add_option("--workload,-w", flags.workload,
                     "A workload JSON file, or the name of a built-in workload "
                     "(kspeed workloads lists them). Default: the source analysis's "
                     "illustrative request; with --model and --gpu, only its lengths")
          ->type_name("FILE|NAME")
          ->capture_default_str();
  app.add_option("--ctx", flags.ctx,
                 "Prompt length in tokens: 4096, 4k, 128k, 1m (k = 1024). Default: the "
                 "workload's; TTFT is then scaled to it unless --ttft is given")
      ->type_name("TOKENS");
  app.add_option("--response-tokens", flags.response_tokens,
                 "Response length in tokens (>= 1). Default: the workload's")
      ->type_name("TOKENS");
  app.add_option("--ttft", flags.ttft,
                 "Measured time to first token at this prompt length: 500, 500ms, 0.5s")
      ->type_name("DURATION");
  app.add_option("--ttft-point", flags.ttft_points,
                 "A measured TTFT at a prompt length, PROMPT=TTFT (repeatable): 8k=474ms. Two or "
                 "more fit TTFT = T0 + a·L·(1 + odds(L)) and its fixed term T0. Default: the "
                 "workload's points")
      ->type_name("L=D");
  app.add_option("--ttft-overhead", flags.ttft_overhead,
                 "Time in TTFT no attention kernel touches (scheduling, KV transfer, chunking "
                 "gaps): TTFT's fixed term, which dilutes the prefill speedup; 0 for none. "
                 "Default: the fitted T0, none with --ttft")
      ->type_name("DURATION");
  app.add_option("--tpot", flags.tpot, "Measured time per output token: 50, 50ms, 50000us")
      ->type_name("DURATION");
  app.add_option("--tpot-point", flags.tpot_points,
                 "A measured TPOT at a context length, CONTEXT=TPOT (repeatable): "
                 "--tpot-point 1k=50ms --tpot-point 128k=95ms. Two or more fit TPOT = c + b·L "
                 "(weights read each step, plus a KV cache growing with L) at --ctx; one is "
                 "scaled to --ctx like the workload's TPOT. --tpot wins")
      ->type_name("L=D");
}

}  // namespace

void add_change_flags(CLI::App& app, EstimateFlags& flags, bool share_model) {
  app.add_option("--kernel-speedup,-s", flags.kernel_speedup,
                 "Attention kernel speedup: old kernel time / new kernel time (> 0; below 1 "
                 "is a slowdown). Default: 2")
      ->type_name("X");
  app.add_option("--share", flags.share,
                 "Prefill attention share, overriding the workload's table: 0.85 or 85%")
      ->type_name("P");
  app.add_option("--decode-share", flags.decode_share,
                 "Decode attention share: 0.2 or 20%. Needed for --phase decode|both when "
                 "the workload has no decode table")
      ->type_name("P");
  app.add_option("--phase", flags.phase,
                 "Where the change applies: prefill, decode or both. Default: prefill; both "
                 "when levers (--compute-speedup, --bytes-reduction, --bandwidth-efficiency) "
                 "describe the change")
      ->type_name("PHASE");
  app.add_option("--extrapolate", flags.extrapolate,
                 "Outside the share table: clamp to the nearest measured point (with a "
                 "warning) or model (continue the edge segment)")
      ->type_name("MODE")
      ->capture_default_str();
  if (!share_model) return;
  app.add_option("--share-model", flags.share_model,
                 "Prefill attention share when --share is not given: table (the workload's "
                 "measured points), analytic (attention vs GEMM FLOPs of --model's "
                 "architecture, no measurement) or calibrated (the analytic curve moved onto "
                 "the table's points by one odds factor)")
      ->type_name("MODE")
      ->capture_default_str();
}

void add_provenance_flags(CLI::App& app, EstimateFlags& flags) {
  app.add_flag("--strict", flags.strict,
               "Exit 2, writing nothing, when an input that reaches the answer is illustrative, "
               "clamped, extrapolated or borrowed from another model (stderr names them)");
  add_fail_on_flag(app, flags);
}

void add_fail_on_flag(CLI::App& app, EstimateFlags& flags) {
  app.add_option("--fail-on", flags.fail_on,
                 "Exit 2 when an input that reaches the answer has one of these provenances "
                 "(comma-separated: illustrative, clamped, extrapolated, borrowed, scaled, "
                 "default, modelled, ...)")
      ->type_name("PROVENANCE[,...]");
}

void add_gate_flags(CLI::App& app, EstimateFlags& flags) {
  app.add_option("--min-request-speedup", flags.min_request_speedup,
                 "CI gate: exit 1 unless the request speedup is at least X (e.g. 1.01)")
      ->type_name("X");
  app.add_option("--min-prefill-speedup", flags.min_prefill_speedup,
                 "CI gate: exit 1 unless the prefill speedup is at least X")
      ->type_name("X");
  add_provenance_flags(app, flags);
}

void add_calibration_flags(CLI::App& app, EstimateFlags& flags) {
  app.add_option("--calibrate", flags.calibrate,
                 "Fit the deployment (--model, --gpu) to latencies measured on it: an AccelMark "
                 "result.json, or a per-request log with TTFT/TPOT (AIPerf profile_export.jsonl, "
                 "vllm bench serve --save-detailed, LLMServingSim's requests.jsonl: a TTFT that is "
                 "over 10% queue is left out)")
      ->type_name("FILE");
  app.add_option("--calibrate-concurrency", flags.calibrate_concurrency,
                 "Requests in flight while --calibrate's file was measured, when it does not "
                 "say")
      ->type_name("N");
  app.add_option("--calibrate-warmup", flags.calibrate_warmup, kCalibrateWarmupHelp)
      ->type_name("N");
  app.add_option("--deployment", flags.deployment_file,
                 "A deployment file kspeed calibrate wrote: its model, GPU, tp, precision and "
                 "fitted step model (flags left out are taken from it)")
      ->type_name("FILE");
}

// How the deployment's scheduler forms the request's prefill steps (issue 27): --batch is the
// decode concurrency; a whole-batch prefill only when asked for.
void add_prefill_scheduling_flags(CLI::App& app, EstimateFlags& flags) {
  app.add_option("--prefill-batch", flags.prefill_batch,
                 "Prompts prefilled together in one step, no decode beside them (a whole-batch "
                 "prefill). Default: none; each request's prompt goes in --max-batched-tokens "
                 "chunks beside --batch - 1 running decodes")
      ->type_name("N");
  app.add_option("--max-batched-tokens", flags.max_batched_tokens,
                 "Tokens per step (vLLM --max-num-batched-tokens), which chunk the prefill. "
                 "Default: 8192, vLLM's for vllm serve on GPUs of 70 GiB or more")
      ->type_name("TOKENS");
}

void add_estimate_flags(CLI::App& app, EstimateFlags& flags) {
  add_workload_flags(app, flags);
  add_calibration_flags(app, flags);
  end_flag_group(app);
  add_change_flags(app, flags);
  end_flag_group(app);
  add_platform_flags(app, flags.platform);
  add_prefill_scheduling_flags(app, flags);
  end_flag_group(app);
  add_lever_flags(app, flags.levers);
  end_flag_group(app);
}

engine::EstimateOptions to_options(const EstimateFlags& flags) {
  engine::EstimateOptions options;
  options.prompt_tokens = optional_value<std::int64_t>(flags.ctx, "--ctx", io::parse_token_count);
  options.response_tokens = optional_value<std::int64_t>(flags.response_tokens, "--response-tokens",
                                                         io::parse_token_count);
  options.ttft_ms = optional_value<double>(flags.ttft, "--ttft", io::parse_duration_ms);
  options.tpot_ms = optional_value<double>(flags.tpot, "--tpot", io::parse_duration_ms);
  for (const std::string& point : flags.ttft_points) {
    options.ttft_points.push_back(parse_latency_point(point, kTtftPointFlag));
  }
  for (const std::string& point : flags.tpot_points) {
    options.tpot_points.push_back(parse_latency_point(point, kTpotPointFlag));
  }
  // "0" asks for no fixed term (pure Amdahl on all of TTFT); any other value is a duration.
  options.ttft_overhead_ms =
      flags.ttft_overhead == "0"
          ? std::optional<double>(0.0)
          : optional_value<double>(flags.ttft_overhead, "--ttft-overhead", io::parse_duration_ms);
  options.kernel_speedup =
      optional_value<double>(flags.kernel_speedup, "--kernel-speedup", io::parse_positive_number);
  options.prefill_share = optional_value<double>(flags.share, "--share", io::parse_share);
  options.decode_share =
      optional_value<double>(flags.decode_share, "--decode-share", io::parse_share);
  options.levers = parse_levers(flags.levers);
  // Levers are placed on each phase's roofline, so by default they apply to both phases.
  options.phase = !flags.phase.empty() ? parse_phase(flags.phase)
                  : options.levers     ? engine::Phase::both
                                       : engine::Phase::prefill;
  options.phase_given = !flags.phase.empty();
  options.extrapolation = parse_extrapolation(flags.extrapolate);
  options.share_model = parse_share_model(flags.share_model);
  options.prefill_batch =
      optional_value<std::int64_t>(flags.prefill_batch, "--prefill-batch", io::parse_count);
  if (const std::optional<std::int64_t> budget = optional_value<std::int64_t>(
          flags.max_batched_tokens, "--max-batched-tokens", io::parse_token_count)) {
    options.step_token_budget = {*budget, engine::Provenance::given};
  }
  return options;
}

engine::Workload load_estimate_workload(const EstimateFlags& flags,
                                        const std::optional<io::CalibrationFile>& calibration) {
  engine::Workload workload = io::load_workload(flags.workload);
  const bool deployment_named = !flags.platform.model.empty() && !flags.platform.gpu.empty();
  if (!deployment_named || flags.workload_given() || !flags.ncu.file.empty()) return workload;
  const engine::Workload example = workload;
  workload = engine::request_lengths_only(example);
  workload.name.clear();  // the deployment's, once resolved (name_after_deployment)
  if (flags.share_model == "calibrated") {
    // Asked for by name: the analytic curve moved onto the example's measured share table.
    workload.prefill_shares = example.prefill_shares;
    workload.share_origin = example.share_origin;
    // ... another deployment's measurement: said in the headline, refused by --strict.
    workload.borrowed_share_table = example.name;
  }
  if (calibration && calibration->typical_prompt_tokens > 0) {
    // The run the deployment was calibrated on: its typical request, as measured.
    workload.name = calibration->source;
    workload.source = calibration->source;
    workload.description = "the typical request of the calibration run";
    workload.share_origin = engine::Provenance::measured;
    workload.request.illustrative = false;
    workload.request.prompt_tokens = calibration->typical_prompt_tokens;
    workload.request.response_tokens = calibration->typical_response_tokens;
    // ... at the concurrency it was measured at (--batch overrides)
    workload.batch = std::llround(calibration->concurrency);
  }
  return workload;
}

void name_after_deployment(engine::Workload& workload,
                           const std::optional<engine::Platform>& platform) {
  if (!workload.name.empty() || !platform) return;
  workload.name = report::deployment_name(*platform);
  workload.description = "the deployment alone: its step model gives the latencies and shares";
  workload.source =
      "Deployment " + workload.name +
      ": TTFT, TPOT and attention shares from its step model (modelled from the roofline, or "
      "fitted with --calibrate), no other deployment's latency or share. Request lengths: the "
      "log's, the flags', else the kspeed source analysis's illustrative request.";
}

const char* const kCalibrateWarmupHelp =
    "Leave a per-request log's first N requests (by arrival) out of the fit: a server's first "
    "requests after it starts pay one-time costs (kernel JIT, CUDA graph capture) no step model "
    "carries. Off by default: every point counts unless you say so";

std::int64_t parse_calibrate_warmup(const std::string& text) {
  // 0 is the default spelt out (none left out); anything else is a count of requests.
  if (text.empty()) return 0;
  return io::parse_count_from(text, "--calibrate-warmup", 0);
}

std::optional<io::CalibrationFile> read_calibration(EstimateFlags& flags) {
  if (!flags.deployment_file.empty()) return read_deployment_flag(flags);
  const std::int64_t warmup = parse_calibrate_warmup(flags.calibrate_warmup);
  const std::optional<double> concurrency = optional_value<double>(
      flags.calibrate_concurrency, "--calibrate-concurrency", io::parse_positive_number);
  if (flags.calibrate.empty()) {
    if (concurrency) {
      throw InputError(
          "--calibrate-concurrency states the concurrency of --calibrate's file: "
          "pass --calibrate FILE too, or leave it out");
    }
    if (warmup > 0) {
      throw InputError(
          "--calibrate-warmup leaves --calibrate's first requests out of its fit: pass "
          "--calibrate FILE too, or leave it out");
    }
    return std::nullopt;
  }
  if (flags.platform.model.empty() || flags.platform.gpu.empty()) {
    throw InputError("--calibrate " + flags.calibrate +
                     " fits a deployment's step model to the file: name the deployment with "
                     "--model NAME and --gpu NAME (kspeed models, kspeed gpus list them)");
  }
  io::CalibrationFile file = io::read_calibration_file(flags.calibrate, concurrency, warmup);
  if (flags.strict && file.tpot_points == 0) {
    throw InputError("--strict: --calibrate " + flags.calibrate + " has no per-token time (" +
                     io::describe_points(file) +
                     "), so the decode side would stay modelled: give a log with per-request "
                     "TPOT, ITL, or E2E and TTFT, or leave --strict out");
  }
  return file;
}

engine::DeploymentRequest deployment_request(const PlatformFlags& flags,
                                             const std::optional<io::CalibrationFile>& calibration,
                                             const engine::Workload& workload,
                                             const PlatformDefaults& defaults) {
  engine::DeploymentRequest request;
  request.platform = resolve_platform(flags, defaults);
  if (calibration) {
    // What the reader left out of the fit, both kinds, for the step model's source line.
    const std::string note =
        calibration->ttft_note +
        (calibration->ttft_note.empty() || calibration->warmup_note.empty() ? "" : "; ") +
        calibration->warmup_note;
    request.calibration =
        engine::CalibrationRun{calibration->source,        note,
                               calibration->points,        calibration->cached_tokens,
                               calibration->decode_points, calibration->fitted};
  }
  request.profiled_steps = workload.profiled_steps;
  request.profiled_from = workload.profiled_from;
  return request;
}

engine::Deployment deploy(const EstimateFlags& flags,
                          const std::optional<io::CalibrationFile>& calibration,
                          engine::Workload& workload, engine::EstimateOptions& options) {
  // With --ncu, --gpu and --precision give the profiled GPU's roof: they need no --model.
  PlatformFlags platform = flags.platform;
  if (!flags.ncu.file.empty() && platform.model.empty()) {
    platform.gpu.clear();
    platform.precision.clear();
  }
  engine::Deployment deployment = engine::resolve_deployment(
      deployment_request(platform, calibration, workload,
                         {workload.model, workload.gpu, workload.batch, workload.tp,
                          workload.kv_dtype, engine::workload_model_label(workload)}));
  name_after_deployment(workload, deployment.platform);
  options.platform = deployment.platform;
  options.step_model = deployment.step;
  // --deployment: the token budget its fit replayed, unless --max-batched-tokens gives one.
  if (calibration && calibration->step_token_budget &&
      options.step_token_budget.provenance != engine::Provenance::given) {
    options.step_token_budget = {*calibration->step_token_budget, engine::Provenance::given};
  }
  return deployment;
}

void check_input_provenance(const EstimateFlags& flags, const engine::Sweep& sweep) {
  if (flags.strict) engine::refuse_inputs(sweep, engine::strict_filter(), "--strict");
  if (!flags.fail_on.empty()) {
    engine::refuse_inputs(sweep, engine::parse_input_filter(flags.fail_on, "--fail-on"),
                          "--fail-on");
  }
}

// --ncu: the levers priced on the profiled kernel's measured position become the attention
// kernel speedup (provenance measured, by ncu); they no longer go through each phase's
// modelled roofline.
void price_measured_kernel(const EstimateFlags& flags, engine::EstimateOptions& options) {
  if (!flags.kernel_speedup.empty()) {
    throw InputError(
        "--kernel-speedup and --ncu both give the kernel speedup: --ncu prices "
        "the levers on the measured kernel; drop one");
  }
  engine::MeasuredRooflineQuery query = ncu_query(flags.ncu, flags.levers);
  const engine::Gpu gpu = io::load_gpu(profiled_gpu(flags.platform.gpu, query, ""));
  const std::string precision = flags.platform.precision.empty()
                                    ? std::string(engine::kDefaultPrecision)
                                    : flags.platform.precision;
  const std::optional<double> peak = engine::peak_tflops(gpu, precision);
  if (!peak) {
    throw InputError("--precision " + precision + ": " + gpu.name + " has no dense " + precision +
                     " peak: pass --precision bf16");
  }
  query.gpu_name = gpu.name;
  query.gpu_compute_capability = io::compute_capability_of_preset(gpu.name).value_or("");
  query.precision = precision;
  query.peak_tflops = {*peak, engine::Provenance::preset};
  query.bandwidth_tbs = {gpu.hbm_bandwidth_tbs, engine::Provenance::preset};
  const engine::MeasuredRooflineResult result = engine::analyse_measured_roofline(query);
  const engine::WithProvenance<double> speedup = engine::measured_kernel_speedup(result);
  const engine::MeasuredKernel& kernel = result.query.kernels[result.priced.value_or(0)];
  options.measured_kernel_speedup = speedup.value;
  options.kernel_speedup_instrument = "ncu";
  options.measured_kernel = kernel.id + " " + kernel.name.substr(0, kernel.name.find('<'));
  options.measured_kernel_warnings = result.warnings;
  options.measured_kernel_flops = kernel.flops.value;
  options.measured_kernel_flops_lower_bound = kernel.flops_miss_tensor_work;
  options.levers.reset();
  if (flags.phase.empty()) options.phase = engine::Phase::prefill;
}

void check_input_provenance(const EstimateFlags& flags, const engine::RooflineResult& result) {
  if (flags.strict) engine::refuse_inputs(result, engine::strict_filter(), "--strict");
  if (!flags.fail_on.empty()) {
    engine::refuse_inputs(result, engine::parse_input_filter(flags.fail_on, "--fail-on"),
                          "--fail-on");
  }
}

void check_input_provenance(const EstimateFlags& flags, const engine::Scenario& scenario) {
  if (flags.strict) engine::refuse_inputs(scenario, engine::strict_filter(), "--strict");
  if (!flags.fail_on.empty()) {
    engine::refuse_inputs(scenario, engine::parse_input_filter(flags.fail_on, "--fail-on"),
                          "--fail-on");
  }
}

engine::GateThresholds to_gates(const EstimateFlags& flags) {
  engine::GateThresholds gates;
  gates.min_request_speedup = optional_value<double>(
      flags.min_request_speedup, "--min-request-speedup", io::parse_positive_number);
  gates.min_prefill_speedup = optional_value<double>(
      flags.min_prefill_speedup, "--min-prefill-speedup", io::parse_positive_number);
  return gates;
}

}  // namespace kspeed::cli
