#include "kspeed/io/workload_reader.hpp"

#include <algorithm>
#include <cmath>

#include "kspeed/engine/deployment/dtype.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/json_fields.hpp"
#include "kspeed/io/preset_lookup.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

const std::vector<std::string> kWorkloadTopKeys = {
    "name",           "description", "source",
    "share_origin",   "request",     "attention_share",
    "conditions",     "model",       "gpu",
    "batch",          "tp",          "share_denominator",
    "measured_steps", "kv_dtype",    "format_version",
    "profiled_from",  "steps"};
const std::vector<std::string> kProfiledStepKeys = {"label",
                                                    "phase",
                                                    "prefill_requests",
                                                    "prefill_tokens",
                                                    "decode_requests",
                                                    "decode_kv_tokens",
                                                    "kernel_ms",
                                                    "busy_ms",
                                                    "wall_ms",
                                                    "profiler_gap_ms",
                                                    "time_ms",
                                                    "attention_ms",
                                                    "attention_kernel_ms",
                                                    "measures"};
const std::vector<std::string> kDenominators = {"kernel-time", "busy-time", "wall-time"};
const std::vector<std::string> kMeasuredStepKeys = {
    "phase", "context", "steps", "kernel_ms", "busy_ms", "wall_ms", "batch", "profiler_gap_ms"};
const std::vector<std::string> kRequestKeys = {
    "prompt_tokens", "response_tokens",        "ttft_ms",     "tpot_ms",
    "ttft_points",   "ttft_points_conditions", "illustrative"};
const std::vector<std::string> kLatencyPointKeys = {"prompt", "ttft_ms"};
const std::vector<std::string> kShareKeys = {"prefill", "decode"};
const std::vector<std::string> kPointKeys = {"context", "share"};

std::vector<std::string> condition_keys() {
  return {std::begin(engine::kConditionKeys), std::end(engine::kConditionKeys)};
}

std::string workload_optional_string(const JsonReader& reader, const json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() ? std::string() : reader.string_value(*found, key);
}

// "measured" marks tables that kspeed profile reduced from a trace; "workload" (the default)
// marks tables cited from `source`.
engine::Source read_share_origin(const JsonReader& reader, const json& value) {
  const std::string origin = reader.string_value(value, "share_origin");
  if (origin == "measured") return engine::Source::measured;
  if (origin == "workload") return engine::Source::workload;
  reader.fail("share_origin", "unknown value '" + excerpt(origin) + "'" +
                                  suggestion_suffix(origin, {"measured", "workload"}));
}

// [{"prompt": 1024, "ttft_ms": 267}, ...]: measured TTFT at several prompt lengths.
std::vector<engine::LatencyPoint> read_ttft_points(const JsonReader& reader, const json& array) {
  const std::string path = "request.ttft_points";
  if (!array.is_array()) {
    reader.fail(path, "expected an array of {\"prompt\": N, \"ttft_ms\": D} points, found " +
                          describe_json_type(array));
  }
  std::vector<engine::LatencyPoint> points;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    reader.expect_object(array[i], at, kLatencyPointKeys);
    engine::LatencyPoint point;
    point.context_tokens = static_cast<double>(
        reader.token_count(reader.required(array[i], at, "prompt"), at + ".prompt"));
    point.latency_ms =
        reader.duration_ms(reader.required(array[i], at, "ttft_ms"), at + ".ttft_ms");
    points.push_back(point);
  }
  return points;
}

engine::RequestShape read_request(const JsonReader& reader, const json& object) {
  reader.expect_object(object, "request", kRequestKeys);
  engine::RequestShape request;
  if (object.contains("prompt_tokens")) {
    request.prompt_tokens = reader.token_count(object["prompt_tokens"], "request.prompt_tokens");
  }
  if (object.contains("response_tokens")) {
    request.response_tokens =
        reader.token_count(object["response_tokens"], "request.response_tokens");
  }
  if (object.contains("ttft_ms")) {
    request.ttft_ms = reader.duration_ms(object["ttft_ms"], "request.ttft_ms");
  }
  if (object.contains("tpot_ms")) {
    request.tpot_ms = reader.duration_ms(object["tpot_ms"], "request.tpot_ms");
  }
  if (object.contains("ttft_points")) {
    request.ttft_points = read_ttft_points(reader, object["ttft_points"]);
  }
  request.ttft_points_conditions = workload_optional_string(reader, object, "ttft_points_conditions");
  if (object.contains("illustrative")) {
    const json& flag = object["illustrative"];
    if (!flag.is_boolean()) {
      reader.fail("request.illustrative",
                  "expected true or false, got " + describe_json_type(flag));
    }
    request.illustrative = flag.get<bool>();
  }
  return request;
}

