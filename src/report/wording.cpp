#include "kspeed/report/wording.hpp"

#include "kspeed/error.hpp"
#include "kspeed/report/human.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace kspeed::report {

namespace {

using engine::Warning;
using engine::WarningCode;

// Token counts and flags are whole numbers: 1024, not 1024.0.
ordered_json json_number(double value) {
  constexpr double kExactInteger = 9007199254740992.0;  // 2^53
  if (std::floor(value) == value && std::fabs(value) < kExactInteger) {
    return static_cast<std::int64_t>(value);
  }
  return value;
}

std::string tokens_text(double tokens) {
  return human_count(static_cast<std::int64_t>(tokens)) + " tokens";
}

std::string phase_name(const Warning& warning) {
  return warning.phase ? std::string(to_string(*warning.phase)) : std::string("the");
}

// "a context of 1,024 tokens is below the smallest context in the prefill share table (4,096
// tokens): using that point's share 18.0% (clamped); --extrapolate model continues ..."
std::string outside_table_sentence(const Warning& w) {
  const bool below = w.number("below_table") != 0;
  const std::string where = "a context of " + tokens_text(w.number("context_tokens")) + " is " +
                            (below ? "below the smallest" : "above the largest") +
                            " context in the " + phase_name(w) + " share table (" +
                            tokens_text(w.number("edge_context_tokens")) + ")";
  if (w.code == WarningCode::share_clamped) {
    return where + ": using that point's share " + human_percent(w.number("share")) +
           " (clamped); --extrapolate model continues the edge segment instead";
  }
  return where + ": continuing the edge segment gives " + human_percent(w.number("share")) +
         " (extrapolated; a model, not a measurement)";
}

}  // namespace

std::string ridge_text(double ridge, double effective_ridge) {
  if (std::abs(effective_ridge - ridge) <= 1e-9 * ridge) {
    return "ridge " + human_figure(ridge) + " FLOP/byte";
  }
  // effective ridge = ridge · η_compute / η_bandwidth: the corner of the roofline the kernel
  // actually meets (bound.hpp)
  return "effective ridge " + human_figure(effective_ridge) + " FLOP/byte = ridge " +
         human_figure(ridge) + " × η_compute / η_bandwidth";
}

std::string near_ridge_note(std::string_view kernel, double intensity, double ridge,
                            double effective_ridge) {
  return std::string(kernel) + " sits near the ridge (intensity " + human_figure(intensity) +
         " vs " + ridge_text(ridge, effective_ridge) +
         ", within 1.5×): the roofline's hard corner is a poor guide here; both roofs are in "
         "reach and real kernels run below the corner, so a lever the bound label rules out may "
         "still help a little (FlashMLA gained 5–15% from faster arithmetic on MLA decode that "
         "the roofline puts at the ridge)";
}

