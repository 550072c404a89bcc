#include "kspeed/engine/deployment/step_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "kspeed/engine/deployment/decode_model.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/engine/deployment/prefix_calibration.hpp"
#include "kspeed/engine/numeric.hpp"
#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// TFLOP/s and TB/s are 10^12 per second; a millisecond is 10^-3 s: t_ms = x / (rate · 10^9).
constexpr double kCalibrationTeraPerMs = 1e9;

double bytes_ms(double bytes, const Roof& roof, double efficiency) {
  return bytes / (roof.bandwidth_tbs * efficiency * kCalibrationTeraPerMs);
}

double flops_ms(double flops, const Roof& roof, double efficiency) {
  return flops / (roof.peak_tflops * efficiency * kCalibrationTeraPerMs);
}

// Prefill attention FLOPs of one (query, key) pair in one layer on one GPU: GQA QK^T and PV,
// 4·Hq·d; MLA on decompressed heads, 2·Hq·(d_nope + d_rope + d_v) (roofline.cpp's prefill cost).
double prefill_flops_per_pair_per_layer(const ModelArch& model, double tensor_parallel) {
  const double heads = as_double(model.query_heads) / tensor_parallel;
  if (model.attention == AttentionType::mla) {
    return 2.0 * heads *
           as_double(model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim +
                     model.mla.v_head_dim);
  }
  return 4.0 * heads * as_double(model.head_dim);
}

// A sliding-window layer attends to at most W keys, so its attention is a cost per token: a
// prefill token's W pairs (FLOPs) and a decode sequence's W cached tokens (bytes).
struct WindowCost {
  double prefill_token_ms = 0;
  double decode_sequence_ms = 0;
};

WindowCost sliding_window_cost(const Platform& platform, const Roof& roof,
                               const StepEfficiency& efficiency) {
  const ModelArch& model = platform.model.value;
  if (model.sliding_window_layers == 0 || model.sliding_window_tokens == 0) return {};
  const double window_positions =
      as_double(model.sliding_window_layers) * as_double(model.sliding_window_tokens);
  const KernelCost per_position = decode_cost_per_attended_token(attention_shape(platform));
  return {flops_ms(window_positions * prefill_flops_per_pair_per_layer(
                                          model, as_double(platform.tensor_parallel.value)),
                   roof, efficiency.attention_compute),
          bytes_ms(window_positions * per_position.bytes, roof, efficiency.bandwidth)};
}

// Non-attention FLOPs of one token on one GPU (2 · P_active / tp; MoE: the k routed experts).
double gemm_flops_per_token(const Platform& platform) {
  Platform one_token = platform;
  one_token.batch.value = 1;
  one_token.spec_tokens_per_step.value = 1;
  return non_attention_step_cost(one_token).flops;
}

CoefficientOrigin modelled(std::string source) {
  return {Provenance::modelled, std::move(source)};
}

// ---- least squares of y = offset + g(scale) over the points ----

struct ScaleFit {
  double scale = 1;
  double offset = 0;
};

// For a fixed scale, the offset that minimises the squares is the mean residual, held >= 0.
double best_offset(const std::vector<double>& measured,
                   const std::function<double(std::size_t, double)>& predict, double scale) {
  double sum = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) sum += measured[i] - predict(i, scale);
  return std::max(0.0, sum / as_double(static_cast<std::int64_t>(measured.size())));
}

double squares(const std::vector<double>& measured,
               const std::function<double(std::size_t, double)>& predict, double scale,
               double offset) {
  double sum = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double residual = measured[i] - offset - predict(i, scale);
    sum += residual * residual;
  }
  return sum;
}

// The log(scale) in [log(min_scale), log(1e3)] that minimises `cost`: a 240-step grid finds the
// basin (a max() switching branch can make the cost non-unimodal), then 80 golden-section steps
// around the best grid point narrow it.
double minimise_log_scale(const std::function<double(double)>& cost, double min_scale) {
  constexpr int kGrid = 240;
  const double low = std::log(min_scale);
  const double step = (std::log(1e3) - low) / kGrid;
  int best = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= kGrid; ++i) {
    const double c = cost(low + step * i);
    if (c < best_cost) {
      best_cost = c;
      best = i;
    }
  }
  double a = low + step * std::max(best - 1, 0);
  double b = low + step * std::min(best + 1, kGrid);
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  for (int iteration = 0; iteration < 80; ++iteration) {
    const double c = b - ratio * (b - a);
    const double d = a + ratio * (b - a);
    if (cost(c) < cost(d)) {
      b = d;
    } else {
      a = c;
    }
  }
  return (a + b) / 2;
}

// Minimises Σ (y - offset - g_i(scale))² over scale in [min_scale, 1e3] (log grid, then golden
// section around the best grid point); the offset is fitted (>= 0) or held at `fixed_offset`.
// Each g_i is non-decreasing in the scale, so the squares are unimodal along a monotone path
// except where a max() switches branch: the grid finds the right basin first.
ScaleFit fit_scale(const std::vector<double>& measured,
                   const std::function<double(std::size_t, double)>& predict, bool fit_offset,
                   double fixed_offset, double min_scale) {
  const auto cost = [&](double log_scale) {
    const double scale = std::exp(log_scale);
    const double offset = fit_offset ? best_offset(measured, predict, scale) : fixed_offset;
    return squares(measured, predict, scale, offset);
  };
  ScaleFit fit;
  fit.scale = std::exp(minimise_log_scale(cost, min_scale));
  fit.offset = fit_offset ? best_offset(measured, predict, fit.scale) : fixed_offset;
  return fit;
}

