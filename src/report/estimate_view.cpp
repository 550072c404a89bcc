// `kspeed estimate` for people: the chain as a table, the point in one sentence, then where each
// number came from, the workload's conditions, warnings and gates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/deployment/ep_comm.hpp"
#include "kspeed/engine/deployment/moe.hpp"
#include "kspeed/report/human.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/step_model_facts.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::Estimate;
using engine::Level;
using engine::Scenario;

std::vector<std::string> level_row(std::string name, std::string share, const Level& level) {
  return {std::move(name),
          std::move(share),
          human_ms(level.time_before_ms),
          human_ms(level.time_after_ms),
          human_ms(level.saved_ms),
          human_speedup(level.speedup),
          human_ceiling(level.ceiling)};
}

std::string share_text(double share, const char* parent) {
  return human_percent(share) + " of " + parent;
}

std::string tokens(std::int64_t count) {
  return human_count(count) + " tokens";
}

// The deployment answered when its step model supplied at least one input.
bool deployment_answers(const Estimate& estimate) {
  return estimate.scenario.step_model && !estimate.scenario.deployment_inputs.empty();
}

// The deployment's name, with the batch when it is not 1: "llama-3.1-8b on h100-sxm batch 32".
std::string headline_name(const engine::Platform& platform) {
  std::string name = deployment_name(platform);
  if (platform.batch.value > 1) name += " batch " + human_count(platform.batch.value);
  return name;
}

// What the answer is about: the user's deployment, a workload, or the illustrative request
// (said in the headline, never only in a footnote).
std::string estimate_subject(const Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  if (deployment_answers(estimate) && s.platform) {
    // --share-model calibrated without --workload: the share is fitted to another deployment's.
    const std::string borrowed =
        s.phase != engine::Phase::decode && !s.prefill_share_borrowed_from.empty()
            ? "; prefill share calibrated on " +
                  engine::borrowed_table(s.prefill_share_borrowed_from) + ", borrowed"
            : std::string();
    return "deployment " + headline_name(*s.platform) + " (" + calibration_phrase(*s.step_model) +
           borrowed + ")";
  }
  if (estimate.workload.request.illustrative) {
    return "illustrative request (workload " + estimate.workload.name + "), not your deployment";
  }
  return "workload " + estimate.workload.name;
}

// Each calibration point measured against the model, or a summary per kind past a few.
void add_residual_facts(View& view, const std::vector<engine::PointResidual>& residuals) {
  constexpr std::size_t kListed = 4;
  if (residuals.size() <= kListed) {
    for (const engine::PointResidual& r : residuals) {
      view.fact("residual", fmt::format("{} {}: measured {}, model {} ({:+.1f}%)", r.label,
                                        to_string(r.kind), human_ms(r.measured_ms),
                                        human_ms(r.predicted_ms), 100 * r.relative_residual()));
    }
    return;
  }
  for (const engine::LatencyKind kind :
       {engine::LatencyKind::ttft, engine::LatencyKind::tpot, engine::LatencyKind::step}) {
    double squares = 0;
    double worst = 0;
    std::size_t count = 0;
    for (const engine::PointResidual& r : residuals) {
      if (r.kind != kind) continue;
      squares += r.relative_residual() * r.relative_residual();
      worst = std::max(worst, std::abs(r.relative_residual()));
      ++count;
    }
    if (count == 0) continue;
    view.fact("residual",
              fmt::format("{} {} points: rms {:.1f}%, worst {:.1f}% of the measured "
                          "value (every point is in the JSON output)",
                          count, to_string(kind),
                          100 * std::sqrt(squares / static_cast<double>(count)), 100 * worst));
  }
}

std::string coefficient(double value, const char* unit, const engine::CoefficientOrigin& origin) {
  return fmt::format("{:.4g} {} ({})", value, unit, to_string(origin.provenance));
}

// Speculative decoding in the step model: a decode step's GEMM tokens are batch · q, TPOT the
// step over τ. Empty without speculation.
std::string speculation_text(const engine::CalibratedStepModel& m) {
  if (m.spec_tokens_per_step == 1 && m.spec_mean_accepted == 1) return {};
  return "; decode steps verify " + human_plain(m.spec_tokens_per_step) +
         " tokens a sequence (batch · q GEMM tokens), TPOT = step / " +
         human_plain(m.spec_mean_accepted) + " accepted";
}

// The per-sequence cost, when a calibration set it (a roofline has none).
// Chunked local layers' attention terms: " + 3.1e-08 ms/pair within a chunk (modelled) + ...".
std::string chunked_attention_text(const engine::CalibratedStepModel& m) {
  if (m.model.attention_chunk_tokens <= 0) return {};
  return " + " +
         coefficient(m.model.ms_per_chunked_prefill_pair, "ms/causal pair within a chunk",
                     m.origins.prefill_pair) +
         " + " +
         coefficient(m.model.ms_per_chunked_kv_token, "ms/cached token of the current chunk",
                     m.origins.kv_token);
}

