// `kspeed profile` for programs (docs/json-format.md): the JSON tree (times are integers in ns,
// shares fractions), and for csv and jsonl one record per file and phase (phase "all" is the
// whole trace), then, with several files, one per phase across them (path "aggregate").
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using namespace kspeed::profile;

ordered_json shares_json(const Shares& shares) {
  ordered_json out;
  out["core"] = shares.core;
  out["core_kv"] = shares.core_kv;
  out["core_kv_rope"] = shares.core_kv_rope;
  return out;
}

ordered_json class_times_json(const ClassTimes& times) {
  ordered_json out;
  for (std::size_t c = 0; c < kKernelClassCount; ++c) {
    out[std::string(to_string(static_cast<KernelClass>(c)))] = times[c];
  }
  return out;
}

void put_times(ordered_json& out, const GroupTimes& times) {
  out["kernel_count"] = times.kernel_count;
  out["kernel_time_ns"] = times.kernel_ns;
  out["busy_time_ns"] = times.busy_ns;
  out["wall_time_ns"] = times.wall_ns;
  out["denominator_ns"] = times.share_times.denominator_ns;
  out["shares"] = shares_json(times.share_times.shares());
  out["class_time_ns"] = class_times_json(times.class_ns);
}

ordered_json kernels_json(const std::vector<KernelTotal>& kernels) {
  ordered_json out = ordered_json::array();
  for (const KernelTotal& kernel : kernels) {
    ordered_json entry;
    entry["name"] = kernel.name;
    entry["class"] = to_string(kernel.kernel_class);
    entry["library"] =
        kernel.library.empty() ? ordered_json(nullptr) : ordered_json(kernel.library);
    entry["time_ns"] = kernel.total_ns;
    entry["count"] = kernel.count;
    entry["share_of_kernel_time"] = kernel.share_of_kernel_time;
    out.push_back(entry);
  }
  return out;
}

ordered_json phase_json(const PhaseResult& phase, const char* name_override) {
  ordered_json out;
  out["phase"] =
      name_override != nullptr ? std::string(name_override) : std::string(to_string(phase.phase));
  out["shares_provenance"] = to_string(engine::Provenance::measured);
  out["steps"] = phase.steps;
  out["context_tokens"] = or_null(phase.context_tokens);
  out["generation_tokens"] = or_null(phase.generation_tokens);
  put_times(out, phase.times);
  out["top_attention_kernels"] = kernels_json(phase.top_attention);
  out["top_unclassified_kernels"] = kernels_json(phase.top_unclassified);
  return out;
}

ordered_json step_json(const StepResult& step) {
  ordered_json out;
  out["annotation"] = step.annotation;
  out["style"] = to_string(step.label.style);
  out["phase"] = to_string(step.label.phase);
  out["start_ns"] = step.start_ns;
  out["context_requests"] = or_null(step.label.context_requests);
  out["context_tokens"] = or_null(step.label.context_tokens);
  out["generation_requests"] = or_null(step.label.generation_requests);
  out["generation_tokens"] = or_null(step.label.generation_tokens);
  out["generation_kv_tokens"] = or_null(step.label.generation_kv_tokens);
  out["context_length"] = or_null(step.context_tokens);
  put_times(out, step.times);
  return out;
}

ordered_json points_json(const std::vector<ContextPoint>& points) {
  ordered_json out = ordered_json::array();
  for (const ContextPoint& point : points) {
    ordered_json entry;
    entry["context"] = static_cast<std::int64_t>(point.context_tokens);
    entry["steps"] = point.steps;
    entry["denominator_ns"] = point.share_times.denominator_ns;
    entry["shares"] = shares_json(point.share_times.shares());
    out.push_back(entry);
  }
  return out;
}