void check_positive(const LatencyObservation& point, double cached, std::string_view source) {
  const bool lengths_ok = point.prompt_tokens > 0 && point.response_tokens >= 1 &&
                          point.concurrency >= 1 && cached >= 0 && cached < point.prompt_tokens;
  const bool latencies_ok =
      (!point.ttft_ms || *point.ttft_ms > 0) && (!point.tpot_ms || *point.tpot_ms > 0);
  if (!lengths_ok || !latencies_ok) {
    throw InputError(std::string(source) + ": calibration point '" + point.label +
                     "': expected a prompt > 0 tokens, a cached prefix shorter than the prompt, a "
                     "response >= 1 token, concurrency >= 1 and latencies > 0 ms; fix or drop "
                     "that point");
  }
}

// TPOT points: TPOT = fixed + max(s·W, a·c) + s·k·KV (bandwidth side scaled by s).
void fit_decode(CalibratedStepModel& out, const std::vector<LatencyObservation>& points,
                const std::string& source) {
  std::vector<const LatencyObservation*> used;
  std::vector<double> measured;
  for (const LatencyObservation& point : points) {
    if (point.tpot_ms) {
      used.push_back(&point);
      measured.push_back(*point.tpot_ms);
    }
  }
  if (used.empty()) return;
  const StepModel prior = out.model;
  const auto predict = [&](std::size_t i, double scale) {
    StepModel scaled = prior;
    scale_reads(scaled, scale);
    scaled.fixed_ms = 0;
    const LatencyObservation& p = *used[i];
    return step_time(scaled, decode_batch(p.prompt_tokens, p.response_tokens, p.concurrency,
                                          out.spec_tokens_per_step, prior.attention_chunk_tokens))
               .total_ms() /
           out.spec_mean_accepted;
  };
  // Two points whose modelled decode steps differ can separate the fixed cost from the reads.
  bool distinct = false;
  for (std::size_t i = 1; i < used.size(); ++i) {
    distinct = distinct || std::abs(predict(i, 1) - predict(0, 1)) > 1e-9 * predict(0, 1);
  }
  // The reads cannot beat the roof: the fitted η_bw = η / scale stays <= 1.
  const ScaleFit fit =
      fit_scale(measured, predict, distinct, prior.fixed_ms, out.efficiency.bandwidth);
  scale_reads(out.model, fit.scale);
  out.efficiency.bandwidth /= fit.scale;
  const CoefficientOrigin fitted{Provenance::fitted, source};
  out.origins.weights = fitted;
  out.origins.kv_token = fitted;
  if (distinct) {
    out.model.fixed_ms = fit.offset;
    out.origins.fixed = fitted;
  }
}

// The cached prefix of point i: none when the caller gave no list.
double cached_of(const std::vector<double>& cached, std::size_t i) {
  return i < cached.size() ? cached[i] : 0.0;
}

// TTFT points: TTFT = overhead + fixed + max(W, k·a·cL) + k·b·pairs (compute side scaled by k),
// the prefill of each point's prompt after its cached prefix.
void fit_prefill(CalibratedStepModel& out, const std::vector<LatencyObservation>& points,
                 const std::vector<double>& cached, const std::string& source) {
  std::vector<const LatencyObservation*> used;
  std::vector<double> used_cached;
  std::vector<double> measured;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LatencyObservation& point = points[i];
    if (point.ttft_ms) {
      used.push_back(&point);
      used_cached.push_back(cached_of(cached, i));
      measured.push_back(*point.ttft_ms);
    }
  }
  if (used.empty()) return;
  const StepModel prior = out.model;
  const auto predict = [&](std::size_t i, double scale) {
    StepModel scaled = prior;
    scaled.ms_per_token *= scale;
    scaled.ms_per_prefill_pair *= scale;
    scaled.ms_per_window_prefill_token *= scale;
    scaled.ms_per_chunked_prefill_pair *= scale;
    const LatencyObservation& p = *used[i];
    return step_time(scaled, prefill_batch(p.prompt_tokens, p.concurrency, used_cached[i],
                                           prior.attention_chunk_tokens))
        .total_ms();
  };
  bool distinct = false;
  for (std::size_t i = 1; i < used.size(); ++i) {
    distinct = distinct || std::abs(predict(i, 1) - predict(0, 1)) > 1e-9 * predict(0, 1);
  }
  const CoefficientOrigin fitted{Provenance::fitted, source};
  // The arithmetic cannot beat the roof: each fitted η_compute = η / scale stays <= 1.
  const double min_compute_scale =
      std::max(out.efficiency.gemm_compute, out.efficiency.attention_compute);
  ScaleFit fit;
  if (distinct) {
    fit = fit_scale(measured, predict, true, 0, min_compute_scale);
  } else {
    // One prompt length: the overhead takes what the modelled prefill step leaves; the compute
    // side moves only when the step alone already exceeds the measurement.
    fit.offset = best_offset(measured, predict, 1.0);
    if (fit.offset <= 0) fit = fit_scale(measured, predict, false, 0, min_compute_scale);
  }
  out.request_overhead_ms = fit.offset;
  out.origins.request_overhead = fitted;
  if (fit.scale != 1) {
    out.efficiency.gemm_compute /= fit.scale;
    out.efficiency.attention_compute /= fit.scale;
    out.model.ms_per_token *= fit.scale;
    out.model.ms_per_prefill_pair *= fit.scale;
    out.model.ms_per_window_prefill_token *= fit.scale;
    out.model.ms_per_chunked_prefill_pair *= fit.scale;
    out.origins.per_token = fitted;
    out.origins.prefill_pair = fitted;
  }
}