std::string per_sequence_text(const engine::CalibratedStepModel& m) {
  std::string state =
      m.model.ms_per_linear_state_sequence > 0
          ? fmt::format(" + {:.4g} ms/running sequence's linear-attention state (modelled)",
                        m.model.ms_per_linear_state_sequence)
          : std::string();
  if (m.origins.per_sequence.provenance == engine::Provenance::default_value) return state;
  return state + " + " +
         coefficient(m.model.ms_per_sequence, "ms/running sequence", m.origins.per_sequence);
}

// Tensor parallelism's all-reduces (tp_comm.hpp) and expert parallelism's all-to-alls
// (ep_comm.hpp), when they apply and the link is known.
// The layers' small kernels beside the reads (step_model.hpp); empty when the model has none
// (a profiler calibration takes them into the measured reads).
std::string launch_floor_text(const engine::CalibratedStepModel& m) {
  if (!(m.model.launch_floor_ms > 0)) return {};
  return fmt::format(" + launch floor {:.4g} ms (modelled)", m.model.launch_floor_ms);
}

std::string tp_comm_text(const engine::CalibratedStepModel& m) {
  std::string text;
  if (m.model.tp_ms_per_token > 0 || m.model.tp_fixed_ms > 0) {
    text += fmt::format(" + TP all-reduces {:.4g} ms/token + {:.4g} ms (modelled)",
                        m.model.tp_ms_per_token, m.model.tp_fixed_ms);
  }
  if (m.model.ep_ms_per_token > 0 || m.model.ep_fixed_ms > 0) {
    text += fmt::format(" + EP all-to-alls {:.4g} ms/token + {:.4g} ms (modelled)",
                        m.model.ep_ms_per_token, m.model.ep_fixed_ms);
  }
  return text;
}

// A MoE model's routed experts (step_model.hpp's StepExperts): read as the step's tokens choose
// them. Empty for a dense model.
std::string routed_experts_text(const engine::CalibratedStepModel& m) {
  const engine::StepExperts& e = m.model.experts;
  if (e.experts <= 0) return {};
  return fmt::format(" + routed experts {} × f(tokens)",
                     coefficient(e.all_experts_ms, "ms", m.origins.weights)) +
         fmt::format(" (f: the share of {} experts, top-{}, {} a step's tokens read{})", e.experts,
                     e.top_k,
                     e.expert_parallel > 1
                         ? "the busiest of " + std::to_string(e.expert_parallel) + " ranks'"
                         : "that",
                     e.expert_parallel > 1
                         ? ", on its " + std::to_string(e.experts / e.expert_parallel) + " experts"
                         : "");
}

// The step model behind the answer, coefficient by coefficient with its provenance.
void add_step_model_facts(View& view, const engine::CalibratedStepModel& m) {
  if (m.calibration == engine::Provenance::modelled && m.prior) {
    view.fact("prior", step_prior_text(m));
  }
  const engine::StepModelOrigins& o = m.origins;
  view.fact(
      "step model",
      "fixed " + coefficient(m.model.fixed_ms, "ms", o.fixed) + " + max(weights " +
          coefficient(m.model.weights_ms, "ms", o.weights) + routed_experts_text(m) +
          launch_floor_text(m) + ", " + coefficient(m.model.ms_per_token, "ms/token", o.per_token) +
          ") + " + coefficient(m.model.ms_per_prefill_pair, "ms/causal pair", o.prefill_pair) +
          " + " + coefficient(m.model.ms_per_kv_token, "ms/cached token", o.kv_token) +
          chunked_attention_text(m) + per_sequence_text(m) + tp_comm_text(m) + "; TTFT overhead " +
          coefficient(m.request_overhead_ms, "ms", o.request_overhead) + speculation_text(m));
  view.fact("calibration",
            m.calibration_source +
                (m.calibration_note.empty() ? std::string() : " (" + m.calibration_note + ")"));
  add_residual_facts(view, m.residuals);
}

std::string bound_cell(const std::optional<engine::PhaseRoofline>& position) {
  return position ? std::string(to_string(position->bound)) : std::string();
}

// With a platform, a "bound" column after "share", filled on the attention rows.
void add_bound_column(Table& chain, const Scenario& s) {
  if (!s.prefill_roofline && !s.decode_roofline) {
    return;
  }
  constexpr std::size_t kAfterShare = 2;
  chain.header.insert(chain.header.begin() + kAfterShare, "bound");
  std::vector<Align> align;  // rebuilt, not insert()ed: GCC 12 warns on inserting enums
  for (std::size_t i = 0; i < chain.align.size(); ++i) {
    if (i == kAfterShare) {
      align.push_back(Align::left);
    }
    align.push_back(chain.align[i]);
  }
  chain.align = std::move(align);
  for (auto& row : chain.rows) {
    const std::string cell = row.front() == "prefill attention"  ? bound_cell(s.prefill_roofline)
                             : row.front() == "decode attention" ? bound_cell(s.decode_roofline)
                                                                 : std::string();
    row.insert(row.begin() + kAfterShare, cell);
  }
}