namespace {

std::string contradiction_sentence(const Warning& w) {
  const bool compute = w.code == WarningCode::compute_speedup_no_gain;
  return std::string(compute ? "--compute-speedup " : "--bytes-reduction ") +
         human_plain(w.number("factor")) + " on " + phase_name(w) + " attention: it is " +
         (compute ? "memory-bound" : "compute-bound") + " (intensity " +
         human_figure(w.number("intensity_flop_per_byte")) + " vs " +
         ridge_text(w.number("ridge_flop_per_byte"), w.number("effective_ridge_flop_per_byte") > 0
                                                         ? w.number("effective_ridge_flop_per_byte")
                                                         : w.number("ridge_flop_per_byte")) +
         "), so " + (compute ? "faster arithmetic" : "moving fewer bytes") + " gains only " +
         human_figure(w.number("speedup")) + "×; " +
         (compute ? "fewer bytes (--bytes-reduction) or more of the bandwidth "
                    "(--bandwidth-efficiency) are what help"
                  : "faster arithmetic (--compute-speedup) is what helps");
}

std::string memory_sentence(const Warning& w) {
  const std::string need =
      "weights and KV cache need " + human_figure(w.number("needed_gb")) + " GB per GPU";
  const std::string have =
      "more than the " + human_plain(w.number("memory_gb")) + " GB of " + w.text("gpu");
  if (w.number("at_response_end") != 0) {
    return need + " at the end of the response, " + have +
           ": this deployment does not fit (raise --tp or lower --batch); the modelled figures "
           "still follow the roofline";
  }
  return need + ", " + have +
         ": the deployment does not fit; raise --tp or lower --batch (the figures still follow "
         "the roofline)";
}

// "8,947,849×" rather than "8947849×": a ratio that large is read as a count of times.
std::string times_text(double ratio) {
  return std::isfinite(ratio) && ratio >= 1000 ? human_count(std::llround(ratio))
                                               : human_figure(ratio);
}

// estimate --ncu: the launch's speedup goes to the workload's attention, at a shape the export
// does not record.
std::string measured_shape_sentence(const Warning& w) {
  const std::string applied = "launch " + w.text("launch") + "'s speedup is applied to " +
                              w.text("model") + "'s attention at a prompt of " +
                              human_count(static_cast<std::int64_t>(w.number("prompt_tokens"))) +
                              " tokens";
  if (w.number("flops_ratio") == 0) {
    return applied +
           ", a shape the export does not record and kspeed cannot check without --model: make "
           "sure the launch was profiled on that model at that length";
  }
  return applied + ", but it did " + human_si(w.number("measured_flops"), "FLOP") +
         (w.number("flops_lower_bound") != 0 ? " (a lower bound)" : "") +
         " where one layer of "
         "that prefill does " +
         human_si(w.number("modelled_flops_per_layer"), "FLOP") + " (" +
         (w.number("flops_ratio") < 1 ? times_text(1 / w.number("flops_ratio")) + "× less"
                                      : times_text(w.number("flops_ratio")) + "× more") +
         "): it was most likely profiled on another model or length, and the speedup it prices "
         "may not hold at this one";
}

// The export names the GPU it profiled (device name, compute capability); --gpu is another.
std::string ncu_gpu_mismatch_sentence(const Warning& w) {
  const std::string device = w.text("export_device");
  const std::string cc = w.text("export_cc");
  std::string profiled = device.empty() ? "a GPU" : device;
  if (!cc.empty()) profiled += " (compute capability " + cc + ")";
  std::string text = "the export was profiled on " + profiled + ", not on " + w.text("gpu");
  if (!w.text("gpu_cc").empty()) text += " (compute capability " + w.text("gpu_cc") + ")";
  text +=
      ": the roof is not the profiled GPU's, so the fractions, the bound and the prices are "
      "not the measured kernel's";
  const std::string preset = w.text("export_preset");
  return text + (preset.empty() ? "; pass the profiled GPU with --gpu"
                                : "; pass --gpu " + preset + ", or drop --gpu to use it");
}

// "267 ms at 1,024 tokens and 474 ms at 8,192 tokens": the points a TTFT or TPOT fit used.
std::string ttft_points_text(const Warning& w) {
  const auto count = static_cast<std::size_t>(w.number("points"));
  std::string text;
  for (std::size_t i = 1; i <= count; ++i) {
    const std::string key = "point_" + std::to_string(i);
    text += (i == 1       ? ""
             : i == count ? " and "
                          : ", ") +
            human_ms(w.number(key + "_ms")) + " at " + tokens_text(w.number(key + "_tokens"));
  }
  return text;
}

// TPOT(L) = c + b·L: a decode step reads the weights (c) and a KV cache that grows with L (b).
std::string tpot_fitted_sentence(const Warning& w) {
  std::string text = "TPOT is fitted to the --tpot-point values " + ttft_points_text(w) +
                     ": TPOT = c + b·L with c = " + human_ms(w.number("c_ms")) +
                     " (the weights a decode step reads) and b = " +
                     human_fixed(w.number("ms_per_token") * 1000.0, 4) +
                     " µs per context token for its KV cache";
  if (w.number("c_held_at_zero") != 0) {
    text +=
        "; the unconstrained c came out negative, so c = 0 and b was refitted through the origin";
  }
  if (w.number("rms_residual_ms") > 0) {
    text += " (rms misfit " + human_ms(w.number("rms_residual_ms")) + ")";
  }
  return text;
}

std::string ttft_fitted_sentence(const Warning& w) {
  std::string text = "TTFT is fitted to " +
                     std::string(w.number("points_given") != 0 ? "the --ttft-point values "
                                                               : "the workload's measured TTFT ") +
                     ttft_points_text(w);
  if (!w.text("conditions").empty()) {
    text += " (" + w.text("conditions") + ")";
  }
  text += ": TTFT = T0 + a·L·(1 + odds(L)) with T0 = " + human_ms(w.number("fixed_ms")) +
          " and a = " + human_fixed(w.number("ms_per_token"), 4) + " ms/token";
  if (w.number("rms_residual_ms") > 0) {
    text += " (rms misfit " + human_ms(w.number("rms_residual_ms")) + ")";
  }
  text += "; T0 is TTFT no attention kernel touches (the TTFT row)";
  if (w.number("illustrative_ttft_ms") > 0) {
    text += ". The workload's " + human_ms(w.number("illustrative_ttft_ms")) + " at " +
            tokens_text(w.number("illustrative_prompt_tokens")) +
            " is the source analysis's illustrative figure, not one of the points";
  }
  return text;
}

std::string requests_text(const Warning& w) {
  const auto count = static_cast<std::int64_t>(w.number("requests"));
  return human_count(count) + (count == 1 ? " request" : " requests");
}

// The workload level's warnings (kspeed mix): how many requests each concerns.
std::string requests_sentence(const Warning& w) {
  switch (w.code) {
    case WarningCode::requests_share_clamped:
      return requests_text(w) + " with an effective prompt " +
             (w.number("below_table") != 0 ? "below" : "above") +
             " the prefill share table: " + "held at its " + tokens_text(w.number("edge_tokens")) +
             " point (clamped); --extrapolate model continues the edge segment instead";
    case WarningCode::requests_share_extrapolated:
      return requests_text(w) +
             " outside the prefill share table: edge segment continued (extrapolated; a model, "
             "not a measurement)";
    case WarningCode::requests_ttft_missing:
      return requests_text(w) +
             " with no measured TTFT and no reference TTFT to scale: left out of the TTFT and "
             "E2E figures (pass --ttft and --ctx)";
    case WarningCode::requests_tpot_missing:
      return requests_text(w) + " of 2+ tokens with no TPOT: no E2E latency for them (pass --tpot)";
    case WarningCode::requests_decode_share_missing:
      if (w.numbers.size() > 1 || w.number("replay_decode_speedup") > 0) {
        // the replay's step model applies the speedup to decode attention (issue 27)
        return "the change applies to decode, but there is no decode share for " +
               requests_text(w) +
               ": the per-request figures leave decode unchanged, while the replay applies " +
               (w.number("replay_decode_speedup") > 0
                    ? human_speedup(w.number("replay_decode_speedup"))
                    : std::string("each request's speedup")) +
               " to its step model's decode attention (pass --decode-share for both to agree)";
      }
      return "the change applies to decode, but there is no decode share for " + requests_text(w) +
             ": decode is left unchanged (pass --decode-share)";
    case WarningCode::requests_without_block_ids:
      return requests_text(w) +
             " carry no block ids for the LRU prefix cache: nothing cached for them (use "
             "--prefix-cache-hit R for logs without hash_ids)";
    case WarningCode::requests_too_many_models:
      return requests_text(w) + " name a model beyond the first 65,535: grouped as unnamed";
    case WarningCode::requests_ttft_below_overhead:
      return requests_text(w) + " with a modelled TTFT below --ttft-overhead " +
             human_ms(w.number("overhead_ms")) + " (the shortest " +
             human_ms(w.number("shortest_ttft_ms")) +
             "): all of it taken as fixed, so the kernel moves none of it; measure the overhead "
             "at this deployment's shortest prompts, or give one below " +
             human_ms(w.number("shortest_ttft_ms"));
    case WarningCode::requests_ttft_split:
      return requests_text(w) +
             " with a measured TTFT: only the modelled GPU time of each one's prefill moves, " +
             human_ms(w.number("measured_ms") - w.number("fixed_ms")) + " of their " +
             human_ms(w.number("measured_ms")) +
             "; the rest (queue, scheduling, overhead) no kernel touches and stays";
    case WarningCode::requests_ttft_unsplit:
      return requests_text(w) +
             " with a measured TTFT and no model of their prefill (no deployment, TTFT points or "
             "reference TTFT): all of each TTFT moves, queue included (pass --model and --gpu)";
    case WarningCode::replay_without_arrival:
      return requests_text(w) + " have no arrival time: left out of the --replay queue";
    case WarningCode::replay_unschedulable:
      return requests_text(w) +
             " can never be scheduled (a prompt over --max-batched-tokens with chunked prefill "
             "off, or over the KV capacity): left out with no latency (raise the limit)";
    case WarningCode::requests_beyond_context:
      if (w.number("requests") == 1) {
        return "1 request of " + tokens_text(w.number("longest_tokens")) +
               " has a prompt and response longer than " + w.text("model") + "'s context of " +
               tokens_text(w.number("context_tokens")) +
               ": a server refuses it, but it is priced as if served (drop it from the log, or "
               "name the model the log was served with)";
      }
      return requests_text(w) + " (the longest " + tokens_text(w.number("longest_tokens")) +
             ") have a prompt and response longer than " + w.text("model") + "'s context of " +
             tokens_text(w.number("context_tokens")) +
             ": a server refuses them, but they are priced as if served (drop them from the "
             "log, or name the model the log was served with)";
    default:
      return std::string(to_string(w.code));
  }
}

}  // namespace