std::vector<PointResidual> latency_residuals(const CalibratedStepModel& model,
                                             const std::vector<LatencyObservation>& points,
                                             const std::vector<double>& cached) {
  std::vector<PointResidual> residuals;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LatencyObservation& p = points[i];
    const RequestLatency latency =
        request_latency(model, p.prompt_tokens, p.response_tokens, p.concurrency);
    if (p.ttft_ms) {
      const double prefill_ms =
          step_time(model.model, prefill_batch(p.prompt_tokens, p.concurrency, cached_of(cached, i),
                                               model.model.attention_chunk_tokens))
              .total_ms();
      residuals.push_back(
          {p.label, LatencyKind::ttft, *p.ttft_ms, model.request_overhead_ms + prefill_ms});
    }
    if (p.tpot_ms) {
      residuals.push_back({p.label, LatencyKind::tpot, *p.tpot_ms, latency.tpot_ms()});
    }
  }
  return residuals;
}

// ---- the per-sequence cost: a line over the running sequences ----

// The decode step of observation `p` with the bandwidth side scaled by `scale` and no
// per-sequence cost (the caller adds c · N, N fractional for a level's mean batch).
double decode_step_without_sequences(const StepModel& base, const RunningDecodeObservation& p,
                                     double scale, double tokens_per_step) {
  StepModel scaled = base;
  scale_reads(scaled, scale);
  scaled.ms_per_sequence = 0;
  return step_time(scaled, decode_batch(p.prompt_tokens, p.response_tokens, p.running_sequences,
                                        tokens_per_step, base.attention_chunk_tokens))
      .total_ms();
}

// The work per output token of the prompts prefilled during point `p`'s decode: each is one
// mixed step, the decodes of its step plus that prompt (its tokens and causal pairs), less those
// decodes alone, under the model the line is fitted with; the fixed and per-sequence costs cancel.
double prompt_work_per_token_ms(const StepModel& base, const RunningDecodeObservation& p,
                                double scale, double tokens_per_step) {
  if (p.prompts_alongside.empty()) return 0;
  StepModel scaled = base;
  scale_reads(scaled, scale);
  double work_ms = 0;
  for (const PromptStep& prompt : p.prompts_alongside) {
    const BatchComposition decode =
        decode_batch(p.prompt_tokens, p.response_tokens, prompt.decode_sequences, tokens_per_step,
                     base.attention_chunk_tokens);
    BatchComposition mixed = decode;
    mixed.prefill_tokens = prompt.prompt_tokens;
    mixed.prefill_pairs = causal_pairs(prompt.prompt_tokens, 0);
    mixed.chunked_prefill_pairs = chunked_causal_pairs(
        prompt.prompt_tokens, 0, static_cast<double>(base.attention_chunk_tokens));
    work_ms += step_time(scaled, mixed).total_ms() - step_time(scaled, decode).total_ms();
  }
  return work_ms / std::max(p.response_tokens - 1, 1.0);
}

struct LineFit {
  double scale = 1;
  double per_sequence_ms = 0;
  double squares = 0;
};

// For a fixed scale, the per-sequence cost minimising the squares is a regression through the
// origin of the residual step time on N (held >= 0).
LineFit fit_per_sequence_at(const CalibratedStepModel& prior,
                            const std::vector<RunningDecodeObservation>& points, double scale) {
  const double tau = prior.spec_mean_accepted;
  std::vector<double> base(points.size());
  double numerator = 0;
  double denominator = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    base[i] =
        decode_step_without_sequences(prior.model, points[i], scale, prior.spec_tokens_per_step);
    base[i] +=
        tau * prompt_work_per_token_ms(prior.model, points[i], scale, prior.spec_tokens_per_step);
    const double n = points[i].running_sequences;
    numerator += n * (points[i].per_token_ms * tau - base[i]);
    denominator += n * n;
  }
  LineFit fit{scale, std::max(0.0, numerator / denominator), 0};
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double predicted = (base[i] + fit.per_sequence_ms * points[i].running_sequences) / tau;
    fit.squares += (points[i].per_token_ms - predicted) * (points[i].per_token_ms - predicted);
  }
  return fit;
}

// Least squares over log(scale) in [log(min_scale), log(1e3)]: a grid, then golden section
// around the best grid point (as fit_scale).
LineFit fit_line(const CalibratedStepModel& prior,
                 const std::vector<RunningDecodeObservation>& points, double min_scale) {
  const auto cost = [&](double log_scale) {
    return fit_per_sequence_at(prior, points, std::exp(log_scale)).squares;
  };
  return fit_per_sequence_at(prior, points, std::exp(minimise_log_scale(cost, min_scale)));
}

void check_running_points(const std::vector<RunningDecodeObservation>& points,
                          std::string_view source) {
  const std::string where(source);
  if (points.size() < 2) {
    throw InputError(where +
                     ": the per-sequence cost needs decode times at two or more numbers of "
                     "running sequences, got one point; give per-request records (each "
                     "request's decode against the requests decoding alongside it) or two load "
                     "levels");
  }
  double fewest = std::numeric_limits<double>::infinity();
  double most = 0;
  for (const RunningDecodeObservation& p : points) {
    if (!(p.running_sequences > 0) || !(p.prompt_tokens > 0) || !(p.response_tokens >= 1) ||
        !(p.per_token_ms > 0)) {
      throw InputError(where + ": decode point '" + p.label +
                       "': expected running sequences > 0, a prompt > 0 tokens, a response >= 1 "
                       "token and a per-token time > 0 ms; fix or drop that point");
    }
    fewest = std::min(fewest, p.running_sequences);
    most = std::max(most, p.running_sequences);
  }
  if (most - fewest < 1) {
    throw InputError(where +
                     ": the decode points' running sequences differ by less than one, so the "
                     "per-sequence cost cannot be told from the per-step cost; give points that "
                     "differ by at least one running sequence (a load level where the batch "
                     "varies, or a second level)");
  }
}

}  // namespace