Table chain_table(const Estimate& estimate) {
  const engine::EstimateResult& r = estimate.result;
  Table table;
  table.header = {"level", "share", "before", "after", "saved", "speedup", "ceiling"};
  table.align = {Align::left,  Align::left,  Align::right, Align::right,
                 Align::right, Align::right, Align::right};
  table.rows.push_back(level_row("prefill attention",
                                 share_text(r.prefill.attention.share_of_parent, "prefill"),
                                 r.prefill.attention));
  // With a fixed term T0, prefill is TTFT's GPU part and TTFT = prefill + T0 is its own level.
  table.rows.push_back(
      level_row("prefill", share_text(r.prefill.phase.share_of_parent, r.ttft ? "TTFT" : "request"),
                r.prefill.phase));
  if (r.ttft) {
    table.rows.push_back(
        level_row("TTFT", share_text(r.ttft->share_of_parent, "request"), *r.ttft));
  }
  if (estimate.scenario.decode_share) {
    table.rows.push_back(level_row("decode attention",
                                   share_text(r.decode.attention.share_of_parent, "decode"),
                                   r.decode.attention));
  }
  table.rows.push_back(
      level_row("decode", share_text(r.decode.phase.share_of_parent, "request"), r.decode.phase));
  table.rows.push_back(level_row("request", "", r.request));
  add_bound_column(table, estimate.scenario);
  return table;
}

std::string levers_text(const engine::Levers& levers) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (levers.compute_speedup != 1) {
    add(human_speedup(levers.compute_speedup) + " faster arithmetic");
  }
  if (levers.bytes_reduction != 1) {
    add(human_speedup(levers.bytes_reduction) + " fewer bytes");
  }
  if (levers.bandwidth_efficiency_before != levers.bandwidth_efficiency_after) {
    add(bandwidth_efficiency_text(levers));
  }
  return text.empty() ? "no change" : text;
}

// "A 2.00× attention kernel", or with levers "A change of 2.00× fewer bytes (prefill attention
// 1.00×, decode attention 2.00×)".
std::string change_name(const Scenario& s) {
  if (!s.levers || !s.prefill_roofline || !s.decode_roofline) {
    return fmt::format("A {} attention kernel", human_speedup(s.kernel_speedup.value));
  }
  std::string speedups;
  if (s.phase != engine::Phase::decode) {
    speedups = "prefill attention " + human_speedup(*s.prefill_roofline->attention_speedup);
  }
  if (s.phase != engine::Phase::prefill) {
    speedups += (speedups.empty() ? "" : ", ") + std::string("decode attention ") +
                human_speedup(*s.decode_roofline->attention_speedup);
  }
  return fmt::format("A change of {} ({})", levers_text(*s.levers), speedups);
}

void add_input(Table& table, std::string name, std::string value, std::string_view provenance) {
  table.rows.push_back({std::move(name), std::move(value), std::string(provenance)});
}

void add_lever_inputs(Table& inputs, const Scenario& s) {
  const engine::Levers& levers = *s.levers;
  const engine::LeverProvenance given = engine::lever_provenance(levers);
  add_input(inputs, "compute speedup", human_speedup(levers.compute_speedup),
            to_string(given.compute_speedup));
  add_input(inputs, "bytes reduction", human_speedup(levers.bytes_reduction),
            to_string(given.bytes_reduction));
  add_input(inputs, "bandwidth efficiency",
            fmt::format("{} → {}", human_plain(levers.bandwidth_efficiency_before),
                        human_plain(levers.bandwidth_efficiency_after)),
            to_string(given.bandwidth_efficiency));
  if (s.prefill_roofline && s.prefill_roofline->attention_speedup) {
    add_input(inputs, "prefill attention speedup",
              human_speedup(*s.prefill_roofline->attention_speedup), "modelled");
  }
  if (s.decode_roofline && s.decode_roofline->attention_speedup) {
    add_input(inputs, "decode attention speedup",
              human_speedup(*s.decode_roofline->attention_speedup), "modelled");
  }
}