std::string warning_code(const Warning& warning) {
  std::string code(to_string(warning.code));
  switch (warning.code) {
    case WarningCode::share_clamped:
    case WarningCode::share_extrapolated:
      return phase_name(warning) + "_" + code;
    case WarningCode::compute_speedup_no_gain:
    case WarningCode::bytes_reduction_no_gain:
      return phase_name(warning) + "_attention_" + code;
    default:
      return code;
  }
}

std::string warning_sentence(const Warning& w) {
  switch (w.code) {
    case WarningCode::share_clamped:
    case WarningCode::share_extrapolated:
      return outside_table_sentence(w);
    case WarningCode::ttft_scaled:
      // One point: T0 unknown in [0, TTFT_ref), so TTFT(L) lies between the two range ends.
      return "TTFT " + human_ms(w.number("reference_ttft_ms")) + " is known at " +
             tokens_text(w.number("reference_prompt_tokens")) + " only; scaled to " +
             tokens_text(w.number("prompt_tokens")) +
             " with the cost model and no fixed term. With an unknown fixed term TTFT there "
             "lies between " +
             human_ms(w.number("range_low_ms")) + " and " + human_ms(w.number("range_high_ms")) +
             "; pass --ttft measured at this length, or two or more --ttft-point to fit it";
    case WarningCode::ttft_fitted:
      return ttft_fitted_sentence(w);
    case WarningCode::default_prompt_below_table:
      return "the workload's " +
             human_count(static_cast<std::int64_t>(w.number("context_tokens"))) +
             "-token prompt is below its prefill share table's first point (" +
             tokens_text(w.number("edge_context_tokens")) + "), so that point's share " +
             human_percent(w.number("share")) +
             " is used, as the table's source analysis does for short prompts; pass --ctx to "
             "ask about another prompt length";
    case WarningCode::tpot_fitted:
      return tpot_fitted_sentence(w);
    case WarningCode::tpot_held:
      return "TPOT " + human_ms(w.number("tpot_ms")) + " was measured at a " +
             human_count(static_cast<std::int64_t>(w.number("reference_prompt_tokens"))) +
             "-token prompt and is held at " + tokens_text(w.number("prompt_tokens")) +
             ": the workload has no decode share and no deployment to scale it with (decode "
             "reads a KV cache that grows with the context); pass --tpot, or --model and --gpu";
    case WarningCode::share_model_mismatch:
      return "workload '" + w.text("workload") + "' measured its attention shares on " +
             w.text("workload_model") + ", but --model is " + w.text("model") +
             ": the share table may not carry over; pass --share/--decode-share measured on "
             "this model";
    case WarningCode::prefill_not_measured:
      return "workload '" + w.text("workload") +
             "' measured decode only: the estimate is of --phase decode, and the request holds "
             "its decode steps alone (TTFT and the prefill share set aside as 0); pass --ttft "
             "and --share to include the prefill";
    case WarningCode::latency_of_another_kind:
      return "workload '" + w.text("workload") + "' measured its " + phase_name(w) +
             " share against " + w.text("denominator") + ", but --" + w.input +
             " is a wall time (idle gaps included): the attention time the trace measured, " +
             human_percent(w.number("share")) + " x " + human_ms(w.number("gpu_ms")) +
             " GPU = " + human_ms(w.number("attention_ms")) + " a step, is the share of the " +
             human_ms(w.number("wall_ms")) +
             " given: " + human_percent(w.number("converted_share")) +
             " (provenance converted; profile with --denominator wall-time to measure it "
             "directly)";
    case WarningCode::speedup_beyond_headroom:
      return "a " + human_speedup(w.number("kernel_speedup")) + " " + phase_name(w) +
             " attention kernel exceeds the " + human_speedup(w.number("headroom")) +
             " a memory-bound kernel gains by reaching the whole bandwidth (the step model's "
             "η_bw " +
             human_fixed(w.number("bandwidth_efficiency"), 2) +
             "): it must read fewer bytes; say how many with --bytes-reduction";
    case WarningCode::attention_calibration_extrapolated:
      return "prefill attention was calibrated on " + human_count(std::llround(w.number("steps"))) +
             " profiled prefill step" + (w.number("steps") == 1 ? "" : "s") + " of " +
             (w.number("min_tokens") == w.number("max_tokens")
                  ? tokens_text(w.number("min_tokens"))
                  : tokens_text(w.number("min_tokens")) + " to " +
                        tokens_text(w.number("max_tokens"))) +
             " (" + human_figure(w.number("scale")) + "× the roofline's cost); at " +
             tokens_text(w.number("prompt_tokens")) +
             " it is extrapolated with the causal pairs (labelled extrapolated; --strict refuses "
             "it): profile prefill steps near this prompt, or give --ttft measured at it";
    case WarningCode::attention_exceeds_latency:
      return phase_name(w) + " attention, " + w.text("provenance") + " at " +
             human_ms(w.number("attention_ms")) + " a step, is longer than the " +
             (w.input == "ttft" ? std::string("TTFT ") : std::string("TPOT ")) +
             human_ms(w.number("latency_ms")) + " given (--" + w.input +
             "): its share was capped at 100%, and that latency cannot be this deployment's; "
             "give the latency measured on it, or leave out --" +
             w.input + " to use the " + w.text("provenance") + " one (--strict refuses this)";
    case WarningCode::memory_exceeded:
      return memory_sentence(w);
    case WarningCode::compute_speedup_no_gain:
    case WarningCode::bytes_reduction_no_gain:
      return contradiction_sentence(w);
    case WarningCode::summary_without_timeline:
      return "a kernel summary has no timeline: one whole-capture share, no phases";
    case WarningCode::no_step_annotations:
      return "no engine step annotations found: one unphased share over the whole trace "
             "(profile with vLLM, SGLang or TensorRT-LLM's profiler to get prefill and decode "
             "apart)";
    case WarningCode::steps_without_phase:
      return "steps found, but none states its phase (ProfilerStep#N or idle steps): unphased "
             "share";
    case WarningCode::kernels_outside_steps:
      return human_count(static_cast<std::int64_t>(w.number("kernel_executions"))) +
             " kernel executions ran outside every step: counted in the whole trace, not in any "
             "phase";
    case WarningCode::gpu_idle_in_step:
      return human_count(static_cast<std::int64_t>(w.number("idle_steps"))) + " of " +
             human_count(static_cast<std::int64_t>(w.number("steps"))) +
             " steps kept the GPU idle for over 20% of their wall time; the idlest, '" +
             w.text("step") + "', was busy " + human_percent(w.number("busy_fraction")) + " of " +
             human_ms(w.number("wall_ms")) + " (largest idle gap " +
             human_ms(w.number("largest_gap_ms")) + "): its core attention share is " +
             human_percent(w.number("kernel_time_share")) + " of kernel time but " +
             human_percent(w.number("wall_time_share")) +
             " of wall time. The gap is profiler overhead or CPU-bound scheduling: apply the "
             "kernel-time share to the GPU part of a latency only (--denominator wall-time "
             "gives the share of the step as it ran)";
    case WarningCode::requests_share_clamped:
    case WarningCode::requests_share_extrapolated:
    case WarningCode::requests_ttft_missing:
    case WarningCode::requests_tpot_missing:
    case WarningCode::requests_decode_share_missing:
    case WarningCode::requests_without_block_ids:
    case WarningCode::requests_too_many_models:
    case WarningCode::requests_ttft_below_overhead:
    case WarningCode::requests_ttft_split:
    case WarningCode::requests_ttft_unsplit:
    case WarningCode::replay_without_arrival:
    case WarningCode::replay_unschedulable:
    case WarningCode::requests_beyond_context:
      return requests_sentence(w);
    case WarningCode::context_beyond_model:
      return "a prompt of " + tokens_text(w.number("prompt_tokens")) + " and a response of " +
             tokens_text(w.number("response_tokens")) + " are longer than " + w.text("model") +
             "'s context of " + tokens_text(w.number("context_tokens")) +
             ": a server refuses such a request, and the figures extend the model past it "
             "(keep --ctx and --response-tokens within the context)";
    case WarningCode::replay_near_saturation:
      if (w.number("load") >= 1) {
        return "the replayed load " + w.input + " the change is " + human_figure(w.number("load")) +
               "× the rate that saturates the replicas: the queue grows with the log's length, so "
               "its percentiles measure the log, not a steady state (add --replicas or lower "
               "--rate-scale)";
      }
      return "the replayed load " + w.input + " the change is " + human_percent(w.number("load")) +
             " of the rate that saturates the replicas: near saturation a 5–10% error in step "
             "time becomes a 20–40% error in TTFT";
    case WarningCode::share_point_left_out:
      return phase_name(w) + " context " +
             human_count(static_cast<std::int64_t>(w.number("context_tokens"))) + ": share " +
             human_percent(w.number("share")) +
             " left out (a share table needs shares strictly between 0 and 1)";
    case WarningCode::measured_above_roof:
      return "launch " + w.text("launch") + " reached " +
             human_percent(w.number("compute_fraction")) + " of the peak and " +
             human_percent(w.number("bandwidth_fraction")) + " of the bandwidth of " +
             w.text("gpu") +
             ": above its roof, so the profile was taken on another GPU or precision (pass the "
             "profiled one with --gpu and --precision); no lever is priced";
    case WarningCode::tensor_work_uncounted:
      if (w.text("metric").empty()) {
        return "launch " + w.text("launch") +
               " is an attention kernel, whose matrix products run on tensor cores, and the "
               "export holds no tensor-pipe count: the SASS FLOP counters miss that work, so "
               "its FLOPs, intensity and compute fraction are lower bounds (collect "
               "sm__inst_executed_pipe_tensor.sum and pass --mma-shape MxNxK)";
      }
      return "launch " + w.text("launch") + " executed " +
             human_count(static_cast<std::int64_t>(w.number("tensor_warp_instructions"))) +
             " tensor-pipe warp instructions that the SASS FLOP counters do not count, and the "
             "instruction shape is not in the profile: its FLOPs, intensity and compute "
             "fraction are lower bounds (--mma-shape MxNxK converts them; 16x8x16 for "
             "HMMA.16816)";
    case WarningCode::ncu_gpu_mismatch:
      return ncu_gpu_mismatch_sentence(w);
    case WarningCode::measured_kernel_shape:
      return measured_shape_sentence(w);
    case WarningCode::math_path_attention:
      return w.text("kernel").substr(0, 60) + " takes " +
             human_percent(w.number("share_of_kernel_time")) +
             " of kernel time: a softmax this large is most likely attention run on the math "
             "path (matmul, softmax, matmul: eager attention or SDPA's fallback), which the "
             "attention share (" +
             human_percent(w.number("attention_core_share")) +
             ") does not count; a fused attention kernel would replace it, or count it with "
             "--patterns";
    case WarningCode::speculation_acceptance:
      return "speculative decoding: " + human_plain(w.number("mean_accepted")) +
             " tokens accepted per step (of " + human_plain(w.number("tokens_per_step")) +
             " verified) divide the modelled decode time per output token: one step of " +
             human_ms(w.number("step_ms")) + " at " +
             human_count(static_cast<std::int64_t>(w.number("context_tokens"))) +
             " tokens of context gives " + human_ms(w.number("ms_per_token")) +
             " per token (the modelled TPOT). Attention's share of decode and the decode "
             "speedup are ratios of times it divides alike, so it leaves them unchanged; a "
             "measured TPOT already holds the acceptance it was measured with";
  }
  return std::string(to_string(w.code));
}

