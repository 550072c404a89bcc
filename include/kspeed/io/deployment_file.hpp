#pragma once
// The deployment file `kspeed calibrate` writes and `--deployment FILE` reads back
// (docs/json-format.md, docs/schema/deployment.schema.json): the deployment (model, GPU, tensor
// parallelism, precision, KV cache type, each with where it came from), the fitted step model
// (each coefficient with its provenance and source), the runs it was fitted to, and the residual
// of every point.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/deployment/step_calibration.hpp"

namespace kspeed::io {

/// One setting of the deployment and where it came from ("flag --tp", "default", "file").
struct DeploymentSetting {
  /// model, gpu, tp, ep, precision, kv_dtype; and, when the fit replayed load levels, the
  /// scheduler it replayed: max_seqs, max_batched_tokens, chunked_prefill, scheduler
  std::string key;
  std::string value;
  std::string source;
};

/// One run the step model was fitted to.
struct CalibrationRun {
  std::string file;
  std::string format;
  double concurrency = 1;
  std::int64_t ttft_points = 0;
  std::int64_t tpot_points = 0;
  std::string tpot_from;  ///< where the per-token times came from, with counts; empty: none
  std::string ttft_note;  ///< TTFTs left out (queued), empty when none
  /// The load level of a multi-level run the fit used (one entry a level), its statistics
  /// standing as one TTFT and one TPOT point; empty for a per-request log.
  std::string level;
  std::string warmup_note;  ///< requests left out as the server's warm-up, empty when none
};

/// How a calibration on measured load levels was fitted: through the batching replay
/// (engine/serving/replay_validation.hpp) of the levels named, under the engine settings named.
struct ReplayFitRecord {
  std::string run;                      ///< the run (its file or folder), or "typed levels"
  std::vector<std::string> fit_levels;  ///< the levels fitted, lightest first
  std::int64_t levels_in_run = 0;
  std::int64_t replays = 0;           ///< replays the fit took
  std::vector<std::string> settings;  ///< the replay's engine settings, each with its source
  std::vector<std::string> load;      ///< how each level's load was rebuilt
  std::vector<std::string> notes;     ///< a term the levels could not identify, a bound hit
};

struct DeploymentFile {
  static constexpr int kFormatVersion = 1;
  std::string source;  ///< the file read, for messages and headlines
  std::vector<DeploymentSetting> settings;
  engine::CalibratedStepModel step;
  /// For people: each run's TTFT and TPOT point counts and where the per-token times came from.
  std::string calibration_points;
  std::vector<CalibrationRun> runs;
  /// The calibration run's typical request, for an estimate that gives none.
  std::int64_t typical_prompt_tokens = 0;
  std::int64_t typical_response_tokens = 0;
  double concurrency = 1;
  /// Present when the step model was fitted through the replay on load levels.
  std::optional<ReplayFitRecord> replay_fit;

  /// The setting's value, empty when the file has none.
  std::string setting(std::string_view key) const;
};

/// The file as JSON text (stable key order, full precision, ending with a newline).
std::string deployment_to_json_text(const DeploymentFile& file);

/// Reads a deployment file; throws InputError naming the file and the field for anything it does
/// not expect (unknown keys with did-you-mean, a missing coefficient, a negative value).
DeploymentFile read_deployment_file(const std::string& path);
DeploymentFile parse_deployment_file(std::string_view text, const std::string& source);

}  // namespace kspeed::io