// "111.2 of 128 routed (top-4, 64 tokens per step)": the expert union a decode step reads.
std::optional<std::string> expert_union_text(const engine::Platform& p) {
  const auto& shapes = p.model.value.shapes;
  if (!shapes || !engine::is_moe(shapes->ffn)) {
    return std::nullopt;
  }
  const engine::FfnSpec& ffn = shapes->ffn;
  // t = batch · q: speculative decoding verifies q tokens of each sequence in one step
  const double tokens = static_cast<double>(p.batch.value) * p.spec_tokens_per_step.value;
  std::string text =
      fmt::format("{} of {} routed (top-{}, {} {} per step)",
                  human_fixed(engine::expected_distinct_experts(ffn.experts, ffn.top_k, tokens), 1),
                  ffn.experts, ffn.top_k, human_plain(tokens), tokens == 1.0 ? "token" : "tokens");
  if (ffn.shared_experts > 0) {
    text += fmt::format(" + {} shared", ffn.shared_experts);
  }
  const std::int64_t ep = p.expert_parallel.value;
  if (ep > 1) {
    // The busiest of ep ranks under uniform routing (moe.hpp), which the step waits for.
    // The mean rank's distinct experts are U(t)/ep: the busiest over the mean is the imbalance.
    text += fmt::format(
        "; busiest of {} GPUs {} of its {} (mean {})", ep,
        human_fixed(engine::expected_busiest_rank_experts(ffn.experts, ffn.top_k, ep, tokens), 2),
        ffn.experts / ep,
        human_fixed(engine::expected_distinct_experts(ffn.experts, ffn.top_k, tokens) /
                        static_cast<double>(ep),
                    2));
  }
  return text;
}

// The link tp's all-reduces cross, per direction: (label, value). The value stays short so that
// the inputs table keeps its width.
std::pair<std::string, std::string> link_row(const engine::Platform& p) {
  // With tp 1 only expert parallelism's all-to-alls cross the link.
  const std::string what = p.tensor_parallel.value > 1 ? "TP link" : "EP link";
  const double gbs = p.link_bandwidth_gbs.value;
  if (gbs <= 0) return {what, "unknown: not modelled (--link-bandwidth)"};
  const auto& link = p.gpu.value.interconnect;
  const bool preset = p.link_bandwidth_gbs.provenance != engine::Provenance::given && link;
  return {preset ? what + " each way (" + link->name + ")" : what + " each way",
          human_plain(gbs) + " GB/s"};
}

// A model whose layers attend differently: its softmax-attention layers, the only ones an
// attention kernel acts on, "12 of 48"; nullopt for a model without linear-attention or
// chunked local attention layers.
std::optional<std::string> layers_moved_text(const engine::ModelArch& model) {
  if (model.linear.layers < 1 && model.chunked_attention_layers < 1) return std::nullopt;
  return fmt::format("{} of {}", engine::softmax_attention_layers(model), model.layers);
}

// "the kernel moved 48 of 48 layers: 36 attend within 8,192-token chunks ..., 12 to the whole
// context"; "the kernel moved 12 of 48 layers: the other 36 are linear attention ...".
std::string layers_moved_sentence(const engine::ModelArch& model) {
  std::string text = fmt::format("the kernel moved {} layers", *layers_moved_text(model));
  if (model.chunked_attention_layers > 0) {
    text += fmt::format(
        ": {} attend within {}-token chunks (chunked local attention: a token sees only its own "
        "chunk's keys, so prefill pairs are summed per chunk and a decode step reads at most {} "
        "keys), {} to the whole context",
        model.chunked_attention_layers, human_count(model.attention_chunk_tokens),
        human_count(model.attention_chunk_tokens), engine::full_attention_layers(model));
  }
  if (model.linear.layers > 0) {
    text += fmt::format(
        "{} the other {} are linear attention (gated DeltaNet), each holding a constant {} MB "
        "state per sequence, read and written every decode step, that an attention kernel does "
        "not touch",
        model.chunked_attention_layers > 0 ? ";" : ":", model.linear.layers,
        human_fixed(engine::linear_state_bytes_per_layer(model.linear) / 1e6, 2));
  }
  return text;
}

// "6 µs each, 2 a layer", or "not cited: 0" for a preset without the figure.
std::string latency_text(double latency_us, const char* per) {
  if (latency_us <= 0) return "not cited: 0 (no per-collective cost)";
  return fmt::format("{} µs each, 2 a {}", human_plain(latency_us), per);
}

// Expert parallelism's dispatch and combine (ep_comm.hpp): only with data-parallel attention
// (ep > tp); with tp >= ep every GPU already holds every token.
void add_all_to_all_inputs(Table& inputs, const engine::Platform& p) {
  const engine::EpCommunication a2a = engine::ep_communication(p);
  if (!a2a.all_to_alls) {
    add_input(inputs, "all-to-all per MoE layer",
              "none: tp >= ep, every GPU holds every token (the TP all-reduce sums the MoE)",
              "modelled");
    return;
  }
  add_input(
      inputs, "all-to-all per MoE layer",
      fmt::format("{} remote ranks, {} KB a token", human_fixed(a2a.remote_ranks_per_token, 2),
                  human_fixed(a2a.bytes_per_token_per_layer / 1e3, 1)),
      "modelled");
  add_input(inputs, "all-to-all latency", latency_text(p.all_to_all_latency_us.value, "MoE layer"),
            to_string(p.all_to_all_latency_us.provenance));
}