// A table of measured points: contexts distinct and positive, shares strictly inside (0, 1)
// (logit interpolation is undefined at 0 and 1). Returned sorted by context.
std::vector<engine::SharePoint> read_share_table(const JsonReader& reader, const json& array,
                                                 const std::string& path) {
  if (!array.is_array()) {
    reader.fail(path, "expected an array of {\"context\": N, \"share\": P} points, found " +
                          describe_json_type(array));
  }
  std::vector<engine::SharePoint> table;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    reader.expect_object(array[i], at, kPointKeys);
    engine::SharePoint point;
    point.context_tokens = static_cast<double>(
        reader.token_count(reader.required(array[i], at, "context"), at + ".context"));
    point.share = reader.share(reader.required(array[i], at, "share"), at + ".share");
    if (point.share <= 0 || point.share >= 1) {
      reader.fail(at + ".share", "a measured share must lie strictly between 0 and 1 (found " +
                                     array[i]["share"].dump() +
                                     "): at 0 or 1 the share table cannot be interpolated");
    }
    table.push_back(point);
  }
  std::sort(table.begin(), table.end(),
            [](const auto& a, const auto& b) { return a.context_tokens < b.context_tokens; });
  for (std::size_t i = 1; i < table.size(); ++i) {
    if (table[i].context_tokens == table[i - 1].context_tokens) {
      reader.fail(path, "context " +
                            std::to_string(static_cast<std::int64_t>(table[i].context_tokens)) +
                            " appears twice: each context needs exactly one measured share");
    }
  }
  return table;
}

void read_shares(const JsonReader& reader, const json& object, engine::Workload& workload) {
  reader.expect_object(object, "attention_share", kShareKeys);
  if (object.contains("prefill")) {
    workload.prefill_shares =
        read_share_table(reader, object["prefill"], "attention_share.prefill");
  }
  if (object.contains("decode")) {
    workload.decode_shares = read_share_table(reader, object["decode"], "attention_share.decode");
  }
}

void read_conditions(const JsonReader& reader, const json& object, engine::Workload& workload) {
  const std::vector<std::string> keys = condition_keys();
  reader.expect_object(object, "conditions", keys);
  for (const std::string& key : keys) {  // checklist order, whatever the file's order
    if (object.contains(key)) {
      workload.conditions.emplace_back(key, reader.string_value(object[key], "conditions." + key));
    }
  }
}

std::string read_denominator(const JsonReader& reader, const json& value) {
  std::string denominator = reader.string_value(value, "share_denominator");
  if (std::find(kDenominators.begin(), kDenominators.end(), denominator) == kDenominators.end()) {
    reader.fail("share_denominator", "unknown value '" + excerpt(denominator) +
                                         "': expected kernel-time, busy-time or wall-time" +
                                         suggestion_suffix(denominator, kDenominators));
  }
  return denominator;
}

double non_negative_ms(const JsonReader& reader, const json& object, const std::string& at,
                       const char* key) {
  const std::string path = at + "." + key;
  const double value = reader.number_value(reader.required(object, at, key), path);
  if (!(value >= 0) || !std::isfinite(value)) {
    reader.fail(path, "expected a finite number of milliseconds >= 0");
  }
  return value;
}