BandwidthPrior bandwidth_prior(MemoryKind memory) {
  switch (memory) {
    case MemoryKind::hbm:
      return {kPriorBandwidthEfficiencyHbm, kPriorBandwidthEfficiencyHbmLow,
              kPriorBandwidthEfficiencyHbmHigh,
              "HBM: the median of 5 public one-at-a-time vLLM runs (AccelMark suite A on H100, "
              "A100, A800, H200, H20-3e)"};
    case MemoryKind::gddr:
      return {kPriorBandwidthEfficiencyGddr, kPriorBandwidthEfficiencyGddrLow,
              kPriorBandwidthEfficiencyGddrHigh,
              "GDDR: the median of 4 public one-at-a-time vLLM runs (AccelMark suite A on RTX "
              "3090, 4090, 5090, 6000 Ada)"};
    case MemoryKind::unstated:
      break;
  }
  return {kPriorBandwidthEfficiencyPooled, kPriorBandwidthEfficiencyHbmLow,
          kPriorBandwidthEfficiencyGddrHigh,
          "memory type not stated in the GPU file: the median of all 9 public one-at-a-time "
          "vLLM runs (AccelMark suite A, HBM and GDDR)"};
}

LaunchFloor launch_floor(const ModelArch& model) {
  LaunchFloor floor;
  floor.moe_layers =
      model.shapes && is_moe(model.shapes->ffn) ? moe_layers(model, model.shapes->ffn) : 0;
  floor.dense_layers = std::max<std::int64_t>(model.layers - floor.moe_layers, 0);
  return floor;
}

StepEfficiency prior_efficiency(const Gpu& gpu) {
  StepEfficiency efficiency;
  efficiency.bandwidth = bandwidth_prior(gpu.memory).efficiency;
  return efficiency;
}

CalibratedStepModel modelled_step_model(const Platform& platform) {
  CalibratedStepModel out = modelled_step_model(platform, prior_efficiency(platform.gpu.value));
  out.prior = bandwidth_prior(platform.gpu.value.memory);  // the efficiency came from it
  return out;
}

CalibratedStepModel modelled_step_model(const Platform& platform,
                                        const StepEfficiency& efficiency) {
  const Roof roof = roof_of(platform);
  const ModelArch& model = platform.model.value;
  const double tp = as_double(platform.tensor_parallel.value);
  const double full_layers = as_double(full_attention_layers(model));
  const KernelCost per_position = decode_cost_per_attended_token(attention_shape(platform));

  CalibratedStepModel out;
  if (model.shapes && is_moe(model.shapes->ffn)) {
    // MoE: the weights every step reads, and the routed experts as the step's tokens choose
    // them (step_model.hpp's StepExperts; each expert split by tp).
    const WeightReads reads = weight_reads(model, *model.shapes);
    // With expert parallelism each GPU holds E/ep whole experts instead.
    const std::int64_t ep = platform.expert_parallel.value;
    const double expert_split = ep > 1 ? as_double(ep) : tp;
    out.model.weights_ms = bytes_ms(reads.every_step_bytes / tp, roof, efficiency.bandwidth);
    out.model.experts.experts = model.shapes->ffn.experts;
    out.model.experts.top_k = model.shapes->ffn.top_k;
    out.model.experts.expert_parallel = ep;
    out.model.experts.all_experts_ms =
        bytes_ms(reads.routed_experts_bytes / expert_split, roof, efficiency.bandwidth);
  } else {
    out.model.weights_ms = bytes_ms(weights_step_cost(platform).bytes, roof, efficiency.bandwidth);
  }
  // The GEMMs at their own precision's peak (FP8 weights compute in FP8, hardware.hpp).
  Roof gemm_roof = roof;
  if (platform.gemm_peak_tflops > 0) gemm_roof.peak_tflops = platform.gemm_peak_tflops;
  out.model.ms_per_token =
      flops_ms(gemm_flops_per_token(platform), gemm_roof, efficiency.gemm_compute);
  const WindowCost window = sliding_window_cost(platform, roof, efficiency);
  out.model.ms_per_window_prefill_token = window.prefill_token_ms;
  out.model.ms_per_window_decode_sequence = window.decode_sequence_ms;
  // A hybrid model's linear-attention state: a constant per running sequence, read and written
  // each step (batch 1 here: the cost of one sequence), outside the attention a kernel moves.
  Platform one_sequence = platform;
  one_sequence.batch = {1, Provenance::default_value};
  out.model.ms_per_linear_state_sequence =
      bytes_ms(linear_attention_step_cost(one_sequence).bytes, roof, efficiency.bandwidth);
  out.model.ms_per_prefill_pair =
      flops_ms(full_layers * prefill_flops_per_pair_per_layer(model, tp), roof,
               efficiency.attention_compute);
  // Decode attention reads each cached token's K/V (MLA: latent) once per full layer.
  out.model.ms_per_kv_token =
      bytes_ms(full_layers * per_position.bytes, roof, efficiency.bandwidth);
  // Chunked local layers: the same per pair and per key, over the keys of each token's chunk.
  const double chunked_layers = as_double(model.chunked_attention_layers);
  out.model.attention_chunk_tokens =
      model.chunked_attention_layers > 0 ? model.attention_chunk_tokens : 0;
  out.model.ms_per_chunked_prefill_pair =
      flops_ms(chunked_layers * prefill_flops_per_pair_per_layer(model, tp), roof,
               efficiency.attention_compute);
  out.model.ms_per_chunked_kv_token =
      bytes_ms(chunked_layers * per_position.bytes, roof, efficiency.bandwidth);
  const LaunchFloor floor = launch_floor(model);
  out.model.launch_floor_ms = floor.ms();
  out.launch_floor = floor;
  out.model.fixed_ms = 0;
  out.request_overhead_ms = kPriorRequestOverheadMs;
  out.spec_tokens_per_step = platform.spec_tokens_per_step.value;
  out.spec_mean_accepted = platform.spec_mean_accepted.value;

  out.efficiency = efficiency;
  out.origins.weights = modelled("weight bytes / (HBM bandwidth * eta_bandwidth)");
  out.origins.per_token =
      platform.gemm_precision.value == platform.precision.value
          ? modelled("GEMM FLOPs per token / (peak * eta_gemm)")
          : modelled("GEMM FLOPs per token / (" + platform.gemm_precision.value +
                     " peak * eta_gemm): the weights' type");
  out.origins.prefill_pair = modelled("attention FLOPs per causal pair / (peak * eta_attention)");
  out.origins.kv_token = modelled("KV bytes per cached token / (HBM bandwidth * eta_bandwidth)");
  out.origins.fixed = {Provenance::default_value,
                       "0: the prior's 9 public setting runs do not identify a per-step cost "
                       "beyond the launch floor (docs/validation.md section 7); calibrate to "
                       "measure it"};
  out.origins.request_overhead = {
      Provenance::default_value,
      "the prior: median TTFT - prefill step of 9 public one-at-a-time vLLM runs (AccelMark suite "
      "A; range 2.3-32.3 ms); calibrate to measure this deployment's"};
  out.calibration_source = "modelled: " + model.name + " on " + platform.gpu.value.name;
  out.calibration = Provenance::modelled;
  return out;
}