// "0.746 ms a step: 32 dense layers × 9 kernels at 2.59 µs": the layers' unpriced kernels at the
// shortest traced kernel (the prior line and docs/validation.md section 7 say where each is from).
std::string launch_floor_input_text(const engine::CalibratedStepModel& m) {
  const engine::LaunchFloor& f = m.launch_floor;
  std::string layers;
  if (f.dense_layers > 0) {
    layers +=
        fmt::format("{} dense layers × {}", f.dense_layers, engine::kUnpricedKernelsPerDenseLayer);
  }
  if (f.moe_layers > 0) {
    layers += fmt::format("{}{} MoE layers × {}", layers.empty() ? "" : " + ", f.moe_layers,
                          engine::kUnpricedKernelsPerMoeLayer);
  }
  return fmt::format("{} ms a step: {} kernels at {} µs", human_fixed(m.model.launch_floor_ms, 3),
                     layers, human_plain(f.kernel_us));
}

void add_platform_inputs(Table& inputs, const Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  if (!s.platform) {
    return;
  }
  const engine::Platform& p = *s.platform;
  add_input(inputs, "model", p.model.value.name,
            p.model.value.from_hf_config ? "config.json" : to_string(p.model.provenance));
  add_input(inputs, "GPU", p.gpu.value.name, to_string(p.gpu.provenance));
  add_input(inputs, "batch", human_count(p.batch.value), to_string(p.batch.provenance));
  if (const auto moved = layers_moved_text(p.model.value)) {
    add_input(inputs, "layers the kernel moves", *moved,
              p.model.value.from_hf_config ? "config.json" : to_string(p.model.provenance));
  }
  if (const auto union_text = expert_union_text(p)) {
    add_input(inputs, "experts read per MoE layer", *union_text, "modelled");
    // The prefill step reads the union over its prompt's tokens (step_model.hpp).
    const engine::FfnSpec& ffn = p.model.value.shapes->ffn;
    const auto prompt = static_cast<double>(s.prompt_tokens.value);
    add_input(inputs, "experts read by the prefill step",
              fmt::format(
                  "{} of {} ({} tokens)",
                  human_fixed(engine::expected_distinct_experts(ffn.experts, ffn.top_k, prompt), 1),
                  ffn.experts, human_count(s.prompt_tokens.value)),
              "modelled");
  }
  add_input(inputs, "tensor parallel", human_count(p.tensor_parallel.value),
            to_string(p.tensor_parallel.provenance));
  if (p.expert_parallel.value > 1) {
    add_input(inputs, "expert parallel",
              fmt::format("{} ({} experts a GPU)", human_count(p.expert_parallel.value),
                          human_count(p.model.value.shapes->ffn.experts / p.expert_parallel.value)),
              to_string(p.expert_parallel.provenance));
    add_all_to_all_inputs(inputs, p);
  }
  add_input(inputs, "KV cache type", p.kv_dtype.value, to_string(p.kv_dtype.provenance));
  if (p.tensor_parallel.value > 1 || p.expert_parallel.value > 1) {
    const auto [label, value] = link_row(p);
    add_input(inputs, label, value, to_string(p.link_bandwidth_gbs.provenance));
  }
  if (p.tensor_parallel.value > 1 && p.link_bandwidth_gbs.value > 0) {
    add_input(inputs, "all-reduce latency", latency_text(p.link_latency_us.value, "layer"),
              to_string(p.link_latency_us.provenance));
  }
  if (deployment_answers(estimate) && s.step_model->model.launch_floor_ms > 0) {
    add_input(inputs, "launch floor", launch_floor_input_text(*s.step_model), "modelled");
  }
  if (p.spec_tokens_per_step.provenance == engine::Provenance::given) {
    add_input(
        inputs, "speculative decoding",
        fmt::format("{} verified, {} accepted per step", human_plain(p.spec_tokens_per_step.value),
                    human_plain(p.spec_mean_accepted.value)),
        "given");
  }
  add_input(inputs, "compute precision", p.precision.value, to_string(p.precision.provenance));
  if (p.gemm_precision.value != p.precision.value) {
    add_input(inputs, "GEMM precision", p.gemm_precision.value + " (the weights' type)",
              to_string(p.gemm_precision.provenance));
  }
  if (s.prefill_roofline) {
    add_input(inputs, "prefill attention intensity",
              human_fixed(s.prefill_roofline->intensity_flop_per_byte, 1) + " FLOP/byte",
              "modelled");
  }
  if (s.decode_roofline) {
    add_input(inputs, "decode attention intensity",
              human_fixed(s.decode_roofline->intensity_flop_per_byte, 1) + " FLOP/byte",
              "modelled");
    add_input(inputs, "ridge",
              human_fixed(s.decode_roofline->ridge_flop_per_byte, 1) + " FLOP/byte", "preset");
    if (s.decode_roofline->effective_ridge_flop_per_byte !=
        s.decode_roofline->ridge_flop_per_byte) {
      // ridge · η_compute / η_bandwidth: where the bound label changes (bound.hpp)
      add_input(inputs, "effective ridge",
                human_fixed(s.decode_roofline->effective_ridge_flop_per_byte, 1) + " FLOP/byte",
                "modelled");
    }
  }
  if (estimate.tpot_after_ms) {
    add_input(inputs, "TPOT after the change",
              fmt::format("{} ({}×)", human_ms(estimate.tpot_after_ms->value),
                          human_fixed(estimate.result.decode.phase.speedup, 3)),
              to_string(estimate.tpot_after_ms->provenance));
  }
}

