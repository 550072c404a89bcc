#include "kspeed/profile/workload.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace kspeed::profile {

namespace {

std::vector<engine::SharePoint> merged_points(const ProfileResult& result, Phase phase,
                                              ShareScope scope,
                                              std::vector<engine::Warning>& notes) {
  std::map<double, ShareTimes> by_context;
  for (const FileResult& file : result.files) {
    for (const ContextPoint& point :
         phase == Phase::prefill ? file.prefill_points : file.decode_points) {
      by_context[point.context_tokens].add(point.share_times);
    }
  }
  std::vector<engine::SharePoint> table;
  const auto scope_index = static_cast<std::size_t>(scope);
  for (const auto& [context, times] : by_context) {
    if (times.denominator_ns <= 0) continue;
    const double share = static_cast<double>(times.scope_ns[scope_index]) /
                         static_cast<double>(times.denominator_ns);
    if (share <= 0 || share >= 1) {
      engine::Warning note;
      note.code = engine::WarningCode::share_point_left_out;
      note.phase = phase;
      note.input = std::string(to_string(phase)) + "_share_table";
      note.numbers = {{"context_tokens", context}, {"share", share}};
      notes.push_back(std::move(note));
      continue;
    }
    table.push_back({context, share});
  }
  return table;
}

std::string joined_sources(const ProfileResult& result) {
  std::string out;
  for (const FileResult& file : result.files) {
    out += (out.empty() ? "" : ", ") + std::filesystem::path(file.source).filename().string();
  }
  return out;
}

void add_conditions(const ProfileResult& result, engine::Workload& workload) {
  std::set<std::string> gpus, engines;
  for (const FileResult& file : result.files) {
    if (!file.info.gpu.empty()) gpus.insert(file.info.gpu);
    if (!file.engine.empty()) engines.insert(file.engine);
  }
  auto joined = [](const std::set<std::string>& values) {
    std::string out;
    for (const auto& value : values) out += (out.empty() ? "" : ", ") + value;
    return out;
  };
  if (!gpus.empty()) workload.conditions.emplace_back("hardware", joined(gpus));
  if (!engines.empty()) workload.conditions.emplace_back("engine", joined(engines));
  // Worded by the caller (report::token_counts_condition): the contexts as text.
  workload.conditions.emplace_back("token_counts", "");
  workload.conditions.emplace_back(
      "metric_definitions",
      "attention share = attention kernel time / " +
          std::string(to_string(result.options.denominator)) +
          " of the phase's steps, time-weighted over steps (kspeed profile, measured)");
}

}  // namespace

EmittedWorkload workload_from_profile(const ProfileResult& result, ShareScope scope) {
  EmittedWorkload out;
  engine::Workload& workload = out.workload;
  const std::string files = joined_sources(result);
  workload.name = "profile";
  workload.share_origin = engine::Provenance::measured;
  if (result.files.size() == 1) {
    std::string stem = std::filesystem::path(result.files.front().source).filename().string();
    for (const char* suffix : {".gz", ".json", ".trace", ".pt", ".sqlite", ".csv"}) {
      if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
    }
    workload.name = stem;
  }
  workload.description = "Attention shares (" + std::string(to_string(scope)) +
                         ") measured by kspeed profile from " + files;
  workload.source = "measured: kspeed profile " + std::string(KSPEED_VERSION) + " from " + files +
                    "; share = " + std::string(to_string(scope)) + " attention kernel time / " +
                    std::string(to_string(result.options.denominator)) +
                    ", time-weighted over the steps at each context";
  workload.prefill_shares = merged_points(result, Phase::prefill, scope, out.notes);
  workload.decode_shares = merged_points(result, Phase::decode, scope, out.notes);
  add_conditions(result, workload);
  return out;
}

}  // namespace kspeed::profile