// The steps kspeed profile measured (informative: the estimate uses request and the tables).
std::vector<engine::MeasuredStep> read_measured_steps(const JsonReader& reader, const json& array) {
  if (!array.is_array()) {
    reader.fail("measured_steps", "expected an array of steps, found " + describe_json_type(array));
  }
  std::vector<engine::MeasuredStep> steps;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = "measured_steps[" + std::to_string(i) + "]";
    const json& object = array[i];
    reader.expect_object(object, at, kMeasuredStepKeys);
    engine::MeasuredStep step;
    const std::string phase =
        reader.string_value(reader.required(object, at, "phase"), at + ".phase");
    if (phase == "prefill") {
      step.phase = engine::Phase::prefill;
    } else if (phase == "decode") {
      step.phase = engine::Phase::decode;
    } else {
      reader.fail(at + ".phase",
                  "unknown phase '" + excerpt(phase) + "': expected prefill or decode");
    }
    if (object.contains("context")) {  // absent when the steps did not state it
      step.context_tokens = reader.token_count(object["context"], at + ".context");
    }
    step.steps = positive_count(reader, reader.required(object, at, "steps"), at + ".steps");
    step.kernel_ms = non_negative_ms(reader, object, at, "kernel_ms");
    step.busy_ms = non_negative_ms(reader, object, at, "busy_ms");
    step.wall_ms = non_negative_ms(reader, object, at, "wall_ms");
    if (object.contains("batch"))
      step.batch = positive_count(reader, object["batch"], at + ".batch");
    if (object.contains("profiler_gap_ms")) {  // format 2
      step.profiler_gap_ms = non_negative_ms(reader, object, at, "profiler_gap_ms");
    }
    steps.push_back(step);
  }
  return steps;
}

std::int64_t non_negative_count(const JsonReader& reader, const json& object, const std::string& at,
                                const char* key) {
  const std::string path = at + "." + key;
  const double value = reader.number_value(reader.required(object, at, key), path);
  if (!(value >= 0) || value != std::floor(value) || value > 9.0e15) {
    reader.fail(path, "expected a whole number >= 0");
  }
  return static_cast<std::int64_t>(value);
}

engine::Phase read_step_phase(const JsonReader& reader, const json& object, const std::string& at) {
  const std::string phase =
      reader.string_value(reader.required(object, at, "phase"), at + ".phase");
  if (phase == "prefill") return engine::Phase::prefill;
  if (phase == "decode") return engine::Phase::decode;
  if (phase == "mixed") return engine::Phase::mixed;
  reader.fail(at + ".phase",
              "unknown phase '" + excerpt(phase) + "': expected prefill, decode or mixed");
}

void read_measures(const JsonReader& reader, const json& object, const std::string& at,
                   engine::ProfiledStep& step) {
  if (!object.contains("measures")) return;
  const json& array = object["measures"];
  const std::string path = at + ".measures";
  if (!array.is_array()) {
    reader.fail(path,
                "expected an array of \"ttft\" and \"tpot\", found " + describe_json_type(array));
  }
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string value = reader.string_value(array[i], path + "[" + std::to_string(i) + "]");
    if (value == "ttft") {
      step.measures_ttft = true;
    } else if (value == "tpot") {
      step.measures_tpot = true;
    } else {
      reader.fail(path, "unknown latency '" + excerpt(value) + "': expected ttft or tpot");
    }
  }
}

// Every step kspeed profile measured (format 2): the spread behind the estimate's interval.
std::vector<engine::ProfiledStep> read_profiled_steps(const JsonReader& reader, const json& array) {
  if (!array.is_array()) {
    reader.fail("steps", "expected an array of steps, found " + describe_json_type(array));
  }
  std::vector<engine::ProfiledStep> steps;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = "steps[" + std::to_string(i) + "]";
    const json& object = array[i];
    reader.expect_object(object, at, kProfiledStepKeys);
    engine::ProfiledStep step;
    step.label = workload_optional_string(reader, object, "label");
    step.phase = read_step_phase(reader, object, at);
    step.prefill_requests = non_negative_count(reader, object, at, "prefill_requests");
    step.prefill_tokens = non_negative_count(reader, object, at, "prefill_tokens");
    step.decode_requests = non_negative_count(reader, object, at, "decode_requests");
    step.decode_kv_tokens = non_negative_count(reader, object, at, "decode_kv_tokens");
    step.kernel_ms = non_negative_ms(reader, object, at, "kernel_ms");
    step.busy_ms = non_negative_ms(reader, object, at, "busy_ms");
    step.wall_ms = non_negative_ms(reader, object, at, "wall_ms");
    step.profiler_gap_ms = non_negative_ms(reader, object, at, "profiler_gap_ms");
    step.time_ms = non_negative_ms(reader, object, at, "time_ms");
    step.attention_ms = non_negative_ms(reader, object, at, "attention_ms");
    step.attention_kernel_ms = non_negative_ms(reader, object, at, "attention_kernel_ms");
    if (step.attention_ms > step.time_ms) {
      reader.fail(at + ".attention_ms",
                  "the step's attention time exceeds its time_ms: "
                  "expected attention_ms <= time_ms (same denominator)");
    }
    read_measures(reader, object, at, step);
    steps.push_back(std::move(step));
  }
  return steps;
}