Table inputs_table(const Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  Table table;
  table.header = {"input", "value", "source"};
  table.align = {Align::left, Align::right, Align::left};
  add_input(table, "prompt", tokens(s.prompt_tokens.value), to_string(s.prompt_tokens.provenance));
  add_input(table, "response", tokens(s.response_tokens.value),
            to_string(s.response_tokens.provenance));
  add_input(table, "TTFT", human_ms(s.ttft_ms.value), to_string(s.ttft_ms.provenance));
  if (s.ttft_fixed_ms) {
    add_input(table, "TTFT fixed term (no kernel)", human_ms(s.ttft_fixed_ms->value),
              to_string(s.ttft_fixed_ms->provenance));
  }
  add_input(table, "TPOT", human_ms(s.tpot_ms.value), to_string(s.tpot_ms.provenance));
  if (s.levers) {
    add_lever_inputs(table, s);  // the change as levers: no single kernel speedup
  } else {
    add_input(table, "kernel speedup", human_speedup(s.kernel_speedup.value),
              s.kernel_speedup_instrument.empty()
                  ? std::string(to_string(s.kernel_speedup.provenance))
                  : std::string(to_string(s.kernel_speedup.provenance)) + " (" +
                        s.kernel_speedup_instrument + ", launch " + s.measured_kernel + ")");
  }
  add_input(table, "prefill attention share", human_percent(s.prefill_share.value),
            to_string(s.prefill_share.provenance));
  if (s.decode_share) {
    add_input(table, "decode attention share", human_percent(s.decode_share->value),
              to_string(s.decode_share->provenance));
  } else {
    add_input(table, "decode attention share", "—", "none (decode untouched)");
  }
  add_platform_inputs(table, estimate);
  return table;
}

// "Faster" and "less time" differ: 1.72× faster is 1 − 1/1.72 = 41.9% less time.
double latency_reduction(double speedup) {
  return 1 - 1 / speedup;
}

std::string summary_sentence(const Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  const engine::EstimateResult& r = estimate.result;
  const std::string target =
      s.phase == engine::Phase::both ? "prefill and decode" : std::string(to_string(s.phase));
  // A gain reads as "0.66% faster" ((S - 1) * 100, MODEL.md's convention); a loss as time added.
  const std::string change =
      r.request.saved_ms >= 0
          ? fmt::format("{} on {} makes the request {} faster, {} less time ({}, {} of {} saved)",
                        change_name(s), target, human_percent(r.improvement_pct / 100),
                        human_percent(latency_reduction(r.request.speedup)),
                        human_speedup(r.request.speedup), human_ms(r.request.saved_ms),
                        human_ms(r.request.time_before_ms))
          : fmt::format("{} on {} makes the request slower ({}, {} added to {})", change_name(s),
                        target, human_speedup(r.request.speedup), human_ms(-r.request.saved_ms),
                        human_ms(r.request.time_before_ms));
  std::string why;
  if (s.phase != engine::Phase::decode) {
    why = r.ttft ? fmt::format(
                       "attention is {} of prefill's GPU time, which is {} of TTFT (the "
                       "other {} no kernel touches), and TTFT is {} of the request",
                       human_percent(s.prefill_share.value),
                       human_percent(r.prefill.phase.share_of_parent),
                       human_ms(s.ttft_fixed_ms ? s.ttft_fixed_ms->value : 0.0),
                       human_percent(r.prefill_fraction))
                 : fmt::format("attention is {} of prefill and prefill is {} of the request",
                               human_percent(s.prefill_share.value),
                               human_percent(r.prefill_fraction));
  }
  if (s.phase != engine::Phase::prefill && s.decode_share) {
    why += fmt::format("{}attention is {} of decode and decode is {} of the request",
                       why.empty() ? "" : "; ", human_percent(s.decode_share->value),
                       human_percent(r.decode.phase.share_of_parent));
  }
  return change + ": " + why + ".";
}

