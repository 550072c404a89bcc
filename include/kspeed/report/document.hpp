#pragma once
// The machine-readable side of a report: one serializer per command (estimate_document, ...)
// fills a Document over the result's fields; the json, csv and jsonl writers print any Document.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kspeed/engine/provenance.hpp"

namespace kspeed::engine {
struct CalibratedStepModel;
}

namespace kspeed::report {

using nlohmann::ordered_json;

/// The JSON schema version of every command's output (docs/json-format.md, "changes from 1").
/// Bumped only when a field changes meaning or disappears; new fields do not bump it.
inline constexpr int kSchemaVersion = 4;

struct Document {
  ordered_json tree;                  ///< --format json: the whole result, nested
  std::vector<ordered_json> records;  ///< --format csv and jsonl: flat rows with the same keys
};

/// A value and how it was obtained, written once: `name` and `name_provenance`.
template <class T>
void put_with_provenance(ordered_json& out, const std::string& name, const T& value,
                         engine::Provenance provenance) {
  out[name] = value;
  out[name + "_provenance"] = engine::to_string(provenance);
}

/// An optional value: null and "none" when absent.
template <class T>
void put_with_provenance(ordered_json& out, const std::string& name,
                         const std::optional<engine::WithProvenance<T>>& value) {
  out[name] = value ? ordered_json(value->value) : ordered_json(nullptr);
  out[name + "_provenance"] = value ? std::string(engine::to_string(value->provenance)) : "none";
}

/// An optional value as itself or null.
template <class T>
ordered_json or_null(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

/// Every scalar of `object` into `record`, nested objects flattened with '_' (a.b -> prefix_a_b);
/// arrays are left to the caller.
void flatten_into(ordered_json& record, const std::string& prefix, const ordered_json& object);

/// "a;b;c" from an array of strings (or of objects, taking `key` from each).
std::string joined(const ordered_json& array, const char* key = nullptr);

/// The deployment's step model (docs/json-format.md, "deployment"): its calibration and source,
/// each coefficient with its provenance and source, the residual of every calibration point, and
/// `inputs`, the answer's inputs it supplied.
ordered_json deployment_json(const engine::CalibratedStepModel& model,
                             const std::vector<std::string>& inputs);

}  // namespace kspeed::report