BatchComposition prefill_batch(double prompt_tokens, double concurrency) {
  return prefill_batch(prompt_tokens, concurrency, 0);
}

BatchComposition prefill_batch(double prompt_tokens, double concurrency, double cached_tokens,
                               std::int64_t chunk_tokens) {
  const double cached = std::clamp(cached_tokens, 0.0, std::max(prompt_tokens - 1, 0.0));
  const double computed = prompt_tokens - cached;
  BatchComposition batch;
  batch.prefill_tokens = concurrency * computed;
  batch.prefill_pairs = concurrency * causal_pairs(computed, cached);
  batch.chunked_prefill_pairs =
      concurrency * chunked_causal_pairs(computed, cached, static_cast<double>(chunk_tokens));
  return batch;
}

BatchComposition decode_batch(double prompt_tokens, double response_tokens, double concurrency,
                              double tokens_per_step, std::int64_t chunk_tokens) {
  BatchComposition batch;
  batch.decode_sequences = static_cast<std::int64_t>(std::llround(concurrency));
  batch.decode_queries = tokens_per_step;
  // Step k (1 .. n_out - 1) reads L + k cached tokens: the mean over the steps is L + n_out / 2.
  // With speculation the context grows by τ per step over n_out / τ steps: the same mean.
  batch.decode_kv_tokens = concurrency * (prompt_tokens + response_tokens / 2.0);
  // Chunked local layers read the current chunk's keys: the mean over steps 1 .. n_out of
  // ((L + k - 1) mod C) + 1 (step_model.hpp's prefix sums).
  const double steps = std::max(response_tokens, 1.0);
  batch.chunked_decode_kv_tokens =
      concurrency * chunked_causal_pairs(steps, prompt_tokens, static_cast<double>(chunk_tokens)) /
      steps;
  return batch;
}

RequestLatency request_latency(const CalibratedStepModel& calibrated, double prompt_tokens,
                               double response_tokens, double concurrency,
                               double attention_speedup) {
  RequestLatency latency;
  latency.overhead_ms = calibrated.request_overhead_ms;
  latency.mean_accepted = calibrated.spec_mean_accepted;
  const std::int64_t chunk = calibrated.model.attention_chunk_tokens;
  latency.prefill_step = step_time(
      calibrated.model, prefill_batch(prompt_tokens, concurrency, 0, chunk), attention_speedup);
  latency.decode_step = step_time(calibrated.model,
                                  decode_batch(prompt_tokens, response_tokens, concurrency,
                                               calibrated.spec_tokens_per_step, chunk),
                                  attention_speedup);
  return latency;
}