// Without --phase, which phase was assumed and what the others give (issue 27), in one line.
std::string phase_sentence(const Estimate& estimate) {
  if (!estimate.phase_figures) return "";
  const engine::PhaseFigures& f = *estimate.phase_figures;
  const engine::Phase assumed = estimate.scenario.phase;
  const auto figure = [&f](engine::Phase phase) {
    const double speedup = phase == engine::Phase::prefill  ? f.prefill_speedup
                           : phase == engine::Phase::decode ? f.decode_speedup
                                                            : f.both_speedup;
    return fmt::format("{} {}", phase == engine::Phase::both ? "both" : to_string(phase),
                       human_speedup(speedup));
  };
  std::string others;
  for (const engine::Phase phase :
       {engine::Phase::prefill, engine::Phase::decode, engine::Phase::both}) {
    if (phase == assumed) continue;
    others += (others.empty() ? "" : ", ") + figure(phase);
  }
  return fmt::format(" Phase assumed (no --phase): {}; the request on {} (--phase).",
                     assumed == engine::Phase::both ? "both" : to_string(assumed), others);
}

std::vector<std::string> input_words(const engine::ResampledInputs& inputs) {
  std::vector<std::string> words;
  if (inputs.prefill_share) words.emplace_back("prefill share");
  if (inputs.ttft) words.emplace_back("TTFT");
  if (inputs.decode_share) words.emplace_back("decode share");
  if (inputs.tpot) words.emplace_back("TPOT");
  return words;
}

// "1.00012×–1.00015×": the bounds with enough digits to tell them apart (up to 8 decimals),
// and at least as many as the headline's speedup shows.
std::string interval_bounds(double low, double high) {
  int decimals = std::fabs(low - 1.0) < 0.05 || std::fabs(high - 1.0) < 0.05 ? 4 : 2;
  while (decimals < 8 &&
         fmt::format("{:.{}f}", low, decimals) == fmt::format("{:.{}f}", high, decimals) &&
         low != high) {
    ++decimals;
  }
  return fmt::format("{:.{}f}×–{:.{}f}×", low, decimals, high, decimals);
}

// The headline's interval, named for what it is, or why a workload of profiled steps has none;
// nothing for a workload without steps (its JSON says why). Over profiled steps it is a
// confidence interval of the speedup of the mean step (the inputs are the steps' means), not a
// prediction interval for one request; over calibration residuals it is the range of the speedup
// as the measured points scatter around the fit.
std::string interval_sentence(const Estimate& estimate) {
  const engine::PredictionInterval& interval = estimate.interval;
  if (interval.low && interval.high) {
    const bool steps = interval.method == engine::PredictionInterval::kStepMethod;
    return fmt::format(
        " {:.0f}% {}: {} ({}: {} resamples of the {} TTFT and {} TPOT "
        "{} behind the {}).",
        interval.confidence * 100,
        steps ? "confidence interval of the mean speedup" : "range over the calibration's scatter",
        interval_bounds(*interval.low, *interval.high), interval.method,
        human_count(interval.resamples), human_count(interval.ttft_samples),
        human_count(interval.tpot_samples), steps ? "steps" : "calibration points",
        fmt::join(input_words(interval.inputs), ", "));
  }
  switch (interval.reason) {
    case engine::NoPredictionInterval::too_few_steps:
      return " No confidence interval: each measured input comes from one profiled step, so "
             "the trace shows no spread (profile more steps for one).";
    case engine::NoPredictionInterval::inputs_not_measured:
      return " No confidence interval: the inputs measured over the profiled steps are not "
             "the ones this answer uses.";
    default:
      return "";
  }
}

// "model: llama-3.1-70b (given); hardware: 8 × h100-sxm (given); precision: ..."
std::string conditions_line(const std::vector<engine::Condition>& conditions) {
  std::string line;
  for (const engine::Condition& c : conditions) {
    line.append(line.empty() ? "" : "; ").append(c.key).append(": ").append(condition_text(c));
    if (c.provenance != engine::Provenance::workload) {
      line += " (" + std::string(to_string(c.provenance)) +
              (c.origin.empty() ? "" : ", " + c.origin) + ")";
    }
  }
  return line.empty() ? "none stated" : line;
}

std::string missing_conditions_line(const std::vector<engine::Condition>& conditions) {
  std::string line;
  for (const std::string& key : missing_conditions(conditions)) {
    line += (line.empty() ? "" : ", ") + key;
  }
  return line;
}

// "PASS --min-request-speedup: estimated 1.0066× >= required 1.0100×"
std::string gate_line(const engine::GateCheck& gate) {
  return fmt::format("{} --{}: estimated {} {} required {}", gate.passed ? "PASS" : "FAIL",
                     gate.name, human_speedup(gate.actual), gate.passed ? ">=" : "<",
                     human_speedup(gate.threshold));
}