ordered_json warnings_json(const std::vector<Warning>& warnings) {
  ordered_json out = ordered_json::array();
  for (const Warning& warning : warnings) {
    ordered_json entry;
    entry["code"] = warning_code(warning);
    entry["input"] = warning.input;
    ordered_json numbers = ordered_json::object();
    for (const auto& [name, value] : warning.numbers) numbers[name] = json_number(value);
    for (const auto& [name, value] : warning.names) numbers[name] = value;
    entry["values"] = numbers;
    entry["message"] = warning_sentence(warning);
    out.push_back(entry);
  }
  return out;
}

const char* bound_name(engine::Bound bound) {
  return bound == engine::Bound::memory ? "memory" : "compute";
}

const char* lever_kind_name(engine::LeverKind kind) {
  switch (kind) {
    case engine::LeverKind::compute:
      return "compute";
    case engine::LeverKind::bytes:
      return "bytes";
    case engine::LeverKind::bandwidth:
      return "bandwidth";
    case engine::LeverKind::combined:
      return "combined";
  }
  return "unknown";
}

std::string bandwidth_efficiency_text(const engine::Levers& levers) {
  return "bandwidth efficiency " + human_plain(levers.bandwidth_efficiency_before) + " → " +
         human_plain(levers.bandwidth_efficiency_after);
}