PrefillSteps scheduled_prefill(const CalibratedStepModel& calibrated, double prompt_tokens,
                               double response_tokens, const PrefillScheduling& scheduling,
                               double attention_speedup) {
  PrefillSteps out;
  if (scheduling.prompts_together) {
    const double together = *scheduling.prompts_together;
    out.time = step_time(
        calibrated.model,
        prefill_batch(prompt_tokens, together, 0, calibrated.model.attention_chunk_tokens),
        attention_speedup);
    out.chunk_tokens = prompt_tokens;
    out.queued_prompt_tokens = (together - 1) * prompt_tokens;
    return out;
  }
  // The other requests decode beside the prompt, q tokens each, at their mean context.
  const double others = std::max(scheduling.concurrency - 1, 0.0);
  const auto chunk_tokens = static_cast<double>(calibrated.model.attention_chunk_tokens);
  BatchComposition decodes =
      decode_batch(prompt_tokens, response_tokens, others, calibrated.spec_tokens_per_step,
                   calibrated.model.attention_chunk_tokens);
  const double decode_tokens = decodes.tokens();
  // A step always carries some of the prompt (vLLM schedules a chunk whenever the budget
  // leaves one; a budget all decodes still moves the prompt by a token a step).
  const double chunk = std::max(scheduling.budget_tokens - decode_tokens, 1.0);
  out.chunk_tokens = std::min(chunk, prompt_tokens);
  out.decodes_beside = static_cast<double>(decodes.decode_sequences);
  double own_left = prompt_tokens;
  double queued_left = others * prompt_tokens;
  out.steps = 0;
  // Whole chunks are identical but for their cached prefix, and the pairs are linear in it:
  // the loop is over at most ceil(prompt / chunk) steps, each timed once.
  while (own_left > 0) {
    const double own = std::min(chunk, own_left);
    const double cached = prompt_tokens - own_left;
    const double queued = std::min(chunk - own, queued_left);
    BatchComposition step = decodes;
    step.prefill_tokens = own + queued;
    step.prefill_pairs = causal_pairs(own, cached) + causal_pairs(queued, 0);
    step.chunked_prefill_pairs = chunked_causal_pairs(own, cached, chunk_tokens) +
                                 chunked_causal_pairs(queued, 0, chunk_tokens);
    const StepTime t = step_time(calibrated.model, step, attention_speedup);
    out.time.fixed_ms += t.fixed_ms;
    out.time.sequence_ms += t.sequence_ms;
    out.time.other_ms += t.other_ms;
    out.time.prefill_attention_ms += t.prefill_attention_ms;
    out.time.decode_attention_ms += t.decode_attention_ms;
    out.time.communication_ms += t.communication_ms;
    out.queued_prompt_tokens += queued;
    queued_left -= queued;
    own_left -= own;
    ++out.steps;
  }
  return out;
}

RequestLatency scheduled_request_latency(const CalibratedStepModel& calibrated,
                                         double prompt_tokens, double response_tokens,
                                         const PrefillScheduling& scheduling,
                                         double attention_speedup) {
  RequestLatency latency = request_latency(calibrated, prompt_tokens, response_tokens,
                                           scheduling.concurrency, attention_speedup);
  latency.prefill_step =
      scheduled_prefill(calibrated, prompt_tokens, response_tokens, scheduling, attention_speedup)
          .time;
  return latency;
}

CalibratedStepModel calibrate_to_latencies(const CalibratedStepModel& prior,
                                           const std::vector<LatencyObservation>& observations,
                                           std::string_view source) {
  return calibrate_to_latencies(prior, observations, {}, source);
}

CalibratedStepModel calibrate_to_latencies(const CalibratedStepModel& prior,
                                           const std::vector<LatencyObservation>& observations,
                                           const std::vector<double>& cached_tokens,
                                           std::string_view source) {
  if (!cached_tokens.empty() && cached_tokens.size() != observations.size()) {
    throw InputError(
        std::string(source) + ": " + count_mark(static_cast<long long>(cached_tokens.size())) +
        " cached prefixes for " + count_mark(static_cast<long long>(observations.size())) +
        " calibration points: expected one per point");
  }
  if (observations.empty()) {
    throw InputError(std::string(source) +
                     ": no latency to calibrate to: expected at least one TTFT or TPOT point");
  }
  for (std::size_t i = 0; i < observations.size(); ++i) {
    check_positive(observations[i], cached_of(cached_tokens, i), source);
  }
  CalibratedStepModel out = prior;
  const std::string label(source);
  fit_decode(out, observations, label);
  fit_prefill(out, observations, cached_tokens, label);
  out.calibration_source = label;
  out.calibration = Provenance::fitted;
  out.residuals = latency_residuals(out, observations, cached_tokens);
  return out;
}

std::vector<StepObservation> step_observations(const std::vector<ProfiledStep>& steps) {
  std::vector<StepObservation> out;
  for (const ProfiledStep& step : steps) {
    StepObservation observation;
    observation.label = step.label;
    BatchComposition& batch = observation.batch;
    batch.prefill_tokens = static_cast<double>(step.prefill_tokens);
    if (step.prefill_requests > 0 && step.prefill_tokens > 0) {
      const auto requests = static_cast<double>(step.prefill_requests);
      batch.prefill_pairs = requests * causal_pairs(batch.prefill_tokens / requests, 0);
    }
    batch.decode_sequences = step.decode_requests;
    batch.decode_kv_tokens = static_cast<double>(step.decode_kv_tokens);
    observation.attention_kernel_ms = step.attention_kernel_ms;
    observation.other_kernel_ms = std::max(0.0, step.kernel_ms - step.attention_kernel_ms);
    // The step's time on the workload's denominator, like its latencies: kernel or busy time
    // leave the idle part out (no fixed cost is seen), wall time keeps it less the profiler gap.
    observation.wall_ms = step.time_ms;
    out.push_back(std::move(observation));
  }
  return out;
}

// The per-request prompt lengths of the steps that prefilled (the attention calibration's range).
static CalibratedStepModel::CalibratedRange prefill_range_of(
    const std::vector<StepObservation>& steps, double scale) {
  CalibratedStepModel::CalibratedRange range;
  range.scale = scale;
  for (const StepObservation& step : steps) {
    if (!(step.batch.prefill_tokens > 0) || !(step.batch.prefill_pairs > 0)) continue;
    // pairs = r · n(n+1)/2 per step of r requests of n tokens: n from tokens / r, r from both.
    const double tokens = step.batch.prefill_tokens;
    const double per_request = 2 * step.batch.prefill_pairs / tokens - 1;
    range.min_tokens = range.steps == 0 ? per_request : std::min(range.min_tokens, per_request);
    range.max_tokens = std::max(range.max_tokens, per_request);
    ++range.steps;
  }
  return range;
}