// The near-the-ridge caveat for each attention kernel the change targets that sits there.
void add_near_ridge_notes(View& view, const Scenario& s) {
  const auto add = [&view](const std::optional<engine::PhaseRoofline>& position,
                           std::string_view kernel) {
    if (position && position->near_ridge) {
      view.note(near_ridge_note(kernel, position->intensity_flop_per_byte,
                                position->ridge_flop_per_byte,
                                position->effective_ridge_flop_per_byte));
    }
  };
  if (s.phase != engine::Phase::decode) add(s.prefill_roofline, "Prefill attention");
  if (s.phase != engine::Phase::prefill) add(s.decode_roofline, "Decode attention");
}

// How the deployment ran the request's prefill, with the numbers its TTFT used (issue 27):
// the steps, the budget that chunked them and the decodes beside them, or --prefill-batch's
// whole-batch step.
std::string prefill_steps_text(const Scenario& s) {
  const engine::PrefillSteps& p = *s.prefill_steps;
  if (s.prefill_batch) {
    return fmt::format(
        "{} prompts of {} tokens in one step (--prefill-batch), no decode beside them",
        human_count(*s.prefill_batch), human_count(s.prompt_tokens.value));
  }
  std::string text =
      fmt::format("the {}-token prompt in {} step{} of a budget of {} tokens ({}{})",
                  human_count(s.prompt_tokens.value), human_count(p.steps), p.steps == 1 ? "" : "s",
                  human_count(s.step_token_budget.value), to_string(s.step_token_budget.provenance),
                  s.step_token_budget.provenance == engine::Provenance::given ? "" : ": vLLM's");
  if (p.decodes_beside > 0) {
    text +=
        fmt::format(", each beside {} running decode{} (--batch {})",
                    human_count(std::llround(p.decodes_beside)), p.decodes_beside == 1 ? "" : "s",
                    human_count(std::llround(p.decodes_beside) + 1));
  }
  if (p.queued_prompt_tokens > 0) {
    text += fmt::format("; {} tokens of the other requests' prompts fill what its chunks leave",
                        human_count(std::llround(p.queued_prompt_tokens)));
  }
  return text + fmt::format("; TTFT {}", human_ms(s.ttft_ms.value));
}

}  // namespace

View estimate_view(const Estimate& estimate) {
  const Scenario& s = estimate.scenario;
  View view;
  const std::string subject = estimate_subject(estimate);
  view.title(fmt::format("kspeed estimate · {} · {} prompt, {} response", subject,
                         human_count(s.prompt_tokens.value), human_count(s.response_tokens.value)),
             "kspeed estimate: " + subject);
  view.table(chain_table(estimate));
  view.answer(summary_sentence(estimate) + interval_sentence(estimate) + phase_sentence(estimate));
  view.table(inputs_table(estimate));
  if (deployment_answers(estimate)) add_step_model_facts(view, *s.step_model);
  if (s.prefill_steps) view.fact("prefill", prefill_steps_text(s));
  const std::vector<engine::Condition>& conditions = estimate.conditions;
  view.fact("conditions", conditions_line(conditions));
  const std::string missing = missing_conditions_line(conditions);
  if (!missing.empty()) {
    view.fact("not stated", missing);
  }
  if (s.platform && layers_moved_text(s.platform->model.value)) {
    view.fact("layers", layers_moved_sentence(s.platform->model.value));
  }
  if (s.platform && expert_union_text(*s.platform)) {
    view.note(expert_union_note());
  }
  for (const auto& note : s.notes) {
    view.note(warning_sentence(note));
  }
  add_near_ridge_notes(view, s);
  for (const auto& warning : s.warnings) {
    view.warning(warning_sentence(warning));
  }
  for (const auto& gate : estimate.gates) {
    view.verdict(gate_line(gate), gate.passed);
  }
  return view;
}

std::string step_prior_text(const engine::CalibratedStepModel& model) {
  if (!model.prior) return {};
  const engine::BandwidthPrior& p = *model.prior;
  const engine::LaunchFloor& floor = model.launch_floor;
  return fmt::format(
      "set by public runs, not by this deployment (docs/validation.md section 7): bandwidth "
      "efficiency {:.2f}, range {:.2f}-{:.2f} ({}); TTFT overhead {:.1f} ms, range {:.1f}-{:.1f} "
      "(the median over the 9 runs of TTFT - the prior's prefill step); per-step launch floor "
      "{:.3g} ms ({} kernels the roofline does not price at {:.2f} us, the shortest kernel of two "
      "public traces); GEMM and attention compute efficiencies {:.2f} and {:.2f}, cited",
      p.efficiency, p.low, p.high, p.set_by, engine::kPriorRequestOverheadMs,
      engine::kPriorRequestOverheadLowMs, engine::kPriorRequestOverheadHighMs, floor.ms(),
      floor.kernels(), floor.kernel_us, model.efficiency.gemm_compute,
      model.efficiency.attention_compute);
}

void step_model_facts(View& view, const engine::CalibratedStepModel& model) {
  add_step_model_facts(view, model);
}

}  // namespace kspeed::report