ordered_json levers_json(const engine::Levers& levers) {
  ordered_json out;
  out["compute_speedup"] = levers.compute_speedup;
  out["bytes_reduction"] = levers.bytes_reduction;
  out["bandwidth_efficiency_before"] = levers.bandwidth_efficiency_before;
  out["bandwidth_efficiency_after"] = levers.bandwidth_efficiency_after;
  out["compute_efficiency"] = levers.compute_efficiency;
  return out;
}

std::string worded_error(const std::string& message) {
  std::string out;
  std::size_t at = 0;
  while (at < message.size()) {
    const std::size_t open = message.find('{', at);
    const std::size_t close = open == std::string::npos ? open : message.find('}', open);
    if (close == std::string::npos) break;
    const std::string mark = message.substr(open + 1, close - open - 1);
    out += message.substr(at, open - at);
    if (mark.rfind("flag:", 0) == 0) {
      out += "--" + mark.substr(5);
    } else if (mark.rfind("count:", 0) == 0) {
      out += human_count(std::stoll(mark.substr(6)));
    } else if (mark.rfind("number:", 0) == 0) {
      out += mark.substr(7);  // already the shortest round-trip text (number_mark)
    } else {
      out += message.substr(open, close - open + 1);  // not a mark: braces from a file name
    }
    at = close + 1;
  }
  return out + message.substr(std::min(at, message.size()));
}