// 1 (no format_version) or 2; a newer file names the kspeed that can read it.
void check_format_version(const JsonReader& reader, const json& value) {
  const double version = reader.number_value(value, "format_version");
  if (version != 1 && version != 2) {
    reader.fail("format_version",
                "unsupported workload format " + value.dump() +
                    ": this kspeed reads formats 1 "
                    "and " +
                    std::to_string(engine::kWorkloadFormatVersion) +
                    " (a newer kspeed wrote the file: upgrade kspeed, or re-emit it with this "
                    "one's kspeed profile --emit-workload)");
  }
}

// A built-in named by the workload must exist: a typo is caught when the workload is read,
// not silently ignored by commands that do not use the deployment. Paths are read, and checked,
// when an estimate uses them.
std::string read_preset_name(const JsonReader& reader, const json& document, const char* key,
                             const NamedKind& kind) {
  std::string name = reader.string_value(document[key], key);
  if (!looks_like_path(name) && !builtin_content(kind.folder, name)) {
    reader.fail(key, unknown_name_message(kind, name));
  }
  return name;
}

// The deployment the workload runs on, named for the roofline and the decode model.
void read_deployment(const JsonReader& reader, const json& document, engine::Workload& workload) {
  if (document.contains("model")) {
    workload.model = read_preset_name(reader, document, "model", kModelKind);
  }
  if (document.contains("gpu")) {
    workload.gpu = read_preset_name(reader, document, "gpu", kGpuKind);
  }
  if (document.contains("batch")) {
    workload.batch = positive_count(reader, document["batch"], "batch");
  }
  if (document.contains("tp")) {
    workload.tp = positive_count(reader, document["tp"], "tp");
  }
  if (document.contains("kv_dtype")) {
    std::string name = reader.string_value(document["kv_dtype"], "kv_dtype");
    if (!engine::dtype_bytes(name)) {
      reader.fail("kv_dtype", "unknown KV cache type '" + excerpt(name) + "'" +
                                  suggestion_suffix(name, engine::dtype_names()));
    }
    workload.kv_dtype = std::move(name);
  }
}

}  // namespace

engine::Workload parse_workload(std::string_view text, std::string_view source) {
  const json document = parse_json_document(text, source);
  const JsonReader reader{std::string(source)};
  reader.expect_object(document, "", kWorkloadTopKeys);
  if (document.contains("format_version")) check_format_version(reader, document["format_version"]);
  engine::Workload workload;
  workload.name = workload_optional_string(reader, document, "name");
  workload.description = workload_optional_string(reader, document, "description");
  workload.source = workload_optional_string(reader, document, "source");
  if (document.contains("share_origin")) {
    workload.share_origin = read_share_origin(reader, document["share_origin"]);
  }
  if (document.contains("request")) {
    workload.request = read_request(reader, document["request"]);
  }
  if (document.contains("attention_share")) {
    read_shares(reader, document["attention_share"], workload);
  }
  if (document.contains("conditions")) {
    read_conditions(reader, document["conditions"], workload);
  }
  read_deployment(reader, document, workload);
  if (document.contains("share_denominator")) {
    workload.share_denominator = read_denominator(reader, document["share_denominator"]);
  }
  if (document.contains("measured_steps")) {
    workload.measured_steps = read_measured_steps(reader, document["measured_steps"]);
  }
  workload.profiled_from = workload_optional_string(reader, document, "profiled_from");
  if (document.contains("steps")) {
    workload.profiled_steps = read_profiled_steps(reader, document["steps"]);
  }
  return workload;
}

std::vector<std::string> builtin_workload_names() {
  return builtin_names("workloads");
}

std::string_view builtin_workload_text(std::string_view name) {
  return builtin_text(kWorkloadKind, name);
}

engine::Workload load_workload(const std::string& file_or_name) {
  return load_named(file_or_name, kWorkloadKind, parse_workload);
}

}  // namespace kspeed::io