CalibratedStepModel calibrate_to_steps(const CalibratedStepModel& prior,
                                       const std::vector<StepObservation>& steps,
                                       std::string_view source) {
  if (steps.empty()) {
    throw InputError(std::string(source) + ": no engine step to calibrate to");
  }
  // A trace times every kernel, the small ones the launch floor stands for among them: the
  // measured factor takes them into the reads and compute, and the floor goes.
  StepModel unfloored = prior.model;
  unfloored.launch_floor_ms = 0;
  double measured_attention = 0;
  double modelled_attention = 0;
  double measured_other = 0;
  double modelled_other = 0;
  double idle = 0;
  bool saw_prefill = false;  // a coefficient moves only when some step exercised it
  bool saw_decode = false;
  for (const StepObservation& step : steps) {
    saw_prefill = saw_prefill || step.batch.prefill_tokens > 0;
    saw_decode = saw_decode || step.batch.decode_sequences > 0;
    const double kernels = step.attention_kernel_ms + step.other_kernel_ms;
    if (!(kernels > 0) || step.attention_kernel_ms < 0 || step.other_kernel_ms < 0) {
      throw InputError(std::string(source) + ": step '" + step.label +
                       "' has no kernel time: expected attention and other kernel times >= 0 "
                       "with a positive sum");
    }
    const StepTime time = step_time(unfloored, step.batch);
    measured_attention += step.attention_kernel_ms;
    modelled_attention += time.attention_ms();
    measured_other += step.other_kernel_ms;
    modelled_other += time.other_ms;
    idle += std::max(0.0, step.wall_ms - kernels);
  }
  CalibratedStepModel out = prior;
  out.model.launch_floor_ms = 0;
  const std::string label(source);
  const CoefficientOrigin measured{Provenance::measured, label};
  // One factor per class: measured kernel time over the modelled, summed over the steps. The
  // attention factor moves the prefill coefficients only when a step prefilled, the decode ones
  // only when a step decoded: a decode trace measures nothing of prefill attention.
  if (modelled_attention > 0 && measured_attention > 0) {
    const double scale = measured_attention / modelled_attention;
    if (saw_prefill) {
      out.prefill_attention_range = prefill_range_of(steps, scale);
      out.model.ms_per_prefill_pair *= scale;
      out.model.ms_per_window_prefill_token *= scale;
      out.model.ms_per_chunked_prefill_pair *= scale;
      out.efficiency.attention_compute /= scale;
      out.origins.prefill_pair = measured;
    }
    if (saw_decode) {
      out.model.ms_per_kv_token *= scale;
      out.model.ms_per_window_decode_sequence *= scale;
      out.model.ms_per_chunked_kv_token *= scale;
      out.origins.kv_token = measured;
    }
  }
  if (modelled_other > 0) {
    const double scale = measured_other / modelled_other;
    out.model.weights_ms *= scale;
    out.model.experts.all_experts_ms *= scale;
    out.model.ms_per_token *= scale;
    out.efficiency.bandwidth /= scale;
    out.efficiency.gemm_compute /= scale;
    out.origins.weights = measured;
    out.origins.per_token = measured;
  }
  out.model.fixed_ms = idle / as_double(static_cast<std::int64_t>(steps.size()));
  out.origins.fixed = measured;
  out.calibration_source = label;
  out.calibration = Provenance::measured;
  out.residuals.clear();
  for (const StepObservation& step : steps) {
    const double wall = std::max(step.wall_ms, step.attention_kernel_ms + step.other_kernel_ms);
    out.residuals.push_back(
        {step.label, LatencyKind::step, wall, step_time(out.model, step.batch).total_ms()});
  }
  return out;
}

CalibratedStepModel calibrate_to_running_sequences(
    const CalibratedStepModel& prior, const std::vector<RunningDecodeObservation>& observations,
    std::string_view source) {
  check_running_points(observations, source);
  // The reads cannot beat the roof: the fitted η_bw = η / scale stays <= 1.
  const LineFit fit = fit_line(prior, observations, prior.efficiency.bandwidth);
  CalibratedStepModel out = prior;
  const std::string label(source);
  scale_reads(out.model, fit.scale);
  out.model.ms_per_sequence = fit.per_sequence_ms;
  out.efficiency.bandwidth /= fit.scale;
  const CoefficientOrigin fitted{Provenance::fitted, label};
  out.origins.weights = fitted;
  out.origins.kv_token = fitted;
  out.origins.per_sequence = fitted;
  out.calibration_source = label;
  out.calibration = Provenance::fitted;
  out.residuals.clear();
  for (const RunningDecodeObservation& p : observations) {
    const double step = decode_step_without_sequences(out.model, p, 1.0, out.spec_tokens_per_step) +
                        out.model.ms_per_sequence * p.running_sequences;
    const double prompts = prompt_work_per_token_ms(out.model, p, 1.0, out.spec_tokens_per_step);
    out.residuals.push_back(
        {p.label, LatencyKind::tpot, p.per_token_ms, step / out.spec_mean_accepted + prompts});
  }
  return out;
}