// "prefill measured at 512 tokens per request; decode at a KV length of 1025 per request".
std::string setup_differences_text(const std::vector<profile::SetupField>& fields,
                                   const std::vector<profile::FileResult>& files) {
  const auto value = [](profile::SetupField field, const profile::FileResult& file) {
    switch (field) {
      case profile::SetupField::device:
        if (file.info.gpu.empty()) return file.info.platform;
        return file.info.platform.empty() ? file.info.gpu
                                          : file.info.gpu + " (" + file.info.platform + ")";
      case profile::SetupField::engine:
        return file.engine;
      case profile::SetupField::world_size:
        return file.info.world_size ? std::to_string(*file.info.world_size) : std::string();
    }
    return std::string();
  };
  const auto name = [](profile::SetupField field) {
    switch (field) {
      case profile::SetupField::device:
        return "device";
      case profile::SetupField::engine:
        return "engine";
      case profile::SetupField::world_size:
        return "world size";
    }
    return "";
  };
  std::string out;
  for (profile::SetupField field : fields) {
    std::string values;
    for (const profile::FileResult& file : files) {
      const std::string text = value(field, file);
      values += (values.empty() ? "" : " vs ") + (text.empty() ? std::string("-") : excerpt(text));
    }
    out += (out.empty() ? "" : "; ") + std::string(name(field)) + ": " + values;
  }
  return out;
}