ordered_json file_json(const FileResult& file) {
  ordered_json out;
  out["path"] = file.source;
  out["format"] = to_string(file.format);
  out["compressed"] = file.compressed;
  out["gpu"] = file.info.gpu.empty() ? ordered_json(nullptr) : ordered_json(file.info.gpu);
  out["platform"] =
      file.info.platform.empty() ? ordered_json(nullptr) : ordered_json(file.info.platform);
  out["rank"] = or_null(file.info.rank);
  out["world_size"] = or_null(file.info.world_size);
  out["engine"] = file.engine.empty() ? ordered_json(nullptr) : ordered_json(file.engine);
  out["annotation_styles"] = file.annotation_styles;
  out["phased"] = file.phased;
  out["bytes_read"] = file.bytes_read;
  out["events_read"] = file.events_read;
  out["kernel_names"] = file.kernel_names;
  ordered_json attribution;
  attribution["via_launch"] = file.attribution.via_launch;
  attribution["via_gpu_annotation"] = file.attribution.via_gpu_annotation;
  attribution["outside_steps"] = file.attribution.outside_steps;
  out["attribution"] = attribution;
  ordered_json phases = ordered_json::array();
  for (const PhaseResult& phase : file.phases) phases.push_back(phase_json(phase, nullptr));
  out["phases"] = phases;
  out["whole_trace"] = phase_json(file.whole_trace, "all");
  ordered_json points;
  points["prefill"] = points_json(file.prefill_points);
  points["decode"] = points_json(file.decode_points);
  out["context_points"] = points;
  ordered_json steps = ordered_json::array();
  for (const StepResult& step : file.steps) steps.push_back(step_json(step));
  out["steps"] = steps;
  out["notes"] = warnings_json(file.notes);
  return out;
}

ordered_json aggregate_json(const ProfileResult& result) {
  ordered_json out = ordered_json::array();
  for (const PhaseSpread& spread : result.aggregate) {
    ordered_json entry;
    entry["phase"] = to_string(spread.phase);
    entry["files"] = spread.files;
    entry["steps"] = spread.steps;
    entry["denominator_ns"] = spread.share_times.denominator_ns;
    entry["shares"] = shares_json(spread.share_times.shares());
    entry["min"] = shares_json(spread.min);
    entry["max"] = shares_json(spread.max);
    out.push_back(entry);
  }
  return out;
}

ordered_json profile_tree(const ProfileResult& result) {
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["kspeed_version"] = KSPEED_VERSION;
  out["denominator"] = to_string(result.options.denominator);
  out["patterns"] = result.patterns_source;
  ordered_json files = ordered_json::array();
  for (const FileResult& file : result.files) files.push_back(file_json(file));
  out["files"] = files;
  out["aggregate"] = aggregate_json(result);
  return out;
}

void put_shares(ordered_json& record, const ordered_json& shares) {
  record["share_core"] = shares["core"];
  record["share_core_kv"] = shares["core_kv"];
  record["share_core_kv_rope"] = shares["core_kv_rope"];
}

ordered_json phase_record(const ordered_json& tree, const ordered_json& file,
                          const ordered_json& phase) {
  ordered_json record;
  record["schema_version"] = tree["schema_version"];
  for (const char* key : {"path", "format", "gpu", "engine", "rank"}) record[key] = file[key];
  record["phase"] = phase["phase"];
  record["shares_provenance"] = phase["shares_provenance"];
  record["denominator"] = tree["denominator"];
  for (const char* key :
       {"steps", "context_tokens", "generation_tokens", "kernel_count", "denominator_ns"}) {
    record[key] = phase[key];
  }
  put_shares(record, phase["shares"]);
  for (const auto& [name, ns] : phase["class_time_ns"].items()) record[name + "_ns"] = ns;
  return record;
}

// The same columns as a phase record; what has no meaning across files is null.
ordered_json aggregate_record(const ordered_json& tree, const ordered_json& spread,
                              const ordered_json& like) {
  ordered_json record;
  for (const auto& [key, value] : like.items()) record[key] = nullptr;
  record["schema_version"] = tree["schema_version"];
  record["path"] = "aggregate";
  record["phase"] = spread["phase"];
  record["shares_provenance"] = to_string(engine::Provenance::measured);
  record["denominator"] = tree["denominator"];
  record["steps"] = spread["steps"];
  record["denominator_ns"] = spread["denominator_ns"];
  put_shares(record, spread["shares"]);
  return record;
}

}  // namespace

Document profile_document(const ProfileResult& result) {
  Document document;
  document.tree = profile_tree(result);
  const ordered_json& tree = document.tree;
  for (const auto& file : tree["files"]) {
    for (const auto& phase : file["phases"]) {
      document.records.push_back(phase_record(tree, file, phase));
    }
    document.records.push_back(phase_record(tree, file, file["whole_trace"]));
  }
  for (const auto& spread : tree["aggregate"]) {
    document.records.push_back(aggregate_record(tree, spread, document.records.front()));
  }
  return document;
}

}  // namespace kspeed::report