std::vector<double> mean_decoding_alongside(const std::vector<DecodeInterval>& intervals) {
  std::vector<double> starts;
  std::vector<double> ends;
  starts.reserve(intervals.size());
  ends.reserve(intervals.size());
  for (const DecodeInterval& d : intervals) {
    starts.push_back(d.first_token_s);
    ends.push_back(std::max(d.first_token_s, d.last_token_s));
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::vector<double> times = starts;
  times.insert(times.end(), ends.begin(), ends.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  // Open intervals on [times[k], times[k+1]) and the integral of that count up to times[k].
  const auto open_after = [&](double t) {
    return as_double(std::upper_bound(starts.begin(), starts.end(), t) - starts.begin()) -
           as_double(std::upper_bound(ends.begin(), ends.end(), t) - ends.begin());
  };
  std::vector<double> open(times.size());
  std::vector<double> integral(times.size(), 0.0);
  for (std::size_t k = 0; k < times.size(); ++k) {
    open[k] = open_after(times[k]);
    if (k > 0) integral[k] = integral[k - 1] + open[k - 1] * (times[k] - times[k - 1]);
  }
  const auto integral_to = [&](double t) {
    const auto k = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) -
                                            times.begin() - 1);
    return integral[k] + open[k] * (t - times[k]);
  };
  std::vector<double> out;
  out.reserve(intervals.size());
  for (const DecodeInterval& d : intervals) {
    const double end = std::max(d.first_token_s, d.last_token_s);
    if (end > d.first_token_s) {
      out.push_back((integral_to(end) - integral_to(d.first_token_s)) / (end - d.first_token_s));
    } else {
      // An instant: the intervals open at it, closed ends included.
      out.push_back(
          as_double(std::upper_bound(starts.begin(), starts.end(), end) - starts.begin()) -
          as_double(std::lower_bound(ends.begin(), ends.end(), end) - ends.begin()));
    }
  }
  return out;
}

std::vector<std::vector<PromptStep>> prompts_prefilled_during(
    const std::vector<DecodeInterval>& decodes, std::vector<PrefilledPrompt> prompts) {
  std::sort(prompts.begin(), prompts.end(), [](const PrefilledPrompt& a, const PrefilledPrompt& b) {
    return a.first_token_s < b.first_token_s;
  });
  std::vector<double> firsts;
  std::vector<double> lasts;
  for (const DecodeInterval& d : decodes) {
    firsts.push_back(d.first_token_s);
    lasts.push_back(std::max(d.first_token_s, d.last_token_s));
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  // The decodes in the step that ended at t: begun before t, not ended before t.
  const auto decoding_at = [&](double t) {
    return as_double(std::lower_bound(firsts.begin(), firsts.end(), t) - firsts.begin()) -
           as_double(std::lower_bound(lasts.begin(), lasts.end(), t) - lasts.begin());
  };
  std::vector<PromptStep> steps;
  steps.reserve(prompts.size());
  for (const PrefilledPrompt& p : prompts) {
    steps.push_back({p.prompt_tokens, decoding_at(p.first_token_s)});
  }
  const auto ended_by = [&](double t) {
    return std::upper_bound(
               prompts.begin(), prompts.end(), t,
               [](double time, const PrefilledPrompt& p) { return time < p.first_token_s; }) -
           prompts.begin();
  };
  std::vector<std::vector<PromptStep>> out;
  out.reserve(decodes.size());
  for (const DecodeInterval& d : decodes) {
    out.emplace_back(steps.begin() + ended_by(d.first_token_s),
                     steps.begin() + ended_by(std::max(d.first_token_s, d.last_token_s)));
  }
  return out;
}

bool identifies_per_sequence_cost(const std::vector<RunningDecodeObservation>& decode) {
  if (decode.size() < 2) return false;
  const auto [fewest, most] =
      std::minmax_element(decode.begin(), decode.end(),
                          [](const RunningDecodeObservation& a, const RunningDecodeObservation& b) {
                            return a.running_sequences < b.running_sequences;
                          });
  return most->running_sequences - fewest->running_sequences >= 1;
}

CalibratedStepModel calibrate_to_run(const CalibratedStepModel& prior,
                                     const std::vector<LatencyObservation>& latencies,
                                     const std::vector<RunningDecodeObservation>& decode,
                                     std::string_view source) {
  return calibrate_to_run(prior, latencies, {}, decode, source);
}

CalibratedStepModel calibrate_to_run(const CalibratedStepModel& prior,
                                     const std::vector<LatencyObservation>& latencies,
                                     const std::vector<double>& cached_tokens,
                                     const std::vector<RunningDecodeObservation>& decode,
                                     std::string_view source) {
  CalibratedStepModel out = calibrate_to_latencies(prior, latencies, cached_tokens, source);
  if (!identifies_per_sequence_cost(decode)) return out;
  const CalibratedStepModel line = calibrate_to_running_sequences(out, decode, source);
  if (!(line.model.ms_per_sequence > 0)) {
    // Decode times that do not grow with the batch (a burst's tail, a noisy run): no evidence
    // of a per-sequence cost, and none of a better bandwidth side than the latencies gave.
    out.origins.per_sequence = {Provenance::default_value,
                                "0: the per-request decode times in " + std::string(source) +
                                    " do not grow with the requests decoding alongside them"};
    return out;
  }
  out = line;
  // The prefill step moved with the bandwidth side: the overhead is what TTFT leaves of it.
  std::vector<LatencyObservation> ttft_points;
  std::vector<double> ttft_cached;
  for (std::size_t i = 0; i < latencies.size(); ++i) {
    const LatencyObservation& point = latencies[i];
    if (!point.ttft_ms) continue;
    LatencyObservation ttft = point;
    ttft.tpot_ms.reset();
    ttft_points.push_back(ttft);
    ttft_cached.push_back(cached_of(cached_tokens, i));
  }
  if (!ttft_points.empty()) {
    out = calibrate_to_latencies(
        out, ttft_points, cached_tokens.empty() ? std::vector<double>{} : ttft_cached, source);
  }
  out.residuals = latency_residuals(out, latencies, cached_tokens);
  return out;
}

}  // namespace kspeed::engine