std::string condition_text(const engine::Condition& condition) {
  struct Words {
    std::string operator()(const std::string& text) const { return text; }
    // "h100-sxm", or "8 × h100-sxm" with tensor parallelism.
    std::string operator()(const engine::HardwareCondition& h) const {
      return h.gpus > 1 ? human_count(h.gpus) + " × " + h.gpu : h.gpu;
    }
    std::string operator()(const engine::PrecisionCondition& p) const {
      return p.weights + " weights, " + p.kv_cache + " KV cache, " + p.compute + " compute";
    }
    std::string operator()(const engine::SpeculationCondition& s) const {
      return human_plain(s.tokens_per_step) + " tokens verified per step, " +
             human_plain(s.mean_accepted) + " accepted on average";
    }
  };
  return std::visit(Words{}, condition.value);
}

std::string calibration_phrase(const engine::CalibratedStepModel& model) {
  switch (model.calibration) {
    case engine::Provenance::fitted:
      return "fitted to " + model.calibration_source;
    case engine::Provenance::measured:
      return "measured from " + model.calibration_source;
    default:
      return "modelled at default efficiencies";
  }
}

std::string token_counts_condition(const engine::Workload& workload) {
  auto contexts = [](const std::vector<engine::SharePoint>& points) {
    std::string out;
    for (const auto& point : points) {
      out +=
          (out.empty() ? "" : ", ") + std::to_string(static_cast<long long>(point.context_tokens));
    }
    return out;
  };
  std::string text;
  if (!workload.prefill_shares.empty()) {
    text =
        "prefill measured at " + contexts(workload.prefill_shares) + " prompt tokens per request";
  }
  if (!workload.decode_shares.empty()) {
    text += (text.empty() ? "" : "; ") + std::string("decode measured at a KV length of ") +
            contexts(workload.decode_shares) + " tokens per request";
  }
  return text;
}

