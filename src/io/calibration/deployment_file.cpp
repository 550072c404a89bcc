// Writing and reading the deployment file (io/deployment_file.hpp). The reader is strict like
// every kspeed reader: unknown keys fail with did-you-mean, every coefficient is required and
// >= 0, and each provenance is one kspeed writes.
#include "kspeed/io/deployment_file.hpp"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"

namespace kspeed::io {

namespace {

// The scheduler a fit replayed, checked where the file is read: a bad value is the file's
// (deployment.max_seqs.value), not the flag a later replay would parse it as, which the user
// never gave.
void check_scheduler_settings(const JsonReader& reader, const DeploymentFile& file) {
  for (const char* key : {"max_seqs", "max_batched_tokens"}) {
    const std::string value = file.setting(key);
    if (value.empty()) continue;
    const bool whole = value.find_first_not_of("0123456789") == std::string::npos &&
                       value.size() <= 12 && std::stoll(value) >= 1;
    if (!whole) {
      reader.fail(std::string("deployment.") + key + ".value",
                  "'" + value + "' is not a whole number >= 1; recalibrate, or fix the value");
    }
  }
  const std::string chunked = file.setting("chunked_prefill");
  if (!chunked.empty() && chunked != "on" && chunked != "off") {
    reader.fail("deployment.chunked_prefill.value",
                "'" + chunked + "' is not on or off; recalibrate, or fix the value");
  }
  const std::string scheduler = file.setting("scheduler");
  if (!scheduler.empty() && scheduler != "mixed" && scheduler != "prefill-first") {
    reader.fail("deployment.scheduler.value",
                "'" + scheduler + "' is not mixed or prefill-first; recalibrate, or fix the value");
  }
}

using nlohmann::json;
using nlohmann::ordered_json;

constexpr std::string_view kKind = "kspeed-deployment";

// The coefficients in file order, each with its member in the model and its origin.
struct CoefficientSlot {
  const char* key;
  double engine::StepModel::*value;  // nullptr: the request overhead, outside StepModel
  engine::CoefficientOrigin engine::StepModelOrigins::*origin;
};

constexpr std::array<CoefficientSlot, 9> kCoefficients{{
    {"fixed_ms", &engine::StepModel::fixed_ms, &engine::StepModelOrigins::fixed},
    {"weights_ms", &engine::StepModel::weights_ms, &engine::StepModelOrigins::weights},
    {"ms_per_token", &engine::StepModel::ms_per_token, &engine::StepModelOrigins::per_token},
    {"ms_per_prefill_pair", &engine::StepModel::ms_per_prefill_pair,
     &engine::StepModelOrigins::prefill_pair},
    {"ms_per_kv_token", &engine::StepModel::ms_per_kv_token, &engine::StepModelOrigins::kv_token},
    {"ms_per_window_prefill_token", &engine::StepModel::ms_per_window_prefill_token,
     &engine::StepModelOrigins::prefill_pair},
    {"ms_per_window_decode_sequence", &engine::StepModel::ms_per_window_decode_sequence,
     &engine::StepModelOrigins::kv_token},
    {"ms_per_sequence", &engine::StepModel::ms_per_sequence,
     &engine::StepModelOrigins::per_sequence},
    {"request_overhead_ms", nullptr, &engine::StepModelOrigins::request_overhead},
}};

// Terms the platform models and no calibration moves, each with where it comes from. A file
// that leaves out an optional one was written before kspeed saved it (0: the term is absent).
struct ModelledTermSlot {
  const char* key;
  double engine::StepModel::*value;
  const char* source;
  bool required;
};

constexpr std::array<ModelledTermSlot, 6> kModelledTerms{{
    {"launch_floor_ms", &engine::StepModel::launch_floor_ms,
     "the launch floor: each layer's kernels the roofline does not price at the shortest kernel "
     "of two public traces",
     false},
    {"tp_ms_per_token", &engine::StepModel::tp_ms_per_token,
     "tensor-parallel all-reduces over the GPU's link", true},
    {"tp_fixed_ms", &engine::StepModel::tp_fixed_ms,
     "tensor-parallel all-reduces over the GPU's link", true},
    {"ep_ms_per_token", &engine::StepModel::ep_ms_per_token,
     "expert-parallel dispatch and combine all-to-alls over the GPU's link", false},
    {"ep_fixed_ms", &engine::StepModel::ep_fixed_ms,
     "expert-parallel dispatch and combine all-to-alls over the GPU's link", false},
    {"ms_per_linear_state_sequence", &engine::StepModel::ms_per_linear_state_sequence,
     "a hybrid model's linear-attention state, read and written once a step per sequence", false},
}};

// Chunked local attention layers (Llama 4): written only for a model that has them, with C.
constexpr const char* kChunkTokensKey = "attention_chunk_tokens";
constexpr std::array<CoefficientSlot, 2> kChunkedCoefficients{{
    {"ms_per_chunked_prefill_pair", &engine::StepModel::ms_per_chunked_prefill_pair,
     &engine::StepModelOrigins::prefill_pair},
    {"ms_per_chunked_kv_token", &engine::StepModel::ms_per_chunked_kv_token,
     &engine::StepModelOrigins::kv_token},
}};

constexpr std::array<engine::Provenance, 5> kCoefficientProvenances{
    engine::Provenance::modelled, engine::Provenance::fitted, engine::Provenance::measured,
    engine::Provenance::default_value, engine::Provenance::given};

ordered_json origin_json(double value, const engine::CoefficientOrigin& origin) {
  ordered_json out;
  out["value"] = value;
  out["provenance"] = engine::to_string(origin.provenance);
  out["source"] = origin.source;
  return out;
}

engine::Provenance parse_provenance(const JsonReader& reader, const json& value,
                                    const std::string& path) {
  const std::string text = reader.string_value(value, path);
  for (const engine::Provenance p : kCoefficientProvenances) {
    if (engine::to_string(p) == text) return p;
  }
  reader.fail(path, "'" + text +
                        "' is not a provenance kspeed writes: expected modelled, "
                        "fitted, measured, default or given");
}

double non_negative(const JsonReader& reader, const json& value, const std::string& path) {
  const double number = reader.number_value(value, path);
  if (!std::isfinite(number) || number < 0) {
    reader.fail(path, "expected a finite number >= 0");
  }
  return number;
}

ordered_json replay_fit_json(const ReplayFitRecord& fit) {
  ordered_json out;
  out["run"] = fit.run;
  out["fit_levels"] = fit.fit_levels;
  out["levels_in_run"] = fit.levels_in_run;
  out["replays"] = fit.replays;
  out["settings"] = fit.settings;
  out["load"] = fit.load;
  out["notes"] = fit.notes;
  return out;
}

std::vector<std::string> string_list(const JsonReader& reader, const json& value,
                                     const std::string& path) {
  if (!value.is_array()) reader.fail(path, "expected a list of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.push_back(reader.string_value(value[i], path + "[" + std::to_string(i) + "]"));
  }
  return out;
}

ReplayFitRecord parse_replay_fit(const JsonReader& reader, const json& value) {
  const std::string path = "replay_fit";
  reader.expect_object(
      value, path, {"run", "fit_levels", "levels_in_run", "replays", "settings", "load", "notes"});
  ReplayFitRecord fit;
  fit.run = reader.string_value(reader.required(value, path, "run"), path + ".run");
  fit.fit_levels =
      string_list(reader, reader.required(value, path, "fit_levels"), path + ".fit_levels");
  fit.levels_in_run = std::llround(
      non_negative(reader, reader.required(value, path, "levels_in_run"), path + ".levels_in_run"));
  fit.replays = std::llround(
      non_negative(reader, reader.required(value, path, "replays"), path + ".replays"));
  fit.settings = string_list(reader, reader.required(value, path, "settings"), path + ".settings");
  fit.load = string_list(reader, reader.required(value, path, "load"), path + ".load");
  fit.notes = string_list(reader, reader.required(value, path, "notes"), path + ".notes");
  return fit;
}

}  // namespace

std::string DeploymentFile::setting(std::string_view key) const {
  for (const DeploymentSetting& s : settings) {
    if (s.key == key) return s.value;
  }
  return {};
}

std::string deployment_to_json_text(const DeploymentFile& file) {
  ordered_json out;
  out["kind"] = kKind;
  out["format_version"] = DeploymentFile::kFormatVersion;
  ordered_json& deployment = out["deployment"];
  deployment = ordered_json::object();
  for (const DeploymentSetting& s : file.settings) {
    deployment[s.key] = {{"value", s.value}, {"source", s.source}};
  }
  const engine::CalibratedStepModel& m = file.step;
  ordered_json& step = out["step_model"];
  step["calibration"] = engine::to_string(m.calibration);
  step["calibration_source"] = m.calibration_source;
  step["calibration_points"] = file.calibration_points;
  for (const CoefficientSlot& slot : kCoefficients) {
    const double value = slot.value != nullptr ? m.model.*(slot.value) : m.request_overhead_ms;
    step["coefficients"][slot.key] = origin_json(value, m.origins.*(slot.origin));
  }
  for (const ModelledTermSlot& term : kModelledTerms) {
    step["coefficients"][term.key] =
        origin_json(m.model.*(term.value), {engine::Provenance::modelled, term.source});
  }
  // A MoE model's routed experts (StepExperts): without them a deployment file read back would
  // price a MoE step at its dense weights only.
  if (m.model.experts.experts > 0) {
    const engine::StepExperts& e = m.model.experts;
    step["routed_experts"] = {{"experts", e.experts},
                              {"top_k", e.top_k},
                              {"expert_parallel", e.expert_parallel},
                              {"all_experts_ms", origin_json(e.all_experts_ms, m.origins.weights)}};
  }
  if (m.model.attention_chunk_tokens > 0) {
    step["coefficients"][kChunkTokensKey] = origin_json(
        static_cast<double>(m.model.attention_chunk_tokens),
        {engine::Provenance::modelled, "the model's attention_chunk_size: tokens a chunk"});
    for (const CoefficientSlot& slot : kChunkedCoefficients) {
      step["coefficients"][slot.key] = origin_json(m.model.*(slot.value), m.origins.*(slot.origin));
    }
  }
  step["efficiency"] = {{"bandwidth", m.efficiency.bandwidth},
                        {"gemm_compute", m.efficiency.gemm_compute},
                        {"attention_compute", m.efficiency.attention_compute}};
  step["speculation"] = {{"tokens_per_step", m.spec_tokens_per_step},
                         {"mean_accepted", m.spec_mean_accepted}};
  out["typical_request"] = {{"prompt_tokens", file.typical_prompt_tokens},
                            {"response_tokens", file.typical_response_tokens},
                            {"concurrency", file.concurrency}};
  ordered_json& runs = out["runs"];
  runs = ordered_json::array();
  for (const CalibrationRun& run : file.runs) {
    runs.push_back({{"file", run.file},
                    {"format", run.format},
                    {"concurrency", run.concurrency},
                    {"ttft_points", run.ttft_points},
                    {"tpot_points", run.tpot_points},
                    {"tpot_from", run.tpot_from},
                    {"ttft_note", run.ttft_note}});
    if (!run.warmup_note.empty()) runs.back()["warmup_note"] = run.warmup_note;
    if (!run.level.empty()) runs.back()["level"] = run.level;
  }
  if (file.replay_fit) out["replay_fit"] = replay_fit_json(*file.replay_fit);
  ordered_json& residuals = out["residuals"];
  residuals = ordered_json::array();
  for (const engine::PointResidual& r : m.residuals) {
    residuals.push_back({{"label", r.label},
                         {"kind", engine::to_string(r.kind)},
                         {"measured_ms", r.measured_ms},
                         {"predicted_ms", r.predicted_ms},
                         {"residual_ms", r.residual_ms()}});
  }
  return out.dump(2) + "\n";
}

DeploymentFile parse_deployment_file(std::string_view text, const std::string& source) {
  const json document = parse_json_document(text, source);
  const JsonReader reader(source);
  reader.expect_object(document, "",
                       {"kind", "format_version", "deployment", "step_model", "typical_request",
                        "runs", "residuals", "replay_fit"});
  const std::string kind = reader.string_value(reader.required(document, "", "kind"), "kind");
  if (kind != kKind) {
    reader.fail("kind", "'" + kind +
                            "' is not a deployment file: expected \"kspeed-deployment\" (written "
                            "by kspeed calibrate)");
  }
  const double version =
      reader.number_value(reader.required(document, "", "format_version"), "format_version");
  if (version != DeploymentFile::kFormatVersion) {
    reader.fail("format_version",
                "expected 1 (this kspeed reads version 1); recalibrate with "
                "this kspeed");
  }
  DeploymentFile file;
  file.source = source;
  const json& deployment = reader.required(document, "", "deployment");
  reader.expect_object(deployment, "deployment",
                       {"model", "gpu", "tp", "ep", "precision", "kv_dtype", "max_seqs",
                        "max_batched_tokens", "chunked_prefill", "scheduler"});
  for (const auto& [key, value] : deployment.items()) {
    const std::string path = "deployment." + key;
    reader.expect_object(value, path, {"value", "source"});
    file.settings.push_back(
        {key, reader.string_value(reader.required(value, path, "value"), path + ".value"),
         reader.string_value(reader.required(value, path, "source"), path + ".source")});
  }
  check_scheduler_settings(reader, file);
  if (file.setting("model").empty() || file.setting("gpu").empty()) {
    reader.fail("deployment",
                "expected the model and the GPU (deployment.model.value, "
                "deployment.gpu.value)");
  }
  const json& step = reader.required(document, "", "step_model");
  reader.expect_object(step, "step_model",
                       {"calibration", "calibration_source", "calibration_points", "coefficients",
                        "routed_experts", "efficiency", "speculation"});
  engine::CalibratedStepModel& m = file.step;
  m.calibration = parse_provenance(reader, reader.required(step, "step_model", "calibration"),
                                   "step_model.calibration");
  m.calibration_source = reader.string_value(
      reader.required(step, "step_model", "calibration_source"), "step_model.calibration_source");
  if (step.contains("calibration_points")) {
    file.calibration_points =
        reader.string_value(step["calibration_points"], "step_model.calibration_points");
  }
  const json& coefficients = reader.required(step, "step_model", "coefficients");
  std::vector<std::string> known;
  known.reserve(std::size(kCoefficients) + std::size(kModelledTerms) + 1 +
                std::size(kChunkedCoefficients));
  for (const CoefficientSlot& slot : kCoefficients) known.emplace_back(slot.key);
  for (const ModelledTermSlot& term : kModelledTerms) known.emplace_back(term.key);
  known.emplace_back(kChunkTokensKey);
  for (const CoefficientSlot& slot : kChunkedCoefficients) known.emplace_back(slot.key);
  reader.expect_object(coefficients, "step_model.coefficients", known);
  const auto read_coefficient = [&](const char* key, engine::CoefficientOrigin* origin) {
    const std::string path = std::string("step_model.coefficients.") + key;
    const json& c = reader.required(coefficients, "step_model.coefficients", key);
    reader.expect_object(c, path, {"value", "provenance", "source"});
    const double value = non_negative(reader, reader.required(c, path, "value"), path + ".value");
    if (origin != nullptr) {
      origin->provenance =
          parse_provenance(reader, reader.required(c, path, "provenance"), path + ".provenance");
      origin->source = reader.string_value(reader.required(c, path, "source"), path + ".source");
    }
    return value;
  };
  for (const CoefficientSlot& slot : kCoefficients) {
    const double value = read_coefficient(slot.key, &(m.origins.*(slot.origin)));
    if (slot.value != nullptr) {
      m.model.*(slot.value) = value;
    } else {
      m.request_overhead_ms = value;
    }
  }
  for (const ModelledTermSlot& term : kModelledTerms) {
    if (term.required || coefficients.contains(term.key)) {
      m.model.*(term.value) = read_coefficient(term.key, nullptr);
    }
  }
  if (step.contains("routed_experts")) {
    const json& experts = step["routed_experts"];
    const std::string path = "step_model.routed_experts";
    reader.expect_object(experts, path, {"experts", "top_k", "expert_parallel", "all_experts_ms"});
    const auto whole = [&](const char* key) {
      const double value =
          reader.positive_number(reader.required(experts, path, key), path + "." + key);
      if (value != std::floor(value)) reader.fail(path + "." + key, "expected a whole number");
      return static_cast<std::int64_t>(value);
    };
    engine::StepExperts& e = m.model.experts;
    e.experts = whole("experts");
    e.top_k = whole("top_k");
    e.expert_parallel = whole("expert_parallel");
    const json& all = reader.required(experts, path, "all_experts_ms");
    reader.expect_object(all, path + ".all_experts_ms", {"value", "provenance", "source"});
    e.all_experts_ms = non_negative(reader, reader.required(all, path + ".all_experts_ms", "value"),
                                    path + ".all_experts_ms.value");
  }
  if (coefficients.contains(kChunkTokensKey)) {
    m.model.attention_chunk_tokens = std::llround(read_coefficient(kChunkTokensKey, nullptr));
    for (const CoefficientSlot& slot : kChunkedCoefficients) {
      m.model.*(slot.value) = read_coefficient(slot.key, nullptr);
    }
  }
  const json& efficiency = reader.required(step, "step_model", "efficiency");
  reader.expect_object(efficiency, "step_model.efficiency",
                       {"bandwidth", "gemm_compute", "attention_compute"});
  m.efficiency.bandwidth =
      reader.positive_number(reader.required(efficiency, "step_model.efficiency", "bandwidth"),
                             "step_model.efficiency.bandwidth");
  m.efficiency.gemm_compute =
      reader.positive_number(reader.required(efficiency, "step_model.efficiency", "gemm_compute"),
                             "step_model.efficiency.gemm_compute");
  m.efficiency.attention_compute = reader.positive_number(
      reader.required(efficiency, "step_model.efficiency", "attention_compute"),
      "step_model.efficiency.attention_compute");
  const json& spec = reader.required(step, "step_model", "speculation");
  reader.expect_object(spec, "step_model.speculation", {"tokens_per_step", "mean_accepted"});
  m.spec_tokens_per_step =
      reader.positive_number(reader.required(spec, "step_model.speculation", "tokens_per_step"),
                             "step_model.speculation.tokens_per_step");
  m.spec_mean_accepted =
      reader.positive_number(reader.required(spec, "step_model.speculation", "mean_accepted"),
                             "step_model.speculation.mean_accepted");

  const json& typical = reader.required(document, "", "typical_request");
  reader.expect_object(typical, "typical_request",
                       {"prompt_tokens", "response_tokens", "concurrency"});
  file.typical_prompt_tokens =
      reader.token_count(reader.required(typical, "typical_request", "prompt_tokens"),
                         "typical_request.prompt_tokens");
  file.typical_response_tokens =
      reader.token_count(reader.required(typical, "typical_request", "response_tokens"),
                         "typical_request.response_tokens");
  file.concurrency = reader.positive_number(
      reader.required(typical, "typical_request", "concurrency"), "typical_request.concurrency");

  if (document.contains("runs")) {
    const json& runs = document["runs"];
    if (!runs.is_array()) reader.fail("runs", "expected a list of runs");
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string path = "runs[" + std::to_string(i) + "]";
      const json& r = runs[i];
      reader.expect_object(r, path,
                           {"file", "format", "concurrency", "ttft_points", "tpot_points",
                            "tpot_from", "ttft_note", "warmup_note", "level"});
      CalibrationRun run;
      run.file = reader.string_value(reader.required(r, path, "file"), path + ".file");
      run.format = reader.string_value(reader.required(r, path, "format"), path + ".format");
      run.concurrency =
          reader.positive_number(reader.required(r, path, "concurrency"), path + ".concurrency");
      run.ttft_points = std::llround(
          non_negative(reader, reader.required(r, path, "ttft_points"), path + ".ttft_points"));
      run.tpot_points = std::llround(
          non_negative(reader, reader.required(r, path, "tpot_points"), path + ".tpot_points"));
      if (r.contains("tpot_from")) {
        run.tpot_from = reader.string_value(r["tpot_from"], path + ".tpot_from");
      }
      if (r.contains("ttft_note")) {
        run.ttft_note = reader.string_value(r["ttft_note"], path + ".ttft_note");
      }
      if (r.contains("warmup_note")) {
        run.warmup_note = reader.string_value(r["warmup_note"], path + ".warmup_note");
      }
      if (r.contains("level")) run.level = reader.string_value(r["level"], path + ".level");
      file.runs.push_back(std::move(run));
    }
  }
  if (document.contains("residuals")) {
    const json& residuals = document["residuals"];
    if (!residuals.is_array()) reader.fail("residuals", "expected a list of points");
    for (std::size_t i = 0; i < residuals.size(); ++i) {
      const std::string path = "residuals[" + std::to_string(i) + "]";
      const json& r = residuals[i];
      reader.expect_object(r, path,
                           {"label", "kind", "measured_ms", "predicted_ms", "residual_ms"});
      engine::PointResidual point;
      point.label = reader.string_value(reader.required(r, path, "label"), path + ".label");
      const std::string point_kind =
          reader.string_value(reader.required(r, path, "kind"), path + ".kind");
      if (point_kind == "ttft") {
        point.kind = engine::LatencyKind::ttft;
      } else if (point_kind == "tpot") {
        point.kind = engine::LatencyKind::tpot;
      } else if (point_kind == "step") {
        point.kind = engine::LatencyKind::step;
      } else {
        reader.fail(path + ".kind", "'" + point_kind + "': expected ttft, tpot or step");
      }
      point.measured_ms =
          reader.number_value(reader.required(r, path, "measured_ms"), path + ".measured_ms");
      point.predicted_ms =
          reader.number_value(reader.required(r, path, "predicted_ms"), path + ".predicted_ms");
      m.residuals.push_back(std::move(point));
    }
  }
  if (document.contains("replay_fit")) {
    file.replay_fit = parse_replay_fit(reader, document["replay_fit"]);
  }
  return file;
}

DeploymentFile read_deployment_file(const std::string& path) {
  return parse_deployment_file(read_text_file(path, "deployment file"), path);
}

}  // namespace kspeed::io
