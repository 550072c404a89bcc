// `kspeed sweep` for programs (docs/json-format.md, docs/schema/sweep*.json): one flat record per
// point with fixed columns — the same keys, in the same order, for every row and every run
// (null where a value does not apply), so a CSV has one header and a dashboard fixed fields.
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::SweepRow;

template <class T>
void put_optional(ordered_json& out, const std::string& name,
                  const std::optional<engine::WithProvenance<T>>& value) {
  put_with_provenance(out, name, value);
}

// "Less time", which is not "faster": 1.72× faster is 41.9% less time, 1 − 1/1.72.
double latency_reduction_pct(double speedup) {
  return (1 - 1 / speedup) * 100;
}

// TPOT after the change: modelled when decode is targeted, else unchanged (TPOT itself).
double tpot_after(const SweepRow& row) {
  return row.tpot_after_ms ? row.tpot_after_ms->value : row.tpot_ms.value;
}

ordered_json sweep_record(const engine::Sweep& sweep, const SweepRow& row) {
  const engine::EstimateResult& r = row.result;
  ordered_json out;
  out["schema_version"] = kSchemaVersion;
  out["workload_name"] = sweep.workload.name;
  out["phase"] = to_string(sweep.phase);
  put_with_provenance(out, "prompt_tokens", row.prompt_tokens.value, row.prompt_tokens.provenance);
  put_with_provenance(out, "response_tokens", row.response_tokens.value,
                      row.response_tokens.provenance);
  out["batch"] = or_null(row.batch);
  put_optional(out, "kernel_speedup", row.kernel_speedup);
  out["compute_speedup"] = or_null(row.compute_speedup);
  out["bytes_reduction"] = or_null(row.bytes_reduction);
  put_with_provenance(out, "prefill_share", row.prefill_share.value, row.prefill_share.provenance);
  put_optional(out, "decode_share", row.decode_share);
  put_with_provenance(out, "ttft_ms", row.ttft_ms.value, row.ttft_ms.provenance);
  put_with_provenance(out, "tpot_ms", row.tpot_ms.value, row.tpot_ms.provenance);
  out["prefill_attention_speedup"] = r.prefill.attention.speedup;
  out["prefill_speedup"] = r.prefill.phase.speedup;
  out["prefill_ceiling"] = or_null(r.prefill.phase.ceiling);
  // TTFT = prefill's GPU time + T0 (fitted or given): its own level when T0 > 0, else null
  out["ttft_fixed_ms"] = r.ttft
                             ? ordered_json(r.ttft->time_before_ms - r.prefill.phase.time_before_ms)
                             : ordered_json();
  out["ttft_speedup"] = r.ttft ? ordered_json(r.ttft->speedup) : ordered_json();
  out["ttft_after_ms"] = r.ttft ? r.ttft->time_after_ms : r.prefill.phase.time_after_ms;
  out["decode_speedup"] = r.decode.phase.speedup;
  out["decode_ceiling"] = or_null(r.decode.phase.ceiling);
  out["tpot_after_ms"] = tpot_after(row);
  out["request_speedup"] = r.request.speedup;
  out["request_ceiling"] = or_null(r.request.ceiling);
  out["e2e_before_ms"] = r.request.time_before_ms;
  out["e2e_after_ms"] = r.request.time_after_ms;
  out["latency_reduction_pct"] = latency_reduction_pct(r.request.speedup);
  out["improvement_pct"] = r.improvement_pct;
  out["warnings"] = joined(warnings_json(row.warnings), "code");
  return out;
}

}  // namespace

Document sweep_document(const engine::Sweep& sweep, SweepParts parts) {
  Document document;
  std::vector<ordered_json> records;
  records.reserve(sweep.rows.size());
  for (const SweepRow& row : sweep.rows) {
    records.push_back(sweep_record(sweep, row));
  }
  if (parts == SweepParts::records) {
    document.records = std::move(records);
    return document;
  }
  ordered_json& tree = document.tree;
  tree["schema_version"] = kSchemaVersion;
  tree["kspeed_version"] = KSPEED_VERSION;
  tree["command"] = "sweep";
  tree["workload"] = {{"name", sweep.workload.name}, {"citation", sweep.workload.source}};
  tree["phase"] = to_string(sweep.phase);
  tree["swept"] = sweep.swept;
  if (parts == SweepParts::tree) {
    // A 100,000-point sweep's rows are moved, not copied, when only the tree is wanted.
    tree["rows"] = ordered_json(std::move(records));
  } else {
    tree["rows"] = records;
    document.records = std::move(records);
  }
  return document;
}

Document sweep_document(const engine::Sweep& sweep) {
  return sweep_document(sweep, SweepParts::both);
}

}  // namespace kspeed::report