// The SpeedOfLight section holds the duration and the three throughput percentages (Kernel
// Profiling Guide, "Sections and Rules"); FLOP counters, DRAM bytes and the tensor-pipe count are
// collected by name with --metrics (the SpeedOfLight_RooflineChart section's set varies by
// version, so kspeed names the metrics themselves).
std::string ncu_collect_flag(const std::string& metric) {
  static const std::vector<std::string> in_speed_of_light = {
      "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"};
  if (std::find(in_speed_of_light.begin(), in_speed_of_light.end(), metric) !=
      in_speed_of_light.end()) {
    return "--section SpeedOfLight";
  }
  return "--metrics " + metric;
}

std::vector<std::string> compact_metrics(const std::vector<std::string>& metrics) {
  // The nine SASS FLOP counters (fp16, fp32, fp64 × fma, add, mul) as one ncu regex.
  constexpr std::string_view kSass = "sm__sass_thread_inst_executed_op_";
  std::vector<std::string> out;
  bool sass = false;
  for (const std::string& metric : metrics) {
    if (metric.rfind(kSass, 0) != 0) {
      out.push_back(metric);
    } else if (!sass) {
      sass = true;
      out.emplace_back("regex:sm__sass_thread_inst_executed_op_[hfd](fma|add|mul)_pred_on.sum");
    }
  }
  return out;
}

std::string ncu_collect_flags(const std::vector<std::string>& metrics) {
  std::string sections;
  std::string names;
  for (const std::string& metric : compact_metrics(metrics)) {
    const std::string flag = ncu_collect_flag(metric);
    if (flag.rfind("--metrics ", 0) == 0) {
      names += (names.empty() ? "" : ",") + metric;
    } else if (sections.find(flag) == std::string::npos) {
      sections += (sections.empty() ? "" : " ") + flag;
    }
  }
  if (names.empty()) return sections;
  // The regex's brackets, parentheses and bars are shell syntax: quote the list so the hint can
  // be pasted into a shell as it is (metric names hold no single quote).
  if (names.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:") !=
      std::string::npos) {
    names = "'" + names + "'";
  }
  return sections + (sections.empty() ? "" : " ") + "--metrics " + names;
}

std::string expert_union_note() {
  return "MoE decode weights: each step reads the experts at least one token chose, "
         "E·(1 − (1 − k/E)^t) per layer for t tokens under uniform, independent routing (plus "
         "shared experts). Real routers are skewed, so this is an upper bound on the experts "
         "read and on the weight time; the decode attention share is a lower bound.";
}

}  // namespace kspeed::report
